import type { FileSystem } from '../../src/index.js';
import { FS_OPS, type FsOp } from './fs-seam.js';

/**
 * A file system that remembers what a power loss could take away.
 *
 * Calls go to an inner volume (memfs): that is what the running process
 * sees, the page cache. Beside it, every change is logged against the inode
 * it changes (file contents after each write; each directory's entries
 * added, removed or renamed), with every fsync of a file or a directory.
 * Directories can be opened and fsynced here, as on Linux. `fsync` and
 * `rename` have their callback forms, which complete later, as node's run
 * on the thread pool: each call queues its completion, and each turn of the
 * event loop completes the newest one queued (so one that nothing awaits
 * stays pending while newer ones complete, the latest a real disk may
 * finish it). An fsync makes durable what was written before it was called,
 * from the moment it completes.
 *
 * crash-states.ts builds, from the log, the disks a power loss at any point
 * may leave, under the model written there.
 */

export type Ino = number;

/** What an inode holds. */
export type InodeState =
  | { kind: 'file'; mode: number; content: Buffer }
  | { kind: 'dir'; mode: number; entries: Map<string, Ino> }
  | { kind: 'symlink'; target: Buffer };

/** One logged change or sync. */
export type CrashEvent =
  /** A file's whole content after a write (or its creation, empty). */
  | { kind: 'data'; ino: Ino; content: Buffer; mode: number }
  /** Directory entries set (ino) or removed (null), together: a rename is one event over one or two directories; `rmdir` names the directory it removed. */
  | { kind: 'entries'; ops: Array<{ dir: Ino; name: string; ino: Ino | null; rmdir?: Ino }> }
  /** A new directory or symlink inode (durable with its entry). */
  | { kind: 'inode'; ino: Ino; state: InodeState }
  /** An fsync of `ino` completed: what was logged before event `asOf` is durable. */
  | { kind: 'sync'; ino: Ino; asOf: number };

interface Pending {
  run: () => void;
}

const ASYNC_DIR_FD_BASE = 1_000_000;

export class CrashFs {
  readonly fs: FileSystem;
  readonly events: CrashEvent[] = [];
  /** The disk when recording began: all of it durable. */
  readonly base = new Map<Ino, InodeState>();
  readonly rootIno: Ino;
  private readonly fdPaths = new Map<number, string>();
  /** The inode of each open descriptor (files stay themselves after a rename or unlink). */
  private readonly fdInos = new Map<number, Ino>();
  private readonly dirFds = new Map<number, Ino>();
  /**
   * memfs hands a freed inode number to the next file: this log's inodes are
   * its own, a new one for every file, directory or symlink made.
   */
  private readonly renumbered = new Map<number, Ino>();
  private nextIno = 1_000_000_000;
  private nextDirFd = ASYNC_DIR_FD_BASE;
  private readonly pending: Pending[] = [];

