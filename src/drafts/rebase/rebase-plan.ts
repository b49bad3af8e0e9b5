import { EMPTY_TREE_OID, hashObject, serializeCommit, type Oid } from '../../git/format/git-objects.js';
import { lookupPath, type FileEntry } from '../../git/format/tree-lookup.js';
import type { ConflictHunk } from '../../git/format/merge-file.js';
import { editTree } from '../../git/format/tree-edit.js';
import type { PackObject } from '../../git/format/pack-writer.js';
import { mergeEntries, type ConflictReason } from './entry-merge.js';
import { sameEntry } from '../publish-set/publish-set.js';
import { clashes, clearWay } from './rebase-tree.js';
import { treeSides, worktreeSides, type Side } from './rebase-sides.js';
import { StagedObjects } from '../batch/staged-objects.js';
import type { Draft } from '../drafts.js';
import type { Workspace } from '../workspace.js';

/**
 * What a rebase would make, computed in memory: every path the draft
 * touched merged three-way — its base, the new base's side ("ours"), the
 * draft's tip ("theirs") — into a tree laid over the new base. Writes
 * nothing; rebase.ts writes it and moves the ref.
 *
 * The new base is a commit, the rebase commit's second parent, so that the
 * bases live in git objects like everything else: the target commit itself
 * (`--onto`), or for the working tree a commit on top of HEAD whose tree is
 * HEAD's with the draft's paths as the working tree holds them (HEAD itself
 * when they are as HEAD has them), as `git stash` keeps a working tree.
 */

/** Where a rebase moves the draft. */
export type RebaseTarget = { kind: 'worktree' } | { kind: 'commit'; oid: Oid; label: string };

/** How a path the draft changes came through a rebase. */
export interface RebasedPath {
  path: string;
  /**
   * `clean`: the new base holds what the old one did, the draft's change
   * stays as it was; `merged`: both changed it, merged; `absorbed`: the new
   * base holds the draft's content, no longer a change; `conflict`: not
   * merged (the draft holds git's markers for an overlap, else its own
   * version) until a batch resolves it.
   */
  status: 'clean' | 'merged' | 'absorbed' | 'conflict';
  reason?: ConflictReason;
  hunks?: ConflictHunk[];
}

export interface RebasePlan {
  /** The commit the draft moves onto: the target, or HEAD for the working tree (null: no commit yet). */
  onto: Oid | null;
  /** The new base commit (the rebase commit's second parent). */
  baseCommit: Oid;
  /** The rebase commit's tree. */
  tree: Oid;
  /** Blobs, trees and a new base commit to write. */
  objects: PackObject[];
  /** The draft's changes (paths it changed before the rebase), sorted. */
  paths: RebasedPath[];
  conflicts: Map<string, ConflictReason>;
  /** True when the draft already stands on this base: nothing would change. */
  unchanged: boolean;
}

const entryOf = (s: Side): FileEntry | null => ('type' in s ? null : s.entry);

