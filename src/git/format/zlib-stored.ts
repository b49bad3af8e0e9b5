/**
 * A zlib stream (RFC 1950) whose deflate data is only "stored" blocks
 * (RFC 1951, BTYPE 00): the bytes as they are, framed. Any inflater reads it,
 * git included.
 *
 * Written by hand because it is the hot path of a batch: a tree is mostly
 * 20-byte object ids, which do not compress (a 50-entry tree shrinks by
 * about a quarter), yet `zlib.deflateSync` costs about 40 µs for it, most of
 * it setting up a zlib stream. Framing it here costs about 5 µs. Blobs, which
 * do compress, still go through zlib.
 */

const MAX_BLOCK = 0xffff;
const ADLER_MOD = 65521;
/** The most bytes adler-32's sums can take before they must be reduced (zlib's NMAX). */
const ADLER_RUN = 5552;

/** Adler-32 of `bytes` (RFC 1950, section 9). */
export function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < bytes.length;) {
    const end = Math.min(i + ADLER_RUN, bytes.length);
    for (; i < end; i++) {
      a += bytes[i]!;
      b += a;
    }
    a %= ADLER_MOD;
    b %= ADLER_MOD;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * `content` as a zlib stream of stored blocks, in pieces: the framing, and
 * views of `content` itself (never copied).
 */
export function storedZlib(content: Uint8Array): Buffer[] {
  const whole = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  const blocks = Math.max(1, Math.ceil(whole.length / MAX_BLOCK));
  // 0x78 0x01: deflate, 32 KB window, no preset dictionary, "fastest" (header checksum 31 holds).
  const parts: Buffer[] = [Buffer.from([0x78, 0x01])];
  for (let i = 0; i < blocks; i++) {
    const chunk = whole.subarray(i * MAX_BLOCK, Math.min(whole.length, (i + 1) * MAX_BLOCK));
    const head = Buffer.alloc(5);
    head[0] = i === blocks - 1 ? 1 : 0; // BFINAL on the last block; BTYPE 00
    head.writeUInt16LE(chunk.length, 1);
    head.writeUInt16LE(~chunk.length & 0xffff, 3);
    parts.push(head);
    if (chunk.length > 0) parts.push(chunk);
  }
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(adler32(whole), 0);
  parts.push(tail);
  return parts;
}

/**
 * The content of the zlib stream at the start of `chunk` when its deflate
 * data is only stored blocks (what `storedZlib` writes for trees and
 * commits) holding `size` bytes, with a good header and Adler-32; undefined
 * for anything else (compressed blocks, a stream cut short, a bad length or
 * checksum), which the caller then hands to zlib, whose verdict stands.
 *
 * Read by hand for the reason the writer is written by hand: every tree and
 * commit shadow reads is one, and `zlib.inflateSync` sets up a zlib stream
 * for each (about 25 µs in a process that has just started: `shadow status`
 * reads every commit of the draft). Bytes after the stream are ignored, as
 * zlib ignores them.
 */
export function unstoredZlib(chunk: Uint8Array, size: number): Buffer | undefined {
  // CMF: deflate (CM 8), a window of at most 32 KB; FLG: no preset dictionary; the pair a multiple of 31.
  if (chunk.length < 2 || (chunk[0]! & 0x0f) !== 8 || chunk[0]! >> 4 > 7 || (chunk[1]! & 0x20) !== 0) return undefined;
  if (((chunk[0]! << 8) | chunk[1]!) % 31 !== 0) return undefined;
  const out = Buffer.allocUnsafe(size);
  let at = 2;
  let filled = 0;
  for (;;) {
    if (at + 5 > chunk.length) return undefined;
    const head = chunk[at]!;
    // BTYPE 00 (stored); the rest of the byte is padding to the byte boundary.
    if ((head & 0x06) !== 0) return undefined;
    const len = chunk[at + 1]! | (chunk[at + 2]! << 8);
    const nlen = chunk[at + 3]! | (chunk[at + 4]! << 8);
    if ((len ^ 0xffff) !== nlen || filled + len > size || at + 5 + len > chunk.length) return undefined;
    out.set(chunk.subarray(at + 5, at + 5 + len), filled);
    filled += len;
    at += 5 + len;
    if ((head & 1) === 1) break;
  }
  if (filled !== size || at + 4 > chunk.length) return undefined;
  const sum = ((chunk[at]! << 24) | (chunk[at + 1]! << 16) | (chunk[at + 2]! << 8) | chunk[at + 3]!) >>> 0;
  return adler32(out) === sum ? out : undefined;
}
