import type { Oid } from '../git/format/git-objects.js';
import type { ConflictHunk } from '../git/format/merge-file.js';

/**
 * What stops a publish at a path: the guard's finding (the working tree no
 * longer holds what the publish expects there) and, for an apply, why the
 * three-way merge could not settle it (merge-paths.ts).
 */

/**
 * Why apply could not merge a path (merge-paths.ts): `overlap`, both
 * changed the same lines (`--conflict=markers` writes them); or what no
 * line merge settles: `binary`, `delete/modify`, `mode` (both changed it,
 * differently), `symlink` (both changed its target), `type` (a file
 * against a symlink, a directory, a special file), `too complex`.
 */
export type ConflictReason = 'overlap' | 'binary' | 'delete/modify' | 'mode' | 'symlink' | 'type' | 'too complex';

/** Why a path cannot be published. */
export interface PathConflict {
  path: string;
  /** The blob the path should hold (null: it should be absent). */
  expected: Oid | null;
  found: 'modified' | 'deleted' | 'created' | 'type changed';
  detail?: string;
  /** Why apply could not merge it (merge-paths.ts); `overlap` with the hunks both sides changed. */
  reason?: ConflictReason;
  hunks?: ConflictHunk[];
}
