/**
 * Edits that merge: a draft's and a person's changes to the same files on
 * lines far enough apart that a three-way merge (git's, or shadow's) takes
 * both without a conflict, for the benchmarks that time merging.
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { prng } from './workload.js';

/** Files shorter than this are not drawn: the two edits stay at least four unchanged lines apart. */
export const MIN_LINES = 8;

function lines(text: string): string[] {
  return text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
}

/** The draft's edit: the second line replaced. */
export function draftEdit(text: string, path: string): string {
  const ls = lines(text);
  ls[1] = `// ${path}: line 2 as the draft has it`;
  return `${ls.join('\n')}\n`;
}

/** The person's edit: the last line replaced (far from the draft's). */
export function personEdit(text: string, path: string): string {
  const ls = lines(text);
  ls[ls.length - 1] = `// ${path}: the last line as the person has it`;
  return `${ls.join('\n')}\n`;
}

/** True when `text` holds both edits: a clean merge of the two. */
export function holdsBoth(text: string, path: string): boolean {
  return (
    text.includes(`// ${path}: line 2 as the draft has it\n`) &&
    text.endsWith(`// ${path}: the last line as the person has it\n`)
  );
}

/**
 * `k` distinct tracked files of at least MIN_LINES lines, drawn by a seeded
 * shuffle of `paths` (the same files every run), with their contents as the
 * repository at `dir` holds them.
 */
export function drawFiles(
  paths: readonly string[],
  dir: string,
  k: number,
  seed: number,
): Array<{ path: string; text: string }> {
  const order = shuffled(paths, seed);
  const out: Array<{ path: string; text: string }> = [];
  for (const path of order) {
    const text = nodeFs.readFileSync(join(dir, path), 'utf8');
    if (lines(text).length >= MIN_LINES) out.push({ path, text });
    if (out.length === k) return out;
  }
  throw new Error(`only ${out.length} files of at least ${MIN_LINES} lines, ${k} wanted`);
}

/** A seeded Fisher-Yates shuffle of a copy of `xs`: the same order every run. */
export function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const rand = prng(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
