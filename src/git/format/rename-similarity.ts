import { looksBinary } from '../../core/content.js';

/**
 * How alike two blobs are, as git's rename detection measures it
 * (diffcore-delta.c, estimate_similarity in diffcore-rename.c): each blob
 * is cut into chunks that end at a LF or after 64 bytes, each chunk hashed
 * into one of 107927 buckets, and the bytes per bucket counted. What the
 * destination holds of the source is the sum, bucket by bucket, of the
 * smaller count. A score is out of MAX_SCORE (60000), as git keeps it, so
 * that `similarity index` and the R<score> of `--name-status` come out
 * exactly as git's: their percentage is the score's, truncated.
 */

/** git's scale of similarity: MAX_SCORE is identical. */
export const MAX_SCORE = 60000;
/** `-M` with no number: 50%. */
export const DEFAULT_RENAME_SCORE = 30000;

const HASHBASE = 107927;

/** The bytes of a blob per chunk hash, sorted by hash. */
export interface SpanCounts {
  hashes: Uint32Array;
  counts: Uint32Array;
}

/**
 * The chunk counts of `content`. Text (no NUL in its first 8000 bytes, as
 * git decides binary) has the CR of each CRLF left out, so a file whose
 * line ends changed still matches its old self.
 */
export function spanCounts(content: Uint8Array): SpanCounts {
  const text = !looksBinary(content);
  const byHash = new Map<number, number>();
  const add = (hash: number, n: number): void => {
    byHash.set(hash, (byHash.get(hash) ?? 0) + n);
  };
  // Unsigned 32-bit arithmetic, as git's `unsigned int` accumulators wrap.
  let accum1 = 0;
  let accum2 = 0;
  let n = 0;
  const hashOf = (): number => ((accum1 + Math.imul(accum2, 0x61)) >>> 0) % HASHBASE;
  for (let i = 0; i < content.length; i++) {
    const c = content[i]!;
    if (text && c === 0x0d && i + 1 < content.length && content[i + 1] === 0x0a) continue;
    const old1 = accum1;
    accum1 = (((accum1 << 7) ^ (accum2 >>> 25)) + c) >>> 0;
    accum2 = ((accum2 << 7) ^ (old1 >>> 25)) >>> 0;
    if (++n < 64 && c !== 0x0a) continue;
    add(hashOf(), n);
    n = 0;
    accum1 = accum2 = 0;
  }
  if (n > 0) add(hashOf(), n);
  const hashes = Uint32Array.from(byHash.keys()).sort();
  const counts = new Uint32Array(hashes.length);
  for (let i = 0; i < hashes.length; i++) counts[i] = byHash.get(hashes[i]!)!;
  return { hashes, counts };
}

/** The bytes of `dst` that come from `src` (diffcore_count_changes' src_copied). */
export function copiedBytes(src: SpanCounts, dst: SpanCounts): number {
  let copied = 0;
  let d = 0;
  for (let s = 0; s < src.hashes.length; s++) {
    const h = src.hashes[s]!;
    while (d < dst.hashes.length && dst.hashes[d]! < h) d++;
    if (d < dst.hashes.length && dst.hashes[d] === h) copied += Math.min(src.counts[s]!, dst.counts[d++]!);
  }
  return copied;
}

/** One side of a candidate pair: its mode, size, and its chunk counts when needed. */
export interface SimilaritySide {
  mode: string;
  size: () => number;
  counts: () => SpanCounts;
}

const isRegular = (mode: string): boolean => mode === '100644' || mode === '100755';

/**
 * The similarity score of `dst` to `src` (0..MAX_SCORE), or 0 where git
 * does not look: a symlink or submodule (renamed only when exact), or sizes
 * too far apart for `minimum` to be reached. Chunks are counted only past
 * that cheap test.
 */
export function estimateSimilarity(src: SimilaritySide, dst: SimilaritySide, minimum: number): number {
  if (!isRegular(src.mode) || !isRegular(dst.mode)) return 0;
  const [a, b] = [src.size(), dst.size()];
  const max = Math.max(a, b);
  const delta = max - Math.min(a, b);
  if (max * (MAX_SCORE - minimum) < delta * MAX_SCORE) return 0;
  if (b === 0) return 0;
  return Math.trunc((copiedBytes(src.counts(), dst.counts()) * MAX_SCORE) / max);
}

/** A score as the percentage git prints (`similarity index 87%`, `R087`). */
export function similarityPercent(score: number): number {
  return Math.trunc((score * 100) / MAX_SCORE);
}

/** A minimum similarity given in percent (`renames: 40`, `-M40%`) on git's scale; 0 means the default, as in git. */
export function renameScoreOf(percent: number): number {
  // 600 * 33.3 is 19979.999…; git, dividing integers, has 19980.
  const score = Math.trunc(Number((percent * (MAX_SCORE / 100)).toFixed(6)));
  return score === 0 ? DEFAULT_RENAME_SCORE : Math.min(score, MAX_SCORE);
}
