/**
 * What binds a decision to the draft that was seen: the draft's review
 * fingerprint (`review:<sha256>`), which `shadow review` prints and
 * `apply`, `approve` and `deny` take as `expect`, as a saved plan binds an
 * apply to what was planned.
 *
 * It hashes the draft's tip commit and its whole publish set (each path
 * with its base and its new entry, modes and blob ids). So it changes
 * whenever what apply would write changes (a batch, a rollback, a rebase,
 * an apply that moved the bases), and whenever the commits `apply --commit`
 * would put on the branch change (a new tip, even one whose net diff is the
 * same). It does not cover the approvals (apply checks them itself, each
 * bound to the diff's `patchset:` fingerprint) nor the working tree (apply
 * merges with or refuses what the person changed there). A partial apply
 * (`apply <paths>`) is checked against the whole draft, as review showed
 * it: a change anywhere in the draft asks for a new review.
 */
import { createHash } from 'node:crypto';
import { ShadowError } from '../errors.js';
import { draftPublishSet } from '../drafts/publish-set/draft-publish-set.js';
import type { Draft } from '../drafts/drafts.js';
import type { Workspace } from '../drafts/workspace.js';

const PREFIX = 'review:';

/** The review fingerprint of the draft as loaded: its tip and its publish set. */
export function reviewFingerprint(ws: Workspace, draft: Draft): string {
  const h = createHash('sha256').update(`shadow review 1\0${draft.tip}\n`);
  for (const e of draftPublishSet(ws, draft))
    h.update(`${e.path}\0${e.old?.mode ?? ''} ${e.old?.oid ?? ''}\0${e.new?.mode ?? ''} ${e.new?.oid ?? ''}\n`);
  return `${PREFIX}${h.digest('hex')}`;
}

/**
 * Refuse with STALE_REVIEW, before anything is written, when `expected` (a
 * review fingerprint from `shadow review`) is not `current`, the draft's
 * own now (`reviewFingerprint`). `what` names the refused action.
 */
export function checkExpected(draft: Draft, expected: string | undefined, current: string, what: string): void {
  if (expected === undefined) return;
  if (typeof expected !== 'string' || !expected.startsWith(PREFIX)) {
    throw new ShadowError('INVALID_ARGUMENT', `expect "${expected}" is not a review fingerprint (review:<sha256>)`, {
      hint: 'take it from `shadow review` (its line `review fingerprint review:…`, or review_fingerprint in --json)',
      data: { expected },
    });
  }
  if (current === expected) return;
  throw new ShadowError(
    'STALE_REVIEW',
    `${what} refused: draft "${draft.name}" is no longer what was reviewed (it is at ${draft.tip.slice(0, 12)} now); nothing was written`,
    {
      hint: `review it again (\`shadow review --draft ${draft.name}\`), then pass the new fingerprint with --expect`,
      data: { draft: draft.name, expected, current, tip: draft.tip },
    },
  );
}
