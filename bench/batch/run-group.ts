/** bench/batch's systems set up as runners (the git baselines, the CLI, shadow), and a group of them run interleaved on the same batches. */
import { join } from 'node:path';
import { CheckpointRepo, FastImport, Plumbing, ShadowCli, type TraceCounts } from '../helpers/baselines.js';
import { log } from '../helpers/progress.js';
import { settle } from '../helpers/repo.js';
import { median, ms, thousands } from '../helpers/stats.js';
import type { Batch } from '../helpers/workload.js';
import { SHADOW_BIN, type System } from './options.js';
import { results } from './results.js';
import { objectsIn, processRunner, shadowRunner, traced, type Env, type Runner } from './runners.js';

async function makeRunner(e: Env, system: System, k: number, batches: Batch[]): Promise<Runner> {
  switch (system) {
    case 'shadow-disk':
    case 'shadow-memfs':
      return shadowRunner(e, system, k, batches);
    case 'plumbing': {
      const env = { ...e.gitEnv, GIT_DIR: e.gitDirs.plumbing };
      const p = new Plumbing(e.dir, env, e.scratch, e.spawner);
      return processRunner(e, system, k, batches, {
        apply: (b, i) => p.batch(b, i),
        objects: objectsIn(e, [], env),
        after: (next) => traced(e, () => p.batch(batches[next]!, next)),
      });
    }
    case 'shadow-cli': {
      // Its own git dir (GIT_DIR, GIT_WORK_TREE: the same working tree), so that its packs do not mix with shadow-disk's.
      const env = { ...e.env, GIT_DIR: e.gitDirs.cli, GIT_WORK_TREE: e.dir };
      const cli = new ShadowCli(SHADOW_BIN, e.dir, env, e.scratch, e.spawner, `bench-cli-k${k}`);
      return processRunner(e, system, k, batches, {
        apply: (b, i) => cli.batch(b, i),
        objects: objectsIn(e, [], env),
        after: (next) => traced(e, () => cli.batch(batches[next]!, next)),
        notes: [
          'shadow-cli: the warm-up batch writes the code cache of `shadow batch` (dist/bin/.code-cache/); the measured ones use it',
        ],
      });
    }
    case 'fast-import': {
      const env = { ...e.gitEnv, GIT_DIR: e.gitDirs.fastImport };
      const fi = new FastImport(e.dir, env, e.spawner);
      return processRunner(e, system, k, batches, {
        apply: (b, i) => fi.batch(b, i),
        objects: objectsIn(e, [], env),
        after: async (next) => {
          await fi.close();
          // fast-import's counts per batch: a process with 3 batches minus one with 1, halved
          // (on fresh batches: fast-import writes no object the repository already has).
          const withBatches = (from: number, count: number): Promise<TraceCounts | undefined> =>
            traced(e, async () => {
              const t = new FastImport(e.dir, env, e.spawner, `refs/heads/fi-trace${count}`);
              for (let i = from; i < from + count; i++) await t.batch(batches[i]!, i);
              await t.close();
            });
          const one = await withBatches(next, 1);
          const three = await withBatches(next + 1, 3);
          return one && three
            ? { fsyncs: (three.fsyncs - one.fsyncs) / 2, filesWritten: (three.filesWritten - one.filesWritten) / 2 }
            : undefined;
        },
      });
    }
    case 'checkpoint': {
      const notes: string[] = [];
      if (!e.checkpoint) {
        e.checkpoint = new CheckpointRepo(e.dir, join(e.scratch, 'checkpoint.git'), e.gitEnv, e.spawner);
        const t0 = performance.now();
        e.checkpoint.init();
        notes.push(
          `(c) set-up, not timed: add -A && commit of the whole tree into a new git dir took ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        );
      }
      const cp = e.checkpoint;
      return processRunner(e, system, k, batches, {
        apply: (b, i) => cp.batch(b, i),
        objects: objectsIn(e, cp.args, e.gitEnv),
        after: async (next) => {
          try {
            return await traced(e, () => cp.batch(batches[next]!, next));
          } finally {
            cp.restore(e.gitEnv);
          }
        },
        notes,
      });
    }
  }
}

/**
 * Run `systems` on the same batches, interleaved batch by batch (the order
 * rotating each round), so that a machine busy with something else slows
 * every system alike and the ratios hold; `sync` before every batch, so
 * that none pays for another's writes. Then put every git dir back.
 */
export async function runGroup(e: Env, systems: System[], k: number, batches: Batch[]): Promise<void> {
  if (systems.length === 0) return;
  const t0 = performance.now();
  const runners: Runner[] = [];
  try {
    for (const s of systems) runners.push(await makeRunner(e, s, k, batches));
    const rounds = Math.max(...runners.map((r) => r.warm + r.runs));
    for (let i = 0; i < rounds; i++) {
      for (let j = 0; j < runners.length; j++) {
        const r = runners[(i + j) % runners.length]!;
        if (i >= r.warm + r.runs) continue;
        // Untimed: write back what the previous batches left dirty (git's loose objects and index,
        // shadow's unsynced draft.json and reflog). On ext4 an fsync commits the whole journal, so
        // without this one system's fsyncs would pay for another's writes; between an agent's
        // batches (seconds apart) the kernel writes them back anyway.
        settle();
        await r.batch(i);
      }
    }
    for (const r of runners) {
      const res = await r.finish();
      results.push(res);
      log(
        `  N=${thousands(e.repo.n)} k=${k} ${r.system.padEnd(12)} median ${ms(median(res.times))} ms over ${res.times.length} batches`,
      );
    }
  } finally {
    for (const reset of e.resets) reset.reset();
    settle();
  }
  log(`  (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}
