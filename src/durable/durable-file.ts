import type { Stats } from 'node:fs';
import type { FileSystem } from '../context.js';
import { errnoCode } from '../errors.js';

/** Directory part of a path. */
export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? (i === 0 ? '/' : '.') : path.slice(0, i);
}

/**
 * mkdir -p, durably: each directory it makes is fsynced into its parent, so
 * a file created inside (and the directory's own fsync) cannot be lost with
 * a directory entry a power loss took back. A directory that exists costs
 * one stat; `durable` false skips the fsyncs (caches, scratch).
 */
export function ensureDir(fs: FileSystem, dir: string, durable = true): void {
  if (statIfExists(fs, dir, true)?.isDirectory()) return;
  const missing: string[] = [];
  for (let d = dir; d !== '/' && d !== '.' && statIfExists(fs, d, true) === undefined; d = parentOf(d))
    missing.unshift(d);
  for (const d of missing) {
    try {
      fs.mkdirSync(d);
    } catch (e) {
      // Another process made it meanwhile: its parent holds it all the same.
      if (errnoCode(e) !== 'EEXIST') throw e;
    }
    if (durable) fsyncDir(fs, parentOf(d));
  }
  // Neither missing nor a directory: mkdir says why (ENOTDIR, EEXIST on a file).
  if (missing.length === 0) fs.mkdirSync(dir, { recursive: true });
}

/** A directory opened to be synced, or undefined on file systems that cannot open one (some in-memory ones). */
function openDir(fs: FileSystem, dir: string): number | undefined {
  try {
    return fs.openSync(dir, 'r');
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'EISDIR' || code === 'EPERM' || code === 'EACCES') return undefined;
    throw e;
  }
}

/** A directory's fsync refused by a file system that does not sync directories: nothing to do. */
function syncUnsupported(e: unknown): boolean {
  const code = errnoCode(e);
  return code === 'EINVAL' || code === 'EBADF' || code === 'EISDIR';
}

/**
 * fsync a directory so that a rename or create inside it survives a crash.
 * File systems that cannot open a directory (some in-memory ones) are skipped.
 */
