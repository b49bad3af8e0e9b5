import type { Context } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';
import { ensureDir, parentOf } from './durable-file.js';

/**
 * git's lockfile protocol: `<path>.lock` created exclusively. git itself
 * fails at once when a lock exists (or waits 100 ms for refs); shadow waits
 * up to `timeoutMs` with a jittered back-off, then fails with LOCKED. Returns
 * the open descriptor of the lock file.
 */
export async function createLockFile(ctx: Context, path: string, timeoutMs: number): Promise<number> {
  ensureDir(ctx.fs, parentOf(path));
  const start = ctx.clock.now();
  let wait = 1;
  let vanished = 0;
  for (;;) {
    try {
      return ctx.fs.openSync(`${path}.lock`, 'wx', 0o644);
    } catch (e) {
      // `git pack-refs --prune` (run by `git gc`) removes directories its
      // packing emptied, this one included, between the mkdir and the open.
      if (errnoCode(e) === 'ENOENT' && vanished++ < 8) {
        ctx.fs.mkdirSync(parentOf(path), { recursive: true });
        continue;
      }
      if (errnoCode(e) !== 'EEXIST') throw e;
    }
    if (ctx.clock.now() - start >= timeoutMs) {
      throw new ShadowError('LOCKED', `${path}.lock exists: another git or shadow process is updating it`, {
        hint: `retry in a moment; if no git or shadow process is running, remove ${path}.lock`,
        data: { lock: `${path}.lock`, waitedMs: ctx.clock.now() - start },
      });
    }
    const jitter = parseInt(ctx.ids.token().slice(0, 2), 16) / 255;
    await ctx.clock.sleep(Math.ceil(wait * (0.5 + jitter)));
    wait = Math.min(wait * 2, 50);
  }
}
