import { ShadowError } from '../../errors.js';
import { hashObject, MODE, serializeCommit, type Commit, type Oid } from '../../git/format/git-objects.js';
import { lookupPath, type FileEntry } from '../../git/format/tree-lookup.js';
import { editTree } from '../../git/format/tree-edit.js';
import type { PackObject } from '../../git/format/pack-writer.js';
import { RefMoved } from '../../git/refs.js';
import { BaseMap } from '../../state/base-map.js';
import type { DraftMeta } from '../../state/draft-meta.js';
import { batchMessage, captureMessage, type OpLine } from '../commit-message.js';
import { unresolvedError } from '../draft-conflicts.js';
import {
  checkDraftName,
  checkWorktree,
  keepDraftMeta,
  publishDraft,
  requireDraft,
  standsOn,
  type Draft,
} from '../drafts.js';
import { draftPublishSet } from '../publish-set/draft-publish-set.js';
import { sameEntry } from '../publish-set/publish-set.js';
import { splitHunks, type HunkSplit } from '../hunks/hunk-split.js';
import { logEvent } from '../ledger-events.js';
import { draftRef } from '../ref-names.js';
import { StagedObjects } from '../batch/staged-objects.js';
import { landOnDraft, nextBatchNumber } from './draft-commit.js';
import type { Workspace } from '../workspace.js';

/**
 * `shadow split`: chosen hunks of a draft leave it for a new draft, as `jj
 * split` moves part of a change into a change of its own. The new draft
 * stands where the draft stands (its root, or where its newest rebase moved
 * it) with the same bases: a capture commit records each base the root
 * does not hold, then its batch 1 holds base + the chosen hunks. The draft
 * gets one batch that takes them out, so that its diff against its bases
 * afterwards is the hunks not chosen. Both are ordinary batches: `git log`
 * shows the move, `shadow rollback` of the draft to before it brings the
 * hunks back, and nothing is lost. The split acts on the draft's diff
 * against its bases as they are now: what an apply already published is
 * no longer part of it.
 *
 * The draft moves first (compare-and-swap, made again on a tip that moved),
 * then the new draft is made at its finished commits; should that fail, the
 * draft is moved back, so the hunks are always in one of the two.
 */

export interface SplitOptions {
  /** The new draft's name; default `<draft>-split`, `<draft>-split-2`, … (the first free one). */
  into?: string;
  /** The summary of both batches; default `split <n> paths into <into>` and `split from <draft>`. */
  message?: string;
  hunks?: readonly string[];
  patch?: string;
  actor: string;
}

export interface SplitResult {
  /** The draft the hunks left. */
  draft: string;
  /** Its tip before the split, and its batch that took them out. */
  from: Oid;
  tip: Oid;
  batch: number;
  /** The new draft, and its tip (its batch 1). */
  into: string;
  into_tip: Oid;
  /** Each path the split moved: `whole` when all of its change left, `part` when some hunks did. */
  paths: Array<{ path: string; moved: 'whole' | 'part' }>;
  /** The paths cut in part, with how many of their hunks moved. */
  partial: Array<{ path: string; chosen: number; hunks: number }>;
}

const MAX_ATTEMPTS = 8;

/** The new draft's name: `into`, else the first free `<draft>-split[-n]`; an existing one is DRAFT_EXISTS. */
function newName(ws: Workspace, draft: string, into: string | undefined): string {
  const taken = (n: string): boolean => ws.repo.refs.resolve(draftRef(n)) !== undefined;
  if (into === undefined) {
    let n = `${draft}-split`;
    for (let i = 2; taken(n); i++) n = `${draft}-split-${i}`;
    checkDraftName(n);
    return n;
  }
  checkDraftName(into);
  if (taken(into)) {
    throw new ShadowError('DRAFT_EXISTS', `draft "${into}" already exists: nothing was written`, {
      hint: `name a new draft with --into, or leave it out for ${draft}-split`,
      data: { draft: into },
    });
  }
  return into;
}

