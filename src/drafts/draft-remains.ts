import { checkpointsPrefix, draftRef, mergesRef, metaRef, proposalRef } from './ref-names.js';
import { discardDir } from '../durable/discard-dir.js';
import { listDir, tryUnlink } from '../durable/durable-file.js';
import { draftDir } from '../state/draft-meta.js';
import type { Workspace } from './workspace.js';

/** What a plan writes in its draft's directory before its first batch makes the draft (its lock, tracker, stop request, ledger). */
const PLAN_STATE = new Set(['plan.lock', 'tracker.json', 'stop', 'events.jsonl']);

function logOf(ws: Workspace, ref: string): string {
  return `${ws.repo.layout.commondir}/logs/${ref}`;
}

/**
 * A draft is its ref: everything else of it (checkpoints, proposal, merges, reflog,
 * `shadow/drafts/<draft>/` with its apply records, ledger and caches) belongs
 * to the ref while it exists. Once the ref is gone (a purge deleted it, and a
 * crash stopped the purge there; or plain git deleted it), what is left is
 * remains: removed by the purge, and by the creation of a draft of the same
 * name before it writes anything, so that a new draft never inherits an
 * apply record (its `unapply` would put back what the old draft published)
 * or a checkpoint.
 */
export async function clearDraftRemains(
  ws: Workspace,
  name: string,
  options: { keepPlanState?: boolean } = {},
): Promise<void> {
  const repo = ws.repo;
  if (repo.refs.resolve(draftRef(name)) !== undefined) return; // a draft, not remains
  for (const cp of repo.refs.list(checkpointsPrefix(name))) await repo.refs.delete(cp.ref, cp.oid);
  // A crash between a ref's deletion and its log's leaves the log.
  if (repo.refs.resolve(proposalRef(name)) !== undefined || ws.ctx.fs.existsSync(logOf(ws, proposalRef(name)))) {
    await repo.refs.delete(proposalRef(name), undefined);
  }
  const merges = repo.refs.resolve(mergesRef(name));
  if (merges !== undefined) await repo.refs.delete(mergesRef(name), merges);
  // The snapshots shadow push made of the old draft: a new draft of the name starts its own.
  const snapshot = repo.refs.resolve(metaRef(name));
  if (snapshot !== undefined || ws.ctx.fs.existsSync(logOf(ws, metaRef(name))))
    await repo.refs.delete(metaRef(name), undefined);
  if (ws.ctx.fs.existsSync(logOf(ws, draftRef(name)))) await repo.refs.delete(draftRef(name), null);
  const dir = draftDir(repo.shadowDir, name);
  if (!options.keepPlanState) discardDir(ws.ctx, repo.shadowDir, dir);
  else
    for (const entry of listDir(ws.ctx.fs, dir))
      if (!PLAN_STATE.has(entry)) discardPath(ws.ctx, repo.shadowDir, `${dir}/${entry}`);
  ws.drafts.delete(name);
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
    repo.refs.resolve(mergesRef(name)) !== undefined ||
    repo.refs.resolve(metaRef(name)) !== undefined ||
    repo.refs.list(checkpointsPrefix(name)).length > 0
  );
}

/** Remove one entry of a draft's directory: a directory through the trash, a file at once. */
function discardPath(ctx: Workspace['ctx'], shadowDir: string, path: string): void {
  if (ctx.fs.lstatSync(path).isDirectory()) discardDir(ctx, shadowDir, path);
  else tryUnlink(ctx.fs, path);
}