  constructor(
    readonly inner: FileSystem,
    readonly root = '/',
  ) {
    this.rootIno = this.snapshot(root);
    const out: Record<string, unknown> = {};
    for (const op of FS_OPS) out[op] = (inner[op] as (...a: unknown[]) => unknown).bind(inner);
    const self = this;
    const wrap = (op: FsOp, fn: (...a: any[]) => unknown): void => {
      out[op] = fn;
    };
    wrap('openSync', (path: string, flags?: string | number, mode?: number) =>
      self.open(String(path), flags ?? 'r', mode),
    );
    wrap('closeSync', (fd: number) =>
      self.dirFds.delete(fd) ? undefined : (self.fdPaths.delete(fd), self.fdInos.delete(fd), inner.closeSync(fd)),
    );
    wrap('fstatSync', (fd: number, o?: unknown) =>
      self.dirFds.has(fd) ? inner.statSync(self.pathOfIno(fd)) : inner.fstatSync(fd, o as never),
    );
    wrap('writeSync', (fd: number, ...rest: unknown[]) => {
      const n = (inner.writeSync as (...a: unknown[]) => number)(fd, ...rest);
      self.logData(self.fdPaths.get(fd)!, self.fdInos.get(fd));
      return n;
    });
    wrap('writeFileSync', (file: string | number, data: unknown, o?: unknown) =>
      self.writeWhole('writeFileSync', file, data, o),
    );
    wrap('appendFileSync', (file: string | number, data: unknown, o?: unknown) =>
      self.writeWhole('appendFileSync', file, data, o),
    );
    wrap('fsyncSync', (fd: number) => {
      const ino = self.inoOfFd(fd);
      if (!self.dirFds.has(fd)) inner.fsyncSync(fd);
      self.events.push({ kind: 'sync', ino, asOf: self.events.length });
    });
    wrap('renameSync', (from: string, to: string) => self.doRename(String(from), String(to)));
    wrap('unlinkSync', (path: string) => {
      const [dir, name] = self.parentOf(String(path));
      inner.unlinkSync(path);
      self.events.push({ kind: 'entries', ops: [{ dir, name, ino: null }] });
    });
    wrap('rmdirSync', (path: string, o?: unknown) => {
      const [dir, name] = self.parentOf(String(path));
      const rmdir = self.ino(String(path));
      (inner.rmdirSync as (...a: unknown[]) => void)(path, o);
      self.events.push({ kind: 'entries', ops: [{ dir, name, ino: null, rmdir }] });
    });
    wrap('mkdirSync', (path: string, o?: { recursive?: boolean; mode?: number } | number) =>
      self.mkdir(String(path), o),
    );
    wrap('symlinkSync', (target: string | Buffer, path: string) => {
      inner.symlinkSync(target as string, path);
      const ino = self.fresh(String(path));
      const [dir, name] = self.parentOf(String(path));
      self.events.push({ kind: 'inode', ino, state: { kind: 'symlink', target: Buffer.from(target) } });
      self.events.push({ kind: 'entries', ops: [{ dir, name, ino }] });
    });
    wrap('linkSync', (existing: string, path: string) => {
      inner.linkSync(existing, path);
      const [dir, name] = self.parentOf(String(path));
      self.events.push({ kind: 'entries', ops: [{ dir, name, ino: self.ino(String(path)) }] });
    });
    out.fsync = (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      const ino = self.inoOfFd(fd);
      const asOf = self.events.length;
      self.defer(() => {
        self.events.push({ kind: 'sync', ino, asOf });
        cb(null);
      });
    };
    out.rename = (from: string, to: string, cb: (err: NodeJS.ErrnoException | null) => void) => {
      self.defer(() => {
        try {
          self.doRename(String(from), String(to));
        } catch (e) {
          cb(e as NodeJS.ErrnoException);
          return;
        }
        cb(null);
      });
    };
    delete out.copyFileSync;
    this.fs = out as unknown as FileSystem;
  }

  /** Queue a completion; each turn of the event loop runs the newest one queued. */
  private defer(run: () => void): void {
    this.pending.push({ run });
    setImmediate(() => this.pending.pop()?.run());
  }

  private ino(path: string): Ino {
    const raw = Number(this.inner.lstatSync(path).ino);
    return this.renumbered.get(raw) ?? raw;
  }

  /** A new inode for what was just made at `path`. */
  private fresh(path: string): Ino {
    const ino = this.nextIno++;
    this.renumbered.set(Number(this.inner.lstatSync(path).ino), ino);
    return ino;
  }

  private inoOfFd(fd: number): Ino {
    return this.dirFds.get(fd) ?? this.fdInos.get(fd) ?? this.ino(this.fdPaths.get(fd)!);
  }

  private pathOfIno(fd: number): string {
    return this.fdPaths.get(fd)!;
  }

  private parentOf(path: string): [Ino, string] {
    const slash = path.lastIndexOf('/');
    return [this.ino(slash <= 0 ? '/' : path.slice(0, slash)), path.slice(slash + 1)];
  }

  private exists(path: string): boolean {
    try {
      this.inner.lstatSync(path);
      return true;
    } catch {
      return false;
    }
  }

