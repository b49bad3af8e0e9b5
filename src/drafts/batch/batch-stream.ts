import { isUtf8 } from 'node:buffer';
import { parseJsonText, type Shortening } from './batch-schema.js';

/**
 * A large batch document parsed as it is read, its whole text never held:
 * JSON.parse needs the document as one string and makes a copy of each of
 * its strings, so a batch of 100 MB of contents took its bytes, its text and
 * its parsed strings at once. Here each element of the top-level
 * `operations` array is parsed on its own as soon as it is read, and what is
 * kept of the document is the rest of it with a number in each element's
 * place (`{"intent": "…", "operations": [0, 1, 2]}`), parsed at the end by
 * parseJsonText, the elements then put back in.
 *
 * The answer is parseJsonText's for the whole document, errors included: an
 * element cut out is valid JSON and valid UTF-8, so what is left fails where
 * the whole fails, and the Shortening gives the error the byte offset,
 * position, line and column of the whole document. An element that does not
 * parse stays in what is kept as it came.
 *
 * Written here rather than taken from a streaming JSON parser (such as
 * @streamparser/json): the answer must be exactly the small path's,
 * messages, offsets and hints included, which only JSON.parse and
 * parseJsonText give; and such parsers build every value in JavaScript,
 * where this only scans the bytes between elements for their boundaries
 * and hands each element to JSON.parse.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const BOM = [0xef, 0xbb, 0xbf];
/** A top-level key longer than this (in bytes, escapes and all) is not `operations`. */
const MAX_KEY_BYTES = 128;

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** An element cut out of the document, and the stand-in left at `at` in the kept bytes. */
interface Cut {
  at: number;
  /** The stand-in's length (ASCII digits: bytes and characters alike). */
  width: number;
  /** The element's bytes and characters (UTF-16 units). */
  bytes: number;
  chars: number;
  newlines: number;
  /** The character offset in the element of its last newline, or -1. */
  lastNewline: number;
}

/** UTF-16 units of UTF-8 `bytes[from, to)`: one per sequence, two for a 4-byte one. */
function utf16Length(bytes: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const b = bytes[i]!;
    if ((b & 0xc0) !== 0x80) n += b >= 0xf0 ? 2 : 1;
  }
  return n;
}

/** Positions in the kept bytes mapped back to the document's (see Shortening). */
class CutMap implements Shortening {
  private starts: number[] | undefined;

  constructor(
    private readonly kept: Uint8Array,
    private readonly cuts: readonly Cut[],
  ) {}

  offset(offset: number): number {
    let o = offset;
    for (const c of this.cuts) {
      if (c.at >= offset) break;
      o += c.bytes - c.width;
    }
    return o;
  }

  /** Each cut's character offset in the kept text. */
  private charStarts(): number[] {
    if (this.starts) return this.starts;
    const starts: number[] = [];
    let chars = 0;
    let from = 0;
    for (const c of this.cuts) {
      chars += utf16Length(this.kept, from, c.at);
      starts.push(chars);
      from = c.at;
    }
    return (this.starts = starts);
  }

  place(text: string, at: number): { position: number; line: number; column: number } {
    const starts = this.charStarts();
    let line = 1;
    for (let k = text.indexOf('\n'); k !== -1 && k < at; k = text.indexOf('\n', k + 1)) line++;
    const keptNewline = at > 0 ? text.lastIndexOf('\n', at - 1) : -1;
    let shift = 0;
    let newlineShift = 0;
    let lastNewline = -1;
    for (let i = 0; i < this.cuts.length; i++) {
      const start = starts[i]!;
      if (start >= at) break;
      const c = this.cuts[i]!;
      if (c.lastNewline >= 0) {
        lastNewline = start + shift + c.lastNewline;
        line += c.newlines;
      }
      if (start < keptNewline) newlineShift += c.chars - c.width;
      shift += c.chars - c.width;
    }
    if (keptNewline >= 0) lastNewline = Math.max(lastNewline, keptNewline + newlineShift);
    const position = at + shift;
    return { position, line, column: position - lastNewline };
  }
}

class Splitter {
  constructor(private readonly onElement?: (value: unknown) => void) {}

  private readonly kept: Buffer[] = [];
  private keptLength = 0;
  private readonly values: unknown[] = [];
  private readonly cuts: Cut[] = [];
  /** Bytes of the document before the current chunk. */
  private offset = 0;
  private bom = true;

