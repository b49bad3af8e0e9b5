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
  const patch = structuredPatch(from, to, splitText(input.oldContent), splitText(input.newContent), undefined, undefined, { context });
  let insertions = 0;
  let deletions = 0;
  const added: FileDiff['added'] = [];
  const body: string[] = [`--- ${from}`, `+++ ${to}`];
  for (const h of patch.hunks) {
    body.push(`@@ -${hunkRange(h.oldStart, h.oldLines)} +${hunkRange(h.newStart, h.newLines)} @@`);
    let newLine = h.newStart;
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
