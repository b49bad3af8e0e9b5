import { ShadowError } from '../errors.js';
import {
  compareTreeEntries,
  hashObject,
  serializeCommit,
  serializeTree,
  type Oid,
  type TreeEntry,
} from '../git/format/git-objects.js';
import type { PackObject } from '../git/format/pack-writer.js';
import { mergesRef } from '../drafts/ref-names.js';
import type { PublishEntry } from '../drafts/publish-set/publish-set.js';
import type { Journal } from '../state/journal.js';
import type { PathMerge } from './merge-paths.js';
import type { PathConflict } from './path-conflict.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * What a merged apply records and keeps, beside what every apply does: the
 * journal's entries of merged paths, the blobs they name, and the refusal
 * when hunks overlap.
 */

/**
 * The journal's entries: a path the guard found as its base goes from base
 * to the draft's entry, as always; a merged path goes from what the
 * working tree holds (what unapply puts back) to the merge, and keeps the
 * draft's entry as `base` (what the path's base becomes).
 */
export function journalEntries(entries: readonly PublishEntry[], merges: readonly PathMerge[]): Journal['entries'] {
  const merged = new Map(merges.filter((m) => m.result !== undefined).map((m) => [m.path, m]));
  return entries.map((e) => {
    const m = merged.get(e.path);
    return m ? { path: e.path, old: m.worktree, new: m.result!, base: e.new } : e;
  });
}

/**
 * Write the blobs a merged apply writes and replaces (the merge, and the
 * person's content it replaces), and `more` (a hunk apply's partial
 * contents: base + the chosen hunks) durably, before the journal names them,
 * and keep them reachable: a commit whose tree holds them goes on
 * `refs/shadow/merges/<draft>` (each merged apply one commit, on the one
 * before), so that `git gc` never prunes what recovery writes or unapply
 * puts back. The ref goes with the draft when it is dropped.
 */
export async function keepMergeBlobs(
  ws: Workspace,
  draft: string,
  applyId: string,
  merges: readonly PathMerge[],
  more?: ReadonlyMap<Oid, Buffer>,
): Promise<Map<Oid, Buffer>> {
  const repo = ws.repo;
  const blobs = new Map<Oid, Buffer>(more);
  for (const m of merges) {
    if (m.result === undefined) continue;
    if (m.worktree && m.worktreeContent) blobs.set(m.worktree.oid, m.worktreeContent);
    if (m.result && m.content) blobs.set(m.result.oid, m.content);
  }
  if (blobs.size === 0) return blobs;
  const objects: PackObject[] = [];
  const entries: TreeEntry[] = [];
  for (const [oid, content] of blobs) {
    if (!repo.objects.has(oid)) objects.push({ oid, type: 'blob', content });
    entries.push({ mode: '100644', name: oid, oid });
  }
  const tree = serializeTree(entries.sort(compareTreeEntries));
  const treeOid = hashObject('tree', tree);
  const ref = mergesRef(draft);
  const previous = repo.refs.resolve(ref);
  const who = repo.committer();
  const commit = serializeCommit({
    tree: treeOid,
    parents: previous ? [previous] : [],
    author: who,
    committer: who,
    message: `shadow: what apply ${applyId} of draft ${draft} merged\n`,
  });
  const commitOid = hashObject('commit', commit);
  objects.push({ oid: treeOid, type: 'tree', content: tree }, { oid: commitOid, type: 'commit', content: commit });
  const pack = repo.objects.write(objects);
  try {
    await repo.refs.update({
      ref,
      expected: previous ?? null,
      next: commitOid,
      message: `shadow: apply ${applyId} merged`,
      who,
      reflog: false,
    });
  } finally {
    repo.objects.releaseKeep(pack);
  }
  return blobs;
}

/** CONFLICT: the person and the draft changed the same lines of some paths; nothing was written. */
export function overlapError(
  conflicts: readonly PathConflict[],
  draft: string,
  verb: 'apply' | 'unapply' = 'apply',
): ShadowError {
  const list = conflicts
    .slice(0, 10)
    .map(
      (c) =>
        `${c.path} (${(c.hunks ?? []).map((h) => (h.ours.count > 1 ? `lines ${h.ours.line}-${h.ours.line + h.ours.count - 1}` : `line ${h.ours.line}`)).join(', ')})`,
    )
    .join(', ');
  const more = conflicts.length > 10 ? `, and ${conflicts.length - 10} more` : '';
  const noun = conflicts.length === 1 ? 'path was' : 'paths were';
  const whose = verb === 'apply' ? 'the draft' : 'the apply being undone';
  return new ShadowError(
    'CONFLICT',
    `${verb} stopped before writing anything: ${conflicts.length} ${noun} changed in the working tree on the same lines as ${whose}: ${list}${more}`,
    {
      hint: `keep or revert your change where the two overlap (\`shadow ${verb} --dry-run\` shows both sides), or \`shadow ${verb} --conflict=markers\` to write both with git's conflict markers`,
      data: { draft, conflicts },
    },
  );
}
