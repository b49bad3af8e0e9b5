import { structuredPatch } from 'diff';
import { looksBinary } from './content.js';
import { MODE } from './git-objects.js';
import type { FileEntry } from './tree-lookup.js';

/**
 * Git-style unified diffs (`diff --git` headers, `index` lines, mode
 * changes) built on jsdiff. Loaded only by commands that print a diff.
 */

export interface FileDiffInput {
  path: string;
  old: FileEntry | null;
  new: FileEntry | null;
  oldContent: Buffer;
  newContent: Buffer;
}

export interface FileDiff {
  text: string;
  insertions: number;
  deletions: number;
  binary: boolean;
  /** The lines the change adds, with their numbers in the new content (what the secret guard scans). */
  added: Array<{ line: number; text: string }>;
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
  const line = (text: string, starts: number[], i: number): string => text.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : text.length);
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
  const cut = (text: string, starts: number[]): string => text.slice(starts[top] ?? text.length, bottom === 0 ? text.length : starts[starts.length - bottom]);
  return { old: cut(a, as), new: cut(b, bs), skipped: top };
}

/** The unified diff of one file, in git's format, with its line counts. */
export function fileDiff(input: FileDiffInput, context = 3): FileDiff {
  const { path, old, new: next } = input;
  const head: string[] = [`diff --git a/${path} b/${path}`];
  if (!old && next) head.push(`new file mode ${next.mode}`);
  else if (old && !next) head.push(`deleted file mode ${old.mode}`);
  else if (old && next && old.mode !== next.mode) head.push(`old mode ${old.mode}`, `new mode ${next.mode}`);
  const oldId = old ? short(old.oid) : '0000000';
  const newId = next ? short(next.oid) : '0000000';
  if (old?.oid !== next?.oid) head.push(`index ${oldId}..${newId}${old && next && old.mode === next.mode ? ` ${old.mode}` : ''}`);
  else return { text: `${head.join('\n')}\n`, insertions: 0, deletions: 0, binary: false, added: [] };
  const binary = looksBinary(input.oldContent) || looksBinary(input.newContent) || old?.mode === MODE.gitlink || next?.mode === MODE.gitlink;
  const from = old ? `a/${path}` : '/dev/null';
  const to = next ? `b/${path}` : '/dev/null';
  if (binary) return { text: `${head.join('\n')}\nBinary files ${from} and ${to} differ\n`, insertions: 0, deletions: 0, binary: true, added: [] };
  const window = changedWindow(splitText(input.oldContent), splitText(input.newContent), context);
  const patch = structuredPatch(from, to, window.old, window.new, undefined, undefined, { context });
  let insertions = 0;
  let deletions = 0;
  const added: FileDiff['added'] = [];
  const body: string[] = [`--- ${from}`, `+++ ${to}`];
  for (const h of patch.hunks) {
    const oldStart = h.oldStart + window.skipped;
    const newStart = h.newStart + window.skipped;
    body.push(`@@ -${hunkRange(oldStart, h.oldLines)} +${hunkRange(newStart, h.newLines)} @@`);
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
  return { text: `${head.join('\n')}\n${body.join('\n')}\n`, insertions, deletions, binary: false, added };
}