export function fsyncDir(fs: FileSystem, dir: string): void {
  const fd = openDir(fs, dir);
  if (fd === undefined) return;
  try {
    fs.fsyncSync(fd);
  } catch (e) {
    if (!syncUnsupported(e)) throw e;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * `fsyncDir` with the fsync on libuv's thread pool (see fsyncConcurrently):
 * a server's other requests run while the disk works.
 */
export async function fsyncDirConcurrently(fs: FileSystem, dir: string): Promise<void> {
  const fd = openDir(fs, dir);
  if (fd === undefined) return;
  try {
    await fsyncConcurrently(fs, fd);
  } catch (e) {
    if (!syncUnsupported(e)) throw e;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Run a call on libuv's thread pool when the file system has its callback
 * form, else synchronously: a failure either way is a rejection.
 */
function onPool(
  callback: ((done: (err: NodeJS.ErrnoException | null) => void) => void) | undefined,
  sync: () => void,
): Promise<void> {
  if (!callback) {
    try {
      sync();
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e);
    }
  }
  return new Promise((done, fail) => callback((err) => (err ? fail(err) : done())));
}

/**
 * fsync a descriptor on libuv's thread pool when the file system has the
 * callback form, else synchronously. One sync fsync is cheaper than one on
 * the pool; many on the pool at once are much cheaper than as many in a row.
 * `alone`: nothing else is in flight, so it runs synchronously.
 */
export function fsyncConcurrently(fs: FileSystem, fd: number, alone = false): Promise<void> {
  const fsync = fs.fsync;
  return onPool(!alone && fsync ? (cb) => fsync.call(fs, fd, cb) : undefined, () => fs.fsyncSync(fd));
}

/**
 * rename on libuv's thread pool when the file system has the callback form,
 * else synchronously; synchronously too when it is `alone` (nothing else in
 * flight to overlap with, so the trip to the pool is pure cost).
 */
export function renameConcurrently(fs: FileSystem, from: string, to: string, alone = false): Promise<void> {
  const rename = fs.rename;
  return onPool(!alone && rename ? (cb) => rename.call(fs, from, to, cb) : undefined, () => fs.renameSync(from, to));
}

/**
 * Wait for every promise to settle (none is left running, so descriptors
 * they use may be closed), then throw the first failure, if any.
 */
export async function settleAll(promises: ReadonlyArray<Promise<unknown>>): Promise<void> {
  for (const r of await Promise.allSettled(promises)) if (r.status === 'rejected') throw r.reason;
}

/** How many fsyncs a publish keeps in flight (and so how many descriptors it holds open). */
export const FSYNC_WINDOW = 64;

/** `fsyncDir` for many directories, up to FSYNC_WINDOW of their fsyncs in flight together. */
export async function fsyncDirs(fs: FileSystem, dirs: Iterable<string>): Promise<void> {
  const all = [...dirs];
  for (let i = 0; i < all.length; i += FSYNC_WINDOW) {
    const fds: number[] = [];
    try {
      for (const dir of all.slice(i, i + FSYNC_WINDOW)) {
        try {
          fds.push(fs.openSync(dir, 'r'));
        } catch (e) {
          const code = errnoCode(e);
          if (code === 'EISDIR' || code === 'EPERM' || code === 'EACCES' || code === 'ENOENT') continue;
          throw e;
        }
      }
      const results = await Promise.allSettled(fds.map((fd) => fsyncConcurrently(fs, fd)));
      for (const r of results) {
        if (r.status === 'rejected') {
          const code = errnoCode(r.reason);
          if (code !== 'EINVAL' && code !== 'EBADF' && code !== 'EISDIR') throw r.reason;
        }
      }
    } finally {
      for (const fd of fds) fs.closeSync(fd);
    }
  }
}

/** Write all of `data` to an open file descriptor. */
export function writeAll(fs: FileSystem, fd: number, data: Uint8Array): void {
  let off = 0;
  while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
}

/** Create `path` (it must not exist) holding `parts`, fsynced, closed. */
export function writeNewFileSynced(fs: FileSystem, path: string, parts: readonly Uint8Array[]): void {
  const fd = fs.openSync(path, 'wx', 0o644);
  try {
    writeParts(fs, fd, parts);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A file's bytes: its pieces, or a producer that hands them over one by one (never all held at once). */
export type FileBody = readonly Uint8Array[] | ((write: (part: Uint8Array) => void) => void);

/**
 * `writeNewFileSynced` for several files, their fsyncs in flight together
 * on libuv's pool: one round trip to the disk for all of them. The files
 * are written in order, so a producer may use what an earlier one made.
 */
export async function writeNewFilesSynced(
  fs: FileSystem,
  files: ReadonlyArray<readonly [string, FileBody]>,
): Promise<void> {
  const fds: number[] = [];
  try {
    for (const [path, body] of files) {
      const fd = fs.openSync(path, 'wx', 0o644);
      fds.push(fd);
      if (typeof body === 'function') {
        const writer = new PartWriter(fs, fd);
        body((part) => writer.write(part));
        writer.end();
      } else {
        writeParts(fs, fd, body);
      }
    }
    await settleAll(fds.map((fd) => fsyncConcurrently(fs, fd)));
  } finally {
    for (const fd of fds) fs.closeSync(fd);
  }
}

/** Pieces smaller than this are joined before they are written (one call for many small ones). */
const JOIN_BELOW = 256 * 1024;

/** Writes pieces in order: small ones joined into one write, large ones as they are (never copied into a joined buffer). */
class PartWriter {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly fs: FileSystem,
    private readonly fd: number,
  ) {}

  write(p: Uint8Array): void {
    if (p.length >= JOIN_BELOW) {
      this.end();
      writeAll(this.fs, this.fd, p);
      return;
    }
    this.pending.push(p);
    this.pendingBytes += p.length;
    if (this.pendingBytes >= JOIN_BELOW) this.end();
  }

  /** Write what is pending. */
  end(): void {
    if (this.pending.length === 1) writeAll(this.fs, this.fd, this.pending[0]!);
    else if (this.pending.length > 1) writeAll(this.fs, this.fd, Buffer.concat(this.pending, this.pendingBytes));
    this.pending = [];
    this.pendingBytes = 0;
  }
}

/**
 * Write `parts` in order: small ones joined into one write, large ones
 * written as they are (never copied into a joined buffer).
 */
export function writeParts(fs: FileSystem, fd: number, parts: readonly Uint8Array[]): void {
  const writer = new PartWriter(fs, fd);
  for (const p of parts) writer.write(p);
  writer.end();
}

/**
 * Replace `path` with `data` atomically: a temporary file in the same
 * directory, written, fsynced (unless `durable` is false), renamed over the
 * target, and the directory fsynced. A reader sees the old or the new file,
 * never a torn one.
 */
export function writeFileAtomic(
  fs: FileSystem,
  path: string,
  data: Uint8Array | string,
  options: { token: string; durable?: boolean; mode?: number },
): void {
  const durable = options.durable ?? true;
  const dir = parentOf(path);
  ensureDir(fs, dir, durable);
  const tmp = `${path}.tmp-${options.token}`;
  const fd = fs.openSync(tmp, 'wx', options.mode ?? 0o644);
  try {
    writeAll(fs, fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    if (durable) fs.fsyncSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    tryUnlink(fs, tmp);
    throw e;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(tmp, path);
  } catch (e) {
    tryUnlink(fs, tmp);
    throw e;
  }
  if (durable) fsyncDir(fs, dir);
}

/**
 * lstat (or stat, with `follow`) a path, or undefined when nothing is there
 * (ENOENT, or ENOTDIR: a parent is a file). A missing path is asked without
 * an exception (`throwIfNoEntry`), which costs several times the syscall:
 * a large batch asks about many paths that do not exist yet.
 */
export function statIfExists(fs: FileSystem, path: string, follow = false): Stats | undefined {
  try {
    return (
      ((follow ? fs.statSync(path, { throwIfNoEntry: false }) : fs.lstatSync(path, { throwIfNoEntry: false })) as
        Stats | undefined) ?? undefined
    );
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/**
 * How recent a change to a file makes its stat untrustworthy as a sign that
 * it did not change since (ms): a second change within the file system's
 * time granularity could keep every field of the stamp. Where the times are
 * whole seconds (FAT keeps 2 s, HFS+ and ext3's small inodes 1 s, some
 * network mounts), that is two seconds. Where they carry a fraction of a
 * second, the granularity is the kernel's clock tick (10 ms at most, at
 * HZ=100), and a file's time may lag the wall clock by one tick: 100 ms
 * covers both with room to spare. A file system with fine times shows a
 * whole second only once in a great while, and is then treated as coarse.
 */
const RACY_MS_COARSE = 2000;
const RACY_MS_FINE = 100;

function racyWindow(mtimeMs: number, ctimeMs: number): number {
  return mtimeMs % 1000 === 0 && ctimeMs % 1000 === 0 ? RACY_MS_COARSE : RACY_MS_FINE;
}

/**
 * What a file is now, for telling whether it changed since: inode, size and
 * times ("-" when missing). `racy` when it changed so recently (see
 * racyWindow) that a second change could keep the same stamp: such a file
 * is read again every time.
 */
export function statStamp(fs: FileSystem, path: string, now: number): { stamp: string; racy: boolean; size: number } {
  const st = statIfExists(fs, path, true);
  if (!st) return { stamp: '-', racy: false, size: 0 };
  const changed = Math.max(st.mtimeMs, st.ctimeMs);
  return {
    stamp: `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`,
    racy: now - changed < racyWindow(st.mtimeMs, st.ctimeMs),
    size: Number(st.size),
  };
}

/** Read a file as UTF-8, or undefined when it does not exist. */
export function readTextIfExists(fs: FileSystem, path: string): string | undefined {
  try {
    return fs.readFileSync(path, 'utf8') as string;
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/** Remove a file, ignoring a missing one. */
export function tryUnlink(fs: FileSystem, path: string): boolean {
  try {
    fs.unlinkSync(path);
    return true;
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw e;
  }
}

/** Remove empty directories from `dir` up to (not including) `stop`. */
export function pruneEmptyDirs(fs: FileSystem, dir: string, stop: string): void {
  let d = dir;
  while (d.length > stop.length && d.startsWith(stop)) {
    try {
      fs.rmdirSync(d);
    } catch {
      return;
    }
    d = parentOf(d);
  }
}

/** Names in a directory, or [] when it does not exist. */
export function listDir(fs: FileSystem, dir: string): string[] {
  try {
    return (fs.readdirSync(dir) as unknown[]).map(String);
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw e;
  }
}
