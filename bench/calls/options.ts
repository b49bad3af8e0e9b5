import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { positiveInt, readFlags, sharedFlags } from '../helpers/flags.js';

/** bench/calls.bench.ts' command line. */

const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HELP = `usage: node dist/bench/calls.bench.js [options]

  --n 50000        files in the repository                   default: 50,000
  --runs n         measured runs per case                    default: 15 (--quick: 5)
  --age n          batches of the aged draft (10 paths each) default: 1,000 (--quick: 200)
  --quick          fewer runs, a younger aged draft
  --no-strace      do not count files read, written, fsyncs and stats
  --keep           keep the scratch directory
  --cache <dir>    where generated repositories are cached   default: bench/.cache
`;

export interface Options {
  n: number;
  runs?: number;
  age?: number;
  quick: boolean;
  strace: boolean;
  keep: boolean;
  cacheDir: string;
}

export function parseArgs(argv: string[]): Options {
  const o: Options = {
    n: 50000,
    quick: false,
    strace: true,
    keep: false,
    cacheDir: join(PROJECT_ROOT, 'bench', '.cache'),
  };
  readFlags(argv, HELP, {
    ...sharedFlags(o),
    '--n': (v) => (o.n = positiveInt(v(), '--n')),
    '--age': (v) => (o.age = positiveInt(v(), '--age')),
  });
  return o;
}
