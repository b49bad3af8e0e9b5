import { diffIndices } from 'node-diff3';
import { mergeRegions, PIECE_BUDGET, TooComplex } from './merge-pieces.js';
import { unsafeAlike } from './merge-alike.js';

/**
 * `git merge-file`, in process: a three-way merge of one file, line by
 * line, with git's conflict markers. It lives among git's formats because
 * what it reproduces is git's: the merged bytes git writes when the merge is
 * clean, and the conflict blocks `git merge-file -L <ours> -L base -L
 * <theirs>` writes when it is not (test/merge-corpus.test.ts compares both
 * with native git on a seeded corpus). It is pure, as everything here is:
 * bytes in, bytes out. The publish room decides which paths are merged and
 * what is done with the outcome (publish/merge-paths.ts).
 *
 * The merge itself is node-diff3's (`diff3MergeRegions`: both sides diffed
 * against the base, overlapping or touching changes grouped into one
 * region, a region both sides changed is a conflict unless they changed it
 * alike). What is git's, around it:
 *
 * - Lines are split after each LF and compared byte for byte, CR and a
 *   missing final newline included, as xdiff compares records.
 * - A conflict is refined the way git's "zealous" level does: the two
 *   sides of a region are diffed against each other (with node-diff3's
 *   diff) and only where they differ is a conflict left; lines both sides
 *   have alike stand between the conflicts, outside the markers.
 * - Conflicts then closer than four lines, or separated only by lines with
 *   no letter or digit (git's `XDL_MERGE_ZEALOUS_ALNUM`, merge-file's
 *   level), are joined into one, the lines between them on both sides.
 * - Markers are git's, 7 characters, with CRLF when the lines around say so
 *   (`is_cr_needed` in xdiff/xmerge.c), and a side whose last line has no
 *   newline gets one before the next marker.
 *
 * Where the two may differ: when a side's diff against the base has more
 * than one shortest alignment (a line repeated next to a change), node-diff3
 * and git may place a change differently. Measured on the corpus, every
 * such difference makes two changes touch that git keeps one line apart, so
 * shadow reports a conflict where git merges; never the other way round,
 * and never other bytes for a clean merge (docs/git-compatibility.md).
 */

/** The labels of the conflict markers: `<<<<<<< ours`, `>>>>>>> theirs`. */
export interface MergeLabels {
  ours: string;
  theirs: string;
}

/** One side of a conflict: where it starts (1-based line), how many lines, and those lines. */
export interface HunkSide {
  line: number;
  count: number;
  text: string;
}

/**
 * One conflict, as git's markers show it: the working tree's lines (ours)
 * and the draft's (theirs) where they disagree, and the base lines of the
 * region both changed. When git splits a region into several conflicts (the
 * lines between them alike on both sides), each names the whole region's
 * base.
 */
export interface ConflictHunk {
  base: HunkSide;
  ours: HunkSide;
  theirs: HunkSide;
}

export type MergeFileResult =
  | { status: 'clean'; merged: Buffer }
  | {
      status: 'conflict';
      /** The file with git's conflict markers (what `git merge-file -p` prints). */
      merged: Buffer;
      hunks: ConflictHunk[];
    }
  /** Too many lines that are never unique to merge in reasonable time (see merge-pieces.ts). */
  | { status: 'too complex' };

/** Lines as strings of their bytes (latin1: one character per byte), each with its LF, the last one maybe without. */
function splitLines(buf: Buffer): string[] {
  const s = buf.toString('latin1');
  const out: string[] = [];
  let start = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', start)) {
    out.push(s.slice(start, i + 1));
    start = i + 1;
  }
  if (start < s.length) out.push(s.slice(start));
  return out;
}

/** A conflict: the lines of each side and where they start in their files (0-based). */
interface Conflict {
  kind: 'conflict';
  ours: string[];
  oursAt: number;
  theirs: string[];
  theirsAt: number;
  base: string[];
  baseAt: number;
}

/** Lines the merge takes as they are: unchanged (`same`, which may sit inside a conflict), or one side's change. */
interface Lines {
  kind: 'same' | 'changed';
  lines: string[];
}

type Block = Conflict | Lines;

function equalLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Split a conflict where its two sides agree (git's `xdl_refine_conflicts`):
 * each stretch where they differ stays a conflict, naming the region's base;
 * the lines between are taken as they are.
 */
function refine(c: Conflict): Block[] {
  // Past the budget the region stays one conflict: coarser markers than git's, the same verdict.
  if (c.ours.length === 0 || c.theirs.length === 0 || c.ours.length * c.theirs.length > PIECE_BUDGET) return [c];
  const out: Block[] = [];
  let o = 0;
  for (const d of diffIndices(c.ours, c.theirs)) {
    const [oStart, oLen] = d.buffer1;
    if (oStart > o) out.push({ kind: 'same', lines: c.ours.slice(o, oStart) });
    out.push({
      ...c,
      ours: d.buffer1Content,
      oursAt: c.oursAt + oStart,
      theirs: d.buffer2Content,
      theirsAt: c.theirsAt + d.buffer2[0],
    });
    o = oStart + oLen;
  }
  if (o < c.ours.length) out.push({ kind: 'same', lines: c.ours.slice(o) });
  return out;
}

const ALNUM = /[A-Za-z0-9]/;

/**
 * Join conflicts that only unchanged lines separate, when there are at most
 * three of them or none holds a letter or digit (git's
 * `xdl_simplify_non_conflicts` at merge-file's level): one conflict reads
 * more easily than two that close.
 */
function simplify(blocks: Block[], base: readonly string[]): Block[] {
  const out: Block[] = [];
  for (const b of blocks) {
    const gap = out[out.length - 1];
    const before = out[out.length - 2];
    if (
      b.kind === 'conflict' &&
      gap?.kind === 'same' &&
      before?.kind === 'conflict' &&
      (gap.lines.length <= 3 || !gap.lines.some((l) => ALNUM.test(l)))
    ) {
      out.length -= 2;
      out.push({
        ...before,
        ours: [...before.ours, ...gap.lines, ...b.ours],
        theirs: [...before.theirs, ...gap.lines, ...b.theirs],
        base: base.slice(before.baseAt, b.baseAt + b.base.length),
      });
      continue;
    }
    // Two stretches taken as they are next to each other: one, so that a gap is always whole.
    if (b.kind === 'same' && gap?.kind === 'same') {
      out[out.length - 1] = { kind: 'same', lines: [...gap.lines, ...b.lines] };
      continue;
    }
    out.push(b);
  }
  return out;
}

/**
 * git's `is_eol_crlf`: 1 when line `i` of `lines` ends in CRLF, 0 when in a
 * bare LF, -1 when it cannot tell (an empty file, or a single line without
 * a newline). The last line, without a newline, takes the one before it.
 */
function eolCrlf(lines: readonly string[], i: number): number {
  const crlf = (l: string): boolean => l.length > 1 && l.endsWith('\r\n');
  if (i < lines.length - 1) return crlf(lines[i]!) ? 1 : 0;
  if (lines.length === 0) return -1;
  const last = lines[i]!;
  if (last.endsWith('\n')) return crlf(last) ? 1 : 0;
  if (i === 0) return -1;
  return crlf(lines[i - 1]!) ? 1 : 0;
}

/** git's `is_cr_needed`: CRLF markers when the lines before the conflict on both sides, and the base's first line, end in CRLF. */
function needsCr(c: Conflict, ours: readonly string[], theirs: readonly string[], base: readonly string[]): boolean {
  let needs = eolCrlf(ours, c.oursAt > 0 ? c.oursAt - 1 : 0);
  if (needs) needs = eolCrlf(theirs, c.theirsAt > 0 ? c.theirsAt - 1 : 0);
  if (needs) needs = eolCrlf(base, 0);
  return needs === 1;
}

function side(lines: readonly string[], at: number): HunkSide {
  return { line: at + 1, count: lines.length, text: Buffer.from(lines.join(''), 'latin1').toString('utf8') };
}

/** Where a part of the files starts in each of them (0-based lines). */
interface Offsets {
  o: number;
  a: number;
  b: number;
}

/**
 * The blocks of the merge of `o`, `a` and `b` (a part of the files starting
 * at `at`): node-diff3's regions, each conflict with its place in the
 * files. A change both sides made alike that another could slide into
 * (merge-alike.ts) is held as a conflict: the part before it and the part
 * after it are merged on their own.
 */
function collect(o: string[], a: string[], b: string[], at: Offsets, options: { pieces?: boolean }): Block[] {
  const regions = mergeRegions(a, o, b, options);
  const alike = regions.some((r) => !r.stable && equalLines(r.aContent, r.bContent));
  const held = alike ? unsafeAlike(o, a, b) : undefined;
  if (held) {
    const conflict: Conflict = {
      kind: 'conflict',
      ours: a.slice(held.a0, held.a1),
      oursAt: at.a + held.a0,
      theirs: b.slice(held.b0, held.b1),
      theirsAt: at.b + held.b0,
      base: o.slice(held.o0, held.o1),
      baseAt: at.o + held.o0,
    };
    return [
      ...collect(o.slice(0, held.o0), a.slice(0, held.a0), b.slice(0, held.b0), at, options),
      conflict,
      ...collect(
        o.slice(held.o1),
        a.slice(held.a1),
        b.slice(held.b1),
        { o: at.o + held.o1, a: at.a + held.a1, b: at.b + held.b1 },
        options,
      ),
    ];
  }
  const blocks: Block[] = [];
  // How far into the base the regions so far reach. node-diff3 gives no
  // region for a side's pure deletion: it shows as base lines skipped, and
  // stands as an empty change (which keeps the conflicts around it apart,
  // as git's change list does).
  let baseAt = 0;
  const reach = (start: number, length: number): void => {
    if (start > baseAt && blocks[blocks.length - 1]?.kind !== 'changed') blocks.push({ kind: 'changed', lines: [] });
    baseAt = start + length;
  };
  for (const r of regions) {
    if (r.stable && r.buffer !== 'o') blocks.push({ kind: 'changed', lines: r.bufferContent });
    else if (r.stable) {
      reach(r.bufferStart, r.bufferLength);
      blocks.push({ kind: 'same', lines: r.bufferContent });
    } else {
      reach(r.oStart, r.oLength);
      if (equalLines(r.aContent, r.bContent)) blocks.push({ kind: 'changed', lines: r.aContent });
      else
        blocks.push({
          kind: 'conflict',
          ours: r.aContent,
          oursAt: at.a + r.aStart,
          theirs: r.bContent,
          theirsAt: at.b + r.bStart,
          base: r.oContent,
          baseAt: at.o + r.oStart,
        });
    }
  }
  reach(o.length, 0);
  return blocks;
}

/**
 * Merge `ours` and `theirs`, both derived from `base`, as `git merge-file
 * -p -L <labels.ours> -L base -L <labels.theirs> ours base theirs` does.
 * The caller keeps binary content away (git refuses it: see looksBinary).
 * `pieces` cuts the files at anchors even when they are small (the corpus
 * test checks that path against git too).
 */
export function mergeFile(
  base: Buffer,
  ours: Buffer,
  theirs: Buffer,
  labels: MergeLabels,
  options: { pieces?: boolean } = {},
): MergeFileResult {
  // git copies the other side whole when one side did not change.
  if (ours.equals(base) || ours.equals(theirs)) return { status: 'clean', merged: theirs };
  if (theirs.equals(base)) return { status: 'clean', merged: ours };
  const o = splitLines(base);
  const a = splitLines(ours);
  const b = splitLines(theirs);
  let blocks: Block[];
  try {
    blocks = collect(o, a, b, { o: 0, a: 0, b: 0 }, options);
  } catch (e) {
    if (e instanceof TooComplex) return { status: 'too complex' };
    throw e;
  }
  if (!blocks.some((x) => x.kind === 'conflict')) {
    return { status: 'clean', merged: Buffer.from(blocks.map((x) => (x as Lines).lines.join('')).join(''), 'latin1') };
  }
  const final = simplify(
    blocks.flatMap((x) => (x.kind === 'conflict' ? refine(x) : [x])),
    o,
  );
  // The lines are strings of bytes: so are the labels.
  const ourLabel = Buffer.from(labels.ours, 'utf8').toString('latin1');
  const theirLabel = Buffer.from(labels.theirs, 'utf8').toString('latin1');
  const parts: string[] = [];
  const hunks: ConflictHunk[] = [];
  for (const x of final) {
    if (x.kind !== 'conflict') {
      parts.push(x.lines.join(''));
      continue;
    }
    const eol = needsCr(x, a, b, o) ? '\r\n' : '\n';
    const withNewline = (lines: readonly string[]): string => {
      const text = lines.join('');
      return text === '' || text.endsWith('\n') ? text : text + eol;
    };
    parts.push(
      `<<<<<<< ${ourLabel}${eol}`,
      withNewline(x.ours),
      `=======${eol}`,
      withNewline(x.theirs),
      `>>>>>>> ${theirLabel}${eol}`,
    );
    hunks.push({ base: side(x.base, x.baseAt), ours: side(x.ours, x.oursAt), theirs: side(x.theirs, x.theirsAt) });
  }
  return { status: 'conflict', merged: Buffer.from(parts.join(''), 'latin1'), hunks };
}
