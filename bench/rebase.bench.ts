/**
 * bench/rebase.bench.ts: what `shadow rebase` costs, and that it stays
 * O(paths changed): the same change timed in a repository of 5,000 files
 * and of 50,000.
 *
 * At each size (bench/rebase/setup.ts): a draft of one batch editing line 2
 * of 200 files (in the same number of directories at every size, so that
 * only the repository's size differs); the person's branch `person` off main editing the last line
 * of 20 of those and of 100 others (so 20 paths merge, 180 come through as
 * the draft has them); the same edits uncommitted in the working tree.
 * Timed, each a whole process as a user runs it, in the same run:
 *
 *   shadow rebase --onto person   the draft moved onto the branch
 *   shadow rebase                 the draft moved onto the working tree
 *   git rebase person             the baseline: the draft's batch commit as a
 *                                 branch, rebased onto `person` by git (in a
 *                                 `git clone --shared` of the repository, its
 *                                 work tree checked out, so the measured
 *                                 repository is left alone)
 *
 * Between runs, untimed: `shadow undo` puts the draft back on its batch
 * (and `shadow status` settles its cached state, as any command after an
 * undo would); `git checkout -B rb <batch>` puts the clone back. Each timed
 * run follows an untimed `sync`. Both sizes are set up first, then each
 * round runs every case at every size, the orders rotating, so that the
 * sizes are timed under the same conditions; the first round is a warm-up.
 * One more run of each under strace counts files read
 * in the repository, files written, fsyncs and stat calls. Every rebase is
 * checked: shadow's --onto commit has the tree git rebase makes, with both
 * edits in each of the 20 merged files.
 *
 * Printed per size: the table of cases; then each case at both sizes and the
 * ratio of its times (near 1: it does not grow with the repository).
 *
 *   node dist/bench/rebase.bench.js               # a few minutes the first time (generates the repositories)
 *   node dist/bench/rebase.bench.js --quick --n 5000,50000
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as nodeFs from 'node:fs';
import { straceWorks } from './helpers/baselines.js';
import { positiveInts, readFlags, sharedFlags } from './helpers/flags.js';
import { holdsBoth } from './helpers/line-edits.js';
import { loadAverage, machineLine } from './helpers/machine.js';
import { timedRun, tracedRun, type ProcessFacts } from './helpers/process-facts.js';
import { log } from './helpers/progress.js';
import { gitEnv, run, settle } from './helpers/repo.js';
import { scratchRun } from './helpers/scratch.js';
import { count, median, ms, p90, ratio, table, thousands } from './helpers/stats.js';
import { printVerdicts, verdict, type Verdict } from './helpers/targets.js';
import { BATCH_DIRS } from './helpers/workload.js';
import { DRAFT, DRAFT_PATHS, PERSON, PERSON_ONLY, SHARED, setUp, type Sized } from './rebase/setup.js';

const SHADOW_BIN = fileURLToPath(new URL('../bin/shadow.cjs', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** How much slower a case may be at the largest size than at the smallest and still count as not growing with it. */
const FLAT_FACTOR = 1.5;

const HELP = `usage: node dist/bench/rebase.bench.js [options]

  --n 5000,50000   repository sizes (files)                     default: 5,000 and 50,000
  --runs n         measured runs per case and size              default: 7 (--quick: 3)
  --quick          fewer runs
  --no-strace      do not count files read, written, fsyncs and stats
  --keep           keep the scratch copies
  --cache <dir>    where generated repositories are cached      default: bench/.cache
`;

interface Options {
  ns: number[];
  runs: number | undefined;
  quick: boolean;
  strace: boolean;
  keep: boolean;
  cacheDir: string;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    ns: [5000, 50000],
    runs: undefined,
    quick: false,
    strace: true,
    keep: false,
    cacheDir: join(PROJECT_ROOT, 'bench', '.cache'),
  };
  readFlags(argv, HELP, {
    ...sharedFlags(o),
    '--n': (v) => (o.ns = positiveInts(v(), '--n')),
  });
  return o;
}

type Case = 'onto' | 'worktree' | 'git';
const CASES: Case[] = ['onto', 'worktree', 'git'];
const LABELS: Record<Case, string> = {
  onto: `shadow rebase --onto ${PERSON}`,
  worktree: 'shadow rebase (onto the working tree)',
  git: `git rebase ${PERSON} (baseline)`,
};

interface SizeRun {
  n: number;
  times: Record<Case, number[]>;
  /** One run of a case, timed when `measured`, then checked and undone. */
  step: Record<Case, (measured: boolean) => void>;
  /** One more run of each case under strace. */
  trace(): Map<Case, ProcessFacts>;
  facts: Map<Case, ProcessFacts>;
}

