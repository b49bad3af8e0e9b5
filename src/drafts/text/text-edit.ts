/**
 * The `edit` op on text: exact search-and-replace of a unique snippet, with
 * the diagnostics a model needs when it does not match.
 */

/** Start indices of every (possibly overlapping) occurrence of `needle`, up to `limit`. */
export function occurrences(text: string, needle: string, limit = 1000): number[] {
  const out: number[] = [];
  if (needle.length === 0) return out;
  let i = text.indexOf(needle);
  while (i !== -1 && out.length < limit) {
    out.push(i);
    i = text.indexOf(needle, i + 1);
  }
  return out;
}

/** 1-based line number of the character at `index`. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** 1-based line numbers of several indices, in one pass. */
export function linesAt(text: string, indices: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let pos = 0;
  for (const index of indices) {
    for (let nl = text.indexOf('\n', pos); nl !== -1 && nl < index; nl = text.indexOf('\n', nl + 1)) {
      line++;
      pos = nl + 1;
    }
    out.push(line);
  }
  return out;
}

/** A line of the file that resembles what an edit looked for. */
export interface NearMatch {
  line: number;
  text: string;
  /** How it differs: `whitespace` when only spacing differs, else `similar`. */
  kind: 'whitespace' | 'line-endings' | 'similar';
}

const MAX_SCAN_LINES = 20000;

function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Similarity of two short strings in [0, 1]: shared character bigrams (Dice). */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const grams = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const g = a.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const g = b.slice(i, i + 2);
    const n = grams.get(g) ?? 0;
    if (n > 0) {
      grams.set(g, n - 1);
      shared++;
    }
  }
  return (2 * shared) / (a.length + b.length - 2);
}

/**
 * The lines closest to the first non-blank line of `needle`: exact matches
 * but for whitespace first, then the most similar lines. Bounded work: at most
 * 20,000 lines are scanned.
 */
export function nearMatches(text: string, needle: string, max = 3): NearMatch[] {
  if (text.includes('\r\n') && !needle.includes('\r\n') && text.includes(needle.replace(/\n/g, '\r\n'))) {
    const at = text.indexOf(needle.replace(/\n/g, '\r\n'));
    return [
      {
        line: lineAt(text, at),
        text: text.slice(at, text.indexOf('\n', at) === -1 ? undefined : text.indexOf('\n', at)).replace(/\r$/, ''),
        kind: 'line-endings',
      },
    ];
  }
  const probe = needle.split('\n').find((l) => l.trim().length > 0);
  if (probe === undefined) return [];
  const lines = text.split('\n', MAX_SCAN_LINES);
  const squashed = squash(probe);
  const exact: NearMatch[] = [];
  const scored: Array<{ score: number; m: NearMatch }> = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line.trim().length === 0) continue;
    const s = squash(line);
    if (s === squashed) {
      exact.push({ line: i + 1, text: line, kind: 'whitespace' });
      if (exact.length >= max) break;
      continue;
    }
    if (Math.abs(s.length - squashed.length) > Math.max(squashed.length, 8)) continue;
    const score = similarity(s, squashed);
    if (score >= 0.5) scored.push({ score, m: { line: i + 1, text: line, kind: 'similar' } });
  }
  if (exact.length > 0) return exact;
  scored.sort((a, b) => b.score - a.score || a.m.line - b.m.line);
  return scored.slice(0, max).map((s) => s.m);
}

/** Shorten a line for a message. */
export function clip(s: string, max = 120): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
