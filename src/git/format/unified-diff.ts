import { looksBinary } from '../../core/content.js';
import { MODE, ZERO_OID } from './git-objects.js';
import { cQuote, cQuotePrefixed } from './c-quote.js';
import { hunkFunctions } from './hunk-function.js';
import type { FileEntry } from './tree-lookup.js';
import { lineSegments, type Segment } from '../../core/line-diff.js';

/**
 * Git-style unified diffs (`diff --git` headers, `index` lines, mode
 * changes) of the edit scripts of line-diff.ts. Loaded only by commands that
 * print a diff.
 */

export interface FileDiffInput {
  path: string;
  old: FileEntry | null;
  new: FileEntry | null;
  oldContent: Buffer;
  newContent: Buffer;
  /** A rename's old path (`path` is the new one), with its similarity in percent. */
  from?: string;
  similarity?: number;
  /** `core.quotePath`: paths with bytes above 0x7f are quoted (git's default, true); see c-quote.ts. */
  quotePath?: boolean;
  /**
   * Whether the file is binary, when its `diff` attribute says so (`-diff`
   * or `binary`: true; `diff` set: false, even with a NUL in it); undefined:
   * by its content, as git looks (a NUL in its first 8000 bytes).
   */
  binary?: boolean;
  /** The paths' prefixes (`--src-prefix`, `--dst-prefix`); default `a/` and `b/`. */
  prefixes?: { src: string; dst: string };
  /** The ids of the `index` line, abbreviated (git/abbrev.ts); default: 7 hex digits, which the fingerprint form always takes. */
  abbrev?: (oid: string) => string;
  /** The function line after each hunk's `@@ ... @@` (hunk-function.ts); default true. */
  functionNames?: boolean;
  /**
   * `git`, the default: as git diff writes it. `fingerprint`: the form the
   * review fingerprint hashes (src/review/review.ts), kept as shadow first
   * wrote it, so that a fingerprint, and the approvals bound to it, do not
   * change when the way shadow shows a diff does: paths as they are (no
   * quoting), no tab after a name with a space, no function lines, a
   * change of type as one block, a submodule as a binary file.
   */
  form?: 'git' | 'fingerprint';
}

export interface FileDiff {
  text: string;
  insertions: number;
  deletions: number;
  binary: boolean;
  /** The lines the change adds, with their numbers in the new content (what the secret guard scans). */
  added: Array<{ line: number; text: string }>;
}

/** One hunk, as jsdiff's `structuredPatch` gives it: lines prefixed with ' ', '-' or '+', without their `\n`. */
export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

const NO_NEWLINE = '\\ No newline at end of file';

/**
 * The hunks of an edit script with `context` lines around each change, the
 * way jsdiff's `structuredPatch` cuts them (a test holds the two to the same
 * output): changes closer than twice the context share a hunk, and a line
 * without a final newline is followed by git's "No newline" marker.
 */
export function hunksOf(segments: readonly Segment[], context: number): Hunk[] {
  const hunks: Hunk[] = [];
  let open: Hunk | undefined;
  let oldLine = 1;
  let newLine = 1;
  const close = (trailing: readonly string[]): void => {
    for (const l of trailing) open!.lines.push(` ${l}`);
    open!.oldLines = oldLine - open!.oldStart + trailing.length;
    open!.newLines = newLine - open!.newStart + trailing.length;
    hunks.push(open!);
    open = undefined;
  };
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (s.kind === 'same') {
      if (open) {
        if (s.lines.length <= 2 * context && i < segments.length - 1) for (const l of s.lines) open.lines.push(` ${l}`);
        else close(s.lines.slice(0, context));
      }
      oldLine += s.lines.length;
      newLine += s.lines.length;
      continue;
    }
    if (!open) {
      const before = segments[i - 1];
      const lead = before && context > 0 ? before.lines.slice(-context) : [];
      open = {
        oldStart: oldLine - lead.length,
        oldLines: 0,
        newStart: newLine - lead.length,
        newLines: 0,
        lines: lead.map((l) => ` ${l}`),
      };
    }
    const sign = s.kind === 'add' ? '+' : '-';
    for (const l of s.lines) open.lines.push(sign + l);
    if (s.kind === 'add') newLine += s.lines.length;
    else oldLine += s.lines.length;
  }
  if (open) close([]);
  for (const h of hunks) {
    const lines: string[] = [];
    for (const l of h.lines) {
      if (l.endsWith('\n')) lines.push(l.slice(0, -1));
      else lines.push(l, NO_NEWLINE);
    }
    h.lines = lines;
  }
  return hunks;
}