/** The op line of a path that goes from `from` to `to`. */
function opLine(path: string, from: FileEntry | null, to: FileEntry | null, note?: string): OpLine {
  const op: OpLine =
    to === null
      ? { operation: 'delete', path }
      : from !== null && from.oid === to.oid
        ? { operation: 'chmod', path, arg: to.mode === MODE.executable ? '+x' : '-x' }
        : { operation: 'write', path };
  if (note !== undefined) op.note = note;
  return op;
}

function pushCommit(objects: PackObject[], commit: Commit): Oid {
  const content = serializeCommit(commit);
  const oid = hashObject('commit', content);
  objects.push({ oid, type: 'commit', content });
  return oid;
}

/** The new draft's commits on `root`: the capture of the bases the root does not hold, then base + the chosen hunks. */
function intoCommits(
  ws: Workspace,
  source: Draft,
  into: string,
  root: Oid,
  split: HunkSplit,
  options: SplitOptions,
): { tip: Oid; objects: PackObject[] } {
  const repo = ws.repo;
  const staged = new StagedObjects(repo.objects);
  const objects: PackObject[] = [];
  const committer = repo.committer();
  const rootTree = repo.objects.readCommit(root).tree;
  const captures = new Map<string, FileEntry | null>();
  for (const p of split.paths) {
    const k = lookupPath(repo.objects, rootTree, p.path);
    if (!sameEntry(k.kind === 'file' ? { mode: k.mode, oid: k.oid } : null, p.base)) captures.set(p.path, p.base);
  }
  let parent = root;
  let tree = rootTree;
  if (captures.size > 0) {
    const edited = editTree(staged, tree, captures);
    staged.addTrees(edited.trees);
    tree = edited.root;
    const message = captureMessage(into, 1, [...captures.keys()]);
    parent = pushCommit(objects, { tree, parents: [parent], author: committer, committer, message });
  }
  const edited = editTree(staged, tree, new Map(split.paths.map((p) => [p.path, p.chosen])));
  staged.addTrees(edited.trees);
  const parts = new Map(split.partial.map((p) => [p.path, p]));
  const ops = split.paths.map((p) => {
    const part = parts.get(p.path);
    return opLine(p.path, p.base, p.chosen, part ? `${part.chosen} of ${part.hunks} hunks` : undefined);
  });
  const summary = options.message ?? `split from draft ${source.name}`;
  const message = batchMessage(summary, ops, { draft: into, batch: 1, actor: options.actor });
  for (const t of staged.trees.values()) objects.push({ oid: t.oid, type: 'tree', content: t.content });
  const tip = pushCommit(objects, {
    tree: edited.root,
    parents: [parent],
    author: repo.actorSignature(options.actor),
    committer,
    message,
  });
  return { tip, objects };
}

/** The draft's batch that takes the chosen hunks out: each path back to base + the rest. */
function restCommit(
  ws: Workspace,
  source: Draft,
  into: string,
  batch: number,
  split: HunkSplit,
  options: SplitOptions,
): { tip: Oid; objects: PackObject[] } {
  const repo = ws.repo;
  const staged = new StagedObjects(repo.objects);
  const tipTree = repo.objects.readCommit(source.tip).tree;
  const edited = editTree(staged, tipTree, new Map(split.paths.map((p) => [p.path, p.rest])));
  staged.addTrees(edited.trees);
  const objects: PackObject[] = [];
  for (const t of staged.trees.values()) objects.push({ oid: t.oid, type: 'tree', content: t.content });
  const ops = split.paths.map((p) => opLine(p.path, p.tip, p.rest, `to draft ${into}`));
  const files = split.paths.length;
  const summary = options.message ?? `split ${files} path${files === 1 ? '' : 's'} into draft ${into}`;
  const message = batchMessage(summary, ops, { draft: source.name, batch, actor: options.actor });
  const tip = pushCommit(objects, {
    tree: edited.root,
    parents: [source.tip],
    author: repo.actorSignature(options.actor),
    committer: repo.committer(),
    message,
  });
  return { tip, objects };
}

function blobObjects(split: HunkSplit, has: (oid: Oid) => boolean): PackObject[] {
  return [...split.contents]
    .filter(([oid]) => !has(oid))
    .map(([oid, content]): PackObject => ({ oid, type: 'blob', content }));
}

