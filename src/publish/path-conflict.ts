import type { Oid } from '../git/format/git-objects.js';
import type { ConflictHunk } from '../git/format/merge-file.js';
import type { ConflictReason } from '../drafts/rebase/entry-merge.js';

/**
 * What stops a publish at a path: the guard's finding (the working tree no
 * longer holds what the publish expects there) and, for an apply, why the
 * three-way merge could not settle it (merge-paths.ts).
 */

/** Why apply could not merge a path (drafts/rebase/entry-merge.ts says each reason). */
export type { ConflictReason };

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
