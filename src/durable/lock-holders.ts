import { createHash } from 'node:crypto';
import type { Context } from '../context.js';
import { errnoCode } from '../errors.js';
import { listDir, statIfExists, tryUnlink } from './durable-file.js';
import { takeProcessLock } from './process-lock.js';

/**
 * Who holds a git-format lock file (`<ref>.lock`, `index.lock`) that shadow
 * took. git's lock file holds the new content of what it locks and nothing
 * else, so the holder cannot be written in it. Instead shadow makes its lock
 * as a hard link to a record in `shadow/locks/` whose name says the process
 * and host: link(2) fails when the lock exists, as git's O_EXCL open does,
 * and the lock and its record appear in one step, so no crash leaves a lock
 * of shadow's that does not say whose it is. A lock with no record was
 * taken by git (or by a shadow that could not link) and is never removed,
 * unless it was made before this machine last started: a power loss can
 * keep a lock and lose its record, and nobody holds a lock across a restart.
 */

export interface LockHolder {
  pid: number;
  host: string;
}

/** The holder of an existing lock: a shadow process (recorded), or unknown (git's, most likely). */
export type LockOwner =
  | { kind: 'shadow'; holder: LockHolder; record: string; ino: number; dev: number; stale: boolean }
  /** No record: git's, most likely. `beforeBoot`: made before this machine last started, so nobody holds it. */
  | { kind: 'unknown'; beforeBoot: boolean; ino: number; dev: number };

const RECORD = /^([0-9a-f]{16})\.(\d+)\.([A-Za-z0-9_-]*)\.([^.]+)$/;

/** Names every record of one lock path begin with (a lock path's spellings differ only on odd setups). */
function keyOf(lockPath: string): string {
  return createHash('sha1').update(lockPath).digest('hex').slice(0, 16);
}

function parseRecord(name: string): { key: string; holder: LockHolder } | undefined {
  const m = RECORD.exec(name);
  if (!m) return undefined;
  return { key: m[1]!, holder: { pid: Number(m[2]), host: Buffer.from(m[3]!, 'base64url').toString('utf8') } };
}

function isStale(ctx: Context, holder: LockHolder, madeMs: number): boolean {
  const procs = ctx.processes;
  if (procs === undefined || holder.host !== procs.host) return false;
  // Its pid may belong to another process since a restart.
  if (madeBeforeBoot(ctx, madeMs)) return true;
  return holder.pid !== procs.self && !procs.isAlive(holder.pid);
}

/** Whether a file last changed at `madeMs` was made before this machine last started. */
export function madeBeforeBoot(ctx: Context, madeMs: number): boolean {
  const boot = ctx.processes?.bootTime;
  return boot !== undefined && madeMs < boot;
}

/**
 * Create this process's record for a lock on `lockPath`, open for writing
 * (the lock's content is written through it once it is linked). Undefined
 * without a process table: nobody could tell such a holder dead anyway.
 */
export function openRecord(
  ctx: Context,
  holdersDir: string,
  lockPath: string,
): { fd: number; path: string } | undefined {
  const procs = ctx.processes;
  if (!procs) return undefined;
  ctx.fs.mkdirSync(holdersDir, { recursive: true });
  const name = `${keyOf(lockPath)}.${procs.self}.${Buffer.from(procs.host, 'utf8').toString('base64url')}.${ctx.ids.token()}`;
  const path = `${holdersDir}/${name}`;
  return { fd: ctx.fs.openSync(path, 'wx', 0o644), path };
}

/** Errors of a link(2) the file system cannot make: the lock is then created without a record. */
export function linkUnsupported(e: unknown): boolean {
  const code = errnoCode(e);
  return (
    code === 'EXDEV' ||
    code === 'EPERM' ||
    code === 'ENOTSUP' ||
    code === 'EOPNOTSUPP' ||
    code === 'ENOSYS' ||
    code === 'EMLINK'
  );
}

/**
 * Who holds the lock at `lockPath`; undefined when it is gone. Records of
 * this lock path by dead processes that are not this lock's are the
 * leftovers of a crash after the lock was renamed into place: removed.
 */
export function lockOwner(ctx: Context, holdersDir: string | undefined, lockPath: string): LockOwner | undefined {
  const st = statIfExists(ctx.fs, lockPath);
  if (!st) return undefined;
  const unknown: LockOwner = {
    kind: 'unknown',
    beforeBoot: madeBeforeBoot(ctx, Number(st.mtimeMs)),
    ino: Number(st.ino),
    dev: Number(st.dev),
  };
  if (holdersDir === undefined || st.nlink < 2) return unknown;
  const key = keyOf(lockPath);
  let found: LockOwner | undefined;
  for (const name of listDir(ctx.fs, holdersDir)) {
    const parsed = parseRecord(name);
    if (!parsed) continue;
    const path = `${holdersDir}/${name}`;
    const rec = statIfExists(ctx.fs, path);
    if (rec && rec.ino === st.ino && rec.dev === st.dev) {
      found = {
        kind: 'shadow',
        holder: parsed.holder,
        record: path,
        ino: st.ino,
        dev: st.dev,
        stale: isStale(ctx, parsed.holder, Number(st.mtimeMs)),
      };
    } else if (rec && parsed.key === key && isStale(ctx, parsed.holder, Number(rec.mtimeMs))) {
      tryUnlink(ctx.fs, path);
    }
  }
  return found ?? unknown;
}

/**
 * Remove a lock whose recorded holder died. Takers are serialised by a
 * lock of their own, and the lock is removed only if it is still the dead
 * holder's (same inode): two takers never remove each other's new lock.
 * False when another taker is at it (the caller looks again).
 */
export function takeOver(ctx: Context, holdersDir: string, lockPath: string, owner: LockOwner): boolean {
  let mutex;
  try {
    mutex = takeProcessLock(ctx, `${holdersDir}/${keyOf(lockPath)}.takeover`, `take-over of ${lockPath}`);
  } catch (e) {
    if ((e as { code?: string }).code === 'LOCKED') return false;
    throw e;
  }
  try {
    const st = statIfExists(ctx.fs, lockPath);
    if (st && st.ino === owner.ino && st.dev === owner.dev) tryUnlink(ctx.fs, lockPath);
    if (owner.kind === 'shadow') tryUnlink(ctx.fs, owner.record);
  } finally {
    mutex.release();
  }
  return true;
}
