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
