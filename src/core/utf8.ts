import { isUtf8 } from 'node:buffer';

/**
 * The byte offset where `bytes` stop being UTF-8, or -1 when they are valid.
 * The offset is the first byte of the first sequence that does not decode
 * (a stray continuation byte, an overlong form, a surrogate, a code point
 * past U+10FFFF, or a sequence cut short), the byte a strict decoder stops
 * at.
 *
 * @example
 * invalidUtf8At(Buffer.from('ok \xff', 'latin1')) // 3
 */
export function invalidUtf8At(bytes: Uint8Array): number {
  // The native check runs at memory speed; the scan only finds where.
  if (isUtf8(bytes)) return -1;
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // The ranges of RFC 3629's table: the second byte's range is what rules out overlongs, surrogates and > U+10FFFF.
    let tail: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) tail = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      tail = 2;
      if (b === 0xe0) lo = 0xa0;
      else if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      tail = 3;
      if (b === 0xf0) lo = 0x90;
      else if (b === 0xf4) hi = 0x8f;
    } else return i;
    if (i + tail >= n) return i;
    const second = bytes[i + 1]!;
    if (second < lo || second > hi) return i;
    for (let k = 2; k <= tail; k++) {
      const c = bytes[i + k]!;
      if (c < 0x80 || c > 0xbf) return i;
    }
    i += tail + 1;
  }
  return -1;
}
