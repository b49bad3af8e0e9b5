import type { Oid } from './git-objects.js';
import type { FileChange } from './tree-diff.js';
import {
  estimateSimilarity,
  MAX_SCORE,
  spanCounts,
  type SimilaritySide,
  type SpanCounts,
} from './rename-similarity.js';

/**
 * `git diff -M`'s pairing of deleted and added files into renames
 * (diffcore_rename in git's diffcore-rename.c), written from git's rules
 * rather than by running git: the old side of a draft's diff is its
 * captured bases, path by path, which no tree holds, so `git diff -M` has
 * no two trees to compare; and the library runs without git. Tests hold
 * the result to native git's `--name-status -M` on a corpus.
 *
 * In git's order: exact renames first (same blob; of several sources, the
 * first with the same file name), then a file name left unique among both
 * sides is tried against its namesake at a higher bar (halfway from the
 * minimum to 100%), then every remaining pair is scored, the best four
 * sources kept per destination, and pairs taken best first, each source
 * once. A change list that is not a deletion or an addition (a
 * modification, a type change, a conflict) takes no part.
 */

export interface RenameOptions {
  /** The lowest score (of MAX_SCORE) that makes a rename. */
  minimum: number;
  /** `diff.renameLimit`: above limit² candidate pairs only exact renames are looked for; 0 for no limit. */
  limit: number;
  /** The size of a blob, and its bytes, by id. */
  size: (oid: Oid) => number;
  read: (oid: Oid) => Uint8Array;
}

/** A change of the list, or a rename that replaced an addition and a deletion. */
export type RenamedChange<T extends FileChange> = T | (FileChange & { from: string; score: number });

export interface RenameResult<T extends FileChange> {
  changes: Array<RenamedChange<T>>;
  /** True when there were too many candidates for the limit: only exact renames were looked for. */
  limited: boolean;
}

interface Side {
  change: FileChange;
  path: string;
  entry: { mode: string; oid: Oid };
  similarity: SimilaritySide;
}

interface Candidate {
  src: number;
  dst: number;
  score: number;
  nameScore: number;
}

/** git's basename_same: the two paths end in the same file name. */
function sameFileName(a: string, b: string): boolean {
  return a.slice(a.lastIndexOf('/') + 1) === b.slice(b.lastIndexOf('/') + 1);
}

const fileName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

const isRegular = (mode: string): boolean => mode === '100644' || mode === '100755';

/** git's score_compare: best first, a same file name before another at equal score, empty slots last. */
function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.dst < 0) return b.dst >= 0 ? 1 : 0;
  if (b.dst < 0) return -1;
  if (a.score === b.score) return b.nameScore - a.nameScore;
  return b.score - a.score;
}

const CANDIDATES_PER_DST = 4;
const EMPTY: Candidate = { src: -1, dst: -1, score: 0, nameScore: 0 };

/**
 * The changes with renames found: each rename takes the place of its
 * addition (in the list's order, as git's output has it) and its deletion
 * goes.
 */
export function detectRenames<T extends FileChange>(changes: readonly T[], options: RenameOptions): RenameResult<T> {
  const counts = new Map<Oid, SpanCounts>();
  const side = (change: FileChange, entry: { mode: string; oid: Oid }): Side => ({
    change,
    path: change.path,
    entry,
    similarity: {
      mode: entry.mode,
      size: () => options.size(entry.oid),
      counts: () => {
        let c = counts.get(entry.oid);
        if (!c) counts.set(entry.oid, (c = spanCounts(options.read(entry.oid))));
        return c;
      },
    },
  });
  const srcs: Side[] = [];
  const dsts: Side[] = [];
  for (const c of changes) {
    if ((c as { status?: string }).status === 'U') continue;
    if (c.old && !c.new) srcs.push(side(c, c.old));
    else if (!c.old && c.new) dsts.push(side(c, c.new));
  }
  const found = new Map<FileChange, { src: Side; score: number }>();
  let limited = false;
  if (srcs.length > 0 && dsts.length > 0) limited = pair(srcs, dsts, options, found);
  if (found.size === 0) return { changes: [...changes], limited };
  const gone = new Set([...found.values()].map((f) => f.src.change));
  const out: Array<RenamedChange<T>> = [];
  for (const c of changes) {
    if (gone.has(c)) continue;
    const f = found.get(c);
    out.push(f ? { path: c.path, from: f.src.path, old: f.src.entry, new: c.new, score: f.score } : c);
  }
  return { changes: out, limited };
}