/** Split the chosen hunks of draft `name` into a new draft (see the top of this file). */
export async function splitDraft(ws: Workspace, name: string, options: SplitOptions): Promise<SplitResult> {
  const repo = ws.repo;
  if (options.hunks !== undefined && options.patch !== undefined) {
    throw new ShadowError('INVALID_ARGUMENT', 'give hunks or a patch, not both', {
      hint: 'name the hunks with --hunks, or put them all in the patch',
    });
  }
  if ((options.hunks === undefined || options.hunks.length === 0) && options.patch === undefined) {
    throw new ShadowError('INVALID_ARGUMENT', 'a split needs the hunks to move: nothing was written', {
      hint: 'name them with --hunks <id>|<path>:<n>|<path> (shadow diff --json lists them)',
    });
  }
  let source = requireDraft(ws, name);
  checkWorktree(ws, source, 'shadow split');
  const into = newName(ws, name, options.into);
  const read = (e: FileEntry | null): Buffer =>
    e && e.mode !== MODE.gitlink ? repo.objects.readBlob(e.oid) : Buffer.alloc(0);
  for (let attempt = 1; ; attempt++) {
    const split = splitHunks(draftPublishSet(ws, source), read, { hunks: options.hunks, patch: options.patch });
    const unresolved = split.paths.map((p) => p.path).filter((p) => source.meta.conflicts?.[p] !== undefined);
    if (unresolved.length > 0) throw unresolvedError(source, unresolved, 'split');
    const batch = nextBatchNumber(ws, source);
    const root = standsOn(source);
    const made = intoCommits(ws, source, into, root, split, options);
    const rest = restCommit(ws, source, into, batch, split, options);
    const objects = [...blobObjects(split, (oid) => repo.objects.has(oid)), ...made.objects, ...rest.objects];
    if (!(await landOnDraft(ws, source, objects, rest.tip, `split into ${into}`, 'split', attempt))) {
      if (attempt >= MAX_ATTEMPTS)
        throw new ShadowError('BUSY', `draft "${name}" kept moving`, { data: { draft: name } });
      source = requireDraft(ws, name);
      continue;
    }
    const meta: DraftMeta = {
      version: 1,
      name: into,
      root,
      created_at: new Date(ws.ctx.clock.now()).toISOString(),
      created_by: options.actor,
      // A draft on an empty root says so (as one made in a repository with no commit), else where it came from.
      from: source.meta.from === 'empty' && root === source.meta.root ? 'empty' : `split of ${name}`,
      worktree: source.meta.worktree,
      status: 'open',
      high_batch: 1,
      bases_tip: root,
      bases: BaseMap.EMPTY,
    };
    const draft: Draft = {
      name: into,
      ref: draftRef(into),
      tip: made.tip,
      meta,
      bases: BaseMap.EMPTY,
      lastApply: undefined,
    };
    try {
      await publishDraft(ws, draft, options.actor);
    } catch (e) {
      // The hunks go back to the draft they came from: they are never in neither.
      await repo.refs
        .update({
          ref: source.ref,
          expected: rest.tip,
          next: source.tip,
          message: `shadow: split into ${into} undone`,
          who: repo.committer(),
        })
        .catch((undo: unknown) => {
          if (!(undo instanceof RefMoved)) throw undo;
        });
      throw e;
    }
    keepDraftMeta(ws, requireDraft(ws, name).meta, Infinity);
    const parts = new Map(split.partial.map((p) => [p.path, p]));
    const result: SplitResult = {
      draft: name,
      from: source.tip,
      tip: rest.tip,
      batch,
      into,
      into_tip: made.tip,
      paths: split.paths.map((p) => ({ path: p.path, moved: parts.has(p.path) ? 'part' : 'whole' })),
      partial: split.partial,
    };
    const data = { from: source.tip, to: rest.tip, into, into_tip: made.tip, batch, paths: result.paths };
    await logEvent(ws, name, 'draft/split', options.actor, data);
    await logEvent(ws, into, 'draft/split', options.actor, { ...data, draft: name });
    return result;
  }
}
