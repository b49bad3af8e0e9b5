import type { ErrorCode } from '../src/index.js';

/** Exit statuses, in one place: 0 ok, 1 error, 2 usage, 3 approvals pending. */
export const EXIT = { ok: 0, error: 1, usage: 2, approvals: 3 } as const;

/** The exit status for an error code. */
export function exitStatusFor(code: ErrorCode | string): number {
  return code === 'USAGE' ? EXIT.usage : EXIT.error;
}
