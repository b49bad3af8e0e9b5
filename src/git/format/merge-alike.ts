import { diffIndices } from 'node-diff3';

/**
 * When a change both sides made alike may not be taken as merged.
 *
 * node-diff3 takes a region both sides changed the same way as merged. git
 * does too, but its diff may align the same lines otherwise: next to a
 * repeated line, where a side's change can slide (git's
 * `xdl_change_compact` slides changes over equal lines) into another change
 * of that side, git sees one larger change there, which overlaps the other
 * side's, and reports a conflict. The corpus of test/merge-corpus.test.ts
 * found each of its merges where git reports a conflict and node-diff3
 * none to be of this kind. So a change made alike stands as merged only
 * when nothing could slide into it: when the stretch of repeated lines
 * around it that a change could slide over (counted generously: any line
 * the change holds) reaches no other change of either side. Otherwise the
 * stretch from the first to the last of the changes involved is a
 * conflict.
 */

interface Hunk {
  /** Base lines [from, to), and the side's lines [sideFrom, sideTo) in their place. */
  from: number;
  to: number;
  sideFrom: number;
  sideTo: number;
  text: string;
  lines: Set<string>;
}

function hunks(o: readonly string[], side: readonly string[]): Hunk[] {
  return diffIndices(o as string[], side as string[]).map((d) => {
    const [from, n] = d.buffer1;
    const [sideFrom, m] = d.buffer2;
    return {
      from,
      to: from + n,
      sideFrom,
      sideTo: sideFrom + m,
      text: d.buffer2Content.join(''),
      lines: new Set([...d.buffer1Content, ...d.buffer2Content]),
    };
  });
}

/** The base lines a hunk could slide over, generously: while the line next to it is one the hunk holds. */
function reach(o: readonly string[], h: Hunk): [number, number] {
  let from = h.from;
  let to = h.to;
  while (from > 0 && h.lines.has(o[from - 1]!)) from--;
  while (to < o.length && h.lines.has(o[to]!)) to++;
  return [from, to];
}

/** Where base position `p` falls in a side (`p` at a hunk's edge or outside every hunk; an insertion at `p` counts as before it when `before`). */
function sidePos(hs: readonly Hunk[], p: number, before: boolean): number {
  let delta = 0;
  for (const h of hs) {
    if (h.to < p || (h.to === p && (h.from < p || !before))) delta += h.sideTo - h.sideFrom - (h.to - h.from);
  }
  return p + delta;
}

/** A stretch to hold as a conflict: base [o0, o1), ours [a0, a1), theirs [b0, b1). */
export interface Stretch {
  o0: number;
  o1: number;
  a0: number;
  a1: number;
  b0: number;
  b1: number;
}

/**
 * The first change made alike by both sides that another change could
 * slide into, as the stretch to hold as a conflict; undefined when every
 * alike change is safe.
 */
export function unsafeAlike(o: readonly string[], a: readonly string[], b: readonly string[]): Stretch | undefined {
  const ha = hunks(o, a);
  const hb = hunks(o, b);
  const all = [...ha, ...hb];
  const touch = (x: [number, number], y: [number, number]): boolean => y[0] <= x[1] && x[0] <= y[1];
  for (const x of ha) {
    const y = hb.find((h) => h.from === x.from && h.to === x.to && h.text === x.text);
    if (!y) continue;
    const rx = reach(o, x);
    const near = all.filter((h) => h !== x && h !== y && touch(rx, reach(o, h)));
    if (near.length === 0) continue;
    let o0 = Math.min(x.from, ...near.map((h) => h.from));
    let o1 = Math.max(x.to, ...near.map((h) => h.to));
    // Whole hunks only: an edge inside a hunk of either side moves out to the hunk's own.
    for (let moved = true; moved;) {
      moved = false;
      for (const h of all) {
        if (h.from < o0 && o0 < h.to) [o0, moved] = [h.from, true];
        if (h.from < o1 && o1 < h.to) [o1, moved] = [h.to, true];
      }
    }
    return {
      o0,
      o1,
      a0: sidePos(ha, o0, true),
      a1: sidePos(ha, o1, false),
      b0: sidePos(hb, o0, true),
      b1: sidePos(hb, o1, false),
    };
  }
  return undefined;
}