/** Plan the rebase of `draft` onto `target`. */
export function planRebase(ws: Workspace, draft: Draft, target: RebaseTarget): RebasePlan {
  const repo = ws.repo;
  const staged = new StagedObjects(repo.objects);
  const objects: PackObject[] = [];
  const paths = draft.bases.paths().sort();
  const tipTree = repo.objects.readCommit(draft.tip).tree;
  const head = repo.refs.resolve('HEAD') ?? null;
  const onto = target.kind === 'commit' ? target.oid : head;
  const headTree = head === null ? EMPTY_TREE_OID : repo.objects.readCommit(head).tree;
  const sides =
    target.kind === 'commit'
      ? treeSides(ws, repo.objects.readCommit(target.oid).tree, paths)
      : worktreeSides(ws, paths);
  const addBlob = (oid: Oid, content: Buffer | undefined): void => {
    if (content === undefined || staged.blobs.has(oid) || repo.objects.has(oid)) return;
    staged.blobs.set(oid, content);
    objects.push({ oid, type: 'blob', content });
  };

  // The new base commit.
  let baseCommit: Oid;
  let baseTree: Oid;
  if (target.kind === 'commit') {
    baseCommit = target.oid;
    baseTree = repo.objects.readCommit(target.oid).tree;
  } else {
    const changes = new Map<string, FileEntry | null>();
    for (const [path, side] of sides) {
      // A directory where HEAD has a file: the file is gone from the working tree.
      if ('type' in side) {
        if (lookupPath(repo.objects, headTree, path).kind === 'file') changes.set(path, null);
        continue;
      }
      if (side.entry) addBlob(side.entry.oid, side.content);
      changes.set(path, side.entry);
    }
    const edited = editTree(staged, headTree, clearWay(staged, headTree, changes));
    staged.addTrees(edited.trees);
    baseTree = edited.root;
    if (baseTree === headTree && head !== null) baseCommit = head;
    else {
      for (const t of edited.trees) objects.push({ oid: t.oid, type: 'tree', content: t.content });
      const who = repo.committer();
      const message = `working tree of draft ${draft.name}'s ${paths.length} path${paths.length === 1 ? '' : 's'} before its rebase\n`;
      const content = serializeCommit({
        tree: baseTree,
        parents: head === null ? [] : [head],
        author: who,
        committer: who,
        message,
      });
      baseCommit = hashObject('commit', content);
      objects.push({ oid: baseCommit, type: 'commit', content });
    }
  }

  // Each path merged.
  const trustExec = target.kind === 'commit' || (repo.config.getBool('core.filemode') ?? true);
  const labels = { ours: target.kind === 'commit' ? target.label : 'working tree', theirs: `draft ${draft.name}` };
  const read = (oid: Oid): Buffer => staged.readBlob(oid);
  const results = new Map<string, FileEntry | null>();
  const conflicts = new Map<string, ConflictReason>();
  const reported = new Map<string, RebasedPath>();
  let unchanged = onto === (draft.meta.rebase ? draft.meta.rebase.onto : draft.meta.root);
  for (const path of paths) {
    const side = sides.get(path)!;
    const base = draft.bases.get(path) ?? null;
    const k = lookupPath(repo.objects, tipTree, path);
    const theirs = k.kind === 'file' ? { mode: k.mode, oid: k.oid } : null;
    const ours = entryOf(side);
    if (!sameEntry(ours, base) || 'type' in side) unchanged = false;
    const changed = !sameEntry(theirs, base);
    if ('type' in side) {
      // Neither a file nor absent: the draft's file stays the draft's, in conflict if it changed it.
      results.set(path, changed ? theirs : null);
      if (changed) {
        conflicts.set(path, 'type');
        reported.set(path, { path, status: 'conflict', reason: 'type' });
      }
      continue;
    }
    const m = mergeEntries(base, ours, theirs, read, { trustExec, labels, markers: true });
    if (m.result !== undefined && m.result !== null) addBlob(m.result.oid, m.content);
    results.set(path, m.result !== undefined ? m.result : theirs);
    if (m.status === 'conflict') {
      conflicts.set(path, m.reason!);
      reported.set(path, { path, status: 'conflict', reason: m.reason!, ...(m.hunks ? { hunks: m.hunks } : {}) });
    } else if (changed) {
      reported.set(path, {
        path,
        status: sameEntry(ours, base) ? 'clean' : sameEntry(m.result ?? null, ours) ? 'absorbed' : 'merged',
      });
    }
  }

  // The draft's results laid over the new base; what the base's tree cannot take stays the base's, in conflict.
  const changes = new Map<string, FileEntry | null>();
  for (const [path, entry] of results) {
    const k = lookupPath(staged, baseTree, path);
    if (!sameEntry(k.kind === 'file' ? { mode: k.mode, oid: k.oid } : null, entry)) changes.set(path, entry);
  }
  for (const path of clashes(staged, baseTree, changes)) {
    changes.delete(path);
    conflicts.set(path, 'type');
    reported.set(path, { path, status: 'conflict', reason: 'type' });
  }
  const edited = editTree(staged, baseTree, changes);
  for (const t of [...staged.trees.values(), ...edited.trees])
    objects.push({ oid: t.oid, type: 'tree', content: t.content });
  return {
    onto,
    baseCommit,
    tree: edited.root,
    objects: dedupe(objects),
    paths: [...reported.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    conflicts,
    unchanged: unchanged && conflicts.size === 0,
  };
}

function dedupe(objects: PackObject[]): PackObject[] {
  const seen = new Set<string>();
  return objects.filter((o) => (seen.has(o.oid) ? false : (seen.add(o.oid), true)));
}
