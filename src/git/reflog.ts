/** Reflogs (`logs/<ref>`): appending a move's lines durably, reading a log's last line from its end, parsing a log back. */

import type { FileSystem } from '../context.js';
import { errnoCode } from '../errors.js';
import { formatSignature, type Oid, type Signature } from './format/git-objects.js';
import { normalizeReflogMessage } from './format/reflog-message.js';
import {
  ensureDir,
  fsyncConcurrently,
  fsyncDirConcurrently,
  parentOf,
  readTextIfExists,
  settleAll,
  statIfExists,
  writeAll,
} from '../durable/durable-file.js';

export interface ReflogEntry {
  old: Oid;
  new: Oid;
  who: string;
  timestamp: number;
  message: string;
}

/** A reflog line to append, and how (see RefUpdate's `createReflog` and `redo`). */
export interface ReflogLine {
  old: Oid;
  next: Oid;
  who: Signature;
  message: string;
  create: boolean;
  redo: boolean;
}

/** How much of a reflog's end is read to find its last line. */
const LAST_LINE_WINDOW = 64 * 1024;

/** The text of a reflog line. */
function lineText(line: ReflogLine): string {
  return `${line.old} ${line.next} ${formatSignature(line.who)}\t${normalizeReflogMessage(line.message)}\n`;
}

/**
 * Append lines to reflogs and make them durable before returning: each log
 * written is fsynced, and the directory of each log made here, all in
 * flight together. A ref's move is renamed into place after this, so a
 * power loss never keeps a move and loses its line (`undo` reads it).
 */
export async function appendReflogLines(
  fs: FileSystem,
  lines: ReadonlyArray<{ logPath: string; line: ReflogLine }>,
): Promise<void> {
  const fds = new Map<string, number>();
  const made = new Set<string>();
  try {
    for (const { logPath, line } of lines) {
      let fd = fds.get(logPath);
      if (fd === undefined) {
        const exists = statIfExists(fs, logPath) !== undefined;
        if (!line.create && !exists) continue;
        if (line.redo && lastLogLine(fs, logPath)?.startsWith(`${line.old} ${line.next} `)) continue;
        if (!exists) {
          ensureDir(fs, parentOf(logPath));
          made.add(parentOf(logPath));
        }
        fd = fs.openSync(logPath, 'a');
        fds.set(logPath, fd);
      }
      writeAll(fs, fd, Buffer.from(lineText(line), 'utf8'));
    }
    await settleAll([
      ...[...fds.values()].map((fd) => fsyncConcurrently(fs, fd)),
      ...[...made].map((dir) => fsyncDirConcurrently(fs, dir)),
    ]);
  } finally {
    for (const fd of fds.values()) fs.closeSync(fd);
  }
}

/** A descriptor of `path` open for reading, or undefined when there is no such file. */
function openIfExists(fs: FileSystem, path: string): number | undefined {
  try {
    return fs.openSync(path, 'r');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw e;
  }
}

/** The last `length` bytes of the file of `size` bytes open at `fd` (fewer if it shrank meanwhile). */
function readEnd(fs: FileSystem, fd: number, size: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, size - length + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** The last line of a reflog, read from its end (a branch's log grows without bound). */
function lastLogLine(fs: FileSystem, logPath: string): string | undefined {
  const fd = openIfExists(fs, logPath);
  if (fd === undefined) return undefined;
  try {
    const size = Number(fs.fstatSync(fd).size);
    const length = Math.min(size, LAST_LINE_WINDOW);
    const got = readEnd(fs, fd, size, length);
    const text = got.toString('latin1').replace(/\n$/, '');
    const start = text.lastIndexOf('\n');
    // A line longer than the window is no line shadow wrote for a move.
    return start === -1 && length < size ? undefined : text.slice(start + 1);
  } finally {
    fs.closeSync(fd);
  }
}

/** The first reflog search from the end reads this much; each next one twice as much. */
const TAIL_CHUNK = 8 * 1024;

/**
 * The index in `text` of the last line that moved the ref to `from`, or -1.
 * A line is `<old> <new> <who> <time>\t<message>`: the new value starts 41
 * characters into its line (a message may name ids too). `whole`: `text`
 * starts at the start of the file (else a line that starts at 0 may be
 * the end of one cut off, and is not taken).
 */
function lastMoveTo(text: string, from: Oid, whole: boolean): number {
  for (let at = text.lastIndexOf(` ${from} `); at !== -1; at = at > 0 ? text.lastIndexOf(` ${from} `, at - 1) : -1) {
    const line = at - 40;
    if ((line === 0 && whole) || (line > 0 && text.charCodeAt(line - 1) === 0x0a)) return line;
  }
  return -1;
}

/**
 * The text of the reflog from the last line that moved the ref to `from`,
 * read from the log's end in growing pieces (a draft's log grows a line a
 * batch, and the move sought is nearly always the last), or the whole log
 * when no line did. Undefined when there is no log.
 */
function textSinceMoveTo(fs: FileSystem, logPath: string, from: Oid): string | undefined {
  const fd = openIfExists(fs, logPath);
  if (fd === undefined) return undefined;
  try {
    const size = Number(fs.fstatSync(fd).size);
    for (let length = Math.min(size, TAIL_CHUNK); ; length = Math.min(size, length * 2)) {
      // A piece may start inside a character: only the line cut off at its start sees the replacement.
      const text = readEnd(fs, fd, size, length).toString('utf8');
      const whole = length === size;
      const line = lastMoveTo(text, from, whole);
      if (line !== -1) return text.slice(line);
      if (whole) return text;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The reflog at `logPath`, oldest first (empty when there is none). With
 * `from`: only from the last entry that moved the ref to `from` (all of
 * them when none did), found by a search of the text from the log's end
 * before any line is parsed.
 */
export function readReflog(fs: FileSystem, logPath: string, from?: Oid): ReflogEntry[] {
  const text = from === undefined ? readTextIfExists(fs, logPath) : textSinceMoveTo(fs, logPath, from);
  if (!text) return [];
  const out: ReflogEntry[] = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]{40}) ([0-9a-f]{40}) (.*?) (\d+) [+-]\d{4}\t?(.*)$/.exec(line);
    if (m) out.push({ old: m[1]!, new: m[2]!, who: m[3]!, timestamp: Number(m[4]), message: m[5]! });
  }
  return out;
}