const short = (oid: string): string => oid.slice(0, 7);

function splitText(b: Buffer): string {
  return b.toString('utf8');
}

/** A hunk range as git prints it: an empty range starts at the line before it (jsdiff gives the line after). */
function hunkRange(start: number, lines: number): string {
  if (lines === 1) return `${start}`;
  return lines === 0 ? `${start - 1},0` : `${start},${lines}`;
}

/** Offsets of the line starts of `text` (a final line without a newline included). */
function lineStarts(text: string): number[] {
  const starts: number[] = [];
  for (let i = 0; i < text.length; i = text.indexOf('\n', i) + 1 || text.length) starts.push(i);
  return starts;
}

/**
 * The part of two texts a diff needs to look at: the lines between their
 * common prefix and common suffix, with `context` lines of each kept. jsdiff
 * compares every line of both texts (100 µs for a 60-line file with one
 * change); trimming first, as git's xdiff does, makes a small change cost
 * what its few lines cost. `skipped` is how many lines were cut from the top.
 */
function changedWindow(a: string, b: string, context: number): { old: string; new: string; skipped: number } {
  const as = lineStarts(a);
  const bs = lineStarts(b);
  const line = (text: string, starts: number[], i: number): string =>
    text.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : text.length);
  let prefix = 0;
  while (prefix < as.length && prefix < bs.length && line(a, as, prefix) === line(b, bs, prefix)) prefix++;
  let suffix = 0;
  while (
    suffix < as.length - prefix &&
    suffix < bs.length - prefix &&
    line(a, as, as.length - 1 - suffix) === line(b, bs, bs.length - 1 - suffix)
  ) {
    suffix++;
  }
  const top = Math.max(0, prefix - context);
  const bottom = Math.max(0, suffix - context);
  const cut = (text: string, starts: number[]): string =>
    text.slice(starts[top] ?? text.length, bottom === 0 ? text.length : starts[starts.length - bottom]);
  return { old: cut(a, as), new: cut(b, bs), skipped: top };
}

/** What kind of entry a mode is, as git's S_IFMT tells them: a regular file (either mode), a symlink, a submodule. */
const kindOf = (mode: string): string => (mode === MODE.symlink || mode === MODE.gitlink ? mode : 'file');

/** What git diffs for a submodule (a gitlink): the line it would check out, as diff.c's populate_filespec makes it. */
const subproject = (oid: string): Buffer => Buffer.from(`Subproject commit ${oid}\n`);

/**
 * The unified diff of one file, in git's format, with its line counts. As
 * git does (diff.c, run_diff), a change of type (a file, a symlink, a
 * submodule) is written as the old one's deletion and the new one's
 * creation, and a submodule's side is the text `Subproject commit <id>`.
 * The `fingerprint` form keeps the one block and calls a submodule binary,
 * as shadow first wrote them.
 */
export function fileDiff(input: FileDiffInput, context = 3): FileDiff {
  const { old, new: next } = input;
  if (input.form === 'fingerprint' || !old || !next || kindOf(old.mode) === kindOf(next.mode))
    return oneFileDiff(input, context);
  const none = Buffer.alloc(0);
  const single = { from: undefined, similarity: undefined };
  const gone = oneFileDiff(
    { ...input, ...single, path: input.from ?? input.path, new: null, newContent: none },
    context,
  );
  const made = oneFileDiff({ ...input, ...single, old: null, oldContent: none }, context);
  return {
    text: gone.text + made.text,
    insertions: made.insertions,
    deletions: gone.deletions,
    binary: gone.binary || made.binary,
    added: made.added,
  };
}

