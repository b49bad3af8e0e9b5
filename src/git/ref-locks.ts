/** The lockfiles a ref store takes: git's `<file>.lock`, with the store's timeout and holder records. */

import type { Context } from '../context.js';
import { tryUnlink } from '../durable/durable-file.js';
import { createLockFile, type LockFile } from '../durable/lock-file.js';

export class RefLocks {
  constructor(
    private readonly ctx: Context,
    private readonly timeoutMs: number,
    /** Where shadow records who holds the locks it takes (see lock-holders.ts). */
    private readonly holders?: string,
  ) {}

  /** Take `<path>.lock`; LOCKED when it stays taken. */
  take(path: string): Promise<LockFile> {
    return createLockFile(this.ctx, path, this.timeoutMs, this.holders);
  }

  /** Remove a lock, then its holder record (never the other way: a lock without a record is git's). */
  release(lock: LockFile, lockPath: string): void {
    tryUnlink(this.ctx.fs, lockPath);
    lock.forget();
  }
}
