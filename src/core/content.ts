import { createHash } from 'node:crypto';
import { ShadowError } from '../errors.js';

/** The default of `shadow.maxContentBytes`: 10 MiB. */
export const DEFAULT_MAX_CONTENT_BYTES = 10 * 1024 * 1024;

/** `10485760` → `10MB`, the way limits are spoken of in messages. */
export function formatLimit(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (Number.isInteger(mib)) return `${mib}MB`;
  const kib = bytes / 1024;
  if (Number.isInteger(kib)) return `${kib}KB`;
  return `${bytes} bytes`;
}

/** The error for content over the limit; the message is part of the interface. */
export function contentTooLarge(size: number, max: number): ShadowError {
  return new ShadowError('CONTENT_TOO_LARGE', `Content exceeds ${formatLimit(max)} limit`, {
    hint: 'split the file, or raise the limit with `git config shadow.maxContentBytes <bytes>`',
    data: { size, limit: max },
  });
}

/** The index of the first lone UTF-16 surrogate in `s` (which UTF-8 cannot hold), or -1. */
export function loneSurrogateAt(s: string): number {
  // The native check runs at memory speed; the scan only finds where.
  if (s.isWellFormed()) return -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      i++;
      continue;
    }
    return i;
  }
  return -1;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64_SPACE = /[\t\n\r ]+/g;

/** Decode a strict base64 string (whitespace allowed), or throw INVALID_BASE64. */
export function decodeBase64(text: string): Buffer {
  const compact = text.replace(BASE64_SPACE, '');
  const bad = BASE64.test(compact) && compact.length % 4 === 0 ? -1 : firstBadBase64(compact);
  if (bad !== -1) {
    throw new ShadowError(
      'INVALID_BASE64',
      compact.length % 4 !== 0 && bad === compact.length
        ? `content is not valid base64: its length ${compact.length} is not a multiple of 4 (truncated?)`
        : `content is not valid base64: unexpected character at position ${bad}`,
      {
        hint: 'send standard base64 (A-Z a-z 0-9 + /, padded with =), or use "encoding": "utf8"',
        data: { position: bad },
      },
    );
  }
  return Buffer.from(compact, 'base64');
}

function firstBadBase64(s: string): number {
  const pad = s.indexOf('=');
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (/[A-Za-z0-9+/]/.test(ch)) {
      if (pad !== -1 && i > pad) return i;
      continue;
    }
    if (ch === '=' && i >= s.length - 2) continue;
    return i;
  }
  return s.length;
}

/** Turn an op's content into bytes, checking encoding and size. */
export function decodeContent(content: string, encoding: 'utf8' | 'base64' | undefined, maxBytes: number): Buffer {
  let bytes: Buffer;
  if (encoding === 'base64') {
    // 3 bytes per 4 characters: refuse before decoding what is obviously too big. Line breaks carry
    // nothing, and base64(1) wraps at 76 columns: counted, they would refuse a file just under the limit.
    const compact = content.replace(BASE64_SPACE, '');
    if (Math.floor((compact.length * 3) / 4) > maxBytes + 3)
      throw contentTooLarge(Math.floor((compact.length * 3) / 4), maxBytes);
    bytes = decodeBase64(compact);
  } else {
    const at = loneSurrogateAt(content);
    if (at !== -1) {
      throw new ShadowError(
        'INVALID_CONTENT',
        `content holds a lone UTF-16 surrogate at index ${at}, which UTF-8 cannot encode`,
        {
          hint: 'send the text as valid Unicode, or binary content with "encoding": "base64"',
          data: { index: at },
        },
      );
    }
    bytes = Buffer.from(content, 'utf8');
  }
  if (bytes.length > maxBytes) throw contentTooLarge(bytes.length, maxBytes);
  return bytes;
}

/** A parsed `expect` precondition. */
export type Expectation = { kind: 'blob'; oid: string } | { kind: 'sha256'; hex: string };

/** Parse an `expect` value: a 40-hex blob id or `sha256:<64 hex>`. */
export function parseExpect(value: string): Expectation | undefined {
  const v = value.trim().toLowerCase();
  if (/^[0-9a-f]{40}$/.test(v)) return { kind: 'blob', oid: v };
  const m = /^sha256:([0-9a-f]{64})$/.exec(v);
  return m ? { kind: 'sha256', hex: m[1]! } : undefined;
}

/** True when `content` (with blob id `oid`) satisfies the expectation. */
export function meetsExpectation(e: Expectation, oid: string, content: () => Buffer): boolean {
  if (e.kind === 'blob') return e.oid === oid;
  return createHash('sha256').update(content()).digest('hex') === e.hex;
}

/** sha256 of bytes, in hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** True when bytes look binary the way git decides it: a NUL in the first 8000 bytes. */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8000);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Decode UTF-8 text, or undefined when the bytes are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
