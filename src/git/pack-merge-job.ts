import type { Context, PackMergeJob } from '../context.js';
import { mergeLeavingRegistry, type MergeDone } from './pack-consolidate.js';
import { PackInstaller } from './pack-install.js';
import { PackKeeps } from './pack-keeps.js';

/**
 * The merge a PackMerger runs for `job`, on whatever thread it runs
 * (pack-merge-worker.ts runs it in a worker thread; the power-loss harness
 * runs it inline on its crash simulator): the merged pack written durably
 * as a batch's pack is, its keep released at once (a merge copies objects
 * of packs already free to go), the inputs removed. The registry's rewrite
 * and the lock's release are the caller's (finishMerge).
 */
export function runPackMergeJob(ctx: Context, job: PackMergeJob): MergeDone | undefined {
  const keeps = new PackKeeps(ctx.fs);
  const installer = new PackInstaller(ctx, job.dir, keeps, () => undefined);
  return mergeLeavingRegistry(ctx, {
    dir: job.dir,
    registry: job.registry,
    writeBuilt: (pack) => {
      const idx = installer.writeBuilt(pack);
      keeps.release(idx);
      return idx;
    },
  });
}
