import { checkpointsPrefix, draftRef, proposalRef } from '../core/ref-names.js';
import { discardDir } from '../store/discard-dir.js';
import { draftDir } from '../store/draft-meta.js';
import type { Workspace } from './workspace.js';

function logOf(ws: Workspace, ref: string): string {
  return `${ws.repo.layout.commondir}/logs/${ref}`;
}

/**
 * A draft is its ref: everything else of it (checkpoints, proposal, reflog,
 * `shadow/drafts/<draft>/` with its apply records, ledger and caches) belongs
 * to the ref while it exists. Once the ref is gone (a purge deleted it, and a
 * crash stopped the purge there; or plain git deleted it), what is left is
 * remains: removed by the purge, and by the creation of a draft of the same
 * name before it writes anything, so that a new draft never inherits an
 * apply record (its `unapply` would put back what the old draft published)
 * or a checkpoint.
 */
export async function clearDraftRemains(ws: Workspace, name: string): Promise<void> {
  const repo = ws.repo;
  if (repo.refs.resolve(draftRef(name)) !== undefined) return; // a draft, not remains
  for (const cp of repo.refs.list(checkpointsPrefix(name))) await repo.refs.delete(cp.ref, cp.oid);
  // A crash between a ref's deletion and its log's leaves the log.
  if (repo.refs.resolve(proposalRef(name)) !== undefined || ws.ctx.fs.existsSync(logOf(ws, proposalRef(name)))) {
    await repo.refs.delete(proposalRef(name), undefined);
  }
  if (ws.ctx.fs.existsSync(logOf(ws, draftRef(name)))) await repo.refs.delete(draftRef(name), null);
  discardDir(ws.ctx, repo.shadowDir, draftDir(repo.shadowDir, name));
  ws.metaCache.delete(name);
  ws.metaLag.delete(name);
  ws.appliedMemo.delete(name);
}

/** Whether a draft that has no ref left anything behind (see clearDraftRemains). */
export function hasDraftRemains(ws: Workspace, name: string): boolean {
  const repo = ws.repo;
  const fs = ws.ctx.fs;
  const exists = (path: string): boolean => fs.existsSync(path);
  return (
    exists(draftDir(repo.shadowDir, name)) ||
    exists(logOf(ws, draftRef(name))) ||
    exists(logOf(ws, proposalRef(name))) ||
    repo.refs.resolve(proposalRef(name)) !== undefined ||
    repo.refs.list(checkpointsPrefix(name)).length > 0
  );
}
