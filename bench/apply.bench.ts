/**
 * bench/apply.bench.ts: what `shadow apply` costs to publish a draft of k
 * changed files into the working tree of a 50,000-file repository, durably,
 * against two baselines measured in the same run on the same files:
 *
 *   floor      plain node fs: for each file open, write, fsync, close; then
 *              fsync every directory touched (the least a durable write of
 *              those files can cost; no journal, no atomicity)
 *   checkout   `git checkout refs/shadow/drafts/<draft> -- <paths>`, one
 *              process (native; it also updates the index, and fsyncs
 *              neither the files nor, by default, the index)
 *
 * and, as rows of their own, `shadow unapply` (what puts the tree back) and
 * `shadow apply --dry-run`. shadow runs in-process with a warm handle on
 * node's fs (through a counting wrapper, as the floor does).
 *
 * For each k (1, 10, 100, 1,000): one batch makes a draft that modifies k
 * tracked files drawn at random over the tree (each 1-4 KB: the file as it
 * was, a header line, lines added). Then rounds: in each, every case once
 * (the order rotating), each timed run after an untimed `sync`, each
 * followed by an untimed restore of the tree (shadow: `sh.unapply()`, itself
 * timed as its own row; floor: the old contents written back; checkout:
 * `git checkout HEAD -- <paths>`). The first round is a warm-up.
 *
 * Prints per k the median, p90, ratios against the floor and checkout, and
 * per run the machine-independent facts: files written (in the work tree and
 * in total), fsyncs (of work-tree files, of work-tree directories, in .git),
 * objects read, fs calls. Then every target with PASS/FAIL.
 *
 *   node dist/bench/apply.bench.js                 # everything (a few minutes)
 *   node dist/bench/apply.bench.js --quick --k 1,10
 *   node dist/bench/apply.bench.js --k 1000 --only shadow --profile /tmp/prof
 *   node dist/bench/apply.bench.js --help
 *
 * Its pieces are in bench/apply/: the options, the changes a draft makes,
 * the floor, the runs at one k, their results and the report.
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { nodeContext, openShadow, type Shadow } from '../src/index.js';
import { Spawner, straceWorks } from './helpers/baselines.js';
import { fsyncProbe } from './helpers/fsync-probe.js';
import { loadAverage, machineLine } from './helpers/machine.js';
import { log } from './helpers/progress.js';
import { cachedRepo, copyRepo, countObjects, gitEnv, run, settle } from './helpers/repo.js';
import { scratchRun } from './helpers/scratch.js';
import { ms, thousands } from './helpers/stats.js';
import { printVerdicts } from './helpers/targets.js';
import { instrumentedFs } from './apply/instrumented-fs.js';
import { parseArgs } from './apply/options.js';
import { printProfiles, printTable, verdicts } from './apply/report.js';
import { runK, type Env, type KInfo } from './apply/run-k.js';

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (o.strace && o.only.has('checkout') && !straceWorks()) {
    log('strace is not available here: git checkout is shown without fsyncs and files written');
    o.strace = false;
  }
  const { root: scratchRoot, home } = scratchRun(o.cacheDir, 'apply-run', o.keep);

  const env = gitEnv(home);
  const gitVersion = run('git', ['--version']).trim();
  const started = performance.now();

  console.log('shadow apply benchmark (bench/apply.bench.ts)');
  console.log(machineLine(gitVersion));
  console.log(`load average at the start: ${loadAverage()}`);
  console.log(
    `N ${thousands(o.n)}; k ${o.ks.map(thousands).join(', ')}; ${o.quick ? 'quick' : 'full'} run; cases: ${[...o.only].join(', ')}${o.profileDir ? '; under the CPU profiler (slower)' : ''}`,
  );

  const repo = cachedRepo(o.cacheDir, o.n, env, log);
  const dir = join(scratchRoot, `repo-n${o.n}`);
  log(`N=${thousands(o.n)}: copying the cached repository to ${dir}...`);
  const tc = performance.now();
  copyRepo(repo.dir, dir, env);
  const copySeconds = (performance.now() - tc) / 1000;
  const objs = countObjects([], dir, env);
  const probe = fsyncProbe(join(dir, '.git'));

  console.log(
    `\nrepository: ${thousands(o.n + 2)} tracked files in ${thousands(repo.layout.leafDirs.length)} leaf directories under ${repo.layout.topDirs} top-level ones; ` +
      `${thousands(objs.inPack)} objects in ${objs.packs} pack` +
      (repo.generatedIn !== undefined ? `; generated in ${repo.generatedIn.toFixed(1)} s` : '; from the cache') +
      `; copied in ${copySeconds.toFixed(1)} s`,
  );
  console.log(
    `fsync of a new 4 KB file on this disk, before the cases: median ${ms(probe.median)} ms, p90 ${ms(probe.p90)} ms`,
  );
  console.log('Each k: one batch makes a draft modifying k tracked files drawn at random over the tree (1-4 KB each).');
  console.log(
    'Rounds: every case once (order rotating), an untimed `sync` before each timed run, the tree restored untimed after each;',
  );
  console.log(
    'the first round is a warm-up. shadow: in-process, warm handle, node fs; the floor and shadow go through the same counting wrapper.',
  );
  console.log(
    "Ratios: the baseline's median over this row's median. Counts are per run: shadow's and the floor's from the counting fs",
  );
  console.log(
    '(files written: opened for writing, in wt: of those in the work tree; KB written: bytes passed to write calls; fsyncs, of which',
  );
  console.log(
    "wt files, wt dirs: of work-tree files and directories, .git: under .git, i.e. shadow's journal, records, ledger), objects read from sh.stats;",
  );
  console.log(
    "git checkout's fsyncs and files written (opened for writing, the index's lock file included) from strace on one more run.",
  );
  console.log(
    'git checkout fsyncs no work-tree file or directory (and, by default, not the index): it is faster than durable, not a durable baseline.',
  );

  const shadowI = instrumentedFs(dir);
  const ctx = nodeContext({ fs: shadowI.fs, env });
  const open = (): Promise<Shadow> =>
    openShadow({ dir, fs: ctx.fs, clock: ctx.clock, ids: ctx.ids, env: ctx.env, processes: ctx.processes });
  const sh = await open();
  const scratch = join(scratchRoot, 'scratch');
  nodeFs.mkdirSync(scratch, { recursive: true });
  const e: Env = {
    o,
    repo,
    dir,
    env,
    spawner: new Spawner(scratch),
    sh,
    open,
    shadowFs: shadowI,
    floorFs: instrumentedFs(dir),
  };
  settle();

  const infos = new Map<number, KInfo>();
  try {
    for (const k of o.ks) infos.set(k, await runK(e, k));
  } finally {
    sh.close();
  }

  console.log(`\n=== N = ${thousands(o.n)} files`);
  for (const k of o.ks) {
    const info = infos.get(k);
    if (info) printTable(k, info);
  }
  printProfiles();

  console.log('\n=== targets (shadow apply in-process, warm, on disk, durable)');
  printVerdicts(verdicts(o), started);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
});
