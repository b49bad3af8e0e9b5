import { isUtf8 } from 'node:buffer';

/**
 * Plain-text content arriving for a write session: split into lines as it
 * comes (bytes, so a UTF-8 character cut between two chunks stays whole),
 * stopped by a line that is exactly `DONE`, and checked before it becomes a
 * batch.
 */

const NL = 0x0a;
const DONE = Buffer.from('DONE');
const DONE_CR = Buffer.from('DONE\r');

function isDoneLine(line: Buffer): boolean {
  return line.equals(DONE) || line.equals(DONE_CR);
}

/** What one chunk brought: bytes to keep, how many complete lines, and whether DONE ended the content. */
export interface ChunkResult {
  content: Buffer;
  lines: number;
  done: boolean;
}

/**
 * Cuts a stream of chunks into content. Holds back the last incomplete line
 * (it may turn out to be `DONE`), and drops everything from a `DONE` line on.
 */
export class LineSplitter {
  /** The last incomplete line, in the chunks it came in (joined only once a newline completes it). */
  private held: Buffer[] = [];
  private heldBytes = 0;
  private finished = false;

  /** Feed a chunk; returns the content it completes. */
  push(chunk: Buffer): ChunkResult {
    if (this.finished) return { content: Buffer.alloc(0), lines: 0, done: true };
    const lastInChunk = chunk.lastIndexOf(NL);
    if (lastInChunk === -1) {
      // No line ends here: hold the chunk (copied: the caller may reuse its buffer) without joining.
      this.held.push(Buffer.from(chunk));
      this.heldBytes += chunk.length;
      return { content: Buffer.alloc(0), lines: 0, done: false };
    }
    const data = this.heldBytes > 0 ? Buffer.concat([...this.held, chunk]) : chunk;
    const lastNl = lastInChunk + this.heldBytes;
    this.held = [];
    this.heldBytes = 0;
    // Only complete lines are looked at; most chunks hold no DONE at all.
    let start = 0;
    let lines = 0;
    for (let nl = data.indexOf(NL); nl !== -1 && nl <= lastNl; nl = data.indexOf(NL, nl + 1)) {
      const len = nl - start;
      if ((len === 4 || len === 5) && isDoneLine(data.subarray(start, nl))) {
        this.finished = true;
        return { content: data.subarray(0, start), lines, done: true };
      }
      lines++;
      start = nl + 1;
    }
    if (lastNl + 1 < data.length) {
      this.held = [Buffer.from(data.subarray(lastNl + 1))];
      this.heldBytes = this.held[0]!.length;
    }
    return { content: data.subarray(0, lastNl + 1), lines, done: false };
  }

  /** The end of the stream: the held-back last line is content, unless it is `DONE`. */
  end(): ChunkResult {
    if (this.finished) return { content: Buffer.alloc(0), lines: 0, done: true };
    this.finished = true;
    const rest = Buffer.concat(this.held);
    this.held = [];
    this.heldBytes = 0;
    if (isDoneLine(rest)) return { content: Buffer.alloc(0), lines: 0, done: true };
    return { content: rest, lines: rest.length > 0 ? 1 : 0, done: false };
  }

  /**
   * Bytes held back that are content whatever comes next: all of the
   * incomplete last line, unless it could still become a `DONE` line.
   */
  get heldContentBytes(): number {
    if (this.heldBytes > DONE_CR.length) return this.heldBytes;
    const rest = Buffer.concat(this.held);
    return DONE_CR.subarray(0, rest.length).equals(rest) ? 0 : rest.length;
  }

  get isDone(): boolean {
    return this.finished;
  }
}

/** What a target is, for validation. */
export interface SessionTarget {
  path: string;
  operation: 'create' | 'overwrite' | 'append';
  binary: boolean;
  /** Whether the target exists in the draft's view. */
  exists: boolean;
}

/**
 * Every problem of the content for its target (empty when it is fine).
 * `parse` checks JSON or YAML text and returns an error message or undefined.
 */
