import { looksBinary } from '../../core/content.js';
import { blobOid, MODE, type Oid } from '../../git/format/git-objects.js';
import { isRegularMode, type FileEntry } from '../../git/format/tree-lookup.js';
import { mergeFile, type ConflictHunk } from '../../git/format/merge-file.js';
import { sameEntry } from '../publish-set/publish-set.js';

/**
 * The three-way merge of one path's entries, as `git merge-file` merges
 * them (git/format/merge-file.ts): the base, "ours" (the person's side: the
 * working tree at apply, the new base at rebase) and "theirs" (the draft's
 * side). Changes to different lines merge; changes to the same lines are a
 * conflict (`overlap`), which `markers` writes with git's markers instead of
 * stopping. What git cannot merge either stays a conflict unless one side
 * left it as it was: binary content, a change of mode both made
 * differently, a symlink, a change of type, a deletion against a change.
 * Pure: it reads blobs through `read` and decides; its callers write.
 */

/**
 * Why a path could not be merged: `overlap`, both changed the same lines
 * (markers can be written); or what no line merge settles: `binary`,
 * `delete/modify`, `mode` (both changed it, differently), `symlink` (both
 * changed its target), `type` (a file against a symlink, a directory, a
 * special file), `too complex`.
 */
export type ConflictReason = 'overlap' | 'binary' | 'delete/modify' | 'mode' | 'symlink' | 'type' | 'too complex';

/** The merge of one path. */
export interface EntryMerge {
  status: 'merged' | 'conflict';
  /** What the path holds after the merge (null: absent); for a conflict, only with markers written. */
  result?: FileEntry | null;
  /** The result's content (clean form), when it is a new blob or ours. */
  content?: Buffer;
  reason?: ConflictReason;
  hunks?: ConflictHunk[];
}

export interface EntryMergeOptions {
  /** False when core.fileMode is false: ours' mode then says nothing, and is taken from the base (the draft's for a new file). */
  trustExec: boolean;
  /** The labels of the markers: `<<<<<<< ours` and `>>>>>>> theirs`. */
  labels: { ours: string; theirs: string };
  /** Write overlapping hunks with git's conflict markers instead of stopping. */
  markers: boolean;
}

/** The merged mode of three regular files, or undefined when both sides changed it differently. */
function mergeMode(base: string | undefined, ours: string, theirs: string): string | undefined {
  if (base === undefined) return ours === theirs ? ours : undefined;
  if (ours === base) return theirs;
  if (theirs === base || ours === theirs) return ours;
  return undefined;
}

/** Merge `ours` and `theirs` against `base` (each null where the path is absent). */
export function mergeEntries(
  base: FileEntry | null,
  ours: FileEntry | null,
  theirs: FileEntry | null,
  read: (oid: Oid) => Buffer,
  options: EntryMergeOptions,
): EntryMerge {
  const conflict = (reason: ConflictReason): EntryMerge => ({ status: 'conflict', reason });
  const regular = (x: FileEntry | null): boolean => x !== null && isRegularMode(x.mode);
  const oursMode =
    ours && !options.trustExec && regular(ours) && regular(base ?? theirs) ? (base ?? theirs)!.mode : ours?.mode;
  // Both sides made the same change (a deletion too): nothing to write.
  if (sameEntry(ours && { mode: oursMode!, oid: ours.oid }, theirs)) return { status: 'merged', result: ours };
  // One side left the path as it was (a rebase merges paths the person never touched; apply never asks).
  if (sameEntry(ours, base)) return { status: 'merged', result: theirs };
  if (sameEntry(theirs, base)) return { status: 'merged', result: ours, ...(ours ? { content: read(ours.oid) } : {}) };
  if (ours === null || theirs === null) return conflict('delete/modify');
  if (!regular(ours) || !regular(theirs) || (base !== null && !regular(base))) {
    const link = (x: FileEntry | null): boolean => x?.mode === MODE.symlink;
    return conflict(link(ours) && link(theirs) && (base === null || link(base)) ? 'symlink' : 'type');
  }
  const mode = mergeMode(base?.mode, oursMode!, theirs.mode);
  if (mode === undefined) return conflict('mode');
  const entry = (content: Buffer): EntryMerge => ({
    status: 'merged',
    result: { mode, oid: blobOid(content) },
    content,
  });
  if (ours.oid === base?.oid) return { status: 'merged', result: { mode, oid: theirs.oid } };
  if (theirs.oid === base?.oid || ours.oid === theirs.oid)
    return { status: 'merged', result: { mode, oid: ours.oid }, content: read(ours.oid) };
  const b = base ? read(base.oid) : Buffer.alloc(0);
  const o = read(ours.oid);
  const t = read(theirs.oid);
  if (looksBinary(b) || looksBinary(o) || looksBinary(t)) return conflict('binary');
  const merged = mergeFile(b, o, t, options.labels);
  if (merged.status === 'too complex') return conflict('too complex');
  if (merged.status === 'clean') return entry(merged.merged);
  const c: EntryMerge = { ...conflict('overlap'), hunks: merged.hunks };
  return options.markers ? { ...c, result: entry(merged.merged).result, content: merged.merged } : c;
}
