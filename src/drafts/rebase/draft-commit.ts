import { ShadowError } from '../../errors.js';
import type { Oid } from '../../git/format/git-objects.js';
import type { PackObject } from '../../git/format/pack-writer.js';
import { RefMoved } from '../../git/refs.js';
import { parseTrailers } from '../commit-message.js';
import { draftRef } from '../ref-names.js';
import type { Draft } from '../drafts.js';
import type { Workspace } from '../workspace.js';

/**
 * One commit a whole-draft operation (rebase, revert) puts on a draft: its
 * batch number, and the move of the ref, as a batch moves it: the objects
 * durable first, then compare-and-swap from the tip the commit was made on.
 */

/** The next batch number of a draft (numbers are never given twice, even after a rollback). */
export function nextBatchNumber(ws: Workspace, draft: Draft): number {
  const t = parseTrailers(ws.repo.objects.readCommit(draft.tip).message);
  return Math.max(draft.meta.high_batch, t.batch ?? 0, t.capture ?? 0) + 1;
}

/**
 * Write `objects` (the commit among them) and move the draft from its tip
 * to `commit`. False when another writer moved it first: the caller makes
 * its commit again on the new tip, up to `attempt` MAX_ATTEMPTS times.
 */
export async function landOnDraft(
  ws: Workspace,
  draft: Draft,
  objects: readonly PackObject[],
  commit: Oid,
  reflog: string,
  what: string,
  attempt: number,
): Promise<boolean> {
  const repo = ws.repo;
  const pack = repo.objects.write(objects);
  try {
    await repo.refs.update({
      ref: draftRef(draft.name),
      expected: draft.tip,
      next: commit,
      message: `shadow: ${reflog}`,
      who: repo.committer(),
    });
    return true;
  } catch (e) {
    if (!(e instanceof RefMoved)) throw e;
    if (attempt >= MAX_ATTEMPTS) {
      throw new ShadowError('BUSY', `draft "${draft.name}" kept moving under ${attempt} attempts of the ${what}`, {
        hint: 'retry when its writers pause',
        data: { draft: draft.name, attempts: attempt },
      });
    }
    return false;
  } finally {
    repo.objects.releaseKeep(pack);
  }
}

/** How many times a whole-draft operation is made again on a draft that keeps moving. */
export const MAX_ATTEMPTS = 5;