/** Pair sources with destinations into `found` (by the destination's change); true when the limit cut the search short. */
function pair(
  allSrcs: readonly Side[],
  dsts: readonly Side[],
  options: RenameOptions,
  found: Map<FileChange, { src: Side; score: number }>,
): boolean {
  const used = new Set<Side>();
  const record = (src: Side, dst: Side, score: number): void => {
    used.add(src);
    found.set(dst.change, { src, score });
  };
  // Exact renames: the same blob (and the same mode where either is no regular file).
  const byOid = new Map<Oid, Side[]>();
  for (const s of allSrcs) {
    const list = byOid.get(s.entry.oid);
    if (list) list.push(s);
    else byOid.set(s.entry.oid, [s]);
  }
  for (const dst of dsts) {
    let best: Side | undefined;
    let bestScore = -1;
    let looked = 100;
    for (const src of byOid.get(dst.entry.oid) ?? []) {
      if ((!isRegular(src.entry.mode) || !isRegular(dst.entry.mode)) && src.entry.mode !== dst.entry.mode) continue;
      if (used.has(src)) continue;
      const score = 1 + (sameFileName(src.path, dst.path) ? 1 : 0);
      if (score > bestScore) {
        best = src;
        bestScore = score;
        if (score === 2) break;
      }
      if (--looked === 0) break;
    }
    if (best) record(best, dst, MAX_SCORE);
  }
  if (options.minimum >= MAX_SCORE) return false;

  // A file name unique on both sides, tried against its namesake at a higher bar.
  let srcs = allSrcs.filter((s) => !used.has(s));
  const open = (): Side[] => dsts.filter((d) => !found.has(d.change));
  const uniqueNames = (sides: readonly Side[]): Map<string, Side | null> => {
    const m = new Map<string, Side | null>();
    for (const s of sides) m.set(fileName(s.path), m.has(fileName(s.path)) ? null : s);
    return m;
  };
  const srcNames = uniqueNames(srcs);
  const dstNames = uniqueNames(open());
  const nameBar = options.minimum + Math.trunc(0.5 * (MAX_SCORE - options.minimum));
  for (const src of srcs) {
    const name = fileName(src.path);
    const dst = dstNames.get(name);
    if (!dst || srcNames.get(name) !== src || found.has(dst.change)) continue;
    const score = estimateSimilarity(src.similarity, dst.similarity, nameBar);
    if (score >= nameBar) record(src, dst, score);
  }

  // Every remaining pair scored; the best four sources kept per destination.
  srcs = srcs.filter((s) => !used.has(s));
  const left = open();
  if (left.length === 0 || srcs.length === 0) return false;
  if (options.limit > 0 && left.length * srcs.length > options.limit * options.limit) return true;
  const matrix: Candidate[] = [];
  left.forEach((dst, di) => {
    const m: Candidate[] = Array.from({ length: CANDIDATES_PER_DST }, () => EMPTY);
    srcs.forEach((src, si) => {
      const score = estimateSimilarity(src.similarity, dst.similarity, options.minimum);
      const o: Candidate = { src: si, dst: di, score, nameScore: sameFileName(src.path, dst.path) ? 1 : 0 };
      let worst = 0;
      for (let i = 1; i < CANDIDATES_PER_DST; i++) if (compareCandidates(m[i]!, m[worst]!) > 0) worst = i;
      if (compareCandidates(m[worst]!, o) > 0) m[worst] = o;
    });
    matrix.push(...m);
  });
  matrix.sort(compareCandidates);
  for (const c of matrix) {
    if (c.dst < 0 || c.score < options.minimum) break;
    const dst = left[c.dst]!;
    const src = srcs[c.src]!;
    if (found.has(dst.change) || used.has(src)) continue;
    record(src, dst, c.score);
  }
  return false;
}
