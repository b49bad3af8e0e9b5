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
  private pending: Buffer = Buffer.alloc(0);
  private finished = false;

  /** Feed a chunk; returns the content it completes. */
  push(chunk: Buffer): ChunkResult {
    if (this.finished) return { content: Buffer.alloc(0), lines: 0, done: true };
    const data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    const lastNl = data.lastIndexOf(NL);
    if (lastNl === -1) {
      this.pending = Buffer.from(data);
      return { content: Buffer.alloc(0), lines: 0, done: false };
    }
    // Only complete lines are looked at; most chunks hold no DONE at all.
    let start = 0;
    let lines = 0;
    for (let nl = data.indexOf(NL); nl !== -1 && nl <= lastNl; nl = data.indexOf(NL, nl + 1)) {
      const len = nl - start;
      if ((len === 4 || len === 5) && isDoneLine(data.subarray(start, nl))) {
        this.finished = true;
        this.pending = Buffer.alloc(0);
        return { content: data.subarray(0, start), lines, done: true };
      }
      lines++;
      start = nl + 1;
    }
    this.pending = Buffer.from(data.subarray(lastNl + 1));
    return { content: data.subarray(0, lastNl + 1), lines, done: false };
  }

  /** The end of the stream: the held-back last line is content, unless it is `DONE`. */
  end(): ChunkResult {
    if (this.finished) return { content: Buffer.alloc(0), lines: 0, done: true };
    this.finished = true;
    const rest = this.pending;
    this.pending = Buffer.alloc(0);
    if (isDoneLine(rest)) return { content: Buffer.alloc(0), lines: 0, done: true };
    return { content: rest, lines: rest.length > 0 ? 1 : 0, done: false };
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
export function validateSessionContent(target: SessionTarget, content: Buffer, parse: (kind: 'json' | 'yaml', text: string) => string | undefined): string[] {
  const errors: string[] = [];
  if (target.operation === 'create' && target.exists) errors.push(`${target.path} already exists; use operation "overwrite" or "append"`);
  if (target.operation !== 'create' && !target.exists) errors.push(`${target.path} does not exist; use operation "create"`);
  if (target.operation === 'create' && content.length === 0) errors.push('the content is empty');
  if (target.binary) return errors;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    const bad = firstInvalidUtf8(content);
    errors.push(`the content is not valid UTF-8 (byte ${bad}); declare the session binary for non-text content`);
    return errors;
  }
  const lines = text.split('\n');
  let last = lines.length - 1;
  while (last >= 0 && lines[last]!.trim() === '') last--;
  if (last >= 0 && /^\W{0,3}DONE\W{0,3}$/.test(lines[last]!.trim())) {
    errors.push(`a stray "DONE" marker ends the content (line ${last + 1}); send DONE alone on its own line to end a session`);
  }
  const fences = lines.filter((l) => /^\s{0,3}(```|~~~)/.test(l)).length;
  if (fences % 2 === 1) errors.push('the content ends inside an unterminated code fence (```)');
  const lower = target.path.toLowerCase();
  const kind = lower.endsWith('.json') ? 'json' : lower.endsWith('.yaml') || lower.endsWith('.yml') ? 'yaml' : undefined;
  if (kind && text.trim() !== '') {
    const problem = parse(kind, text);
    if (problem) errors.push(`the content is not valid ${kind.toUpperCase()}: ${problem}`);
  }
  return errors;
}

function firstInvalidUtf8(b: Buffer): number {
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    const need = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (need === -1) return i;
    for (let k = 1; k <= need; k++) if ((b[i + k]! & 0xc0) !== 0x80) return i;
    i += need;
  }
  return b.length;
}