function oneFileDiff(input: FileDiffInput, context: number): FileDiff {
  const { path, old, new: next } = input;
  const oldPath = input.from ?? path;
  const asGit = input.form !== 'fingerprint';
  const fully = input.quotePath ?? true;
  // Paths as git writes them: quoted where they must be (c-quote.ts).
  const quote = (p: string): string => (asGit ? cQuote(p, fully) : p);
  const a = asGit ? cQuotePrefixed(input.prefixes?.src ?? 'a/', oldPath, fully) : `a/${oldPath}`;
  const b = asGit ? cQuotePrefixed(input.prefixes?.dst ?? 'b/', path, fully) : `b/${path}`;
  const head: string[] = [`diff --git ${a} ${b}`];
  if (!old && next) head.push(`new file mode ${next.mode}`);
  else if (old && !next) head.push(`deleted file mode ${old.mode}`);
  else if (old && next && old.mode !== next.mode) head.push(`old mode ${old.mode}`, `new mode ${next.mode}`);
  if (input.from !== undefined)
    head.push(
      `similarity index ${input.similarity ?? 100}%`,
      `rename from ${quote(input.from)}`,
      `rename to ${quote(path)}`,
    );
  const abbreviate = asGit && input.abbrev ? input.abbrev : short;
  const oldId = abbreviate(old ? old.oid : ZERO_OID);
  const newId = abbreviate(next ? next.oid : ZERO_OID);
  if (old?.oid !== next?.oid)
    head.push(`index ${oldId}..${newId}${old && next && old.mode === next.mode ? ` ${old.mode}` : ''}`);
  else return { text: `${head.join('\n')}\n`, insertions: 0, deletions: 0, binary: false, added: [] };
  const gitlink = old?.mode === MODE.gitlink || next?.mode === MODE.gitlink;
  const oldContent = asGit && old?.mode === MODE.gitlink ? subproject(old.oid) : input.oldContent;
  const newContent = asGit && next?.mode === MODE.gitlink ? subproject(next.oid) : input.newContent;
  const binary = (!asGit && gitlink) || (input.binary ?? (looksBinary(oldContent) || looksBinary(newContent)));
  const from = old ? a : '/dev/null';
  const to = next ? b : '/dev/null';
  if (binary)
    return {
      text: `${head.join('\n')}\nBinary files ${from} and ${to} differ\n`,
      insertions: 0,
      deletions: 0,
      binary: true,
      added: [],
    };
  const window = changedWindow(splitText(oldContent), splitText(newContent), context);
  const hunks = hunksOf(lineSegments(window.old, window.new), context);
  let insertions = 0;
  let deletions = 0;
  const added: FileDiff['added'] = [];
  // A name with a space ends in a tab (git's name_a_tab), so that a reader can tell where it ends.
  const tab = (label: string, name: string): string =>
    asGit && label !== '/dev/null' && name.includes(' ') ? '\t' : '';
  const body: string[] = [`--- ${from}${tab(from, oldPath)}`, `+++ ${to}${tab(to, path)}`];
  // The hunk's first line in the old file, 0-based, as xdiff counts it; for an empty range, the line after it.
  const functions =
    asGit && (input.functionNames ?? true)
      ? hunkFunctions(
          oldContent,
          hunks.map((h) => h.oldStart + window.skipped - 1),
        )
      : [];
  for (const [i, h] of hunks.entries()) {
    const oldStart = h.oldStart + window.skipped;
    const newStart = h.newStart + window.skipped;
    const fn = functions[i] ? ` ${functions[i]}` : '';
    body.push(`@@ -${hunkRange(oldStart, h.oldLines)} +${hunkRange(newStart, h.newLines)} @@${fn}`);
    let newLine = newStart;
    for (const line of h.lines) {
      if (line.startsWith('+')) {
        insertions++;
        added.push({ line: newLine++, text: line.slice(1) });
      } else if (line.startsWith('-')) deletions++;
      else if (line.startsWith(' ')) newLine++;
      body.push(line);
    }
  }
  // No hunk (an empty file added or deleted): git writes the `---`/`+++` lines with the first hunk, so none.
  const text = hunks.length === 0 && asGit ? `${head.join('\n')}\n` : `${head.join('\n')}\n${body.join('\n')}\n`;
  return { text, insertions, deletions, binary: false, added };
}
