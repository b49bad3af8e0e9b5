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

/** The last line of a reflog, read from its end (a branch's log grows without bound). */
function lastLogLine(fs: FileSystem, logPath: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(logPath, 'r');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const length = Math.min(size, LAST_LINE_WINDOW);
    const buf = Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const n = fs.readSync(fd, buf, got, length - got, size - length + got);
      if (n === 0) break;
      got += n;
    }
    const text = buf.subarray(0, got).toString('latin1').replace(/\n$/, '');
    const start = text.lastIndexOf('\n');
    // A line longer than the window is no line shadow wrote for a move.
    return start === -1 && length < size ? undefined : text.slice(start + 1);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The reflog at `logPath`, oldest first (empty when there is none). With
 * `from`: only from the last entry that moved the ref to `from` (all of
 * them when none did), found by a search of the text before any line is
 * parsed.
 */
export function readReflog(fs: FileSystem, logPath: string, from?: Oid): ReflogEntry[] {
  let text = readTextIfExists(fs, logPath);
  if (!text) return [];
  if (from !== undefined) {
    // A line is `<old> <new> <who> <time>\t<message>`: the new value
    // starts 41 characters into its line (a message may name ids too).
    for (let at = text.lastIndexOf(` ${from} `); at !== -1; at = at > 0 ? text.lastIndexOf(` ${from} `, at - 1) : -1) {
      const line = at - 40;
      if (line === 0 || (line > 0 && text.charCodeAt(line - 1) === 0x0a)) {
        text = text.slice(line);
        break;
      }
    }
  }
  const out: ReflogEntry[] = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]{40}) ([0-9a-f]{40}) (.*?) (\d+) [+-]\d{4}\t?(.*)$/.exec(line);
    if (m) out.push({ old: m[1]!, new: m[2]!, who: m[3]!, timestamp: Number(m[4]), message: m[5]! });
  }
  return out;
}
