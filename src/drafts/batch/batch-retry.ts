import type { Oid } from '../../git/format/git-objects.js';
import { parseTrailers } from '../commit-message.js';
import { opPath, type BatchInput, type OpResult } from './ops.js';
import type { BatchResult } from './batch-result.js';
import type { Draft } from '../drafts.js';
import type { Workspace } from '../workspace.js';

/**
 * A batch sent again, and a batch that lost the race for its draft's ref
 * (batch.ts): how each is recognised and answered, and how the second
 * tries again.
 */

/**
 * A batch that keeps losing the race for its draft's ref gives up (BUSY)
 * once it has made this many attempts and tried for `shadow.lockTimeout`,
 * or after HARD_MAX_ATTEMPTS at the most: under heavy contention a count
 * alone gave up within a second while the others were still landing.
 */
export const MAX_ATTEMPTS = 25;
export const HARD_MAX_ATTEMPTS = 1000;
/** The longest pause between two attempts of a batch (ms). */
const MAX_RETRY_PAUSE_MS = 50;

/** A pause before attempt `attempt + 1`: random (from `token`, hex) up to 2^attempt ms, at most MAX_RETRY_PAUSE_MS. */
export function retryPause(attempt: number, token: string): number {
  const u = parseInt(token.slice(0, 4), 16) / 0xffff;
  return Math.floor(u * Math.min(2 ** attempt, MAX_RETRY_PAUSE_MS));
}

/**
 * True when the draft's tip is the commit this very batch made: it was sent
 * again (its answer lost, a client's retry) and is in place. Only the tip
 * counts: a batch after another one is a new request, judged on what it
 * finds, and so is one after a rollback past it. The same holds on each
 * attempt of the race loop: a batch that lost the race to another writer's
 * commit of the same operations (a duplicate sent concurrently) is that
 * commit; one that lost to any other commit is resolved on top of it.
 */
export function isRetryOf(draft: Draft, tipMessage: string, fingerprint: string): boolean {
  if (draft.tip === draft.meta.root) return false;
  const t = parseTrailers(tipMessage);
  return t.ops === fingerprint && t.draft === draft.name && t.batch !== undefined;
}

/** The answer to a batch sent again: every op already applied, no commit. */
export function alreadyApplied(draft: Draft, input: BatchInput): BatchResult {
  const results: OpResult[] = input.operations.map((op) => {
    const r: OpResult = { operation: op.operation, path: opPath(op), success: true, status: 'already_applied' };
    if (op.operation === 'rename') r.to = op.to;
    return r;
  });
  return { success: true, results, commit: draft.tip, batch: null, draft: draft.name, unchanged: true };
}

/**
 * The answer to a request sent again under its id: the commit and batch the
 * first one made, every op already applied, nothing committed. Found
 * wherever that batch is on the draft's history, across processes and
 * restarts (the id is in the commit's trailer; draft.json only caches it).
 */
export function replayed(ws: Workspace, draft: Draft, input: BatchInput, commit: Oid): BatchResult {
  const first = alreadyApplied(draft, input);
  const batch = parseTrailers(ws.repo.objects.readCommit(commit).message).batch ?? null;
  return { ...first, commit, batch, request_id: input.request_id! };
}
