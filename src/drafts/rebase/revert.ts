import { ShadowError } from '../../errors.js';
import { hashObject, serializeCommit, type Oid } from '../../git/format/git-objects.js';
import { diffTrees } from '../../git/format/tree-diff.js';
import { lookupPath, type FileEntry } from '../../git/format/tree-lookup.js';
import { editTree } from '../../git/format/tree-edit.js';
import type { PackObject } from '../../git/format/pack-writer.js';
import { oneLine, parseTrailers, summaryOf, trailerBlock } from '../commit-message.js';
import { conflictLines } from '../conflict-lines.js';
import { mergeEntries, type ConflictReason } from './entry-merge.js';
import { sameEntry } from '../publish-set/publish-set.js';
import { checkWorktree, keepDraftMeta, requireDraft, type Draft } from '../drafts.js';
import { isOnHistory } from '../history.js';
import { resolveTarget } from '../history/checkpoints.js';
import { logEvent } from '../ledger-events.js';
import { landOnDraft, nextBatchNumber } from './draft-commit.js';
import { StagedObjects } from '../batch/staged-objects.js';
import type { Workspace } from '../workspace.js';

/**
 * `shadow revert <batch>…`: a new batch on the draft that undoes the named
 * batches' changes and keeps every later one, as `git revert` and `jj
 * revert` do: for each path a batch changed, base = what the batch made,
 * ours = the draft's tip, theirs = what the batch found, merged three-way
 * (entry-merge.ts). Batches are undone newest first, each on the result of
 * the one before. A path that does not merge becomes a conflict of the
 * draft, as after a rebase (conflict-lines.ts): git's markers for an
 * overlap, the draft's version otherwise, until a batch resolves it.
 */

export interface RevertOptions {
  actor: string;
}

export interface RevertResult {
  draft: string;
  /** The batches undone, newest first. */
  reverted: number[];
  /** The tip before, and the revert commit (the same when nothing changed). */
  from: Oid;
  tip: Oid;
  batch: number | null;
  paths: Array<{ path: string; status: 'reverted' | 'merged' | 'conflict'; reason?: ConflictReason }>;
  conflicts: Array<{ path: string; reason: ConflictReason }>;
  /** True when the draft already holds none of those batches' changes. */
  unchanged: boolean;
}

const entryAt = (staged: StagedObjects, tree: Oid, path: string): FileEntry | null => {
  const k = lookupPath(staged, tree, path);
  return k.kind === 'file' ? { mode: k.mode, oid: k.oid } : null;
};

/** The batch commits `specs` name, newest first; each must be a batch of the draft's history, not a rebase. */
function batchCommits(ws: Workspace, draft: Draft, specs: readonly string[]): Array<{ oid: Oid; batch: number }> {
  const out = new Map<Oid, number>();
  for (const spec of specs) {
    const { commit } = resolveTarget(ws, draft, spec, 'revert');
    const t = parseTrailers(ws.repo.objects.readCommit(commit).message);
    const bad = (why: string): ShadowError =>
      new ShadowError('INVALID_TARGET', `cannot revert "${spec}": ${why}`, {
        hint: 'name batches of the draft: their numbers (`shadow log`), ~N or commits',
        data: { target: spec },
      });
    if (t.batch === undefined || t.draft !== draft.name) throw bad('it is not a batch of this draft');
    if (t.rebase !== undefined)
      throw bad('it is a rebase: `shadow undo` or `shadow rollback` moves the draft back over it');
    if (!isOnHistory(ws.repo, draft.tip, commit, draft.meta.root))
      throw bad("it is not on the draft's history (rolled back?)");
    out.set(commit, t.batch);
  }
  return [...out].map(([oid, batch]) => ({ oid, batch })).sort((a, b) => b.batch - a.batch);
}

