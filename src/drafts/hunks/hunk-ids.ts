import { createHash } from 'node:crypto';
import type { PatchHunk } from './git-patch.js';

/**
 * The names of a draft's hunks. The hunks are those of the draft's diff
 * against its bases exactly as `shadow diff` prints them (git's format, 3
 * lines of context), numbered from 1 per file in that order. A hunk's id is
 * the first 12 hex digits of sha256 over `path \0 old blob id \0 new blob
 * id \0 header` (40 zeros for an absent side; the header's `@@ -a,b +c,d
 * @@` alone, without the function line git writes after it, so that an id
 * does not change with how a diff is shown): it names that hunk of that
 * state of the draft only, so a spec written before the draft moved names
 * no hunk of it afterwards.
 */

/** A hunk as `shadow diff --json` lists it. */
export interface HunkInfo {
  id: string;
  /** 1-based, in the file's order. */
  index: number;
  /** The `@@ … @@` line. */
  header: string;
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
}

const ZEROS = '0'.repeat(40);

/** The id of a hunk (see the module comment). */
export function hunkId(path: string, oldOid: string | null, newOid: string | null, header: string): string {
  const ranges = /^@@ [^@]* @@/.exec(header)?.[0] ?? header;
  return createHash('sha256')
    .update(`${path}\0${oldOid ?? ZEROS}\0${newOid ?? ZEROS}\0${ranges}`)
    .digest('hex')
    .slice(0, 12);
}

/** The listing of a file's hunks. */
export function hunkInfos(
  path: string,
  oldOid: string | null,
  newOid: string | null,
  hunks: readonly PatchHunk[],
): HunkInfo[] {
  return hunks.map((h, i) => ({
    id: hunkId(path, oldOid, newOid, h.header),
    index: i + 1,
    header: h.header,
    old_start: h.oldStart,
    old_lines: h.oldLines,
    new_start: h.newStart,
    new_lines: h.newLines,
  }));
}
