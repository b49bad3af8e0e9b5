import { ShadowError } from '../../errors.js';
import { MODE, type Oid } from '../../git/format/git-objects.js';
import { parentDirs } from '../../core/path-rules.js';
import {
  isRegularMode,
  lookupPath,
  type FileEntry,
  type PathKind,
  type TreeReader,
} from '../../git/format/tree-lookup.js';
import type { IgnoreRules } from '../../git/gitignore.js';
import type { IndexView } from '../../git/index-view.js';
import type { KnownBlob, LowerLayer } from '../../git/lower-layer.js';
import type { Bases } from '../history.js';

/** What first touches of paths add to a draft before its batch. */
export interface CapturePlan {
  /** Paths whose lower-layer state differs from the draft tree: the capture commit's changes. */
  changes: Map<string, FileEntry | null>;
  /** Contents of captured files. */
  blobs: Map<Oid, Buffer>;
  /** Paths that cannot be touched, with why. */
  problems: Map<string, ShadowError>;
}

export interface CaptureInput {
  reader: TreeReader;
  tipTree: Oid;
  bases: Bases;
  lower: LowerLayer;
  /** core.fileMode: when false the working tree's executable bit is not trusted. */
  trustExecutableBit: boolean;
  ignore: IgnoreRules | undefined;
  allowIgnored: boolean;
  /** git's index for `n` first touches, if worth reading (files it vouches for are not read). */
  index?: (n: number) => IndexView | undefined;
  /**
   * The index's entry for a path git keeps out of the working tree (see
   * sparse-paths.ts), from `view` when given, else from an index read for
   * it: asked that way only for a tracked file absent from the working tree.
   */
  skipWorktree?: (path: string, view?: IndexView) => FileEntry | null | undefined;
}

function ownedByDraft(bases: Bases, path: string): boolean {
  if (bases.has(path)) return true;
  return parentDirs(path).some((d) => bases.has(d));
}

function ignoredProblem(path: string): ShadowError {
  return new ShadowError('IGNORED_PATH', `${path} is ignored by .gitignore; shadow keeps ignored files out of drafts`, {
    hint: 'ignored files (an .env, build output) must not reach a commit; allow them with `git config shadow.allowIgnored true`',
    data: { path },
  });
}

function typeProblem(path: string, lowerIs: string, draftIs: string): ShadowError {
  return new ShadowError(
    lowerIs === 'a directory' ? 'IS_A_DIRECTORY' : 'NOT_A_DIRECTORY',
    `${path} is ${lowerIs} in the working tree but ${draftIs} in the draft`,
    {
      hint: 'make the working tree and the draft agree on the path first (commit or move the working-tree change)',
      data: { path },
    },
  );
}

/**
 * Decide what the first touch of each path records: for every touched path
 * the draft does not own yet, compare the lower layer with the draft tree. A
 * difference (the user's uncommitted change, an untracked file, a deletion)
 * goes into the capture commit, so the batch's change shows apart from the
 * user's in `git log -p`. Paths git ignores are refused here.
 */
export function planCaptures(paths: Iterable<string>, input: CaptureInput): CapturePlan {
  const plan: CapturePlan = { changes: new Map(), blobs: new Map(), problems: new Map() };
  const first = [...new Set(paths)].filter((p) => !ownedByDraft(input.bases, p));
  const inTrees = new Map<string, PathKind>();
  for (const path of first) {
    try {
      inTrees.set(path, lookupPath(input.reader, input.tipTree, path));
    } catch (e) {
      if (!(e instanceof ShadowError)) throw e;
      plan.problems.set(path, e);
    }
  }
  // Only files of the draft's tree can be vouched for: new paths do not make the index worth reading.
  let tracked = 0;
  for (const t of inTrees.values()) if (t.kind === 'file') tracked++;
  const index = tracked > 0 ? input.index?.(tracked) : undefined;
  for (const [path, inTree] of inTrees) {
    try {
      // A file the index vouches for is the tree's blob: not read.
      const known: KnownBlob | undefined =
        index && inTree.kind === 'file'
          ? {
              mode: inTree.mode,
              oid: inTree.oid,
              vouches: (st) => index.vouches(path, st, inTree.mode, inTree.oid, input.trustExecutableBit),
            }
          : undefined;
      // A path git keeps out of the working tree has the index's blob as its base, not the file (stale or absent).
      let kept = index && inTree.kind === 'file' ? input.skipWorktree?.(path, index) : undefined;
      const inLower = kept === undefined ? input.lower.read(path, known) : ({ kind: 'absent' } as const);
      if (kept === undefined && inLower.kind === 'absent' && inTree.kind === 'file') kept = input.skipWorktree?.(path);
      if (kept !== undefined) {
        if (inTree.kind === 'file' && kept !== null && kept.oid === inTree.oid && kept.mode === inTree.mode) continue;
        plan.changes.set(path, kept);
        continue;
      }
      const untracked = inTree.kind === 'absent';
      if (untracked && !input.allowIgnored && input.ignore?.ignores(path)) throw ignoredProblem(path);
      if (inLower.kind === 'dir') {
        const gitlink = inTree.kind === 'file' && inTree.mode === MODE.gitlink;
        if (inTree.kind !== 'dir' && !gitlink)
          throw typeProblem(path, 'a directory', inTree.kind === 'file' ? 'a file' : 'absent');
        continue;
      }
      if (inLower.kind === 'absent') {
        if (inTree.kind === 'file') plan.changes.set(path, null);
        continue;
      }
      if (inTree.kind === 'dir') throw typeProblem(path, 'a file', 'a directory');
      if (inTree.kind === 'absent' && inTree.blockedBy !== undefined)
        throw typeProblem(path, 'a file', `below the file ${inTree.blockedBy}`);
      let mode = inLower.mode;
      if (!input.trustExecutableBit && inTree.kind === 'file' && isRegularMode(inTree.mode) && isRegularMode(mode))
        mode = inTree.mode;
      if (inTree.kind === 'file' && inTree.oid === inLower.oid && inTree.mode === mode) continue;
      plan.changes.set(path, { mode, oid: inLower.oid });
      plan.blobs.set(inLower.oid, inLower.content());
    } catch (e) {
      if (!(e instanceof ShadowError)) throw e;
      plan.problems.set(path, e);
    }
  }
  return plan;
}
