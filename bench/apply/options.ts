/** bench/apply's cases, rows and targets' constants, its command-line options, and how many runs each k gets. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { namesOf, positiveInt, positiveInts, readFlags, sharedFlags } from '../helpers/flags.js';

export const CASES = ['shadow', 'floor', 'checkout'] as const;
export type Case = (typeof CASES)[number];

/** The rows of a k's table. */
export const ROWS = ['apply', 'unapply', 'dry-run', 'dry-run-cold', 'dry-run-first', 'floor', 'checkout'] as const;
export type Row = (typeof ROWS)[number];

export const LABELS: Record<Row, string> = {
  apply: 'shadow apply',
  unapply: 'shadow unapply',
  'dry-run': 'shadow apply --dry-run (warm handle)',
  'dry-run-cold': 'shadow apply --dry-run (fresh handle)',
  'dry-run-first': '  the same, first review (no cache)',
  floor: 'floor: node fs, write+fsync, dirs fsynced',
  checkout: 'git checkout <draft> -- <paths>',
};

export const DRY_RUN_BUDGET_MS = 50;
/** Sampling interval of --profile: node --cpu-prof's default; finer sampling slows the applies it measures. */
export const PROFILE_INTERVAL_US = 1000;
export const FLOOR_FACTOR = 2;

export interface Options {
  n: number;
  ks: number[];
  quick: boolean;
  only: Set<Case>;
  runs: number | undefined;
  strace: boolean;
  keep: boolean;
  cacheDir: string;
  /** Write a CPU profile per k into this directory, and summarize the measured `sh.apply` calls and dry runs. */
  profileDir: string | undefined;
}

/** The project's root (this file is dist/bench/apply/options.js). */
const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const HELP = `usage: node dist/bench/apply.bench.js [options]

  --k 1,10,100,1000    files the draft changes                   default: all four
  --quick              fewer runs per case (3, or 2 at k >= 1,000; dry runs 3)
  --runs n             measured runs per case (overrides the defaults: 10, or 5 at k >= 1,000; dry runs 10)
  --only a,b           run only these cases: ${CASES.join(', ')} (shadow: apply, unapply and dry run)
  --n 50000            repository size (files); default 50,000, the size of the targets
  --no-strace          do not count git checkout's fsyncs and files written with strace
  --keep               keep the scratch copy of the repository
  --cache <dir>        where generated repositories are cached (default: bench/.cache)
  --profile <dir>      write a CPU profile per k into <dir> and print the functions the measured
                       sh.apply calls and dry runs spend their time in (times under the profiler run slower)
`;

export function parseArgs(argv: string[]): Options {
  const o: Options = {
    n: 50000,
    ks: [1, 10, 100, 1000],
    quick: false,
    only: new Set(CASES),
    runs: undefined,
    strace: true,
    keep: false,
    cacheDir: join(PROJECT_ROOT, 'bench', '.cache'),
    profileDir: undefined,
  };
  readFlags(argv, HELP, {
    ...sharedFlags(o),
    '--k': (v) => (o.ks = positiveInts(v(), '--k')),
    '--n': (v) => (o.n = positiveInt(v(), '--n')),
    '--only': (v) => (o.only = namesOf(v(), CASES, '--only')),
    '--profile': (v) => (o.profileDir = v()),
  });
  if (o.ks.some((k) => k > o.n))
    throw new Error(`--k: a draft cannot change more than the ${o.n} files of the repository`);
  return o;
}

/** Warm-up rounds and measured runs for k. */
export function plan(k: number, o: Options): { warm: number; runs: number; dryRuns: number } {
  const big = k >= 1000;
  if (o.quick) return { warm: 1, runs: o.runs ?? (big ? 2 : 3), dryRuns: o.runs ?? 3 };
  return { warm: 1, runs: o.runs ?? (big ? 5 : 10), dryRuns: o.runs ?? 10 };
}
