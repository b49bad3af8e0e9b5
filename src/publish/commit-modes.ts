import { ShadowError } from '../errors.js';
import { EMPTY_TREE_OID, hashObject, serializeCommit, type Commit, type Oid } from '../git/format/git-objects.js';
import type { PublishEntry } from '../drafts/publish-set/publish-set.js';
import {
  cherryPickReflogMessage,
  commitReflogMessage,
  fastForwardReflogMessage,
} from '../git/format/reflog-message.js';
import { editTree, type NewTree } from '../git/format/tree-edit.js';
import { trailerBlock } from '../git/format/trailer-block.js';
import { diffTrees } from '../git/format/tree-diff.js';
import type { FileEntry } from '../git/format/tree-lookup.js';
import { indexEntry, isUnmerged, readIndex } from '../git/git-index.js';
import type { PackObject } from '../git/format/pack-writer.js';
import type { Draft } from '../drafts/drafts.js';
import { StagedObjects } from '../drafts/batch/staged-objects.js';
import { historySince } from '../drafts/history.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * `apply --commit` and `apply --squash`: the branch move and the index
 * entries that go with publishing the files. Only objects are written here;
 * the ref and the index move later, from the journal, after the files.
 */

export type CommitMode = { kind: 'commit' } | { kind: 'squash'; message: string };

export interface CommitPlan {
  branch: { ref: string; old: Oid | null; new: Oid };
  index: {
    set: Array<{ path: string; entry: FileEntry | null }>;
    before: Array<{ path: string; entry: FileEntry | null }>;
  };
  /** How the branch moves: a fast-forward, a replay of the draft's commits on a moved HEAD, or one squashed commit. */
  how: 'fast-forward' | 'replay' | 'squash';
  /** The message of the move's reflog lines: git's for the same move (`commit`, a fast-forward `merge`, `cherry-pick`). */
  reflog: string;
}

function currentBranch(ws: Workspace): string {
  const target = ws.repo.refs.headTarget();
  if (!target?.startsWith('refs/heads/')) {
    throw new ShadowError('NO_BRANCH', 'HEAD is detached: there is no current branch to commit to', {
      hint: 'check out a branch first (`git switch <branch>`), or apply without --commit/--squash',
    });
  }
  return target;
}

function same(a: FileEntry | null, b: FileEntry | null): boolean {
  return a === null || b === null ? a === b : a.oid === b.oid && a.mode === b.mode;
}

/** True when `ancestor` is on the first-parent history of `commit` (bounded walk). */
function hasAncestor(ws: Workspace, commit: Oid, ancestor: Oid, limit = 1_000_000): boolean {
  let oid: Oid | undefined = commit;
  for (let i = 0; oid !== undefined && i < limit; i++) {
    if (oid === ancestor) return true;
    oid = ws.repo.objects.readCommit(oid).parents[0];
  }
  return false;
}

/**
 * What a replay puts on the branch: the draft's commits since its newest
 * rebase (that one first, as its change from the new base, its second
 * parent), or since its root; and the commit they stand on.
 */
export function draftLine(
  ws: Workspace,
  draft: Draft,
): { rebased: boolean; onto: Oid; startTree: Oid; commits: Array<{ from: Oid; commit: Commit }> } {
  const repo = ws.repo;
  const rebase = draft.meta.rebase;
  const treeOf = (oid: Oid | undefined): Oid =>
    oid === undefined ? EMPTY_TREE_OID : repo.objects.readCommit(oid).tree;
  if (rebase && rebase.onto !== null) {
    const r = repo.objects.readCommit(rebase.commit);
    const startTree = treeOf(r.parents[1]);
    const after = historySince(repo, draft.tip, rebase.commit)
      .reverse()
      .map((h) => ({ from: treeOf(h.commit.parents[0]), commit: h.commit }));
    return { rebased: true, onto: rebase.onto, startTree, commits: [{ from: startTree, commit: r }, ...after] };
  }
  const startTree = isEmptyRoot(ws, draft) ? EMPTY_TREE_OID : treeOf(draft.meta.root);
  const commits = historySince(repo, draft.tip, draft.meta.root)
    .reverse()
    .map((h) => ({ from: treeOf(h.commit.parents[0]), commit: h.commit }));
  return { rebased: false, onto: draft.meta.root, startTree, commits };
}

/**
 * `message` with every distinct `Assisted-by:` trailer of `messages` it
 * lacks, at the end of its trailer block as git finds it (a paragraph of
 * their own when it has none), so that git reads them all as one block.
 */
export function withAssistedBy(message: string, messages: readonly string[]): string {
  const body = message.trim();
  const seen = new Set<string>();
  for (const m of messages) {
    const last = m.trimEnd().slice(m.trimEnd().lastIndexOf('\n\n') + 2);
    for (const l of last.split('\n')) if (/^Assisted-by: \S/i.test(l) && !body.includes(l)) seen.add(l.trim());
  }
  const text = `${body}\n`;
  if (seen.size === 0) return text;
  const added = [...seen].map((l) => `${l}\n`).join('');
  const block = trailerBlock(text);
  const before = text.slice(0, block.end);
  return `${before}${block.start < block.end ? '' : '\n'}${added}${text.slice(block.end)}`;
}

/** The draft root made for a repository without commits: it never becomes part of a branch. */
function isEmptyRoot(ws: Workspace, draft: Draft): boolean {
  return draft.meta.from === 'empty';
}

/**
 * Plan the branch move and the index changes. Fast-forward when HEAD is the
 * draft's root; when HEAD moved, replay the draft's commits on it unless HEAD
 * touched the same paths (STALE_BASE); with --squash, one commit on HEAD.
 */
