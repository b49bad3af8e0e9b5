/** bench/batch's systems under test and their labels, its command-line options, and how many batches each case gets. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { namesOf, positiveInts, readFlags, sharedFlags } from '../helpers/flags.js';

export const SYSTEMS = ['shadow-disk', 'shadow-memfs', 'fast-import', 'plumbing', 'shadow-cli', 'checkpoint'] as const;
export type System = (typeof SYSTEMS)[number];

export const LABELS: Record<System, string> = {
  'shadow-disk': 'shadow, in-process, disk',
  'shadow-memfs': 'shadow, in-process, memfs',
  'shadow-cli': 'shadow batch, a process per batch',
  plumbing: '(a) git plumbing, 6 processes/batch',
  'fast-import': '(b) git fast-import, long-running',
  checkpoint: '(c) git add -A && git commit',
};

export const BASELINES = ['plumbing', 'fast-import', 'checkpoint'] as const;
export const BASELINE_SHORT: Record<(typeof BASELINES)[number], string> = {
  plumbing: 'vs (a)',
  'fast-import': 'vs (b)',
  checkpoint: 'vs (c)',
};

export interface Options {
  sizes: number[];
  ks: number[];
  quick: boolean;
  only: Set<System>;
  runs: number | undefined;
  gitFsync: string | undefined;
  keep: boolean;
  strace: boolean;
  cacheDir: string;
  /** Write a CPU profile of shadow-disk's measured batches here. */
  profileDir: string | undefined;
}

/** The project's root (this file is dist/bench/batch/options.js). */
const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The CLI bundle shadow-cli and the start-up measurement run. */
export const SHADOW_BIN = fileURLToPath(new URL('../../bin/shadow.cjs', import.meta.url));

const HELP = `usage: node dist/bench/batch.bench.js [options]

  --sizes 1000,10000,50000   repository sizes N (files)          default: all three
  --k 1,10,100               files changed per batch             default: all three
  --quick                    fewer batches per case (a quick run at N=1,000 takes well under a minute)
  --only a,b                 run only these cases: ${SYSTEMS.join(', ')}
  --runs n                   measured batches per case (overrides the defaults)
  --git-fsync <value>        run the git baselines with -c core.fsync=<value> (e.g. all); default: git's own default
  --no-strace                do not count the git baselines' fsyncs and files written with strace
  --keep                     keep the scratch copies of the repositories
  --cache <dir>              where generated repositories are cached (default: bench/.cache)
  --profile <dir>            write a CPU profile of shadow-disk's measured batches per case into <dir>
                             (use with --only shadow-disk, or the other cases' batches are in it too)
`;

export function parseArgs(argv: string[]): Options {
  const o: Options = {
    sizes: [1000, 10000, 50000],
    ks: [1, 10, 100],
    quick: false,
    only: new Set(SYSTEMS),
    runs: undefined,
    gitFsync: undefined,
    keep: false,
    strace: true,
    cacheDir: join(PROJECT_ROOT, 'bench', '.cache'),
    profileDir: undefined,
  };
  readFlags(argv, HELP, {
    ...sharedFlags(o),
    '--sizes': (v) => (o.sizes = positiveInts(v(), '--sizes')),
    '--k': (v) => (o.ks = positiveInts(v(), '--k')),
    '--only': (v) => (o.only = namesOf(v(), SYSTEMS, '--only')),
    '--git-fsync': (v) => (o.gitFsync = v()),
    '--profile': (v) => (o.profileDir = v()),
  });
  return o;
}

/** Warm-up and measured batches of a case. */
export function plan(system: System, n: number, k: number, o: Options): { warm: number; runs: number } {
  if (o.quick) {
    const runs = { 'shadow-disk': 9, 'shadow-memfs': 9, 'fast-import': 7, plumbing: 5, 'shadow-cli': 5, checkpoint: 3 }[
      system
    ];
    return { warm: 1, runs: o.runs ?? runs };
  }
  // k = 100 draws 50 tracked files per batch: 18 batches stay within the 1,000 files of BATCH_DIRS (first touches only).
  const big = k >= 100;
  const runs = {
    'shadow-disk': big ? 15 : 30,
    'shadow-memfs': big ? 15 : 30,
    'fast-import': big ? 15 : 30,
    plumbing: big ? 15 : 20,
    'shadow-cli': 15,
    checkpoint: n >= 50000 ? 5 : 10,
  }[system];
  return { warm: system === 'checkpoint' ? 1 : 3, runs: o.runs ?? runs };
}