  // The document around the elements.
  private readonly stack: number[] = [];
  private inString = false;
  private escape = false;
  private expectKey = false;
  /** The bytes of a top-level key being read (undefined when none, or too long to matter). */
  private key: number[] | undefined;
  private lastKey: string | undefined;
  /** After `"operations":` at the top level. */
  private opsNext = false;
  /** In the top-level `operations` array, and whether an element may start. */
  private inOps = false;
  private elementDue = false;
  /** The last top-level `operations` array, as the numbers of its elements. */
  private lastOps: { first: number; count: number } | undefined;

  // The element being read.
  private element: Buffer[] | undefined;
  private elementLength = 0;
  /** Its length without trailing whitespace. */
  private elementEnd = 0;
  private depth = 0;

  private keep(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    // A copy: a slice would hold its whole chunk.
    this.kept.push(Buffer.from(bytes));
    this.keptLength += bytes.length;
  }

  write(chunk: Buffer): void {
    const n = chunk.length;
    let i = 0;
    let keepFrom = 0;
    while (i < n) {
      if (this.element) {
        const end = this.scanElement(chunk, i);
        if (end === n) {
          this.element.push(chunk.subarray(i, n));
          this.elementLength += n - i;
          break;
        }
        if (end > i) this.element.push(chunk.subarray(i, end));
        this.elementLength += end - i;
        this.finishElement();
        i = keepFrom = end;
        continue;
      }
      const start = this.scanOutside(chunk, i);
      if (start === n) break;
      this.keep(chunk.subarray(keepFrom, start));
      this.element = [];
      this.elementLength = 0;
      this.elementEnd = 0;
      this.depth = 0;
      i = start;
    }
    if (!this.element) this.keep(chunk.subarray(keepFrom, n));
    this.offset += n;
  }

