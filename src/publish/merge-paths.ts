import { ShadowError } from '../errors.js';
import { looksBinary } from '../core/content.js';
import { blobOid, MODE, type Oid } from '../git/format/git-objects.js';
import { isRegularMode, type FileEntry } from '../git/format/tree-lookup.js';
import { mergeFile, type ConflictHunk } from '../git/format/merge-file.js';
import { WorkingTreeLower } from '../git/lower-layer.js';
import { sameEntry, type PublishEntry } from '../drafts/publish-set.js';
import type { BlobCache } from './publish.js';
import type { ConflictReason, PathConflict } from './path-conflict.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * The three-way merge at publish: for each path whose working tree no
 * longer holds the draft's base (the guard's conflicts), the person's
 * version (ours: the working tree in clean form, the blob `git add` would
 * make) and the draft's (theirs) are merged against the base, as `git
 * merge-file` merges them (git/format/merge-file.ts). Changes to different
 * lines merge; changes to the same lines are a conflict (`overlap`), which
 * `conflict: 'markers'` writes with git's markers instead of stopping.
 * What git cannot merge either stays a conflict unless one side left it as
 * it was: binary content, a change of mode both made differently, a
 * symlink, a change of type, a deletion against a change. Everything here
 * reads; apply writes what it decides (merge-record.ts, then the journal).
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
    if (e instanceof ShadowError && (e.code === 'SYMLINK_IN_PATH' || e.code === 'UNSUPPORTED_FILE_TYPE')) return { reason: 'type' };
    throw e;
  }
}

/** The merged mode of three regular files, or undefined when both sides changed it differently. */
function mergeMode(base: string | undefined, ours: string, theirs: string): string | undefined {
  if (base === undefined) return ours === theirs ? ours : undefined;
  if (ours === base) return theirs;
  if (theirs === base || ours === theirs) return ours;
  return undefined;
}

/**
 * Merge the paths the guard stopped. Returns each one's merge, and the
 * conflicts left: those that stop the apply (every `overlap` among them
 * carries its hunks).
 */
export function mergePaths(ws: Workspace, entries: readonly PublishEntry[], stopped: readonly PathConflict[], options: MergeOptions): { merges: PathMerge[]; conflicts: PathConflict[] } {
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
    if (m.status === 'conflict' && m.result === undefined) conflicts.push({ ...c, reason: m.reason!, ...(m.hunks ? { hunks: m.hunks } : {}) });
  }
  return { merges, conflicts };
}

function mergeOne(e: PublishEntry, ours: FileEntry | null, read: (oid: Oid) => Buffer, trustExec: boolean, options: MergeOptions): PathMerge {
  const base = e.old;
  const theirs = e.new;
  const out = { path: e.path, worktree: ours, draft: theirs, ...(ours ? { worktreeContent: read(ours.oid) } : {}) };
  const conflict = (reason: ConflictReason): PathMerge => ({ ...out, status: 'conflict', reason });
  const regular = (x: FileEntry | null): boolean => x !== null && isRegularMode(x.mode);
  // Without a trusted executable bit the working tree's mode says nothing: it is the base's (the draft's for a new file).
  const oursMode = ours && !trustExec && regular(ours) && regular(base ?? theirs) ? (base ?? theirs)!.mode : ours?.mode;
  // Both sides made the same change (a deletion too): nothing to write.
  if (sameEntry(ours && { mode: oursMode!, oid: ours.oid }, theirs)) return { ...out, status: 'merged', result: ours };
  if (ours === null || theirs === null) return conflict('delete/modify');
  if (!regular(ours) || !regular(theirs) || (base !== null && !regular(base))) {
    const link = (x: FileEntry | null): boolean => x?.mode === MODE.symlink;
    return conflict(link(ours) && link(theirs) && (base === null || link(base)) ? 'symlink' : 'type');
  }
  const mode = mergeMode(base?.mode, oursMode!, theirs.mode);
  if (mode === undefined) return conflict('mode');
  const entry = (content: Buffer): { result: FileEntry; content: Buffer } => ({ result: { mode, oid: blobOid(content) }, content });
  if (ours.oid === base?.oid) return { ...out, status: 'merged', result: { mode, oid: theirs.oid } };
  if (theirs.oid === base?.oid || ours.oid === theirs.oid) return { ...out, status: 'merged', result: { mode, oid: ours.oid }, content: read(ours.oid) };
  const b = base ? read(base.oid) : Buffer.alloc(0);
  const o = read(ours.oid);
  const t = read(theirs.oid);
  if (looksBinary(b) || looksBinary(o) || looksBinary(t)) return conflict('binary');
  const merged = mergeFile(b, o, t, { ours: WORKTREE_LABEL, theirs: `draft ${options.draft}` });
  if (merged.status === 'too complex') return conflict('too complex');
  if (merged.status === 'clean') return { ...out, status: 'merged', ...entry(merged.merged) };
  const c: PathMerge = { ...conflict('overlap'), hunks: merged.hunks };
  return options.markers ? { ...c, ...entry(merged.merged) } : c;
}
