import { diff3MergeRegions, type IRegion } from 'node-diff3';

/**
 * node-diff3's merge regions of a whole file, computed piece by piece.
 *
 * node-diff3 finds its longest common subsequence in time that grows with
 * the square of the lines (a 2,000-line file with the usual repeated lines,
 * `}` and blank ones, takes half a second; 20,000 lines, minutes). So a
 * file over the budget is first cut where the three versions certainly
 * agree: at lines that occur exactly once in each of them, in the same
 * order in all three (the anchors of a patience diff), with the same line
 * before and after them in all three (so that a line a side moved is not
 * taken for one). Such a line is unchanged by both sides, and every change
 * lies between two of them: each piece between anchors is merged alone,
 * and the regions are put back in the files' own line numbers. A piece the
 * same in all three files is not diffed at all. A file within the budget is
 * one piece: cutting is not free, since the anchors may still align a
 * side's change otherwise than a shortest diff does, and a merge git makes
 * may become a conflict (test/merge-corpus.test.ts runs its corpus both
 * ways and measures it).
 *
 * A piece too large to diff in reasonable time (lines that are never
 * unique, such as a long run of identical lines changed on both sides) is
 * refused: the caller reports the file as not mergeable.
 */

/** The most line comparisons one piece may cost (its base lines times its two sides' lines). */
export const PIECE_BUDGET = 4_000_000;

/** The length and predecessors of a longest strictly increasing subsequence of `keys`: the indexes kept, in order. */
function increasing(keys: readonly number[]): number[] {
  const tails: number[] = []; // index into keys of the smallest tail of each length
  const prev = new Array<number>(keys.length).fill(-1);
  for (let i = 0; i < keys.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keys[tails[mid]!]! < keys[i]!) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1]!;
    tails[lo] = i;
  }
  const out: number[] = [];
  for (let i = tails.length > 0 ? tails[tails.length - 1]! : -1; i !== -1; i = prev[i]!) out.push(i);
  return out.reverse();
}

/** Where each line that occurs once stands (a line seen twice maps to -1). */
function singles(lines: readonly string[]): Map<string, number> {
  const at = new Map<string, number>();
  lines.forEach((l, i) => at.set(l, at.has(l) ? -1 : i));
  return at;
}

/** Lines unique in all three files, in the same order in each: [base, ours, theirs] positions (exported for the tests). */
export function anchors(
  a: readonly string[],
  o: readonly string[],
  b: readonly string[],
): Array<[number, number, number]> {
  const inA = singles(a);
  const inB = singles(b);
  const found: Array<[number, number, number]> = [];
  // A map iterates in insertion order: the base's lines, in order.
  for (const [line, io] of singles(o)) {
    const ia = inA.get(line);
    const ib = inB.get(line);
    if (io >= 0 && ia !== undefined && ia >= 0 && ib !== undefined && ib >= 0) found.push([io, ia, ib]);
  }
  // A line moved by a side is unique too: an anchor must also have the same
  // line before and after it in all three files (or a file's edge), which a
  // moved line seldom has where it was and where it went.
  const same = (i: number, j: number, k: number): boolean => {
    const edge = i < 0 || i >= o.length;
    return edge ? (j < 0 || j >= a.length) && (k < 0 || k >= b.length) : a[j] === o[i] && b[k] === o[i];
  };
  const settled = found.filter(([i, j, k]) => same(i - 1, j - 1, k - 1) && same(i + 1, j + 1, k + 1));
  const byOurs = increasing(settled.map((f) => f[1])).map((i) => settled[i]!);
  return increasing(byOurs.map((f) => f[2])).map((i) => byOurs[i]!);
}

function same(x: readonly string[], y: readonly string[]): boolean {
  return x.length === y.length && x.every((l, i) => l === y[i]);
}

/** Thrown when a piece would cost more than PIECE_BUDGET. */
export class TooComplex extends Error {}

/** `diff3MergeRegions(a, o, b)`, in pieces between anchors; throws TooComplex past the budget. */
export function mergeRegions(
  a: string[],
  o: string[],
  b: string[],
  options: { pieces?: boolean } = {},
): IRegion<string>[] {
  const out: IRegion<string>[] = [];
  const piece = (po: number, qo: number, pa: number, qa: number, pb: number, qb: number): void => {
    const oo = o.slice(po, qo);
    const aa = a.slice(pa, qa);
    const bb = b.slice(pb, qb);
    if (same(oo, aa) && same(oo, bb)) {
      if (oo.length > 0)
        out.push({ stable: true, buffer: 'o', bufferStart: po, bufferLength: oo.length, bufferContent: oo });
      return;
    }
    if (oo.length * (aa.length + bb.length) > PIECE_BUDGET) throw new TooComplex();
    for (const r of diff3MergeRegions(aa, oo, bb)) {
      if (!r.stable) out.push({ ...r, aStart: r.aStart + pa, oStart: r.oStart + po, bStart: r.bStart + pb });
      else out.push({ ...r, bufferStart: r.bufferStart + (r.buffer === 'o' ? po : r.buffer === 'a' ? pa : pb) });
    }
  };
  // Within the budget the whole file is one piece: node-diff3's own alignment, which agrees with git's most often.
  if (!options.pieces && o.length * (a.length + b.length) <= PIECE_BUDGET) {
    piece(0, o.length, 0, a.length, 0, b.length);
    return out;
  }
  let [po, pa, pb] = [0, 0, 0];
  for (const [io, ia, ib] of anchors(a, o, b)) {
    piece(po, io, pa, ia, pb, ib);
    out.push({ stable: true, buffer: 'o', bufferStart: io, bufferLength: 1, bufferContent: [o[io]!] });
    [po, pa, pb] = [io + 1, ia + 1, ib + 1];
  }
  piece(po, o.length, pa, a.length, pb, b.length);
  return out;
}
