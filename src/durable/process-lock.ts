import type { Context } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';
import { ensureDir, parentOf, readTextIfExists, tryUnlink, writeAll } from './durable-file.js';

/**
 * A lock held for the length of an operation (an apply): a file created
 * exclusively, holding who holds it. A lock whose holder died on this machine
 * (SIGKILL, a crash) is stale and is taken over, so that recovery never
 * needs a person to delete a file; a lock held on another machine, or by a
 * live process, is respected.
 */

interface Holder {
  pid: number;
  host: string;
  since: string;
  what: string;
}

export interface HeldLock {
  release(): void;
}

function readHolder(ctx: Pick<Context, 'fs'>, path: string): Holder | undefined {
  const text = readTextIfExists(ctx.fs, path);
  if (text === undefined) return undefined;
  try {
    const h = JSON.parse(text) as Holder;
    return typeof h.pid === 'number' && typeof h.host === 'string' ? h : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Remove the lock at `path` when process `pid` holds it for `what`: a lock
 * taken on the process's behalf by a thread that died before releasing it.
 * Another holder's lock, or none, is left as it is.
 */
export function releaseHeldBy(ctx: Pick<Context, 'fs'>, path: string, pid: number, what: string): void {
  const holder = readHolder(ctx, path);
  if (holder?.pid === pid && holder.what === what) tryUnlink(ctx.fs, path);
}

/** True when `holder` is gone: a process of this machine that is no longer alive (an unreadable record counts as gone). */
export function isStale(
  ctx: Context,
  holder: (Pick<Holder, 'pid' | 'host'> & { since?: string }) | undefined,
): boolean {
  const procs = ctx.processes;
  // An unreadable lock (its writer died between create and write) is stale
  // once a process table can vouch for nobody holding it.
  if (!procs) return false;
  if (!holder) return true;
  if (holder.host !== procs.host) return false;
  // Taken before this machine last started: its pid may be another process's now.
  if (procs.bootTime !== undefined && holder.since !== undefined && Date.parse(holder.since) < procs.bootTime)
    return true;
  return holder.pid !== procs.self && !procs.isAlive(holder.pid);
}

/**
 * Take the lock at `path` for `what`, or fail with LOCKED naming its holder.
 * The lock appears with its holder already written (a temporary file linked
 * into place), so a lock is never seen empty while it is being taken.
 */
export function takeProcessLock(ctx: Context, path: string, what: string): HeldLock {
  ensureDir(ctx.fs, parentOf(path));
  const procs = ctx.processes;
  const holder: Holder = {
    pid: procs?.self ?? -1,
    host: procs?.host ?? 'unknown',
    since: new Date(ctx.clock.now()).toISOString(),
    what,
  };
  claimByLink(ctx, path, Buffer.from(JSON.stringify(holder)), 0o644, {
    read: () => readHolder(ctx, path),
    stale: (current) => isStale(ctx, current),
    busy: (current) =>
      new ShadowError(
        'LOCKED',
        current
          ? `another ${current.what} is running (process ${current.pid} on ${current.host}, since ${current.since})`
          : `${path} exists: another shadow operation is running`,
        {
          hint: `wait for it to finish; if no shadow process is running, remove ${path}`,
          data: { lock: path, holder: current },
        },
      ),
    keepsChanging: () =>
      new ShadowError('LOCKED', `could not take ${path}`, { hint: 'retry in a moment', data: { lock: path } }),
  });
  let released = false;
  return {
    release: () => {
      if (!released) tryUnlink(ctx.fs, path);
      released = true;
    },
  };
}

/**
 * Put `content` at `path` in one step, holder and all: a temporary file
 * linked into place (link fails where a file is, as O_EXCL does), so nobody
 * ever sees it empty. Where another holder's file is: one `stale` says is a
 * dead holder's is removed (if it is still the one read) and the claim tried
 * again; a live holder's fails with `busy`.
 */
export function claimByLink<T>(
  ctx: Context,
  path: string,
  content: Uint8Array,
  mode: number,
  how: {
    read(): T | undefined;
    stale(current: T | undefined): boolean;
    busy(current: T | undefined): ShadowError;
    keepsChanging(): ShadowError;
  },
): void {
  const tmp = `${path}.tmp-${ctx.ids.token()}`;
  const fd = ctx.fs.openSync(tmp, 'wx', mode);
  try {
    writeAll(ctx.fs, fd, content);
  } finally {
    ctx.fs.closeSync(fd);
  }
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        ctx.fs.linkSync(tmp, path);
        return;
      } catch (e) {
        if (errnoCode(e) !== 'EEXIST') throw e;
      }
      const current = how.read();
      if (!how.stale(current)) throw how.busy(current);
      // Look once more just before removing it: another process may have taken it over already.
      if (JSON.stringify(how.read()) === JSON.stringify(current)) tryUnlink(ctx.fs, path);
    }
    throw how.keepsChanging();
  } finally {
    tryUnlink(ctx.fs, tmp);
  }
}

/**
 * Take the lock, waiting (with a jittered back-off) while a live process
 * holds it, up to `timeoutMs`; a holder that died is taken over at once.
 */
export async function waitForProcessLock(
  ctx: Context,
  path: string,
  what: string,
  timeoutMs: number,
): Promise<HeldLock> {
  const start = ctx.clock.now();
  let wait = 1;
  for (;;) {
    try {
      return takeProcessLock(ctx, path, what);
    } catch (e) {
      if (!(e instanceof ShadowError && e.code === 'LOCKED') || ctx.clock.now() - start >= timeoutMs) throw e;
    }
    const jitter = parseInt(ctx.ids.token().slice(0, 2), 16) / 255;
    await ctx.clock.sleep(Math.ceil(wait * (0.5 + jitter)));
    wait = Math.min(wait * 2, 50);
  }
}
