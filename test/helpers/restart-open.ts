import { openShadow, type Context, type FileSystem, type PackMerger, type Shadow } from '../../src/index.js';
import { testContext } from './context.js';

let opened = 0;

/**
 * A handle on the repository at /repo of `fs` as a new process would open
 * it after a crash: its temporary names are its own (as random ones are),
 * not the crashed run's. After a restart (`bootTime`): every file of the
 * crashed disk is older than the boot, and its locks' holders are gone.
 */
export async function openAfterCrash(
  fs: FileSystem,
  bootTime?: number,
  /** Where the handle merges packs, made from its context (default: in steps on the event loop). */
  packMerger?: (ctx: Context) => PackMerger,
): Promise<Shadow> {
  const ctx = testContext(fs);
  const run = (++opened).toString(16).padStart(4, '0');
  const ids = { token: () => `${run}${ctx.ids.token()}`, uuid: ctx.ids.uuid };
  const self = 1000 + opened;
  const processes = { self, host: 'test-host', isAlive: (pid: number) => pid === self, bootTime };
  // The real clock, which file times (and the boot) are read against.
  const clock = {
    ...ctx.clock,
    now: () => Date.now(),
    sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
  };
  const merger = packMerger?.({ fs: ctx.fs, clock, ids, env: ctx.env, processes });
  return openShadow({ dir: '/repo', fs: ctx.fs, clock, ids, env: ctx.env, processes, packMerger: merger });
}