  /**
   * Read an element from `i`: where it ends (the `,`, `]` or `}` after it),
   * or the chunk's length when it goes on.
   */
  private scanElement(chunk: Buffer, i: number): number {
    const n = chunk.length;
    const base = this.elementLength - i;
    let { inString, escape, depth, elementEnd } = this;
    for (; i < n; i++) {
      if (inString) {
        // Most of a batch is in strings: from quote to quote, a quote after an odd run of backslashes escaped.
        if (escape) {
          escape = false;
          continue;
        }
        const q = chunk.indexOf(QUOTE, i);
        const stop = q === -1 ? n : q;
        let run = 0;
        while (stop - run - 1 >= i && chunk[stop - run - 1] === BACKSLASH) run++;
        if (q === -1) {
          escape = run % 2 === 1;
          i = n - 1;
        } else if (run % 2 === 1) {
          i = q;
        } else {
          inString = false;
          elementEnd = base + q + 1;
          i = q;
        }
        continue;
      }
      const b = chunk[i]!;
      if (b === QUOTE) inString = true;
      else if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
      else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY || b === COMMA) {
        if (depth === 0) break;
        if (b !== COMMA) depth--;
      } else if (isSpace(b)) continue;
      elementEnd = base + i + 1;
    }
    this.inString = inString;
    this.escape = escape;
    this.depth = depth;
    this.elementEnd = elementEnd;
    return i;
  }

  /** Cut the element read out of the document, when it parses; else keep it as it came. */
  private finishElement(): void {
    const parts = this.element!;
    this.element = undefined;
    this.inString = false;
    this.escape = false;
    const all = parts.length === 1 ? parts[0]! : Buffer.concat(parts, this.elementLength);
    const body = all.subarray(0, this.elementEnd);
    let text: string | undefined = isUtf8(body) ? body.toString('utf8') : undefined;
    let value: unknown;
    try {
      if (text !== undefined) value = JSON.parse(text);
    } catch {
      text = undefined;
    }
    if (text === undefined) {
      this.keep(all);
      return;
    }
    const lastNewline = text.lastIndexOf('\n');
    let newlines = 0;
    for (let k = lastNewline; k !== -1; k = text.lastIndexOf('\n', k - 1)) {
      newlines++;
      if (k === 0) break;
    }
    const stand = Buffer.from(String(this.values.length));
    this.cuts.push({
      at: this.keptLength,
      width: stand.length,
      bytes: body.length,
      chars: text.length,
      newlines,
      lastNewline,
    });
    this.onElement?.(value);
    this.values.push(value);
    if (this.lastOps) this.lastOps.count++;
    this.keep(stand);
    this.keep(all.subarray(this.elementEnd));
  }

  /**
   * Follow the document outside the elements from `i`: where the next
   * element starts, or the chunk's length.
   */
  private scanOutside(chunk: Buffer, i: number): number {
    const n = chunk.length;
    for (; i < n; i++) {
      const b = chunk[i]!;
      if (this.bom) {
        const at = this.offset + i;
        if (at < 3 && b === BOM[at]) continue;
        this.bom = false;
      }
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (b === BACKSLASH) this.escape = true;
        else if (b === QUOTE) {
          this.inString = false;
          if (this.key) this.lastKey = keyOf(this.key);
          this.key = undefined;
          continue;
        }
        if (this.key) {
          if (this.key.length < MAX_KEY_BYTES) this.key.push(b);
          else this.key = undefined;
        }
        continue;
      }
      if (isSpace(b)) continue;
      if (this.opsNext) {
        this.opsNext = false;
        if (b === OPEN_ARRAY && this.stack.length === 1 && this.stack[0] === OPEN_OBJECT) {
          this.stack.push(b);
          this.inOps = true;
          this.elementDue = true;
          this.lastOps = { first: this.values.length, count: 0 };
          continue;
        }
      }
      if (this.elementDue) {
        this.elementDue = false;
        if (b !== COMMA && b !== CLOSE_ARRAY && b !== CLOSE_OBJECT) return i;
      }
      // In the top-level object (not a top-level array).
      const top = this.stack.length === 1 && this.stack[0] === OPEN_OBJECT;
      switch (b) {
        case QUOTE:
          this.inString = true;
          if (top && this.expectKey) {
            this.key = [];
            this.lastKey = undefined;
          }
          break;
        case COLON:
          if (top) {
            this.expectKey = false;
            if (this.lastKey === 'operations') {
              this.opsNext = true;
              this.lastOps = undefined;
            }
            this.lastKey = undefined;
          }
          break;
        case COMMA:
          if (top) this.expectKey = true;
          else if (this.inOps && this.stack.length === 2) this.elementDue = true;
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          this.stack.push(b);
          this.expectKey = this.stack.length === 1 && b === OPEN_OBJECT;
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          this.stack.pop();
          if (this.stack.length < 2) this.inOps = false;
          break;
        default:
          break;
      }
    }
    return n;
  }

  /** The document: parseJsonText's answer for the whole of it. */
  end(what: string): unknown {
    if (this.element) {
      const parts = this.element;
      this.element = undefined;
      for (const p of parts) this.keep(p);
    }
    const kept = Buffer.concat(this.kept, this.keptLength);
    this.kept.length = 0;
    const doc = parseJsonText(kept, what, this.cuts.length > 0 ? new CutMap(kept, this.cuts) : undefined);
    const ops = this.lastOps;
    if (ops && doc !== null && typeof doc === 'object' && !Array.isArray(doc)) {
      const list = (doc as { operations?: unknown }).operations;
      if (Array.isArray(list) && list.length === ops.count) {
        for (let k = 0; k < list.length; k++) {
          if (list[k] !== ops.first + k) return doc;
        }
        for (let k = 0; k < list.length; k++) list[k] = this.values[ops.first + k];
      }
    }
    this.values.length = 0;
    return doc;
  }
}

/** A key's text, from its bytes between the quotes (undefined when they are not a JSON string's). */
function keyOf(bytes: number[]): string | undefined {
  const b = Buffer.from(bytes);
  if (!isUtf8(b)) return undefined;
  try {
    return JSON.parse(`"${b.toString('utf8')}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * Parse a JSON document read in pieces, as parseJsonText parses it whole:
 * the same value, or the same INVALID_JSON (offsets, positions, lines and
 * columns count from the document's start), without the document's text
 * ever held whole when it is a batch. `onElement` sees each element of the
 * top-level `operations` array as soon as it is parsed (and may change it).
 *
 * @example
 * const doc = await parseJsonStream(createReadStream('batch.json'));
 */
export async function parseJsonStream(
  chunks: AsyncIterable<Uint8Array | string>,
  what = 'batch',
  onElement?: (value: unknown) => void,
): Promise<unknown> {
  const s = new Splitter(onElement);
  for await (const chunk of chunks) {
    s.write(
      typeof chunk === 'string'
        ? Buffer.from(chunk, 'utf8')
        : Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
    );
  }
  return s.end(what);
}
