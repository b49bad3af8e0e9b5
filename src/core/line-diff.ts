import { diffLines } from 'diff';

/**
 * The line-by-line edit script between two texts, in bounded time.
 *
 * jsdiff's Myers diff costs O((N+M)·D): a 5,000-line file an agent rewrote
 * from scratch takes it over three seconds, and a regenerated lock file
 * minutes, inside every review and apply. So jsdiff runs only where its
 * answer comes cheap (at most MAX_EDIT_LENGTH lines changed, which covers
 * almost every real edit); there the script is exactly jsdiff's, so the
 * fingerprints of such reviews stay what they were. Past that the script
 * comes from patience diff (as `git diff --patience`):
 * lines that occur once in each text anchor the match, the gaps between
 * anchors are diffed the same way, and a gap with no anchor falls back to
 * jsdiff within its own budget, else to "these lines went, those came".
 * Every script is a correct diff; past the budget it may not be minimal.
 */

/** A run of lines: kept, removed from the old text, or added in the new one. Lines keep their `\n`. */
export interface Segment {
  kind: 'same' | 'del' | 'add';
  lines: string[];
}

export interface LineDiffOptions {
  /**
   * How much work jsdiff may do, in (lines of both texts) × (edit distance):
   * the edit distance it may search up to is this over the lines, and never
   * more than MAX_EDIT_LENGTH.
   */
  budget?: number;
}

export const DEFAULT_DIFF_BUDGET = 4_000_000;
/** jsdiff always gets at least this edit distance (a small file's diff is always jsdiff's own). */
const MIN_EDIT_LENGTH = 64;
/**
 * ... and never more: its time grows with the square of the edit distance
 * (about 60 ns × D² here), so this bounds one attempt to about a millisecond.
 */
const MAX_EDIT_LENGTH = 128;
/** A gap with no anchor is left to jsdiff only while the budget still allows it this many edits. */
const MIN_GAP_EDIT_LENGTH = 8;

/** The lines of `text`, each with its `\n` (the last one may have none), as jsdiff's line diff splits them. */
export function splitLines(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const nl = text.indexOf('\n', i);
    const end = nl === -1 ? text.length : nl + 1;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

function editLimit(lines: number, budget: number): number {
  return Math.max(MIN_EDIT_LENGTH, Math.min(MAX_EDIT_LENGTH, Math.floor(budget / Math.max(1, lines))));
}

/** How many lines of either text have no equal line in the other: the edit distance is at least this. */
function unmatchedLines(a: readonly string[], b: readonly string[]): number {
  const inA = new Map<string, number>();
  for (const l of a) inA.set(l, (inA.get(l) ?? 0) + 1);
  const inB = new Set(b);
  let n = 0;
  for (const l of b) if (!inA.has(l)) n++;
  for (const [l, count] of inA) if (!inB.has(l)) n += count;
  return n;
}

/** jsdiff's script, or undefined when it would exceed `limit` edits. */
function jsdiffSegments(a: readonly string[], b: readonly string[], limit: number): Segment[] | undefined {
  if (unmatchedLines(a, b) > limit) return undefined;
  const changes = diffLines(a.join(''), b.join(''), { maxEditLength: limit });
  if (!changes) return undefined;
  return changes
    .filter((c) => c.value.length > 0)
    .map((c) => ({ kind: c.added ? 'add' : c.removed ? 'del' : 'same', lines: splitLines(c.value) }));
}

/**
 * The lines that occur exactly once in `a[aLo, aHi)` and once in
 * `b[bLo, bHi)`, as pairs of positions, longest run increasing in both
 * (patience sorting: O(n log n)).
 */
function uniqueAnchors(a: readonly string[], aLo: number, aHi: number, b: readonly string[], bLo: number, bHi: number): Array<[number, number]> {
  const seen = new Map<string, { inA: number; atA: number; inB: number; atB: number }>();
  for (let i = aLo; i < aHi; i++) {
    const s = seen.get(a[i]!);
    if (s) s.inA++;
    else seen.set(a[i]!, { inA: 1, atA: i, inB: 0, atB: -1 });
  }
  for (let j = bLo; j < bHi; j++) {
    const s = seen.get(b[j]!);
    if (!s) continue;
    s.inB++;
    s.atB = j;
  }
  const pairs: Array<[number, number]> = [];
  for (const s of seen.values()) if (s.inA === 1 && s.inB === 1) pairs.push([s.atA, s.atB]);
  if (pairs.length === 0) return pairs;
  pairs.sort((x, y) => x[0] - y[0]);
  // Longest increasing subsequence of the b positions.
  const tails: number[] = [];
  const before = new Array<number>(pairs.length).fill(-1);
  for (let i = 0; i < pairs.length; i++) {
    const v = pairs[i]![1];
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]!]![1] < v) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) before[i] = tails[lo - 1]!;
    tails[lo] = i;
  }
  const out: Array<[number, number]> = [];
  for (let i = tails[tails.length - 1]!; i !== -1; i = before[i]!) out.push(pairs[i]!);
  return out.reverse();
}

