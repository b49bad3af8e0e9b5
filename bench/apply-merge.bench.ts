/**
 * bench/apply-merge.bench.ts: what `shadow apply` costs when the person
 * changed some of the draft's files meanwhile and it has to merge them.
 *
 * A repository of N files (default 50,000, the cached one bench/apply
 * uses); a draft that edits line 2 of 100 of them; the person edits the
 * last line of 20 of those in the working tree, so the apply merges 20
 * three-way and writes 80 as they are. Timed, each a whole process as a
 * user runs it, in the same run:
 *
 *   apply (merging 20)   `shadow apply` with the person's 20 edits in the tree
 *   apply (no merge)     `shadow apply` of the same draft over a clean tree
 *   git merge-file x20   the baseline: `git merge-file <person's> <base>
 *                        <draft's>` once per merged path, 20 processes
 *                        (merges in place; writes and fsyncs nothing else)
 *
 * Each timed run follows an untimed `sync`; after an apply the tree is put
 * back untimed (`shadow unapply`, then git's index refreshed). Rounds rotate
 * the order of the cases; the first is a warm-up (it also fills the CLI's
 * code cache). Then one more run of each under strace counts, per case,
 * files read in the repository, files written, fsyncs and stat calls.
 * Every merge is checked: shadow's merged files hold both edits and are
 * byte for byte what git merge-file makes.
 *
 *   node dist/bench/apply-merge.bench.js            # a few minutes the first time (generates the repository)
 *   node dist/bench/apply-merge.bench.js --quick --n 5000
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openShadow } from '../src/index.js';
import { straceWorks } from './helpers/baselines.js';
import { positiveInt, readFlags, sharedFlags } from './helpers/flags.js';
import { draftEdit, drawFiles, holdsBoth, personEdit } from './helpers/line-edits.js';
import { loadAverage, machineLine } from './helpers/machine.js';
import { sumFacts, timedRun, tracedRun, type ProcessFacts } from './helpers/process-facts.js';
import { log } from './helpers/progress.js';
import { cachedRepo, copyRepo, gitEnv, run, settle } from './helpers/repo.js';
import { scratchRun } from './helpers/scratch.js';
import { count, median, ms, p90, ratio, table, thousands } from './helpers/stats.js';
import { printVerdicts, verdict, type Verdict } from './helpers/targets.js';

const DRAFT_FILES = 100;
const MERGED = 20;
const DRAFT = 'apply-merge-bench';
const SHADOW_BIN = fileURLToPath(new URL('../bin/shadow.cjs', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const HELP = `usage: node dist/bench/apply-merge.bench.js [options]

  --n 50000        files in the repository                      default: 50,000
  --runs n         measured runs per case                       default: 7 (--quick: 3)
  --quick          fewer runs
  --no-strace      do not count files read, written, fsyncs and stats
  --keep           keep the scratch copy of the repository
  --cache <dir>    where generated repositories are cached      default: bench/.cache
`;

interface Options {
  n: number;
  runs: number | undefined;
  quick: boolean;
  strace: boolean;
  keep: boolean;
  cacheDir: string;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    n: 50000,
    runs: undefined,
    quick: false,
    strace: true,
    keep: false,
    cacheDir: join(PROJECT_ROOT, 'bench', '.cache'),
  };
  readFlags(argv, HELP, {
    ...sharedFlags(o),
    '--n': (v) => (o.n = positiveInt(v(), '--n')),
  });
  return o;
}

type Case = 'merge' | 'clean' | 'mergeFile';
const LABELS: Record<Case, string> = {
  merge: `shadow apply (merging ${MERGED} of ${DRAFT_FILES})`,
  clean: `shadow apply (no merge, ${DRAFT_FILES} paths)`,
  mergeFile: `git merge-file x${MERGED} (baseline)`,
};

interface File {
  path: string;
  /** HEAD's content (the draft's base). */
  base: string;
  draft: string;
  /** The person's content, for the merged ones. */
  person?: string;
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const runs = o.runs ?? (o.quick ? 3 : 7);
  if (!nodeFs.existsSync(SHADOW_BIN)) throw new Error(`${SHADOW_BIN} is missing: run npm run build first`);
  if (o.strace && !straceWorks()) {
    log('strace cannot trace here: no files read, written, fsyncs or stats are counted');
    o.strace = false;
  }
  const started = performance.now();
  const { root, home } = scratchRun(o.cacheDir, 'apply-merge-run', o.keep);
  const env = gitEnv(home);
  console.log("shadow apply, merging the person's changes (bench/apply-merge.bench.ts)");
  console.log(machineLine(run('git', ['--version']).trim()));
  console.log(`load average at the start: ${loadAverage()}`);

  const cached = cachedRepo(o.cacheDir, o.n, env, log);
  const dir = join(root, `repo-n${o.n}`);
  log(`copying the repository of ${thousands(o.n)} files to ${dir}...`);
  copyRepo(cached.dir, dir, env);
  const git = (args: string[], input?: string): string => run('git', args, { cwd: dir, env, input });

  // The draft: line 2 of 100 files; the person: the last line of the first 20 of them.
  const files: File[] = drawFiles(cached.layout.paths, dir, DRAFT_FILES, 4242).map(({ path, text }, i) => ({
    path,
    base: text,
    draft: draftEdit(text, path),
    ...(i < MERGED ? { person: personEdit(text, path) } : {}),
  }));
  const merged = files.filter((f) => f.person !== undefined);
  const sh = await openShadow({ dir, env });
  const b = await sh.batch(
    {
      intent: `apply-merge bench: ${DRAFT_FILES} files`,
      operations: files.map((f) => ({ operation: 'write', path: f.path, content: f.draft })),
    },
    { draft: DRAFT },
  );
  sh.close();
  if (!b.success) throw new Error(`the draft's batch failed: ${JSON.stringify(b.error)}`);

  const writeTree = (which: 'person' | 'base'): void => {
    for (const f of merged) nodeFs.writeFileSync(join(dir, f.path), which === 'person' ? f.person! : f.base);
    git(['update-index', '-q', '--refresh']);
  };
  writeTree('person');

  // git merge-file's inputs, beside the repository: each run merges fresh copies of the person's files.
  const mf = join(root, 'merge-file');
  nodeFs.mkdirSync(mf, { recursive: true });
  merged.forEach((f, i) => {
    nodeFs.writeFileSync(join(mf, `base-${i}`), f.base);
    nodeFs.writeFileSync(join(mf, `draft-${i}`), f.draft);
  });
  const mergeFileArgs = (i: number): string[] => [
    'merge-file',
    '-q',
    join(mf, `cur-${i}`),
    join(mf, `base-${i}`),
    join(mf, `draft-${i}`),
  ];
  const resetCur = (): void => merged.forEach((f, i) => nodeFs.writeFileSync(join(mf, `cur-${i}`), f.person!));
  resetCur();
  for (let i = 0; i < merged.length; i++) git(mergeFileArgs(i));
  const gitMerged = merged.map((_, i) => nodeFs.readFileSync(join(mf, `cur-${i}`), 'utf8'));
  merged.forEach((f, i) => {
    if (!holdsBoth(gitMerged[i]!, f.path)) throw new Error(`git merge-file did not merge ${f.path} cleanly`);
  });

  const shadowArgs = (cmd: 'apply' | 'unapply'): string[] => [SHADOW_BIN, cmd, '--draft', DRAFT];
  const checkApplied = (withPerson: boolean): void => {
    files.forEach((f) => {
      const got = nodeFs.readFileSync(join(dir, f.path), 'utf8');
      const i = merged.indexOf(f);
      const want = withPerson && i !== -1 ? gitMerged[i]! : f.draft;
      if (got !== want)
        throw new Error(
          `after shadow apply ${f.path} is not ${withPerson && i !== -1 ? "git merge-file's merge" : "the draft's"}`,
        );
    });
  };
  const unapply = (withPerson: boolean): void => {
    run(process.execPath, shadowArgs('unapply'), { cwd: dir, env });
    for (const f of files) {
      const want = withPerson && f.person !== undefined ? f.person : f.base;
      if (nodeFs.readFileSync(join(dir, f.path), 'utf8') !== want)
        throw new Error(`shadow unapply did not put ${f.path} back`);
    }
    git(['update-index', '-q', '--refresh']);
  };

  const times: Record<Case, number[]> = { merge: [], clean: [], mergeFile: [] };
  const step: Record<Case, (measured: boolean) => void> = {
    merge(measured) {
      settle();
      const t = timedRun(process.execPath, shadowArgs('apply'), { cwd: dir, env });
      if (measured) times.merge.push(t.ms);
      checkApplied(true);
      unapply(true);
    },
    clean(measured) {
      writeTree('base');
      settle();
      const t = timedRun(process.execPath, shadowArgs('apply'), { cwd: dir, env });
      if (measured) times.clean.push(t.ms);
      checkApplied(false);
      unapply(false);
      writeTree('person');
    },
    mergeFile(measured) {
      resetCur();
      settle();
      let total = 0;
      for (let i = 0; i < merged.length; i++) total += timedRun('git', mergeFileArgs(i), { cwd: dir, env }).ms;
      if (measured) times.mergeFile.push(total);
      merged.forEach((f, i) => {
        if (nodeFs.readFileSync(join(mf, `cur-${i}`), 'utf8') !== gitMerged[i])
          throw new Error(`git merge-file merged ${f.path} differently this time`);
      });
    },
  };
  const cases = Object.keys(step) as Case[];
  for (let round = 0; round <= runs; round++) {
    for (let j = 0; j < cases.length; j++) step[cases[(round + j) % cases.length]!](round > 0);
    log(`round ${round}${round === 0 ? ' (warm-up)' : ''} of ${runs}`);
  }

  // One more run of each under strace: what it read, wrote and fsynced.
  const facts = new Map<Case, ProcessFacts>();
  if (o.strace) {
    const traced = { cwd: dir, env, root: dir, scratch: join(root, 'traces') };
    facts.set('merge', tracedRun(process.execPath, shadowArgs('apply'), traced));
    checkApplied(true);
    unapply(true);
    writeTree('base');
    facts.set('clean', tracedRun(process.execPath, shadowArgs('apply'), traced));
    checkApplied(false);
    unapply(false);
    writeTree('person');
    resetCur();
    facts.set('mergeFile', sumFacts(merged.map((_, i) => tracedRun('git', mergeFileArgs(i), { ...traced, root: mf }))));
  }

  const med = (c: Case): number => median(times[c]);
  console.log(
    `\nrepository: ${thousands(o.n + 2)} tracked files; the draft edits line 2 of ${DRAFT_FILES} of them, the person the last line of ${MERGED} of those (in the working tree, uncommitted)`,
  );
  console.log(
    "Each a whole process (node's start included for shadow, one git start per path for merge-file); an untimed `sync` before each run.",
  );
  console.log(
    'Counts from one more run under strace: files read (opened read-only in the repository; merge-file: its inputs), files written, fsyncs, stat calls.',
  );
  const rows = cases.map((c) => {
    const f = facts.get(c);
    return [
      LABELS[c],
      String(times[c].length),
      ms(med(c)),
      ms(p90(times[c])),
      c === 'mergeFile' ? '' : ratio(med(c), med('mergeFile')),
      c === 'merge' ? `${(med('merge') / med('clean')).toFixed(2)}x` : '',
      count(f?.filesRead),
      count(f?.filesWritten),
      count(f?.fsyncs),
      count(f?.stats),
    ];
  });
  console.log(
    table(
      [
        'case',
        'runs',
        'median ms',
        'p90 ms',
        'vs merge-file x20',
        'vs no merge',
        'files read',
        'files written',
        'fsyncs',
        'stats',
      ],
      rows,
    ),
  );
  const extra = med('merge') - med('clean');
  console.log(
    `\nthe merge's own cost: ${ms(extra)} ms for ${MERGED} paths (${ms(extra / MERGED)} ms a path), against ${ms(med('mergeFile'))} ms for ${MERGED} git merge-file processes (${ms(med('mergeFile') / MERGED)} ms each)`,
  );

  console.log('\n=== targets');
  const vs: Verdict[] = [
    verdict(
      `merging ${MERGED} paths adds less to shadow apply than ${MERGED} git merge-file processes take`,
      [{ ok: extra < med('mergeFile'), text: `${ms(extra)} vs ${ms(med('mergeFile'))} ms` }],
      'needs every case',
    ),
  ];
  printVerdicts(vs, started);
  process.exitCode = vs.every((v) => v.status !== 'FAIL') ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 2;
});
