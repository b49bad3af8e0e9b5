/**
 * bench/build-ab.bench.ts: this build against an earlier one, whole
 * processes by the caller, in the same rounds. The earlier revision is
 * checked out into a git worktree of this repository and built there (its
 * node_modules are this checkout's); each build gets a copy of the same
 * generated repository with a draft of its own, and the two run
 * alternately, round by round, so that the machine's load weighs on both
 * alike. A batch of 10 files, `status` and `diff --stat`, each into a pipe
 * as an agent reads them, run by the caller; then a batch and `status`
 * handed to a `shadow serve` of each build. Every figure is a ratio to the
 * earlier build's.
 *
 *   npm run build && node dist/bench/build-ab.bench.js --base 64c0ae8 [--n 5000] [--runs 30]
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { positiveInt, readFlags } from './helpers/flags.js';
import { loadAverage, machineLine } from './helpers/machine.js';
import { timedRun } from './helpers/process-facts.js';
import { startServe } from './calls/processes.js';
import { log } from './helpers/progress.js';
import { cachedRepo, copyRepo, gitEnv, run } from './helpers/repo.js';
import { scratchRun } from './helpers/scratch.js';
import { median, ms, p90, table } from './helpers/stats.js';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HELP = `usage: node dist/bench/build-ab.bench.js --base <revision> [options]

  --base rev     the earlier build: a revision of this repository (required)
  --n 5000       files in the repository                 default: 5,000
  --runs 30      rounds (each runs every case of both builds once)
  --keep         keep the scratch directory
  --cache <dir>  where generated repositories are cached default: bench/.cache
`;

const o = { base: '', n: 5000, runs: 30, keep: false, cacheDir: join(PROJECT_ROOT, 'bench/.cache') };
readFlags(process.argv.slice(2), HELP, {
  '--base': (v) => (o.base = v()),
  '--n': (v) => (o.n = positiveInt(v(), '--n')),
  '--runs': (v) => (o.runs = positiveInt(v(), '--runs')),
  '--keep': () => (o.keep = true),
  '--cache': (v) => (o.cacheDir = v()),
});
if (o.base === '') {
  process.stderr.write(HELP);
  process.exit(2);
}

const started = performance.now();
const { root, home } = scratchRun(o.cacheDir, 'build-ab', o.keep);
const env = gitEnv(home, { SHADOW_HANDOFF: '0' });
const baseRev = run('git', ['rev-parse', '--short', o.base], { cwd: PROJECT_ROOT }).trim();

// The earlier build, in a worktree of its own (removed with the scratch directory).
const baseTree = join(root, `build-${baseRev}`);
log(`building ${baseRev} in ${baseTree}...`);
run('git', ['worktree', 'add', '--detach', '-q', baseTree, baseRev], { cwd: PROJECT_ROOT });
process.on('exit', () => {
  if (!o.keep) run('git', ['worktree', 'remove', '--force', baseTree], { cwd: PROJECT_ROOT });
});
nodeFs.symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(baseTree, 'node_modules'));
run('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: baseTree });
run('node', ['cli/bundle.mjs'], { cwd: baseTree });

const builds = [
  { name: baseRev, cjs: join(baseTree, 'dist/bin/shadow.cjs'), dir: join(root, 'repo-base') },
  { name: 'this build', cjs: join(PROJECT_ROOT, 'dist/bin/shadow.cjs'), dir: join(root, 'repo-this') },
];
const cached = cachedRepo(o.cacheDir, o.n, env, log);
for (const b of builds) {
  copyRepo(cached.dir, b.dir, env);
  run('node', [b.cjs, 'draft', 'new', 'ab'], { cwd: b.dir, env });
}

// A batch of 10 files of the generated layout, a new content each round (the same for both builds).
let round = 0;
const batchFile = join(root, 'batch.json');
function writeBatch(): void {
  const operations = cached.layout.paths
    .slice(0, 10 * 37)
    .filter((_, i) => i % 37 === 0)
    .map((path) => ({ operation: 'write', path, content: `round ${round}\n` }));
  nodeFs.writeFileSync(batchFile, JSON.stringify({ operations }));
}

const CASES: Array<{ label: string; args: string[]; handed?: boolean }> = [
  { label: 'batch, 10 files', args: ['--draft', 'ab', 'batch', batchFile] },
  { label: 'status', args: ['--draft', 'ab', 'status'] },
  { label: 'diff --stat', args: ['--draft', 'ab', 'diff', '--stat'] },
  { label: 'batch, 10 files, handed off', args: ['--draft', 'ab', 'batch', batchFile], handed: true },
  { label: 'status, handed off', args: ['--draft', 'ab', 'status'], handed: true },
];
const times = CASES.map(() => builds.map(() => [] as number[]));
for (const handed of [false, true]) {
  const servers = handed ? await Promise.all(builds.map((b) => startServe(b.dir, env, b.cjs))) : [];
  const callEnv = handed ? { ...env, SHADOW_HANDOFF: '' } : env;
  for (round = -1; round < o.runs; round++) {
    writeBatch();
    for (let c = 0; c < CASES.length; c++) {
      if ((CASES[c]!.handed === true) !== handed) continue;
      // Alternate which build goes first.
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const b of order) {
        const t = timedRun('node', [builds[b]!.cjs, ...CASES[c]!.args], { cwd: builds[b]!.dir, env: callEnv }).ms;
        if (round >= 0) times[c]![b]!.push(t);
      }
    }
  }
  for (const s of servers) await s.stop();
}

console.log(`${machineLine(run('git', ['--version']).trim())}\n${o.n} files, ${o.runs} rounds, output into a pipe\n`);
console.log(
  table(
    ['case', `${baseRev} median ms`, 'this build median ms', 'p90 ms (this)', 'ratio'],
    CASES.map((c, i) => [
      c.label,
      ms(median(times[i]![0]!)),
      ms(median(times[i]![1]!)),
      ms(p90(times[i]![1]!)),
      `${(median(times[i]![1]!) / median(times[i]![0]!)).toFixed(2)}x`,
    ]),
  ),
);
console.log(`\nload average at the end: ${loadAverage()}; ${((performance.now() - started) / 1000).toFixed(0)} s`);
