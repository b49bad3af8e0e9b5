import { isUtf8 } from 'node:buffer';
import { fileDiff } from '../../git/format/unified-diff.js';
import { MODE } from '../../git/format/git-objects.js';
import type { FileEntry } from '../../git/format/tree-lookup.js';
import { parseGitPatch, type PatchHunk } from './git-patch.js';
import { hunkInfos, type HunkInfo } from './hunk-ids.js';

/**
 * A changed file cut into the hunks a person can take one by one. What
 * cannot be cut is taken whole, and says why (`whole`): a binary file, a
 * symlink or submodule or a change of file type (`type`), text that is not
 * UTF-8 (`encoding`: the diff's text would not give its bytes back), an
 * empty file added or deleted (`empty`: no hunk to name). An added or a
 * deleted text file has the one hunk the diff prints, and taking it takes
 * the file. A mode change beside content changes is its own choice
 * (`<path>:mode`); a file whose only change is its mode has no hunk.
 */

export type WholeReason = 'binary' | 'type' | 'encoding' | 'empty';

export interface FileHunks {
  path: string;
  old: FileEntry | null;
  new: FileEntry | null;
  hunks: PatchHunk[];
  infos: HunkInfo[];
  /** Set when the file is taken whole only (see the module comment). */
  whole?: WholeReason;
  /** The mode changes, and the content too or not. */
  modeChange: boolean;
}

function wholeReason(
  old: FileEntry | null,
  next: FileEntry | null,
  oldContent: Buffer,
  newContent: Buffer,
  binary: boolean,
  hunks: number,
): WholeReason | undefined {
  const special = (e: FileEntry | null): boolean => e !== null && (e.mode === MODE.symlink || e.mode === MODE.gitlink);
  if (special(old) || special(next)) return 'type';
  if (binary) return 'binary';
  if (!isUtf8(oldContent) || !isUtf8(newContent)) return 'encoding';
  if (hunks === 0 && (old === null || next === null)) return 'empty';
  return undefined;
}

/**
 * The hunks of one changed path (`text`: its diff as unified-diff.ts
 * printed it, when the caller has it already).
 */
export function fileHunks(
  path: string,
  old: FileEntry | null,
  next: FileEntry | null,
  oldContent: Buffer,
  newContent: Buffer,
  text?: { text: string; binary: boolean },
): FileHunks {
  const d = text ?? fileDiff({ path, old, new: next, oldContent, newContent });
  const whole0 = wholeReason(old, next, oldContent, newContent, d.binary, 1);
  const hunks = whole0 === undefined ? (parseGitPatch(d.text)[0]?.hunks ?? []) : [];
  const whole = whole0 ?? wholeReason(old, next, oldContent, newContent, false, hunks.length);
  const modeChange = old !== null && next !== null && old.mode !== next.mode;
  const out: FileHunks = {
    path,
    old,
    new: next,
    hunks,
    infos: hunkInfos(path, old?.oid ?? null, next?.oid ?? null, hunks),
    modeChange,
  };
  if (whole !== undefined) out.whole = whole;
  return out;
}
