/**
 * bench/attributes.bench.ts: what git's conversions cost a batch. The same
 * batches (k first touches: each reads the file, captures it, writes a new
 * version) run in four copies of one generated repository, alternating:
 *
 *   none     no .gitattributes: the baseline
 *   eol      `* text=auto`, `*.txt text eol=lf` at the root and an eol rule in
 *            every top-level directory: converted in process
 *   clean    `*.txt filter=up` with `clean`/`smudge` commands: git runs each
 *   process  `*.txt filter=rot` with a long-running `process` driver (the
 *            protocol git-lfs speaks)
 *
 * Prints per variant the median ms of a batch, its ratio to `none`, and the
 * machine-independent facts beside it: files read, stats and runs of git per
 * batch; for the filters, the extra ms per filtered path. Target: `eol`
 * within 10% of `none`.
 *
 *   node dist/bench/attributes.bench.js [--n 2000] [--k 10] [--rounds 30]
 */
import * as nodeFs from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nativeGit, openShadow, type GitRunner, type Shadow } from '../src/index.js';
import { countingFs, delta, snapshot } from './helpers/counting-fs.js';
import { readFlags, positiveInt } from './helpers/flags.js';
import { gitEnv, run } from './helpers/repo.js';
import { median, ms, table } from './helpers/stats.js';
import { content, prng } from './helpers/workload.js';

let N = 2000;
let K = 10;
let ROUNDS = 30;
readFlags(
  process.argv.slice(2),
  'usage: node dist/bench/attributes.bench.js [--n FILES] [--k PATHS_PER_BATCH] [--rounds R]\n',
  {
    '--n': (v) => (N = positiveInt(v(), '--n')),
    '--k': (v) => (K = positiveInt(v(), '--k')),
    '--rounds': (v) => (ROUNDS = positiveInt(v(), '--rounds')),
  },
);

const ROT13 = fileURLToPath(new URL('../../test/fixtures/rot13-filter.mjs', import.meta.url));
const VARIANTS = ['none', 'eol', 'clean', 'process'] as const;
type Variant = (typeof VARIANTS)[number];
const DIRS = 20;

const scratch = mkdtempSync(join(tmpdir(), 'shadow-bench-attrs-'));
const home = join(scratch, 'home');
mkdirSync(home);
const env = gitEnv(home);

function makeRepo(variant: Variant): string {
  const dir = join(scratch, variant);
  mkdirSync(dir);
  const git = (...args: string[]): string => run('git', args, { cwd: dir, env });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Bench');
  git('config', 'user.email', 'bench@example.com');
  if (variant === 'eol') {
    writeFileSync(join(dir, '.gitattributes'), '* text=auto\n*.txt text eol=lf\n*.bat eol=crlf\n');
    for (let d = 0; d < DIRS; d++) {
      mkdirSync(join(dir, `d${d}`), { recursive: true });
      writeFileSync(join(dir, `d${d}`, '.gitattributes'), '*.md text\n*.png binary\n');
    }
  }
  if (variant === 'clean') {
    writeFileSync(join(dir, '.gitattributes'), '*.txt filter=up\n');
    git('config', 'filter.up.clean', 'cat');
    git('config', 'filter.up.smudge', 'cat');
  }
  if (variant === 'process') {
    writeFileSync(join(dir, '.gitattributes'), '*.txt filter=rot\n');
    git('config', 'filter.rot.process', `node ${ROT13}`);
  }
  const rand = prng(7);
  for (let i = 0; i < N; i++) {
    const path = join(dir, `d${i % DIRS}`, `f${i}.txt`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content(rand, `// f${i}`));
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'files');
  return dir;
}

interface Subject {
  variant: Variant;
  sh: Shadow;
  counters: ReturnType<typeof countingFs>['counters'];
  gitRuns: { n: number };
  times: number[];
  facts: Array<{ filesRead: number; stats: number; git: number }>;
}

async function subject(variant: Variant): Promise<Subject> {
  const dir = makeRepo(variant);
  const { fs, counters } = countingFs(nodeFs);
  const gitRuns = { n: 0 };
  const git: GitRunner = { run: (args, o) => (gitRuns.n++, nativeGit.run(args, o)) };
  const sh = await openShadow({ dir, fs, env, git });
  return { variant, sh, counters, gitRuns, times: [], facts: [] };
}

const subjects: Subject[] = [];
for (const v of VARIANTS) subjects.push(await subject(v));
const batchOf = (round: number): unknown[] =>
  Array.from({ length: K }, (_, j) => {
    const i = (round * K + j) % N;
    return { operation: 'write', path: `d${i % DIRS}/f${i}.txt`, content: `round ${round}\n${'x'.repeat(1200)}\n` };
  });

// Round 0 warms each handle up; every later round touches paths no batch touched before.
for (let round = 0; round <= ROUNDS; round++) {
  for (const s of subjects) {
    const before = snapshot(s.counters);
    const runsBefore = s.gitRuns.n;
    const t0 = performance.now();
    const r = await s.sh.batch({ operations: batchOf(round) });
    const t = performance.now() - t0;
    if (!r.success) throw new Error(`${s.variant}: ${JSON.stringify(r.error)}`);
    if (round === 0) continue;
    const d = delta(snapshot(s.counters), before);
    s.times.push(t);
    s.facts.push({ filesRead: d.filesRead, stats: d.stats, git: s.gitRuns.n - runsBefore });
  }
}
for (const s of subjects) s.sh.close();

const base = median(subjects[0]!.times);
const rows = subjects.map((s) => {
  const m = median(s.times);
  const perPath = s.variant === 'clean' || s.variant === 'process' ? ms((m - base) / K) : '';
  return [
    s.variant,
    ms(m),
    (m / base).toFixed(2),
    String(median(s.facts.map((f) => f.filesRead))),
    String(median(s.facts.map((f) => f.stats))),
    String(median(s.facts.map((f) => f.git))),
    perPath,
  ];
});
console.log(`N=${N} files, k=${K} first touches a batch, ${ROUNDS} rounds alternating (medians)\n`);
console.log(
  table(['variant', 'ms/batch', 'x none', 'files read', 'stats', 'git runs', 'extra ms/filtered path'], rows),
);
const eol = median(subjects[1]!.times) / base;
const pass = eol <= 1.1;
console.log(`\ntarget: eol rules within 10% of none: ${pass ? 'PASS' : 'FAIL'} (${eol.toFixed(2)}x)`);
rmSync(scratch, { recursive: true, force: true });
process.exit(pass ? 0 : 1);
