import type { Stats } from 'node:fs';
import type { Context } from '../context.js';
import { ShadowError } from '../errors.js';
import { MODE } from './format/git-objects.js';
import { parentDirs } from '../core/path-rules.js';
import {
  fsyncConcurrently,
  fsyncDirs,
  listDir,
  renameConcurrently,
  statIfExists,
  tryUnlink,
  writeAll,
} from '../durable/durable-file.js';

/**
 * The only code that writes into the working tree. Every write is a
 * temporary file in the same directory, fsynced, then renamed over the
 * target: a reader (or a crash) sees the old file or the new one, never a
 * torn one. No write ever goes through a symlink: each parent directory is
 * checked with lstat, and created one level at a time.
 */

/** The marker in the names of temporary files, so that recovery can find leftovers. */
const TEMP_MARK = '.shadow-tmp-';

export function tempPrefix(path: string): string {
  const slash = path.lastIndexOf('/');
  return `${path.slice(0, slash + 1)}.${path.slice(slash + 1)}${TEMP_MARK}`;
}

/** A file written to its temporary name, waiting for fsync and rename. */
export interface StagedFile {
  path: string;
  tmp: string;
  /** Open until committed or abandoned; null for a symlink (nothing to fsync). */
  fd: number | null;
}

export class WorktreeWriter {
  /** Directories whose entries changed, to fsync at the end. */
  readonly dirtyDirs = new Set<string>();

  constructor(
    private readonly ctx: Context,
    private readonly root: string,
  ) {}

  private full(path: string): string {
    return path === '' ? this.root : `${this.root}/${path}`;
  }

  private lstat(path: string): Stats | undefined {
    return statIfExists(this.ctx.fs, this.full(path));
  }

  /**
   * Make the parent directories of `path`, refusing to pass through a
   * symlink or a file. Each missing level is created with mkdir (which never
   * follows a symlink at the level it creates).
   */
  ensureParents(path: string): void {
    for (const dir of parentDirs(path)) {
      const st = this.lstat(dir);
      if (st?.isDirectory()) continue;
      if (st?.isSymbolicLink()) {
        throw new ShadowError('SYMLINK_IN_PATH', `${path} crosses a symlink in the working tree at ${dir}`, {
          hint: 'shadow never writes through a symlink; replace the symlink with a directory first',
          data: { path, symlink: dir },
        });
      }
      if (st) {
        throw new ShadowError(
          'NOT_A_DIRECTORY',
          `${dir} is not a directory in the working tree, so ${path} cannot be written`,
          {
            data: { path, blockedBy: dir },
          },
        );
      }
      this.ctx.fs.mkdirSync(this.full(dir));
      this.dirtyDirs.add(this.parentDir(dir));
    }
  }

  private parentDir(path: string): string {
    const slash = path.lastIndexOf('/');
    return this.full(slash === -1 ? '' : path.slice(0, slash));
  }

  /**
   * The first half of writing a file: the content in a temporary file next to
   * `path`, not yet fsynced (the descriptor stays open for `sync`).
   */
  stage(path: string, mode: string, content: Buffer): StagedFile {
    this.ensureParents(path);
    const tmp = `${this.full(tempPrefix(path))}${this.ctx.ids.token()}`;
    const fs = this.ctx.fs;
    if (mode === MODE.symlink) {
      fs.symlinkSync(content, tmp);
      return { path, tmp, fd: null };
    }
    const fd = fs.openSync(tmp, 'wx', mode === MODE.executable ? 0o777 : 0o666);
    try {
      writeAll(fs, fd, content);
    } catch (e) {
      fs.closeSync(fd);
      tryUnlink(fs, tmp);
      throw e;
    }
    return { path, tmp, fd };
  }

  /** fsync a staged file's content (many may be in flight at once; `alone` when it is the only one). */
  sync(staged: StagedFile, alone = false): Promise<void> {
    return staged.fd === null ? Promise.resolve() : fsyncConcurrently(this.ctx.fs, staged.fd, alone);
  }

  /** The second half, once `sync` is done: rename the temporary file over `path`. */
  commit(staged: StagedFile): void {
    this.beforeRename(staged);
    try {
      this.ctx.fs.renameSync(staged.tmp, this.full(staged.path));
    } catch (e) {
      tryUnlink(this.ctx.fs, staged.tmp);
      throw e;
    }
    this.dirtyDirs.add(this.parentDir(staged.path));
  }

  /**
   * `commit` with the rename on libuv's thread pool, so that a window of
   * files goes into place at once (each is old or new, whatever order they
   * land in).
   */
  async commitConcurrently(staged: StagedFile, alone = false): Promise<void> {
    this.beforeRename(staged);
    try {
      await renameConcurrently(this.ctx.fs, staged.tmp, this.full(staged.path), alone);
    } catch (e) {
      tryUnlink(this.ctx.fs, staged.tmp);
      throw e;
    }
    this.dirtyDirs.add(this.parentDir(staged.path));
  }

  /** Close the staged file; refuse (and drop it) when a directory now stands at its path. */
  private beforeRename(staged: StagedFile): void {
    this.close(staged);
    try {
      if (this.lstat(staged.path)?.isDirectory()) {
        throw new ShadowError('IS_A_DIRECTORY', `${staged.path} is a directory in the working tree`, {
          data: { path: staged.path },
        });
      }
    } catch (e) {
      tryUnlink(this.ctx.fs, staged.tmp);
      throw e;
    }
  }

  /** Drop a staged file that will not be committed. */
  abandon(staged: StagedFile): void {
    this.close(staged);
    tryUnlink(this.ctx.fs, staged.tmp);
  }

  private close(staged: StagedFile): void {
    if (staged.fd === null) return;
    const fd = staged.fd;
    staged.fd = null;
    this.ctx.fs.closeSync(fd);
  }

  /** Remove the file or symlink at `path` (never a directory); true when it was there. */
  remove(path: string): boolean {
    const st = this.lstat(path);
    if (!st) return false;
    if (st.isDirectory()) {
      throw new ShadowError('IS_A_DIRECTORY', `${path} is a directory in the working tree; shadow removes files only`, {
        data: { path },
      });
    }
    this.ctx.fs.unlinkSync(this.full(path));
    this.dirtyDirs.add(this.parentDir(path));
    return true;
  }

  /** Remove the directories above `path` that are now empty, as git does. */
  pruneEmptyParents(path: string): void {
    const dirs = parentDirs(path).reverse();
    for (const dir of dirs) {
      try {
        this.ctx.fs.rmdirSync(this.full(dir));
      } catch {
        return;
      }
      this.dirtyDirs.add(this.parentDir(dir));
    }
  }

  /** Remove temporary files a crash left next to `path`; returns how many. */
  cleanTemps(path: string): number {
    const prefix = tempPrefix(path);
    const slash = prefix.lastIndexOf('/');
    const dir = slash === -1 ? '' : prefix.slice(0, slash);
    const stem = prefix.slice(slash + 1);
    let n = 0;
    for (const name of listDir(this.ctx.fs, this.full(dir))) {
      if (name.startsWith(stem) && tryUnlink(this.ctx.fs, `${this.full(dir)}/${name}`)) n++;
    }
    return n;
  }

  /** fsync every directory whose entries changed, the fsyncs in flight together. */
  async syncDirs(): Promise<void> {
    const dirs = [...this.dirtyDirs];
    this.dirtyDirs.clear();
    await fsyncDirs(this.ctx.fs, dirs);
  }
}