export function validateSessionContent(
  target: SessionTarget,
  content: Buffer | SessionContent,
  parse: (kind: 'json' | 'yaml', text: string) => string | undefined,
): string[] {
  const source: SessionContent = Buffer.isBuffer(content)
    ? { size: content.length, slices: () => [content], text: () => content.toString('utf8') }
    : content;
  const errors: string[] = [];
  if (target.operation === 'create' && target.exists)
    errors.push(`${target.path} already exists; use operation "overwrite" or "append"`);
  if (target.operation !== 'create' && !target.exists)
    errors.push(`${target.path} does not exist; use operation "create"`);
  if (target.operation === 'create' && source.size === 0) errors.push('the content is empty');
  if (target.binary) return errors;
  // Looked at in the bytes, slice by slice, so a 10 MB content is never decoded, split into lines, or held whole.
  let offset = 0;
  let linesBefore = 0;
  let fences = 0;
  let last: { text: string; line: number } | undefined;
  for (const slice of source.slices()) {
    if (!isUtf8(slice)) {
      errors.push(
        `the content is not valid UTF-8 (byte ${offset + firstInvalidUtf8(slice)}); declare the session binary for non-text content`,
      );
      return errors;
    }
    fences += countFenceLines(slice);
    const l = lastNonBlankLine(slice);
    if (l) last = { text: l.text, line: linesBefore + lineNumberAt(slice, l.start) };
    linesBefore += countNewlines(slice);
    offset += slice.length;
  }
  if (last && /^\W{0,3}DONE\W{0,3}$/.test(last.text.trim())) {
    errors.push(
      `a stray "DONE" marker ends the content (line ${last.line}); send DONE alone on its own line to end a session`,
    );
  }
  if (fences % 2 === 1) errors.push('the content ends inside an unterminated code fence (```)');
  const lower = target.path.toLowerCase();
  const kind = lower.endsWith('.json')
    ? 'json'
    : lower.endsWith('.yaml') || lower.endsWith('.yml')
      ? 'yaml'
      : undefined;
  if (kind) {
    const text = source.text();
    if (text.trim() !== '') {
      const problem = parse(kind, text);
      if (problem) errors.push(`the content is not valid ${kind.toUpperCase()}: ${problem}`);
    }
  }
  return errors;
}

/**
 * Content too large to hold whole: its size, its bytes in slices that each
 * end at the end of a line (so no UTF-8 character and no line is cut
 * between two; only the last may end without a newline), and the whole
 * text for the formats that need it parsed (JSON, YAML).
 */
export interface SessionContent {
  size: number;
  slices(): Iterable<Buffer>;
  text(): string;
}

function countNewlines(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(NL); i !== -1; i = b.indexOf(NL, i + 1)) n++;
  return n;
}

const isBlank = (b: number): boolean =>
  b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a || b === 0x0b || b === 0x0c;

/** The last line with something other than white space in it, and where it starts. */
function lastNonBlankLine(content: Buffer): { text: string; start: number } | undefined {
  let end = content.length;
  while (end > 0 && isBlank(content[end - 1]!)) end--;
  if (end === 0) return undefined;
  const start = content.lastIndexOf(NL, end - 1) + 1;
  return { text: content.subarray(start, end).toString('utf8'), start };
}

/** The 1-based number of the line starting at byte `start`. */
function lineNumberAt(content: Buffer, start: number): number {
  let number = 1;
  for (let i = content.indexOf(NL); i !== -1 && i < start; i = content.indexOf(NL, i + 1)) number++;
  return number;
}

/** Lines that open or close a code fence: up to three spaces, then ``` or ~~~. */
function countFenceLines(content: Buffer): number {
  let n = 0;
  for (const marker of ['```', '~~~']) {
    for (let i = content.indexOf(marker); i !== -1; i = content.indexOf(marker, i + 3)) {
      let lineStart = i;
      while (lineStart > 0 && content[lineStart - 1] === 0x20 && i - lineStart < 3) lineStart--;
      if (lineStart === 0 || content[lineStart - 1] === NL) {
        n++;
        // One fence line counts once, however many markers it holds.
        const eol = content.indexOf(NL, i);
        if (eol === -1) break;
        i = eol - 2;
      }
    }
  }
  return n;
}

function firstInvalidUtf8(b: Buffer): number {
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    const need =
      c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (need === -1) return i;
    for (let k = 1; k <= need; k++) if ((b[i + k]! & 0xc0) !== 0x80) return i;
    i += need;
  }
  return b.length;
}
