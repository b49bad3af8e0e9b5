/**
 * `shadow draft new <name> --from <remote>/<draft>`: a local draft that
 * continues one fetched from a remote. It starts at the fetched tip with
 * everything the draft is at its source: its root and bases (as the
 * snapshot holds them), its checkpoints, its proposal, and its ledger, whose
 * hash chain goes on here from the fetched bytes (the import is its next
 * event), so denies made there hold here too, and approvals made there
 * when signed by a key this repository allows (review/approval-trust.ts).
 */
import { ShadowError } from '../errors.js';
import { splitRemoteDraft } from '../core/remote-draft-name.js';
import { waitForProcessLock } from '../durable/process-lock.js';
import { readTextIfExists, writeFileAtomic } from '../durable/durable-file.js';
import { RefMoved } from '../git/refs.js';
import { draftDir, writeDraftMeta, type DraftMeta } from '../state/draft-meta.js';
import { checkpointRef, checkpointsPrefix, draftRef, metaRef, proposalRef } from './ref-names.js';
import { clearDraftRemains, hasDraftRemains } from './draft-remains.js';
import { requireDraft, type Draft } from './drafts.js';
import { logEvent } from './ledger-events.js';
import type { Workspace } from './workspace.js';

/** Whether `from` names a fetched remote draft (`origin/refactor` with its tracking ref here). */
export function isFetchedDraft(ws: Workspace, from: string | undefined): from is string {
  return (
    from !== undefined && splitRemoteDraft(from) !== undefined && ws.repo.refs.resolve(draftRef(from)) !== undefined
  );
}

/** Make local draft `name` from fetched draft `from`. */
export async function importRemoteDraft(ws: Workspace, name: string, from: string, actor: string): Promise<Draft> {
  const repo = ws.repo;
  const source = requireDraft(ws, from);
  const exists = (): ShadowError =>
    new ShadowError('DRAFT_EXISTS', `draft "${name}" already exists`, {
      hint: `pick another name, or drop it first with \`shadow draft drop ${name}\``,
      data: { draft: name },
    });
  if (repo.refs.resolve(draftRef(name)) !== undefined) throw exists();
  const turn = await waitForProcessLock(ws.ctx, `${repo.shadowDir}/create.lock`, 'draft creation', repo.lockTimeoutMs);
  try {
    if (repo.refs.resolve(draftRef(name)) !== undefined) throw exists();
    if (hasDraftRemains(ws, name)) await clearDraftRemains(ws, name);
    const meta: DraftMeta = {
      ...source.meta,
      name,
      worktree: repo.layout.worktree === null ? null : repo.layout.gitdir,
      bases: source.bases,
      bases_tip: source.tip,
      from,
    };
    // The ledger and the proposal first, then the metadata, then the refs: a ref never exists without what it stands on.
    const dir = draftDir(repo.shadowDir, name);
    for (const file of ['events.jsonl', 'proposal.json']) {
      const text = readTextIfExists(ws.ctx.fs, `${draftDir(repo.shadowDir, from)}/${file}`);
      if (text !== undefined)
        writeFileAtomic(ws.ctx.fs, `${dir}/${file}`, text, { token: ws.ctx.ids.token(), durable: true });
    }
    writeDraftMeta(ws.ctx, repo.shadowDir, meta, true);
    const who = repo.committer();
    const prefix = checkpointsPrefix(from);
    for (const c of repo.refs.list(prefix)) {
      await repo.refs.update({
        ref: checkpointRef(name, c.ref.slice(prefix.length)),
        expected: undefined,
        next: c.oid,
        message: `shadow: draft new ${name} from ${from}`,
        who,
        reflog: false,
      });
    }
    // The snapshots go on from the fetched one: the next push here is a fast-forward of it.
    const snapshot = repo.refs.resolve(metaRef(from));
    if (snapshot !== undefined)
      await repo.refs.update({
        ref: metaRef(name),
        expected: undefined,
        next: snapshot,
        message: `shadow: draft new ${name} from ${from}`,
        who,
      });
    const proposal = repo.refs.resolve(proposalRef(from));
    if (proposal !== undefined)
      await repo.refs.update({
        ref: proposalRef(name),
        expected: undefined,
        next: proposal,
        message: `shadow: draft new ${name} from ${from}`,
        who,
      });
    try {
      await repo.refs.update({
        ref: draftRef(name),
        expected: null,
        next: source.tip,
        message: `shadow: draft new ${name} from ${from}`,
        who,
      });
    } catch (e) {
      if (e instanceof RefMoved) throw exists();
      throw e;
    }
  } finally {
    turn.release();
  }
  ws.drafts.delete(name);
  await logEvent(ws, name, 'draft/import', actor, { from, tip: source.tip, root: source.meta.root });
  return requireDraft(ws, name);
}
