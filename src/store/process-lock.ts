import type { Context } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';
import { parentOf, readTextIfExists, tryUnlink, writeAll } from './durable-file.js';

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

function readHolder(ctx: Context, path: string): Holder | undefined {
  const text = readTextIfExists(ctx.fs, path);
  if (text === undefined) return undefined;
  try {
    const h = JSON.parse(text) as Holder;
    return typeof h.pid === 'number' && typeof h.host === 'string' ? h : undefined;
  } catch {
    return undefined;
  }
}

function isStale(ctx: Context, holder: Holder | undefined): boolean {
  const procs = ctx.processes;
  // An unreadable lock (its writer died between create and write) is stale
  // once a process table can vouch for nobody holding it.
  if (!procs) return false;
  if (!holder) return true;
  return holder.host === procs.host && holder.pid !== procs.self && !procs.isAlive(holder.pid);
}

/** Take the lock at `path` for `what`, or fail with LOCKED naming its holder. */
export function takeProcessLock(ctx: Context, path: string, what: string): HeldLock {
  ctx.fs.mkdirSync(parentOf(path), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = ctx.fs.openSync(path, 'wx', 0o644);
    } catch (e) {
      if (errnoCode(e) !== 'EEXIST') throw e;
      const holder = readHolder(ctx, path);
      if (isStale(ctx, holder)) {
        tryUnlink(ctx.fs, path);
        continue;
      }
      throw new ShadowError(
        'LOCKED',
        holder
          ? `another ${holder.what} is running (process ${holder.pid} on ${holder.host}, since ${holder.since})`
          : `${path} exists: another shadow operation is running`,
        { hint: `wait for it to finish; if no shadow process is running, remove ${path}`, data: { lock: path, holder } },
      );
    }
    const procs = ctx.processes;
    const holder: Holder = { pid: procs?.self ?? -1, host: procs?.host ?? 'unknown', since: new Date(ctx.clock.now()).toISOString(), what };
    try {
      writeAll(ctx.fs, fd, Buffer.from(JSON.stringify(holder)));
    } finally {
      ctx.fs.closeSync(fd);
    }
    let released = false;
    return {
      release: () => {
        if (!released) tryUnlink(ctx.fs, path);
        released = true;
      },
    };
  }
  throw new ShadowError('LOCKED', `could not take ${path}`, { hint: 'retry in a moment', data: { lock: path } });
}
