import type { Context } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';
import { ensureDir, parentOf, tryUnlink } from './durable-file.js';
import { linkUnsupported, lockOwner, openRecord, takeOver, type LockOwner } from './lock-holders.js';

/** A lock file taken: write the new content through `fd`. */
export interface LockFile {
  fd: number;
  /** Drop the holder record: only once the lock itself is renamed into place or removed. */
  forget(): void;
}

function noRecord(): void {}

/**
 * git's lockfile protocol: `<path>.lock` created exclusively. git itself
 * fails at once when a lock exists (or waits 100 ms for refs); shadow waits
 * up to `timeoutMs` with a jittered back-off, then fails with LOCKED naming
 * the holder. With `holdersDir`, the lock records its holder (see
 * lock-holders.ts), and a lock whose recorded holder died on this machine
 * is taken over at once; a lock without a record is git's and is waited for.
 */
export async function createLockFile(
  ctx: Context,
  path: string,
  timeoutMs: number,
  holdersDir?: string,
): Promise<LockFile> {
  ensureDir(ctx.fs, parentOf(path));
  const lock = `${path}.lock`;
  let record = holdersDir === undefined ? undefined : openRecord(ctx, holdersDir, lock);
  const dropRecord = (): void => {
    if (!record) return;
    ctx.fs.closeSync(record.fd);
    tryUnlink(ctx.fs, record.path);
    record = undefined;
  };
  const start = ctx.clock.now();
  let wait = 1;
  let vanished = 0;
  try {
    for (;;) {
      try {
        if (!record) return { fd: ctx.fs.openSync(lock, 'wx', 0o644), forget: noRecord };
        ctx.fs.linkSync(record.path, lock);
        const taken = record;
        record = undefined;
        return { fd: taken.fd, forget: () => void tryUnlink(ctx.fs, taken.path) };
      } catch (e) {
        if (record && linkUnsupported(e)) {
          dropRecord();
          continue;
        }
        // `git pack-refs --prune` (run by `git gc`) removes directories its
        // packing emptied, this one included, between the mkdir and the lock.
        if (errnoCode(e) === 'ENOENT' && vanished++ < 8) {
          ensureDir(ctx.fs, parentOf(path));
          continue;
        }
        if (errnoCode(e) !== 'EEXIST') throw e;
      }
      const owner = lockOwner(ctx, holdersDir, lock);
      if (owner === undefined) continue;
      const stale = owner.kind === 'shadow' ? owner.stale : owner.beforeBoot;
      if (stale && holdersDir !== undefined && takeOver(ctx, holdersDir, lock, owner)) continue;
      if (ctx.clock.now() - start >= timeoutMs) throw lockedError(lock, owner, ctx.clock.now() - start);
      const jitter = parseInt(ctx.ids.token().slice(0, 2), 16) / 255;
      await ctx.clock.sleep(Math.ceil(wait * (0.5 + jitter)));
      wait = Math.min(wait * 2, 50);
    }
  } finally {
    dropRecord();
  }
}

/**
 * LOCKED for a lock that stays taken, saying whose it is: a shadow process
 * (pid, host), or, with no record, git (never removed by shadow).
 */
export function lockedError(lock: string, owner: LockOwner, waitedMs?: number): ShadowError {
  const data = {
    lock,
    holder: owner.kind === 'shadow' ? owner.holder : null,
    ...(waitedMs === undefined ? {} : { waitedMs }),
  };
  if (owner.kind === 'shadow') {
    const { pid, host } = owner.holder;
    return new ShadowError('LOCKED', `${lock} is held by shadow process ${pid} on ${host}`, {
      hint: `wait for it to finish; if process ${pid} is no longer running on ${host}, remove ${lock}`,
      data,
    });
  }
  return new ShadowError(
    'LOCKED',
    `${lock} exists and no shadow process recorded it: git (or another tool) is updating it`,
    {
      hint: `retry when the git command finishes; if no git process is running, remove ${lock}`,
      data,
    },
  );
}