/** Revert batches of a draft (see the top of this file). */
export async function revertBatches(
  ws: Workspace,
  draftName: string,
  specs: readonly string[],
  options: RevertOptions,
): Promise<RevertResult> {
  const repo = ws.repo;
  if (specs.length === 0)
    throw new ShadowError('INVALID_ARGUMENT', 'name at least one batch to revert', { hint: 'shadow revert 3' });
  let draft = requireDraft(ws, draftName);
  checkWorktree(ws, draft, 'shadow revert');
  for (let attempt = 1; ; attempt++) {
    const batches = batchCommits(ws, draft, specs);
    const staged = new StagedObjects(repo.objects);
    const read = (oid: Oid): Buffer => staged.readBlob(oid);
    const tipTree = repo.objects.readCommit(draft.tip).tree;
    let tree = tipTree;
    const conflicts = new Map<string, ConflictReason>();
    const reported = new Map<string, RevertResult['paths'][number]>();
    for (const b of batches) {
      const c = repo.objects.readCommit(b.oid);
      const before = repo.objects.readCommit(c.parents[0]!).tree;
      const changes = new Map<string, FileEntry | null>();
      for (const ch of diffTrees(repo.objects, before, c.tree)) {
        const ours = entryAt(staged, tree, ch.path);
        const m = mergeEntries(ch.new, ours, ch.old, read, {
          trustExec: true,
          labels: { ours: `draft ${draftName}`, theirs: `before batch ${b.batch}` },
          markers: true,
        });
        if (m.result && m.content) staged.blobs.set(m.result.oid, m.content);
        const result = m.result !== undefined ? m.result : ours;
        changes.set(ch.path, result);
        if (m.status === 'conflict') {
          conflicts.set(ch.path, m.reason!);
          reported.set(ch.path, { path: ch.path, status: 'conflict', reason: m.reason! });
        } else if (!reported.has(ch.path)) {
          reported.set(ch.path, { path: ch.path, status: sameEntry(ours, ch.new) ? 'reverted' : 'merged' });
        }
      }
      const edited = editTree(staged, tree, changes);
      staged.addTrees(edited.trees);
      tree = edited.root;
    }
    const result: RevertResult = {
      draft: draftName,
      reverted: batches.map((b) => b.batch),
      from: draft.tip,
      tip: draft.tip,
      batch: null,
      paths: [...reported.values()].sort((a, b) => (a.path < b.path ? -1 : 1)),
      conflicts: [...conflicts].map(([path, reason]) => ({ path, reason })),
      unchanged: tree === tipTree && conflicts.size === 0,
    };
    if (result.unchanged) return result;
    const batch = nextBatchNumber(ws, draft);
    const subjects = batches
      .map((b) => `batch ${b.batch} (${oneLine(summaryOf(repo.objects.readCommit(b.oid).message), 60)})`)
      .join(', ');
    const lines = result.paths
      .filter((p) => p.status !== 'conflict')
      .map((p) => `${p.status}\t${p.path.replace(/[\t\n]/g, ' ')}`);
    const body = [lines.slice(0, 1000).join('\n'), conflictLines(conflicts).join('\n')]
      .filter((s) => s.length > 0)
      .join('\n\n');
    const message = `revert ${subjects}\n\n${body ? `${body}\n\n` : ''}${trailerBlock({ draft: draftName, batch, actor: options.actor })}\n`;
    const objects: PackObject[] = [];
    for (const [oid, content] of staged.blobs) if (!repo.objects.has(oid)) objects.push({ oid, type: 'blob', content });
    for (const t of staged.trees.values()) objects.push({ oid: t.oid, type: 'tree', content: t.content });
    const content = serializeCommit({
      tree,
      parents: [draft.tip],
      author: repo.actorSignature(options.actor),
      committer: repo.committer(),
      message,
    });
    const oid = hashObject('commit', content);
    objects.push({ oid, type: 'commit', content });
    if (
      !(await landOnDraft(
        ws,
        draft,
        objects,
        oid,
        `revert ${batches.map((b) => b.batch).join(', ')}`,
        'revert',
        attempt,
      ))
    ) {
      draft = requireDraft(ws, draftName);
      continue;
    }
    result.tip = oid;
    result.batch = batch;
    keepDraftMeta(ws, requireDraft(ws, draftName).meta, Infinity);
    await logEvent(ws, draftName, 'revert', options.actor, {
      from: draft.tip,
      to: oid,
      batch,
      reverted: result.reverted,
      paths: result.paths,
    });
    return result;
  }
}
