import { splitRemoteDraft } from '../../core/remote-draft-name.js';
import { keepDraftMeta, type Draft } from '../drafts.js';
import { historySince, isOnHistory } from '../history.js';
import type { Workspace } from '../workspace.js';

/**
 * How many batches the draft's history holds, as `status` shows it. The
 * count is kept in the draft's metadata with the tip it was counted at
 * (`batch_count`): at that tip it is the answer, at a later tip on the same
 * history only the commits since are read, and anywhere else (a rollback, a
 * ref moved by hand) the whole history, as every `status` did before: a
 * draft of 1,000 batches then read 1,000 commits at each. A remote draft's
 * kept count is not taken (its metadata comes from the other side).
 */
export function batchCount(ws: Workspace, draft: Draft): number {
  const kept = splitRemoteDraft(draft.meta.name) ? undefined : draft.meta.batch_count;
  if (kept?.tip === draft.tip) return kept.count;
  const from = kept && isOnHistory(ws.repo, draft.tip, kept.tip, draft.meta.root) ? kept : undefined;
  const since = historySince(ws.repo, draft.tip, from?.tip ?? draft.meta.root);
  const count = (from?.count ?? 0) + since.filter((h) => h.trailers.batch !== undefined).length;
  // Kept as the metadata's other derived fields are: ahead of draft.json until it is written (drafts.ts),
  // by as much as the next reader would walk again without it, one per commit read.
  const lag = ws.drafts.lag(draft.meta.name) + Math.max(1, since.length);
  keepDraftMeta(ws, { ...draft.meta, batch_count: { tip: draft.tip, count } }, lag);
  return count;
}
