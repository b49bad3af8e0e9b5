/**
 * A draft's diff read into files and hunks the way `git add -p` reads
 * git's diff (add-patch.c, parse_diff): each file has a head (its
 * `diff --git` lines up to the first hunk), a mode change as a hunk of its
 * own, a deletion as one hunk, and counts how many hunks each hunk could
 * be split into at its runs of context. Lines are kept whole (with their
 * LF); an edited hunk appends its lines, as git appends to its buffer, so
 * a hunk is always a range of its file's lines.
 */
import { cUnquote } from '../../src/index.js';

export type HunkUse = 'undecided' | 'skip' | 'use';

export interface HunkHeader {
  oldOffset: number;
  oldCount: number;
  newOffset: number;
  newCount: number;
  /** What follows the second `@@` (a function name) with the LF, as the plain diff has it. */
  extra: string;
  /** The same in the coloured diff (its colours and reset). */
  colouredExtra: string;
}

export interface Hunk {
  /** The hunk's lines (after its `@@` line): `start` to `end`, exclusive, in the file's `plain`. */
  start: number;
  end: number;
  splittableInto: number;
  /** Lines the hunk adds beyond what its header says, after an edit (git's delta). */
  delta: number;
  use: HunkUse;
  /** Offsets 0 and 0: a pseudo-hunk (the head, a mode change, a deletion) shown as it is. */
  header: HunkHeader;
}

export interface FileDiff {
  /** The path as git apply names it in its messages: the old one (`--- a/<path>`), else the new one. */
  path: string;
  head: Hunk;
  hunks: Hunk[];
  deleted: boolean;
  added: boolean;
  modeChange: boolean;
  binary: boolean;
  /** The file's lines, each with its LF; edited hunks are appended. */
  plain: string[];
  /** The coloured lines, one for each plain line (the plain ones when uncoloured). */
  coloured: string[];
}

/**
 * The path of a `--- a/<path>` or `+++ b/<path>` line (with its LF): a
 * name git quoted read back, the tab git puts after a name with a space
 * dropped; undefined for `/dev/null`.
 */
function headPath(line: string, prefix: 'a/' | 'b/'): string | undefined {
  const field = line.slice(4).replace(/\n$/, '');
  const name = field.startsWith('"') ? cUnquote(field.replace(/\t$/, '')) : field.replace(/\t.*$/, '');
  return name?.startsWith(prefix) ? name.slice(2) : undefined;
}

const emptyHeader = (): HunkHeader => ({
  oldOffset: 0,
  oldCount: 0,
  newOffset: 0,
  newCount: 0,
  extra: '',
  colouredExtra: '',
});

export const newHunk = (start: number): Hunk => ({
  start,
  end: start,
  splittableInto: 0,
  delta: 0,
  use: 'undecided',
  header: emptyHeader(),
});

/** The text cut into lines, each with its LF, the last completed with one (strbuf_complete_line). */
export function textLines(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length > 0 && !lines[lines.length - 1]!.endsWith('\n')) lines[lines.length - 1] += '\n';
  return lines;
}

/**
 * A `@@ -a,b +c,d @@` line's numbers and what follows, its LF included (git's
 * parse_hunk_header: a count left out is 1), or undefined when it is not one.
 */
export function parseHunkHeader(line: string, coloured?: string): HunkHeader | undefined {
  const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
  if (!m) return undefined;
  let colouredExtra = '';
  if (coloured !== undefined) {
    const at = coloured.indexOf('@@ -');
    const close = at < 0 ? -1 : coloured.indexOf(' @@', at + 4);
    colouredExtra = close < 0 ? coloured : coloured.slice(close + 3);
  }
  return {
    oldOffset: Number(m[1]),
    oldCount: m[2] === undefined ? 1 : Number(m[2]),
    newOffset: Number(m[3]),
    newCount: m[4] === undefined ? 1 : Number(m[4]),
    extra: line.slice(m[0].length),
    colouredExtra,
  };
}

const isOctal = (s: string): boolean => /^[0-7]+$/.test(s);

/** A hunk whose last line changes something can be cut once more after it (complete_file). */
function completeFile(marker: string, hunk: Hunk | undefined): void {
  if (hunk && (marker === '-' || marker === '+')) hunk.splittableInto++;
}

/**
 * The files and hunks of `plain`, a diff in git's format; `coloured` is the
 * same diff in colour, line for line, or undefined.
 */
export function parseDiff(plain: string, coloured?: string): FileDiff[] {
  const all = textLines(plain);
  const allColoured = coloured === undefined ? all : textLines(coloured);
  if (allColoured.length !== all.length)
    throw new Error('the coloured diff does not match the plain one line for line');
  const files: FileDiff[] = [];
  let file: FileDiff | undefined;
  let hunk: Hunk | undefined;
  let marker = '';
  for (let i = 0; i < all.length; i++) {
    const line = all[i]!;
    if (line.startsWith('diff ') || !file) {
      completeFile(marker, hunk);
      file = {
        path: '',
        head: newHunk(0),
        hunks: [],
        deleted: false,
        added: false,
        modeChange: false,
        binary: false,
        plain: [],
        coloured: [],
      };
      files.push(file);
      hunk = file.head;
      marker = '';
    }
    const at = file.plain.length;
    file.plain.push(line);
    file.coloured.push(allColoured[i]!);
    let modeLine = false;
    if (file.deleted) {
      // The rest of a deleted file is one hunk; its path is the one its `---` line names.
      if (file.path === '' && line.startsWith('--- ')) file.path = headPath(line, 'a/') ?? '';
    } else if (line.startsWith('@@ ') || (hunk === file.head && line.startsWith('deleted file'))) {
      if (marker === '-' || marker === '+') hunk!.splittableInto++;
      hunk = newHunk(at);
      file.hunks.push(hunk);
      if (line.startsWith('deleted file')) file.deleted = true;
      else {
        const header = parseHunkHeader(line, allColoured[i]!);
        if (!header) throw new Error(`could not parse hunk header '${line.replace(/\n$/, '')}'`);
        hunk.header = header;
        hunk.start = at + 1;
      }
      marker = line[0]!;
    } else if (hunk === file.head && line.startsWith('new file')) {
      file.added = true;
    } else if (hunk === file.head && line.startsWith('old mode ') && isOctal(line.slice(9, -1))) {
      file.modeChange = true;
      file.hunks.push(newHunk(at));
      modeLine = true;
    } else if (hunk === file.head && line.startsWith('new mode ') && isOctal(line.slice(9, -1))) {
      modeLine = file.modeChange;
    } else if (hunk === file.head && (line.startsWith('--- ') || (line.startsWith('+++ ') && file.path === ''))) {
      file.path = headPath(line, line.startsWith('-') ? 'a/' : 'b/') ?? file.path;
    } else if (hunk === file.head && line.startsWith('Binary files ')) {
      file.binary = true;
    }
    if ((marker === '-' || marker === '+') && line[0] === ' ') hunk!.splittableInto++;
    if (marker !== '' && line[0] !== '\\') marker = line[0]!;
    hunk!.end = at + 1;
    if (modeLine) file.hunks[0]!.end = hunk!.end;
  }
  completeFile(marker, hunk);
  return files;
}
