import { parseHunkHeader, textLines, type FileDiff } from './parse-diff.js';

/**
 * Whether a file's patch applies to the draft's base, checked as `git apply
 * --check` checks a hunk: its context and removed lines, in order, must be
 * the base's lines at its place or a few lines from it. The base lines
 * known are those the diff shows (the context and removed lines of its
 * hunks, by line number): an edited hunk that needs any other line does
 * not apply.
 */

/** Base line number → the line (its LF dropped where the base has none there). */
export type KnownBase = Map<number, string>;

/** Preimage lines of each hunk of `lines` (a file's patch), with where it starts. */
interface Preimage {
  /** The first line it covers (after the line it follows, for a hunk that only adds). */
  at: number;
  /** The old offset its header states, as git apply names it. */
  stated: number;
  count: number;
  pre: string[];
}

function preimages(lines: readonly string[]): Preimage[] {
  const out: Preimage[] = [];
  let current: Preimage | undefined;
  let lastWasPre = false;
  for (const line of lines) {
    if (line.startsWith('@@ ')) {
      const h = parseHunkHeader(line.replace(/\n$/, ''));
      if (!h) return out;
      current = {
        at: h.oldCount === 0 ? h.oldOffset + 1 : h.oldOffset,
        stated: h.oldOffset,
        count: h.oldCount,
        pre: [],
      };
      out.push(current);
      lastWasPre = false;
    } else if (!current) continue;
    else if (line[0] === ' ' || line[0] === '-') {
      current.pre.push(line.slice(1));
      lastWasPre = true;
    } else if (line === '\n' || line === '\r\n') {
      current.pre.push(line);
      lastWasPre = true;
    } else if (line[0] === '\\') {
      if (lastWasPre) current.pre[current.pre.length - 1] = current.pre[current.pre.length - 1]!.replace(/\n$/, '');
    } else lastWasPre = false;
  }
  return out;
}

/** The base lines the file's own diff shows, read before any edit. */
export function knownBase(file: FileDiff): KnownBase {
  const known: KnownBase = new Map();
  for (const hunk of file.hunks) {
    if (hunk.header.oldOffset === 0) continue;
    const body = [`@@ -${hunk.header.oldOffset},${hunk.header.oldCount} +1 @@\n`];
    for (let i = hunk.start; i < hunk.end; i++) body.push(file.plain[i]!);
    const [p] = preimages(body);
    p?.pre.forEach((line, k) => known.set(p.at + k, line));
  }
  return known;
}

/** How far from its stated place a hunk may be found. */
const REACH = 100;

/** Where the first hunk of `patch` that does not find its preimage among the known base lines says it starts; undefined when all do. */
export function notApplying(patch: string, known: KnownBase): number | undefined {
  for (const { at, count, pre, stated } of preimages(textLines(patch))) {
    if (count !== pre.length) return stated;
    if (pre.length === 0) continue;
    const fits = (start: number): boolean => pre.every((line, k) => known.get(start + k) === line);
    let found = fits(at);
    for (let d = 1; d <= REACH && !found; d++) found = fits(at - d) || fits(at + d);
    if (!found) return stated;
  }
  return undefined;
}