type Task = { same: [number, number] } | { aLo: number; aHi: number; bLo: number; bHi: number };

function patience(a: readonly string[], b: readonly string[], budget: number): Segment[] {
  const out: Segment[] = [];
  // What jsdiff may still spend on gaps with no anchor, over the whole diff.
  let left = budget;
  const emit = (kind: Segment['kind'], lines: readonly string[]): void => {
    if (lines.length > 0) out.push({ kind, lines: [...lines] });
  };
  // An explicit stack, last task first: gaps nest as deep as the input likes.
  const tasks: Task[] = [{ aLo: 0, aHi: a.length, bLo: 0, bHi: b.length }];
  while (tasks.length > 0) {
    const t = tasks.pop()!;
    if ('same' in t) {
      emit('same', a.slice(t.same[0], t.same[1]));
      continue;
    }
    let { aLo, aHi, bLo, bHi } = t;
    const start = aLo;
    while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
      aLo++;
      bLo++;
    }
    emit('same', a.slice(start, aLo));
    const end = aHi;
    while (aHi > aLo && bHi > bLo && a[aHi - 1] === b[bHi - 1]) {
      aHi--;
      bHi--;
    }
    if (aHi < end) tasks.push({ same: [aHi, end] });
    if (aLo === aHi || bLo === bHi) {
      emit('del', a.slice(aLo, aHi));
      emit('add', b.slice(bLo, bHi));
      continue;
    }
    const anchors = uniqueAnchors(a, aLo, aHi, b, bLo, bHi);
    if (anchors.length === 0) {
      const oldPart = a.slice(aLo, aHi);
      const newPart = b.slice(bLo, bHi);
      const lines = oldPart.length + newPart.length;
      const limit = Math.min(MAX_EDIT_LENGTH, Math.floor(left / lines));
      const script = limit >= MIN_GAP_EDIT_LENGTH ? jsdiffSegments(oldPart, newPart, limit) : undefined;
      if (limit >= MIN_GAP_EDIT_LENGTH) left -= lines * limit;
      if (script) out.push(...script);
      else {
        emit('del', oldPart);
        emit('add', newPart);
      }
      continue;
    }
    // Pushed last gap first, so that they come off the stack in order.
    let [nextA, nextB] = [aHi, bHi];
    for (let i = anchors.length - 1; i >= 0; i--) {
      const [ai, bi] = anchors[i]!;
      tasks.push({ aLo: ai + 1, aHi: nextA, bLo: bi + 1, bHi: nextB });
      tasks.push({ same: [ai, ai + 1] });
      [nextA, nextB] = [ai, bi];
    }
    tasks.push({ aLo, aHi: nextA, bLo, bHi: nextB });
  }
  return tidy(out);
}

/** Adjacent runs of one kind joined; in each stretch between kept lines, removals before additions (as jsdiff and git print them). */
function tidy(segments: readonly Segment[]): Segment[] {
  const out: Segment[] = [];
  let del: string[] = [];
  let add: string[] = [];
  const flush = (): void => {
    if (del.length > 0) out.push({ kind: 'del', lines: del });
    if (add.length > 0) out.push({ kind: 'add', lines: add });
    del = [];
    add = [];
  };
  for (const s of segments) {
    if (s.kind === 'del') del.push(...s.lines);
    else if (s.kind === 'add') add.push(...s.lines);
    else {
      flush();
      const last = out[out.length - 1];
      if (last?.kind === 'same') last.lines.push(...s.lines);
      else out.push({ kind: 'same', lines: [...s.lines] });
    }
  }
  flush();
  return out;
}

/** The edit script from `oldText` to `newText`: jsdiff's where it is cheap, else patience diff's. */
export function lineSegments(oldText: string, newText: string, options: LineDiffOptions = {}): Segment[] {
  const budget = options.budget ?? DEFAULT_DIFF_BUDGET;
  const a = splitLines(oldText);
  const b = splitLines(newText);
  return jsdiffSegments(a, b, editLimit(a.length + b.length, budget)) ?? patience(a, b, budget);
}

/** The patience-diff script alone (what `lineSegments` falls back to), with `budget` for jsdiff in gaps without anchors. */
export function patienceSegments(oldText: string, newText: string, budget = DEFAULT_DIFF_BUDGET): Segment[] {
  return patience(splitLines(oldText), splitLines(newText), budget);
}
