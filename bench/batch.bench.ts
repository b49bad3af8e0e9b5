/**
 * bench/batch.bench.ts: what one batch of k written files costs in
 * repositories of N files, for shadow and for the ways of committing agent
 * writes without it, all measured in the same run on the same batches.
 *
 *   shadow-disk    shadow in-process, warm handle, on disk, fsync on (the targets)
 *   shadow-memfs   shadow in-process, warm handle, the repository in a memfs volume
 *   shadow-cli     `node shadow.cjs batch <file>`, one process per batch (k = 10 only)
 *   plumbing   (a) git plumbing spawned per batch with a temporary index
 *   fast-import(b) one long-running `git fast-import`, checkpoint per batch
 *   checkpoint (c) `git add -A && git commit` in a separate git dir (today's agent tools)
 *
 * Prints medians, p90s, ratios against each baseline, and per batch the
 * machine-independent facts: objects read and written, packs, fsyncs, files
 * written, file-system calls. Then every target of the issue with PASS/FAIL.
 *
 * Batches draw their files from 20 leaf directories at every N (see
 * BATCH_DIRS in helpers/workload.ts), so that a batch has the same shape in
 * every repository and only N varies.
 *
 * Repositories (two levels of directories, 50 files per leaf directory,
 * packed by `git gc`) are generated once with `git fast-import` and cached
 * in bench/.cache/; each run works on a scratch copy. The systems of one k
 * run interleaved batch by batch, so that other load on the machine slows
 * them alike; (c) writes into the working tree, so it runs alone, after.
 *
 *   npm run bench                                    # everything (several minutes)
 *   node dist/bench/batch.bench.js --sizes 1000,10000 --quick
 *   node dist/bench/batch.bench.js --help
 *
 * Its pieces are in bench/batch/: the options, the runners and each
 * system's set-up, the scratch copies of each N, the start-up measurement,
 * the results and the report.
 */
import * as nodeFs from 'node:fs';
import { straceWorks } from './helpers/baselines.js';
import { loadAverage, machineLine } from './helpers/machine.js';
import { log } from './helpers/progress.js';
import { gitEnv, run, settle, type CachedRepo } from './helpers/repo.js';
import { scratchRun } from './helpers/scratch.js';
import { thousands } from './helpers/stats.js';
import { printVerdicts } from './helpers/targets.js';
import { makeBatches } from './helpers/workload.js';
import { parseArgs, plan, SHADOW_BIN, SYSTEMS } from './batch/options.js';
import { printTables, verdicts } from './batch/report.js';
import { runGroup } from './batch/run-group.js';
import { dropScratchCopies, scratchCopies } from './batch/scratch-copies.js';
import { measureStartup, printStartup, type Startup } from './batch/startup.js';

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (!nodeFs.existsSync(SHADOW_BIN))
    throw new Error(`the CLI bundle ${SHADOW_BIN} is missing: run npm run build first`);
  if (o.strace && !straceWorks()) {
    log('strace is not available here: the git baselines are shown without fsyncs and files written');
    o.strace = false;
  }
  const { root: scratchRoot, home } = scratchRun(o.cacheDir, 'run', o.keep);

  const env = gitEnv(home);
  const gitBaselineEnv =
    o.gitFsync === undefined
      ? env
      : { ...env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsync', GIT_CONFIG_VALUE_0: o.gitFsync };
  const gitVersion = run('git', ['--version']).trim();
  const started = performance.now();

  console.log('shadow batch benchmark (bench/batch.bench.ts)');
  console.log(machineLine(gitVersion));
  console.log(
    `load average at the start: ${loadAverage()} (other work on the machine slows the disk and the processes alike for every case)`,
  );
  console.log(
    `sizes ${o.sizes.map(thousands).join(', ')}; k ${o.ks.join(', ')}; ${o.quick ? 'quick' : 'full'} run; cases: ${[...o.only].join(', ')}`,
  );
  console.log(
    `shadow: in-process, warm handle (openShadow once, warm-up batches first), fsync on. git baselines: ${
      o.gitFsync === undefined
        ? "git's default core.fsync (packs and pack indexes fsynced; loose objects, refs and the index not)"
        : `core.fsync=${o.gitFsync}`
    }.`,
  );
  console.log(
    'Each batch writes k files: half modify tracked files drawn at random over the tree (first touches), half create new files; every case applies the same batches.',
  );
  console.log(
    "The cases of one k run interleaved batch by batch, with `sync` (untimed) before every batch: dirty pages written back, as between an agent's batches.",
  );
  console.log(
    '(b) checkpoints after every batch; with fewer than 100 objects it explodes the pack into loose objects (fastimport.unpackLimit, a `git unpack-objects` child).',
  );
  console.log(
    "Ratios: the baseline's median over this row's median. Counts are per measured batch. shadow's come from sh.stats and a counting fs",
  );
  console.log(
    '(obj written includes the objects shadow rewrites when it merges its small packs; packs > 1 shows those merges). For git processes:',
  );
  console.log(
    'objects written from git count-objects, fsyncs and files written (opened for writing) from strace on one more batch; objects read are not known.',
  );

  let startup: Startup | undefined;
  if (o.only.has('shadow-cli') || o.only.size === SYSTEMS.length) {
    log('start-up: node -e 0 vs shadow --version...');
    startup = measureStartup(o.quick ? 10 : 30, env);
    printStartup(startup);
  }

  const repos = new Map<number, { repo: CachedRepo; note: string }>();
  for (const n of o.sizes) {
    const { e, repo, note } = scratchCopies(o, n, scratchRoot, env, gitBaselineEnv);
    repos.set(n, { repo, note });
    settle();
    for (const k of o.ks) {
      const most = Math.max(...SYSTEMS.map((s) => plan(s, n, k, o)).map((p) => p.warm + p.runs)) + 5;
      const batches = makeBatches(repo.layout, k, most, `k${k}`);
      // Everything but (c) leaves the working tree alone: interleaved. (c) writes into it: alone, after.
      const group = SYSTEMS.filter((s) => o.only.has(s) && s !== 'checkpoint' && (s !== 'shadow-cli' || k === 10));
      await runGroup(e, group, k, batches);
      if (o.only.has('checkpoint')) await runGroup(e, ['checkpoint'], k, batches);
    }
    dropScratchCopies(e);
  }

  printTables(o, repos);
  console.log('\n=== targets (shadow in-process, warm, on disk, fsync on)');
  printVerdicts(verdicts(o, startup), started);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exitCode = 1;
});
