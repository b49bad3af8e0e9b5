/**
 * bench/pack-merge.bench.ts: how long a merge of the small packs batches
 * leave holds up a server's other requests. Eight packs of ten 4 KB blobs
 * each (what eight batches leave) are merged on a real repository two
 * ways, alternating: whole (`mergeIfDue`, as a handle closing merges: the
 * event loop waits for all of it) and in steps (`mergeInSteps`, a served
 * batch's upkeep), where a loop of `setImmediate` ticks beside it measures
 * the longest the event loop waited, which is what a request arriving
 * during the merge waits at most.
 *
 *   npm run build && node dist/bench/pack-merge.bench.js [--runs 9] [--cache dir]
 *
 * Target (issue: a call without a server at node's own speed, item 3):
 * the longest wait in steps is under a quarter of the whole merge.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blobOid } from '../src/git/format/git-objects.js';
import { MERGE_AT_PACKS } from '../src/git/pack-consolidate.js';
import { Repository } from '../src/git/repository.js';
import { nodeContext } from '../src/index.js';
import { positiveInt, readFlags } from './helpers/flags.js';
import { loadAverage } from './helpers/machine.js';
import { median, ms, table } from './helpers/stats.js';
import { printVerdicts, verdict } from './helpers/targets.js';

const HELP = `usage: node dist/bench/pack-merge.bench.js [options]
  --runs n      merges of each kind (default 9)
  --cache dir   where the scratch repositories go (default bench/.cache: a disk, not a RAM file system)
`;
const o = { runs: 9, cacheDir: fileURLToPath(new URL('../../bench/.cache', import.meta.url)) };
readFlags(process.argv.slice(2), HELP, {
  '--runs': (v) => (o.runs = positiveInt(v(), '--runs')),
  '--cache': (v) => (o.cacheDir = v()),
});

let made = 0;
/** A repository holding MERGE_AT_PACKS packs of shadow's, ten 4 KB blobs each. */
async function packedRepo(): Promise<{ dir: string; store: Repository }> {
  const dir = mkdtempSync(join(o.cacheDir, 'pack-merge-'));
  spawnSync('git', ['init', '-q', dir]);
  const store = Repository.open(nodeContext({}), dir);
  for (let p = 0; p < MERGE_AT_PACKS; p++) {
    const objects = Array.from({ length: 10 }, () => {
      const content = Buffer.from(`${made++} ${'y'.repeat(4000)}\n`);
      return { oid: blobOid(content), type: 'blob' as const, content };
    });
    store.objects.releaseKeep(await store.objects.writeConcurrently(objects));
  }
  return { dir, store };
}

const started = performance.now();
mkdirSync(o.cacheDir, { recursive: true });
const whole: number[] = [];
const waited: number[] = [];
const stepped: number[] = [];
for (let r = 0; r < o.runs; r++) {
  const a = await packedRepo();
  const t = performance.now();
  a.store.objects.mergeIfDue();
  whole.push(performance.now() - t);
  a.store.close();
  rmSync(a.dir, { recursive: true, force: true });

  const b = await packedRepo();
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
  stepped.push(performance.now() - t0);
  waited.push(longest);
  b.store.close();
  rmSync(b.dir, { recursive: true, force: true });
}

console.log(`merge of ${MERGE_AT_PACKS} packs x 10 blobs of 4 KB, ${o.runs} runs each, in ${o.cacheDir}\n`);
console.log(
  table(
    ['merge', 'the event loop waited, median ms', 'max ms', 'the merge took, median ms'],
    [
      ['whole (mergeIfDue)', ms(median(whole)), ms(Math.max(...whole)), ms(median(whole))],
      ['in steps (mergeInSteps)', ms(median(waited)), ms(Math.max(...waited)), ms(median(stepped))],
    ],
  ),
);
console.log(`load average: ${loadAverage()}`);
const v = verdict(
  'a merge in steps holds the event loop under a quarter of the whole merge',
  [
    {
      ok: median(waited) < median(whole) / 4,
      text: `${ms(median(waited))} ms against ${ms(median(whole))} ms (medians)`,
    },
  ],
  '',
);
printVerdicts([v], started);
process.exit(v.status === 'PASS' ? 0 : 1);
