import type { ErrorCode } from '../src/index.js';

/**
 * Exit statuses, in one place: 0 ok, 1 error, 2 usage, 3 approvals
 * pending; 1 also for `shadow diff --exit-code` (or `--quiet`) that found
 * a change, as git diff's (an error then writes its message, a change
 * nothing on standard error).
 */
export const EXIT = { ok: 0, error: 1, usage: 2, approvals: 3, differences: 1 } as const;

/** The exit status for an error code. */
export function exitStatusFor(code: ErrorCode | string): number {
  return code === 'USAGE' ? EXIT.usage : EXIT.error;
}