/** The cases at one size, to run. */
function sizeRun(s: Sized, env: Record<string, string>, scratch: string): SizeRun {
  const git = (args: string[], cwd = s.dir): string => run('git', args, { cwd, env });
  const shadow = (args: string[]): string[] => [SHADOW_BIN, ...args, '--draft', DRAFT];
  const draftTip = (): string => git(['rev-parse', `refs/shadow/drafts/${DRAFT}`]).trim();

  // What git rebase makes, once: the tree shadow's --onto rebase must make too.
  git(['rebase', '-q', PERSON], s.clone);
  const gitTree = git(['rev-parse', 'HEAD^{tree}'], s.clone).trim();
  git(['checkout', '-q', '-B', 'rb', s.batch], s.clone);

  /** The draft back on its batch commit, as `shadow undo` leaves it (and its state settled by the next command). */
  const undo = (): void => {
    run(process.execPath, shadow(['undo']), { cwd: s.dir, env });
    run(process.execPath, shadow(['status']), { cwd: s.dir, env });
    if (draftTip() !== s.batch)
      throw new Error(`N=${s.n}: shadow undo left the draft at ${draftTip()}, not its batch ${s.batch}`);
  };
  const checkRebased = (c: 'onto' | 'worktree'): void => {
    const tip = draftTip();
    const parents = git(['rev-parse', `${tip}^1`, `${tip}^2`])
      .trim()
      .split('\n');
    if (parents[0] !== s.batch)
      throw new Error(`N=${s.n}: ${c}: the rebase commit's first parent is ${parents[0]}, not the batch`);
    if (c === 'onto') {
      if (parents[1] !== s.person)
        throw new Error(`N=${s.n}: --onto: the rebase commit's second parent is ${parents[1]}, not ${PERSON}`);
      const tree = git(['rev-parse', `${tip}^{tree}`]).trim();
      if (tree !== gitTree) throw new Error(`N=${s.n}: shadow rebase --onto made tree ${tree}, git rebase ${gitTree}`);
    }
    // The merged files hold both edits (onto the working tree too: it holds the person's edits).
    const changed = git(['diff', '--name-only', `${tip}^2`, tip])
      .trim()
      .split('\n');
    if (changed.length !== DRAFT_PATHS)
      throw new Error(
        `N=${s.n}: ${c}: the rebase commit changes ${changed.length} paths over its base, not ${DRAFT_PATHS}`,
      );
    const shared = git(['diff', '--name-only', `${s.person}^`, s.person])
      .trim()
      .split('\n')
      .filter((p) => changed.includes(p));
    if (shared.length !== SHARED) throw new Error(`N=${s.n}: ${c}: ${shared.length} shared paths, expected ${SHARED}`);
    for (const p of shared) {
      if (!holdsBoth(git(['cat-file', 'blob', `${tip}:${p}`]), p))
        throw new Error(`N=${s.n}: ${c}: ${p} does not hold both edits`);
    }
  };

  const times: Record<Case, number[]> = { onto: [], worktree: [], git: [] };
  const step: Record<Case, (measured: boolean) => void> = {
    onto(measured) {
      settle();
      const t = timedRun(process.execPath, shadow(['rebase', '--onto', PERSON]), { cwd: s.dir, env });
      if (measured) times.onto.push(t.ms);
      checkRebased('onto');
      undo();
    },
    worktree(measured) {
      settle();
      const t = timedRun(process.execPath, shadow(['rebase']), { cwd: s.dir, env });
      if (measured) times.worktree.push(t.ms);
      checkRebased('worktree');
      undo();
    },
    git(measured) {
      settle();
      const t = timedRun('git', ['rebase', '-q', PERSON], { cwd: s.clone, env });
      if (measured) times.git.push(t.ms);
      const tree = git(['rev-parse', 'HEAD^{tree}'], s.clone).trim();
      if (tree !== gitTree) throw new Error(`N=${s.n}: git rebase made ${tree} this time, ${gitTree} before`);
      git(['checkout', '-q', '-B', 'rb', s.batch], s.clone);
    },
  };
  const trace = (): Map<Case, ProcessFacts> => {
    const facts = new Map<Case, ProcessFacts>();
    const traced = { cwd: s.dir, env, root: s.dir, scratch };
    facts.set('onto', tracedRun(process.execPath, shadow(['rebase', '--onto', PERSON]), traced));
    checkRebased('onto');
    undo();
    facts.set('worktree', tracedRun(process.execPath, shadow(['rebase']), traced));
    checkRebased('worktree');
    undo();
    // The clone's files and those of the repository whose objects it borrows.
    facts.set('git', tracedRun('git', ['rebase', '-q', PERSON], { ...traced, cwd: s.clone, root: dirname(s.clone) }));
    git(['checkout', '-q', '-B', 'rb', s.batch], s.clone);
    return facts;
  };
  return { n: s.n, times, step, trace, facts: new Map() };
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (!nodeFs.existsSync(SHADOW_BIN)) throw new Error(`${SHADOW_BIN} is missing: run npm run build first`);
  if (o.strace && !straceWorks()) {
    log('strace cannot trace here: no files read, written, fsyncs or stats are counted');
    o.strace = false;
  }
  const started = performance.now();
  const { root, home } = scratchRun(o.cacheDir, 'rebase-run', o.keep);
  const env = gitEnv(home);
  console.log('shadow rebase benchmark (bench/rebase.bench.ts)');
  console.log(machineLine(run('git', ['--version']).trim()));
  console.log(`load average at the start: ${loadAverage()}`);

  const sized: Sized[] = [];
  for (const n of o.ns) sized.push(await setUp(o.cacheDir, root, n, env));
  const results = sized.map((s) => sizeRun(s, env, join(root, 'traces')));
  // The sizes interleaved, round by round: a drift of the machine (the disk writing back a copy, another
  // process) then weighs on both alike instead of on the size measured last.
  const runs = o.runs ?? (o.quick ? 3 : 7);
  for (let round = 0; round <= runs; round++) {
    for (let i = 0; i < results.length; i++) {
      const r = results[(round + i) % results.length]!;
      for (let j = 0; j < CASES.length; j++) r.step[CASES[(round + j) % CASES.length]!](round > 0);
    }
    log(`round ${round}${round === 0 ? ' (warm-up)' : ''} of ${runs}`);
  }
  if (o.strace) for (const r of results) r.facts = r.trace();

  console.log(
    `\nThe draft: one batch editing line 2 of ${DRAFT_PATHS} files in ${BATCH_DIRS} leaf directories. ${PERSON}: the last line of ${SHARED} of those and of ${PERSON_ONLY} others, committed off main,`,
  );
  console.log(
    "and the same edits uncommitted in the working tree. Each case a whole process (node's start included for shadow), after an untimed `sync`.",
  );
  console.log(
    'Counts from one more run under strace: files read (opened read-only in the repository, .git included; git rebase: in its clone and',
  );
  console.log('the repository it borrows objects from), files written, fsyncs, stat calls.');
  const med = (r: SizeRun, c: Case): number => median(r.times[c]);
  for (const r of results) {
    console.log(`\nN = ${thousands(r.n)} files`);
    const rows = CASES.map((c) => {
      const f = r.facts.get(c);
      return [
        LABELS[c],
        String(r.times[c].length),
        ms(med(r, c)),
        ms(p90(r.times[c])),
        c === 'git' ? '' : ratio(med(r, c), med(r, 'git')),
        count(f?.filesRead),
        count(f?.filesWritten),
        count(f?.fsyncs),
        count(f?.stats),
      ];
    });
    console.log(
      table(
        ['case', 'runs', 'median ms', 'p90 ms', 'vs git rebase', 'files read', 'files written', 'fsyncs', 'stats'],
        rows,
      ),
    );
  }

  const small = results[0]!;
  const large = results[results.length - 1]!;
  const vs: Verdict[] = [];
  if (results.length > 1) {
    console.log(
      `\nO(paths changed): each case at ${thousands(small.n)} and ${thousands(large.n)} files (the same ${DRAFT_PATHS}-path change)`,
    );
    const rows = CASES.map((c) => {
      const x = med(large, c) / med(small, c);
      const st = (r: SizeRun): string => count(r.facts.get(c)?.stats);
      return [LABELS[c], ms(med(small, c)), ms(med(large, c)), `${x.toFixed(2)}x`, st(small), st(large)];
    });
    console.log(
      table(
        [
          'case',
          `ms at ${thousands(small.n)}`,
          `ms at ${thousands(large.n)}`,
          'ratio',
          `stats at ${thousands(small.n)}`,
          `stats at ${thousands(large.n)}`,
        ],
        rows,
      ),
    );
    vs.push(
      verdict(
        `shadow rebase (--onto and onto the working tree) within ${FLAT_FACTOR}x at ${thousands(large.n)} files of its time at ${thousands(small.n)}`,
        (['onto', 'worktree'] as const).map((c) => {
          const x = med(large, c) / med(small, c);
          return {
            ok: x <= FLAT_FACTOR,
            text: `${c}: ${x.toFixed(2)}x (${ms(med(small, c))} -> ${ms(med(large, c))} ms)`,
          };
        }),
        'needs two sizes',
      ),
    );
  } else vs.push(verdict(`shadow rebase within ${FLAT_FACTOR}x across sizes`, [], 'needs two sizes (--n 5000,50000)'));
  console.log('\n=== targets');
  printVerdicts(vs, started);
  process.exitCode = vs.every((v) => v.status !== 'FAIL') ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 2;
});
