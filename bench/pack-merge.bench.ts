/**
 * bench/pack-merge.bench.ts: how long a merge of the small packs batches
 * leave holds up a server's other requests. Eight packs of ten 4 KB blobs
 * each (what eight batches leave) are merged on a real repository two
 * ways, alternating: whole (`mergeIfDue`, as a handle closing merges: the
 * event loop waits for all of it), in steps (`mergeInSteps` without a
 * merger, a library handle's upkeep) and on a worker thread (`mergeInSteps`
 * with a PackMergeThread, as `shadow serve` and `shadow mcp` merge), where a
 * loop of `setImmediate` ticks beside it measures the longest the event
 * loop waited, which is what a request arriving during the merge waits at
 * most.
 *
 *   npm run build && node dist/bench/pack-merge.bench.js [--runs 9] [--cache dir]
 *
 * Targets (issue: a call without a server at node's own speed, item 3):
 * the longest wait in steps is under a quarter of the whole merge, and on
 * the thread under the longest in steps.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blobOid } from '../src/git/format/git-objects.js';
import { MERGE_AT_PACKS } from '../src/git/pack-consolidate.js';
import { Repository } from '../src/git/repository.js';
import { nodeContext, PackMergeThread } from '../src/index.js';
import { positiveInt, readFlags } from './helpers/flags.js';
import { loadAverage } from './helpers/machine.js';
import { median, ms, table } from './helpers/stats.js';
import { printVerdicts, verdict } from './helpers/targets.js';

const HELP = `usage: node dist/bench/pack-merge.bench.js [options]
  --runs n      merges of each kind (default 9)
  --kb n        size of each blob in KB (default 4; 400 makes packs of 4 MB, as a draft of large files leaves)
  --cache dir   where the scratch repositories go (default bench/.cache: a disk, not a RAM file system)
`;
const o = { runs: 9, kb: 4, cacheDir: fileURLToPath(new URL('../../bench/.cache', import.meta.url)) };
readFlags(process.argv.slice(2), HELP, {
  '--runs': (v) => (o.runs = positiveInt(v(), '--runs')),
  '--kb': (v) => (o.kb = positiveInt(v(), '--kb')),
  '--cache': (v) => (o.cacheDir = v()),
});

let made = 0;
/** A repository holding MERGE_AT_PACKS packs of shadow's, ten blobs of `--kb` each. */
async function packedRepo(packMerger?: PackMergeThread): Promise<{ dir: string; store: Repository }> {
  const dir = mkdtempSync(join(o.cacheDir, 'pack-merge-'));
  spawnSync('git', ['init', '-q', dir]);
  const store = Repository.open(nodeContext(packMerger ? { packMerger } : {}), dir);
  for (let p = 0; p < MERGE_AT_PACKS; p++) {
    const objects = Array.from({ length: 10 }, () => {
      // Random bytes, as source files do not compress to nothing.
      const content = Buffer.concat([Buffer.from(`${made++} `), randomBytes(o.kb * 1000)]);
      return { oid: blobOid(content), type: 'blob' as const, content };
    });
    store.objects.releaseKeep(await store.objects.writeConcurrently(objects));
  }
  return { dir, store };
}

const started = performance.now();
mkdirSync(o.cacheDir, { recursive: true });
const whole: number[] = [];
const inSteps = { waited: [] as number[], took: [] as number[] };
const onThread = { waited: [] as number[], took: [] as number[] };
// One thread for every run, as a server keeps one: its start is not a merge's cost.
const thread = new PackMergeThread();

/** A merge off the event loop, and the longest the loop waited meanwhile. */
async function offTheLoop(into: { waited: number[]; took: number[] }, packMerger?: PackMergeThread): Promise<void> {
  const b = await packedRepo(packMerger);
  let over = false;
  const t0 = performance.now();
  b.store.objects.mergeInSteps();
  let last = performance.now();
  let longest = last - t0;
  const done = b.store.objects.merging().then(() => (over = true));
  while (!over) {
    await new Promise((turn) => setImmediate(turn));
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }
  await done;
  into.took.push(performance.now() - t0);
  into.waited.push(longest);
  const packs = spawnSync('git', ['count-objects', '-v'], { cwd: b.dir, encoding: 'utf8' }).stdout;
  if (!/^packs: 1$/m.test(packs)) throw new Error(`the merge left more than one pack:\n${packs}`);
  b.store.close();
  rmSync(b.dir, { recursive: true, force: true });
}

await offTheLoop({ waited: [], took: [] }, thread); // the thread's start
for (let r = 0; r < o.runs; r++) {
  const a = await packedRepo();
  const t = performance.now();
  a.store.objects.mergeIfDue();
  whole.push(performance.now() - t);
  a.store.close();
  rmSync(a.dir, { recursive: true, force: true });
  await offTheLoop(inSteps);
  await offTheLoop(onThread, thread);
}
await thread.close();

console.log(`merge of ${MERGE_AT_PACKS} packs x 10 blobs of ${o.kb} KB, ${o.runs} runs each, in ${o.cacheDir}\n`);
console.log(
  table(
    ['merge', 'the event loop waited, median ms', 'max ms', 'the merge took, median ms'],
    [
      ['whole (mergeIfDue)', ms(median(whole)), ms(Math.max(...whole)), ms(median(whole))],
      [
        'in steps (mergeInSteps)',
        ms(median(inSteps.waited)),
        ms(Math.max(...inSteps.waited)),
        ms(median(inSteps.took)),
      ],
      [
        'on a thread (PackMergeThread)',
        ms(median(onThread.waited)),
        ms(Math.max(...onThread.waited)),
        ms(median(onThread.took)),
      ],
    ],
  ),
);
console.log(`load average: ${loadAverage()}`);
const v = verdict(
  'a merge in steps holds the event loop under a quarter of the whole merge',
  [
    {
      ok: median(inSteps.waited) < median(whole) / 4,
      text: `${ms(median(inSteps.waited))} ms against ${ms(median(whole))} ms (medians)`,
    },
  ],
  '',
);
const t = verdict(
  'a merge on the thread holds the event loop less than one in steps',
  [
    {
      ok: median(onThread.waited) < median(inSteps.waited),
      text: `${ms(median(onThread.waited))} ms against ${ms(median(inSteps.waited))} ms (medians)`,
    },
  ],
  '',
);
printVerdicts([v, t], started);
process.exit(v.status === 'PASS' && t.status === 'PASS' ? 0 : 1);