export function planCommit(
  ws: Workspace,
  draft: Draft,
  entries: readonly PublishEntry[],
  mode: CommitMode,
  actor: string,
): { plan: CommitPlan; objects: PackObject[] } {
  const repo = ws.repo;
  const ref = currentBranch(ws);
  const head = repo.refs.resolve(ref) ?? null;
  const root = draft.meta.root;
  const line = draftLine(ws, draft);
  const headTree = head === null ? EMPTY_TREE_OID : repo.objects.readCommit(head).tree;
  const objects: PackObject[] = [];
  // Trees made here are read again (the replay's next step, the index) before they are written.
  const staged = new StagedObjects(repo.objects);
  const keep = (trees: readonly NewTree[]): void => {
    staged.addTrees(trees);
    for (const t of trees) objects.push({ oid: t.oid, type: 'tree', content: t.content });
  };
  const write = (c: Commit): Oid => {
    const content = serializeCommit(c);
    const oid = hashObject('commit', content);
    objects.push({ oid, type: 'commit', content });
    return oid;
  };
  const committer = repo.committer();
  let next: Oid;
  let how: CommitPlan['how'];
  let newTree: Oid;
  let reflog: string;

  if (mode.kind === 'squash') {
    const edited = editTree(staged, headTree, new Map(entries.map((e) => [e.path, e.new])));
    keep(edited.trees);
    newTree = edited.root;
    // The draft commits' Assisted-by trailers would be lost with them: the squashed commit carries one per AI.
    const message = withAssistedBy(
      mode.message,
      line.commits.map((h) => h.commit.message),
    );
    next = write({
      tree: newTree,
      parents: head ? [head] : [],
      author: repo.actorSignature(actor),
      committer,
      message,
    });
    how = 'squash';
    reflog = commitReflogMessage(mode.message, head === null);
  } else if (!line.rebased && (head === root || (head === null && isEmptyRoot(ws, draft)))) {
    if (head === null) {
      // The empty root is shadow's own: the branch starts at the first commit after it.
      throw new ShadowError(
        'NO_BRANCH',
        'the branch has no commit yet; use --squash -m <message> for its first commit',
        {
          hint: 'shadow apply --squash -m "initial commit"',
        },
      );
    }
    next = draft.tip;
    newTree = repo.objects.readCommit(draft.tip).tree;
    how = 'fast-forward';
    reflog = fastForwardReflogMessage(draft.ref);
  } else {
    if (head === null || !hasAncestor(ws, head, line.onto)) {
      throw new ShadowError(
        'DIVERGED',
        `the commit the draft stands on, ${line.onto.slice(0, 12)}, is not an ancestor of ${ref.slice(11)}`,
        {
          hint: 'apply without --commit, or `shadow rebase` the draft onto the current HEAD',
          data: { root: line.onto, head },
        },
      );
    }
    const ontoTree = repo.objects.readCommit(line.onto).tree;
    const headPaths = new Set(diffTrees(repo.objects, ontoTree, headTree).map((c) => c.path));
    const tipTree = repo.objects.readCommit(draft.tip).tree;
    const draftPaths = diffTrees(repo.objects, line.startTree, tipTree).map((c) => c.path);
    const both = draftPaths.filter((p) => headPaths.has(p));
    if (both.length > 0) {
      throw new ShadowError(
        'STALE_BASE',
        `${ref.slice(11)} moved since the draft began and changed ${both.length} of its paths: ${both.slice(0, 5).join(', ')}${both.length > 5 ? ', …' : ''}`,
        {
          hint: 'apply without --commit and commit yourself, or `shadow rebase` the draft onto the current HEAD',
          data: { paths: both },
        },
      );
    }
    // Replay each draft commit, oldest first, on top of HEAD.
    let parent = head;
    let tree = headTree;
    let lastMessage = '';
    for (const h of line.commits) {
      const changes = new Map(diffTrees(repo.objects, h.from, h.commit.tree).map((c) => [c.path, c.new]));
      const edited = editTree(staged, tree, changes);
      keep(edited.trees);
      tree = edited.root;
      parent = write({ ...h.commit, tree, parents: [parent], committer });
      lastMessage = h.commit.message;
    }
    next = parent;
    newTree = tree;
    how = 'replay';
    reflog = cherryPickReflogMessage(lastMessage);
  }

  // The index: published paths take their new entries; a path the branch
  // move changes that the user had not staged follows the new HEAD.
  const index = readIndex(ws.ctx, `${repo.layout.gitdir}/index`);
  const set = new Map<string, FileEntry | null>();
  for (const e of entries) set.set(e.path, e.new);
  for (const c of diffTrees(staged, headTree, newTree)) {
    if (set.has(c.path)) continue;
    if (same(indexEntry(index, c.path), c.old)) set.set(c.path, c.new);
  }
  const unmerged = [...set.keys()].filter((p) => isUnmerged(index, p));
  if (unmerged.length > 0) {
    throw new ShadowError('CONFLICT', `the index has unmerged entries for ${unmerged.join(', ')}`, {
      hint: 'resolve the merge conflict (git add / git rm) first',
      data: { paths: unmerged },
    });
  }
  const plan: CommitPlan = {
    branch: { ref, old: head, new: next },
    index: {
      set: [...set].map(([path, entry]) => ({ path, entry })),
      before: [...set.keys()].map((path) => ({ path, entry: indexEntry(index, path) })),
    },
    how,
    reflog,
  };
  return { plan, objects };
}
