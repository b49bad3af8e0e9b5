import { ShadowError } from '../errors.js';
import type { Oid } from '../git/format/git-objects.js';
import type { FileEntry } from '../git/format/tree-lookup.js';
import type { ConflictHunk } from '../git/format/merge-file.js';
import { mergeEntries, type ConflictReason } from '../drafts/rebase/entry-merge.js';
import { WorkingTreeLower } from '../git/lower-layer.js';
import type { PublishEntry } from '../drafts/publish-set/publish-set.js';
import type { BlobCache } from './publish.js';
import type { PathConflict } from './path-conflict.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * The three-way merge at publish: for each path whose working tree no
 * longer holds the draft's base (the guard's conflicts), the person's
 * version (ours: the working tree in clean form, the blob `git add` would
 * make) and the draft's (theirs) are merged against the base, path by path
 * as drafts/rebase/entry-merge.ts merges them; `conflict: 'markers'` writes an
 * overlap with git's markers instead of stopping. Everything here reads;
 * apply writes what it decides (merge-record.ts, then the journal).
 */

/** How a path of an apply stands: the working tree held the base (`clean`), the person's change and the draft's merged (`merged`), or not (`conflict`). */
export type MergeStatus = 'clean' | 'merged' | 'conflict';

/** A path the guard stopped, merged. */
export interface PathMerge {
  path: string;
  status: 'merged' | 'conflict';
  /** What the working tree holds (the merge's "ours"), null when absent: what unapply puts back. */
  worktree: FileEntry | null;
  /** The working tree's content (clean form), to keep as a blob for unapply. */
  worktreeContent?: Buffer;
  /** The draft's entry (the merge's "theirs"): the path's base once published. */
  draft: FileEntry | null;
  /** What the publish writes: the merge, or with `markers` the conflict written out. Absent for a conflict that stops the apply. */
  result?: FileEntry | null;
  /** The result's content (clean form), when it is a new blob. */
  content?: Buffer;
  reason?: ConflictReason;
  hunks?: ConflictHunk[];
}

export interface MergeOptions {
  /** The draft's name, for the markers' label (`>>>>>>> draft <name>`). */
  draft: string;
  /** Write overlapping hunks with git's conflict markers instead of stopping. */
  markers: boolean;
  blobs?: BlobCache;
  /** The markers' labels, when not the apply's (`working tree` and `draft <name>`). */
  labels?: { ours: string; theirs: string };
}

/** The label of the working tree's side in conflict markers. */
export const WORKTREE_LABEL = 'working tree';

type Ours = FileEntry | null | { reason: 'type' };

/** What the working tree holds at `path` as a blob entry, with its content at hand. */
function readOurs(lower: WorkingTreeLower, path: string, contents: Map<Oid, Buffer>): Ours {
  try {
    const l = lower.read(path);
    if (l.kind === 'absent') return null;
    if (l.kind === 'dir') return { reason: 'type' };
    contents.set(l.oid, l.content());
    return { mode: l.mode, oid: l.oid };
  } catch (e) {
    if (e instanceof ShadowError && (e.code === 'SYMLINK_IN_PATH' || e.code === 'UNSUPPORTED_FILE_TYPE'))
      return { reason: 'type' };
    throw e;
  }
}

/**
 * Merge the paths the guard stopped. Returns each one's merge, and the
 * conflicts left: those that stop the apply (every `overlap` among them
 * carries its hunks).
 */
export function mergePaths(
  ws: Workspace,
  entries: readonly PublishEntry[],
  stopped: readonly PathConflict[],
  options: MergeOptions,
): { merges: PathMerge[]; conflicts: PathConflict[] } {
  const trustExec = ws.repo.config.getBool('core.filemode') ?? true;
  // The guard renewed the working-tree form for this apply: the same one serves the merge.
  const lower = ws.worktreeLower(false)!;
  const byPath = new Map(entries.map((e) => [e.path, e]));
  const contents = new Map<Oid, Buffer>();
  const read = (oid: Oid): Buffer => contents.get(oid) ?? options.blobs?.get(oid) ?? ws.repo.objects.readBlob(oid);
  const merges: PathMerge[] = [];
  const conflicts: PathConflict[] = [];
  for (const c of stopped) {
    const e = byPath.get(c.path)!;
    const ours = readOurs(lower, c.path, contents);
    const m = ours !== null && 'reason' in ours ? undefined : mergeOne(e, ours, read, trustExec, options);
    if (m === undefined) {
      conflicts.push({ ...c, reason: 'type' });
      continue;
    }
    merges.push(m);
    if (m.status === 'conflict' && m.result === undefined)
      conflicts.push({ ...c, reason: m.reason!, ...(m.hunks ? { hunks: m.hunks } : {}) });
  }
  return { merges, conflicts };
}

function mergeOne(
  e: PublishEntry,
  ours: FileEntry | null,
  read: (oid: Oid) => Buffer,
  trustExec: boolean,
  options: MergeOptions,
): PathMerge {
  const out = { path: e.path, worktree: ours, draft: e.new, ...(ours ? { worktreeContent: read(ours.oid) } : {}) };
  const m = mergeEntries(e.old, ours, e.new, read, {
    trustExec,
    labels: options.labels ?? { ours: WORKTREE_LABEL, theirs: `draft ${options.draft}` },
    markers: options.markers,
  });
  return { ...out, ...m };
}