  private logData(path: string, ino = this.ino(path)): void {
    const st = this.inner.lstatSync(path);
    this.events.push({
      kind: 'data',
      ino,
      content: Buffer.from(this.inner.readFileSync(path) as Buffer),
      mode: Number(st.mode) & 0o777,
    });
  }

  private created(path: string): Ino {
    const [dir, name] = this.parentOf(path);
    const ino = this.fresh(path);
    this.logData(path, ino);
    this.events.push({ kind: 'entries', ops: [{ dir, name, ino }] });
    return ino;
  }

  private open(path: string, flags: string | number, mode?: number): number {
    if (this.exists(path) && this.inner.lstatSync(path).isDirectory()) {
      const fd = this.nextDirFd++;
      this.dirFds.set(fd, this.ino(path));
      this.fdPaths.set(fd, path);
      return fd;
    }
    const existed = this.exists(path);
    const fd = this.inner.openSync(path, flags, mode);
    this.fdPaths.set(fd, path);
    const f = String(flags);
    if (!existed) this.fdInos.set(fd, this.created(path));
    else {
      this.fdInos.set(fd, this.ino(path));
      if (f.includes('w') || (typeof flags === 'number' && (flags & 0o1000) !== 0)) this.logData(path);
    }
    return fd;
  }

  private writeWhole(op: 'writeFileSync' | 'appendFileSync', file: string | number, data: unknown, o: unknown): void {
    const path = typeof file === 'number' ? this.fdPaths.get(file)! : String(file);
    const existed = this.exists(path);
    (this.inner[op] as (...a: unknown[]) => void)(file, data, o);
    if (existed) this.logData(path);
    else this.created(path);
  }

  private doRename(from: string, to: string): void {
    const ino = this.ino(from);
    const [fromDir, fromName] = this.parentOf(from);
    const [toDir, toName] = this.parentOf(to);
    this.inner.renameSync(from, to);
    for (const [fd, p] of this.fdPaths) {
      if (p === from || p.startsWith(`${from}/`)) this.fdPaths.set(fd, to + p.slice(from.length));
    }
    this.events.push({
      kind: 'entries',
      ops: [
        { dir: fromDir, name: fromName, ino: null },
        { dir: toDir, name: toName, ino },
      ],
    });
  }

  private mkdir(path: string, o?: { recursive?: boolean; mode?: number } | number): string | undefined {
    const missing: string[] = [];
    for (let p = path; p !== '/' && p !== '' && !this.exists(p); p = p.slice(0, Math.max(p.lastIndexOf('/'), 1))) {
      missing.unshift(p);
      if (!(typeof o === 'object' && o.recursive)) break;
    }
    const r = (this.inner.mkdirSync as (...a: unknown[]) => string | undefined)(path, o);
    for (const p of missing) {
      const ino = this.fresh(p);
      const [dir, name] = this.parentOf(p);
      this.events.push({ kind: 'inode', ino, state: { kind: 'dir', mode: 0o755, entries: new Map() } });
      this.events.push({ kind: 'entries', ops: [{ dir, name, ino }] });
    }
    return r;
  }

  /** Record the tree under `path` as the durable starting point; returns its inode. */
  private snapshot(path: string): Ino {
    const st = this.inner.lstatSync(path);
    const ino = Number(st.ino);
    if (st.isSymbolicLink())
      this.base.set(ino, { kind: 'symlink', target: this.inner.readlinkSync(path, { encoding: 'buffer' }) as Buffer });
    else if (st.isDirectory()) {
      const entries = new Map<string, Ino>();
      for (const name of (this.inner.readdirSync(path) as unknown[]).map(String))
        entries.set(name, this.snapshot(path === '/' ? `/${name}` : `${path}/${name}`));
      this.base.set(ino, { kind: 'dir', mode: Number(st.mode) & 0o777, entries });
    } else
      this.base.set(ino, {
        kind: 'file',
        mode: Number(st.mode) & 0o777,
        content: Buffer.from(this.inner.readFileSync(path) as Buffer),
      });
    return ino;
  }
}
