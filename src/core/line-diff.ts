import { diffLines } from 'diff';

/**
 * The line-by-line edit script between two texts, in bounded time.
 *
 * jsdiff's Myers diff costs O((N+M)·D): a 5,000-line file an agent rewrote
 * from scratch takes it over three seconds, and a regenerated lock file
 * minutes, inside every review and apply; even a few changes in a
 * 300,000-line file cost it a second. So jsdiff runs only where its answer
 * comes cheap: at most 128 lines changed in a file of up to 7,800 lines a
 * side, fewer in a larger one (the budget), which covers almost every real
 * edit. There the script is exactly jsdiff's, so the fingerprints of such
 * reviews stay what they were. Past that the script comes from patience
 * diff (as `git diff --patience`):
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
   * How much work jsdiff may do, in (lines of both texts) × (edit distance),
   * about 70 ns a unit here (on nearly equal texts its snakes are walked
   * once per diagonal): the edit distance it may search up to is this over
   * the lines, never more than MAX_EDIT_LENGTH; under MIN_EDIT_LENGTH it is
   * not tried.
   */
  budget?: number;
}

/** About 0.1 s of jsdiff at the most; every file up to 7,800 lines a side gets the full MAX_EDIT_LENGTH. */
export const DEFAULT_DIFF_BUDGET = 2_000_000;
/**
 * The edit distance jsdiff may search up to at the most: its time also grows
 * with the square of it (about 60 ns × D² here), so this bounds an attempt
 * on a small file to about a millisecond.
 */
const MAX_EDIT_LENGTH = 128;
/** Below this edit distance jsdiff is not worth trying (a huge file, or the budget spent): patience diff alone. */
const MIN_EDIT_LENGTH = 8;

/** The lines of `text`, each with its `\n` (the last one may have none), as jsdiff's line diff splits them. */
export function splitLines(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length;) {
    const nl = text.indexOf('\n', i);
    const end = nl === -1 ? text.length : nl + 1;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

function editLimit(lines: number, budget: number): number {
  return Math.min(MAX_EDIT_LENGTH, Math.floor(budget / Math.max(1, lines)));
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

/** jsdiff's script, or undefined when it would exceed `limit` edits (or `limit` is too small to try). */
function jsdiffSegments(a: readonly string[], b: readonly string[], limit: number): Segment[] | undefined {
  if (limit < MIN_EDIT_LENGTH || unmatchedLines(a, b) > limit) return undefined;
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
function uniqueAnchors(
  a: readonly string[],
  aLo: number,
  aHi: number,
  b: readonly string[],
  bLo: number,
  bHi: number,
): Array<[number, number]> {
  // Per distinct line of `a`: how often it occurs on each side, and where (typed arrays: no object per line).
  const slot = new Map<string, number>();
  const size = aHi - aLo;
  const inA = new Int32Array(size);
  const atA = new Int32Array(size);
  const inB = new Int32Array(size);
  const atB = new Int32Array(size);
  for (let i = aLo; i < aHi; i++) {
    const k = slot.get(a[i]!);
    if (k !== undefined) inA[k]!++;
    else {
      const n = slot.size;
      slot.set(a[i]!, n);
      inA[n] = 1;
      atA[n] = i;
    }
  }
  for (let j = bLo; j < bHi; j++) {
    const k = slot.get(b[j]!);
    if (k === undefined) continue;
    inB[k]!++;
    atB[k] = j;
  }
  // Slots were given in the order of `a`: the pairs come out sorted by their position in `a`.
  const pairs: Array<[number, number]> = [];
  for (let k = 0; k < slot.size; k++) if (inA[k] === 1 && inB[k] === 1) pairs.push([atA[k]!, atB[k]!]);
  if (pairs.length === 0) return pairs;
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
      const limit = editLimit(lines, left);
      const script = jsdiffSegments(oldPart, newPart, limit);
      if (limit >= MIN_EDIT_LENGTH) left -= lines * limit;
      if (script) append(out, script);
      else {
        emit('del', oldPart);
        emit('add', newPart);
      }
      continue;
    }
    // Pushed last gap first, so that they come off the stack in order;
    // anchors next to one another make one run, and empty gaps no task.
    let [nextA, nextB] = [aHi, bHi];
    for (let i = anchors.length - 1; i >= 0;) {
      const [ai, bi] = anchors[i]!;
      if (ai + 1 < nextA || bi + 1 < nextB) tasks.push({ aLo: ai + 1, aHi: nextA, bLo: bi + 1, bHi: nextB });
      let first = i;
      while (
        first > 0 &&
        anchors[first - 1]![0] === anchors[first]![0] - 1 &&
        anchors[first - 1]![1] === anchors[first]![1] - 1
      )
        first--;
      const [fa, fb] = anchors[first]!;
      tasks.push({ same: [fa, ai + 1] });
      [nextA, nextB] = [fa, fb];
      i = first - 1;
    }
    if (aLo < nextA || bLo < nextB) tasks.push({ aLo, aHi: nextA, bLo, bHi: nextB });
  }
  return tidy(out);
}

/** `to.push(...from)` without spreading: a file of 300,000 lines would overflow the call stack. */
function append<T>(to: T[], from: readonly T[]): void {
  for (const x of from) to.push(x);
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
    if (s.kind === 'del') append(del, s.lines);
    else if (s.kind === 'add') append(add, s.lines);
    else {
      flush();
      const last = out[out.length - 1];
      if (last?.kind === 'same') append(last.lines, s.lines);
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
