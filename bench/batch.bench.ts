/**
 * bench/batch.bench.ts: what one batch of k written files costs in
 * repositories of N files, for shadow and for the ways of committing agent
 * writes without it, all measured in the same run on the same batches.
 *
 *   shadow-disk    shadow in-process, warm handle, on disk, fsync on (the targets)
 *   shadow-memfs   shadow in-process, warm handle, the repository in a memfs volume
 *   shadow-cli     `node shadow.mjs batch <file>`, one process per batch (k = 10 only)
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
 */
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { Session } from 'node:inspector/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Volume, createFsFromVolume } from 'memfs';
import { nodeContext, openShadow, type FileSystem } from '../src/index.js';
import { CheckpointRepo, FastImport, Plumbing, ShadowCli, Spawner, straceWorks, type TraceCounts } from './helpers/baselines.js';
import { namesOf, positiveInt, positiveInts, readFlags } from './helpers/flags.js';
import { countingFs, delta, snapshot } from './helpers/counting-fs.js';
import { cachedRepo, copyIntoVolume, copyRepo, countObjects, gitEnv, GitDirReset, run, settle, type CachedRepo } from './helpers/repo.js';
import { fsyncProbe } from './helpers/fsync-probe.js';
import { count, median, ms, p90, ratio, table, thousands } from './helpers/stats.js';
import { BATCH_DIRS, makeBatches, type Batch } from './helpers/workload.js';

// ---------------------------------------------------------------- options

const SYSTEMS = ['shadow-disk', 'shadow-memfs', 'fast-import', 'plumbing', 'shadow-cli', 'checkpoint'] as const;
type System = (typeof SYSTEMS)[number];

const LABELS: Record<System, string> = {
  'shadow-disk': 'shadow, in-process, disk',
  'shadow-memfs': 'shadow, in-process, memfs',
  'shadow-cli': 'shadow batch, a process per batch',
  plumbing: '(a) git plumbing, 6 processes/batch',
  'fast-import': '(b) git fast-import, long-running',
  checkpoint: '(c) git add -A && git commit',
};

const BASELINES = ['plumbing', 'fast-import', 'checkpoint'] as const;
const BASELINE_SHORT: Record<(typeof BASELINES)[number], string> = { plumbing: 'vs (a)', 'fast-import': 'vs (b)', checkpoint: 'vs (c)' };

interface Options {
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

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHADOW_BIN = fileURLToPath(new URL('../bin/shadow.mjs', import.meta.url));

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

function parseArgs(argv: string[]): Options {
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
    '--sizes': (v) => (o.sizes = positiveInts(v(), '--sizes')),
    '--k': (v) => (o.ks = positiveInts(v(), '--k')),
    '--quick': () => (o.quick = true),
    '--only': (v) => (o.only = namesOf(v(), SYSTEMS, '--only')),
    '--runs': (v) => (o.runs = positiveInt(v(), '--runs')),
    '--git-fsync': (v) => (o.gitFsync = v()),
    '--keep': () => (o.keep = true),
    '--no-strace': () => (o.strace = false),
    '--cache': (v) => (o.cacheDir = v()),
    '--profile': (v) => (o.profileDir = v()),
  });
  return o;
}

/** Warm-up and measured batches of a case. */
function plan(system: System, n: number, k: number, o: Options): { warm: number; runs: number } {
  if (o.quick) {
    const runs = { 'shadow-disk': 9, 'shadow-memfs': 9, 'fast-import': 7, plumbing: 5, 'shadow-cli': 5, checkpoint: 3 }[system];
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

// ---------------------------------------------------------------- results

interface CaseResult {
  system: System;
  n: number;
  k: number;
  times: number[];
  /** Per measured batch (means); for git processes, fsyncs and files written come from one more, traced batch. */
  objectsRead?: number;
  objectsWritten?: number;
  packs?: number;
  fsyncs?: number;
  filesWritten?: number;
  fsCalls?: number;
  notes: string[];
}

const results: CaseResult[] = [];
/** The median fsync of a new file on the disk of each N's repository (the probe before its cases). */
const fsyncMedians = new Map<number, number>();
/**
 * Serial waits on the disk in one durable batch: the pack, its index and the
 * ref's lock file (together), the pack directory, the ref's directory, the
 * ledger line. What no CPU work can go below on this disk.
 */
const SERIAL_FSYNCS = 4;

function find(system: System, n: number, k: number): CaseResult | undefined {
  return results.find((r) => r.system === system && r.n === n && r.k === k);
}

function med(system: System, n: number, k: number): number {
  const r = find(system, n, k);
  return r ? median(r.times) : NaN;
}

function log(s: string): void {
  process.stderr.write(`${s}\n`);
}

// ---------------------------------------------------------------- cases

interface Env {
  o: Options;
  repo: CachedRepo;
  /** The scratch copy of the repository (working tree and .git): shadow-disk and checkpoint work here. */
  dir: string;
  scratch: string;
  env: Record<string, string>;
  gitEnv: Record<string, string>;
  spawner: Spawner;
  /** Every git dir the cases write to, each put back as it was after each k. */
  resets: GitDirReset[];
  /** Own copies of the repository's .git for the cases that interleave with shadow-disk. */
  gitDirs: { fastImport: string; plumbing: string; cli: string };
  memfs?: { fs: FileSystem };
  /** (c)'s git dir, made once per N (its set-up is a whole-tree add -A && commit). */
  checkpoint?: CheckpointRepo;
}

/** One system applying one case's batches, one at a time. */
interface Runner {
  readonly system: System;
  readonly warm: number;
  readonly runs: number;
  /** Apply batch `i`, timed; past the warm-up the time is recorded. */
  batch(i: number): Promise<void>;
  /** After the last batch: the per-batch counts (a traced extra batch for processes), clean-up. */
  finish(): Promise<CaseResult>;
}

function batchInput(batch: Batch, i: number): { intent: string; operations: Array<{ operation: 'write'; path: string; content: string }> } {
  return { intent: `bench batch ${i}`, operations: batch.map((w) => ({ operation: 'write' as const, path: w.path, content: w.content })) };
}

/** A CPU profile of part of this process (node:inspector), sampled every 100 µs. */
class Profiler {
  private readonly session = new Session();

  async start(): Promise<void> {
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: 100 });
    await this.session.post('Profiler.start');
  }

  /** Stop, write the profile to `file`, return its path. */
  async stop(file: string): Promise<string> {
    const { profile } = await this.session.post('Profiler.stop');
    this.session.disconnect();
    nodeFs.mkdirSync(dirname(file), { recursive: true });
    nodeFs.writeFileSync(file, JSON.stringify(profile));
    return file;
  }
}

/** shadow in-process: one warm handle, `sh.batch` timed; counts from `sh.stats` and a counting fs. */
async function shadowRunner(e: Env, system: 'shadow-disk' | 'shadow-memfs', k: number, batches: Batch[]): Promise<Runner> {
  const { warm, runs } = plan(system, e.repo.n, k, e.o);
  const onDisk = system === 'shadow-disk';
  const base = onDisk ? (nodeFs as unknown as FileSystem) : e.memfs!.fs;
  const { fs, counters } = countingFs(base);
  const ctx = nodeContext({ fs, env: onDisk ? e.env : { ...e.env, HOME: '/home/bench', XDG_CONFIG_HOME: '/home/bench/.config' } });
  const sh = await openShadow({ dir: onDisk ? e.dir : '/repo', fs: ctx.fs, clock: ctx.clock, ids: ctx.ids, env: ctx.env });
  const draft = `bench-k${k}`;
  const profiler = onDisk && e.o.profileDir !== undefined ? new Profiler() : undefined;
  const times: number[] = [];
  const sums = { read: 0, written: 0, packs: 0, calls: 0, fsyncs: 0, files: 0 };
  return {
    system,
    warm,
    runs,
    async batch(i) {
      if (i === warm && profiler) await profiler.start();
      const input = batchInput(batches[i]!, i);
      const s0 = sh.stats;
      const c0 = snapshot(counters);
      const t0 = performance.now();
      const r = await sh.batch(input, { draft });
      const t1 = performance.now();
      if (!r.success) throw new Error(`${system}: batch ${i} failed: ${JSON.stringify(r.error)}`);
      if (i < warm) return;
      times.push(t1 - t0);
      const s1 = sh.stats;
      const d = delta(counters, c0);
      sums.read += s1.objectsRead - s0.objectsRead;
      sums.written += s1.objectsWritten - s0.objectsWritten;
      sums.packs += s1.packsWritten - s0.packsWritten;
      sums.calls += d.calls;
      sums.fsyncs += d.fsyncs;
      sums.files += d.filesWritten;
    },
    async finish() {
      if (profiler) log(`  wrote ${await profiler.stop(join(e.o.profileDir!, `shadow-disk-n${e.repo.n}-k${k}.cpuprofile`))}`);
      sh.close();
      const per = (x: number): number => x / times.length;
      return {
        system,
        n: e.repo.n,
        k,
        times,
        objectsRead: per(sums.read),
        objectsWritten: per(sums.written),
        packs: per(sums.packs),
        fsyncs: per(sums.fsyncs),
        filesWritten: per(sums.files),
        fsCalls: per(sums.calls),
        notes: [],
      };
    },
  };
}

/**
 * A system whose batches are processes: each batch timed as a whole; objects
 * written from `git count-objects` over its measured batches; fsyncs and files
 * written from one more batch under strace.
 */
function processRunner(
  e: Env,
  system: System,
  k: number,
  batches: Batch[],
  how: {
    apply: (b: Batch, i: number) => void | Promise<void>;
    /** Objects in the git dir the system writes to. */
    objects: () => number;
    /** Trace counts of one more batch (starting at batch `next`), then clean up. */
    after: (next: number) => Promise<TraceCounts | undefined>;
    notes?: string[];
  },
): Runner {
  const { warm, runs } = plan(system, e.repo.n, k, e.o);
  const times: number[] = [];
  let before = 0;
  return {
    system,
    warm,
    runs,
    async batch(i) {
      if (i === warm) before = how.objects();
      const t0 = performance.now();
      await how.apply(batches[i]!, i);
      const t1 = performance.now();
      if (i >= warm) times.push(t1 - t0);
    },
    async finish() {
      const written = (how.objects() - before) / runs;
      const trace = await how.after(warm + runs);
      return { system, n: e.repo.n, k, times, objectsWritten: written, fsyncs: trace?.fsyncs, filesWritten: trace?.filesWritten, notes: how.notes ?? [] };
    },
  };
}

async function traced(e: Env, apply: () => void | Promise<void>): Promise<TraceCounts | undefined> {
  if (!e.o.strace) return undefined;
  e.spawner.startTrace();
  try {
    await apply();
  } catch (err) {
    e.spawner.stopTrace();
    throw err;
  }
  return e.spawner.stopTrace();
}

function objectsIn(e: Env, gitArgs: readonly string[], env: Record<string, string>): () => number {
  return () => {
    const c = countObjects(gitArgs, e.dir, env);
    return c.loose + c.inPack;
  };
}

async function makeRunner(e: Env, system: System, k: number, batches: Batch[]): Promise<Runner> {
  switch (system) {
    case 'shadow-disk':
    case 'shadow-memfs':
      return shadowRunner(e, system, k, batches);
    case 'plumbing': {
      const env = { ...e.gitEnv, GIT_DIR: e.gitDirs.plumbing };
      const p = new Plumbing(e.dir, env, e.scratch, e.spawner);
      return processRunner(e, system, k, batches, {
        apply: (b, i) => p.batch(b, i),
        objects: objectsIn(e, [], env),
        after: (next) => traced(e, () => p.batch(batches[next]!, next)),
      });
    }
    case 'shadow-cli': {
      // Its own git dir (GIT_DIR, GIT_WORK_TREE: the same working tree), so that its packs do not mix with shadow-disk's.
      const env = { ...e.env, GIT_DIR: e.gitDirs.cli, GIT_WORK_TREE: e.dir };
      const cli = new ShadowCli(SHADOW_BIN, e.dir, env, e.scratch, e.spawner, `bench-cli-k${k}`);
      return processRunner(e, system, k, batches, {
        apply: (b, i) => cli.batch(b, i),
        objects: objectsIn(e, [], env),
        after: (next) => traced(e, () => cli.batch(batches[next]!, next)),
        notes: ['shadow-cli: the warm-up batch writes the code cache of `shadow batch` (dist/bin/.code-cache/); the measured ones use it'],
      });
    }
    case 'fast-import': {
      const env = { ...e.gitEnv, GIT_DIR: e.gitDirs.fastImport };
      const fi = new FastImport(e.dir, env, e.spawner);
      return processRunner(e, system, k, batches, {
        apply: (b, i) => fi.batch(b, i),
        objects: objectsIn(e, [], env),
        after: async (next) => {
          await fi.close();
          // fast-import's counts per batch: a process with 3 batches minus one with 1, halved
          // (on fresh batches: fast-import writes no object the repository already has).
          const withBatches = (from: number, count: number): Promise<TraceCounts | undefined> =>
            traced(e, async () => {
              const t = new FastImport(e.dir, env, e.spawner, `refs/heads/fi-trace${count}`);
              for (let i = from; i < from + count; i++) await t.batch(batches[i]!, i);
              await t.close();
            });
          const one = await withBatches(next, 1);
          const three = await withBatches(next + 1, 3);
          return one && three ? { fsyncs: (three.fsyncs - one.fsyncs) / 2, filesWritten: (three.filesWritten - one.filesWritten) / 2 } : undefined;
        },
      });
    }
    case 'checkpoint': {
      const notes: string[] = [];
      if (!e.checkpoint) {
        e.checkpoint = new CheckpointRepo(e.dir, join(e.scratch, 'checkpoint.git'), e.gitEnv, e.spawner);
        const t0 = performance.now();
        e.checkpoint.init();
        notes.push(`(c) set-up, not timed: add -A && commit of the whole tree into a new git dir took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      }
      const cp = e.checkpoint;
      return processRunner(e, system, k, batches, {
        apply: (b, i) => cp.batch(b, i),
        objects: objectsIn(e, cp.args, e.gitEnv),
        after: async (next) => {
          try {
            return await traced(e, () => cp.batch(batches[next]!, next));
          } finally {
            cp.restore(e.gitEnv);
          }
        },
        notes,
      });
    }
  }
}

/**
 * Run `systems` on the same batches, interleaved batch by batch (the order
 * rotating each round), so that a machine busy with something else slows
 * every system alike and the ratios hold; `sync` before every batch, so
 * that none pays for another's writes. Then put every git dir back.
 */
async function runGroup(e: Env, systems: System[], k: number, batches: Batch[]): Promise<void> {
  if (systems.length === 0) return;
  const t0 = performance.now();
  const runners: Runner[] = [];
  try {
    for (const s of systems) runners.push(await makeRunner(e, s, k, batches));
    const rounds = Math.max(...runners.map((r) => r.warm + r.runs));
    for (let i = 0; i < rounds; i++) {
      for (let j = 0; j < runners.length; j++) {
        const r = runners[(i + j) % runners.length]!;
        if (i >= r.warm + r.runs) continue;
        // Untimed: write back what the previous batches left dirty (git's loose objects and index,
        // shadow's unsynced draft.json and reflog). On ext4 an fsync commits the whole journal, so
        // without this one system's fsyncs would pay for another's writes; between an agent's
        // batches (seconds apart) the kernel writes them back anyway.
        settle();
        await r.batch(i);
      }
    }
    for (const r of runners) {
      const res = await r.finish();
      results.push(res);
      log(`  N=${thousands(e.repo.n)} k=${k} ${r.system.padEnd(12)} median ${ms(median(res.times))} ms over ${res.times.length} batches`);
    }
  } finally {
    for (const reset of e.resets) reset.reset();
    settle();
  }
  log(`  (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}

// ---------------------------------------------------------------- start-up

interface Startup {
  node: number[];
  version: number[];
}

function measureStartup(runs: number, env: Record<string, string>): Startup {
  const out: Startup = { node: [], version: [] };
  const time = (args: string[]): number => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
    const t = performance.now() - t0;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${r.stderr}`);
    return t;
  };
  for (let i = 0; i < 3; i++) {
    time(['-e', '0']);
    time([SHADOW_BIN, '--version']);
  }
  for (let i = 0; i < runs; i++) {
    out.node.push(time(['-e', '0']));
    out.version.push(time([SHADOW_BIN, '--version']));
  }
  return out;
}

// ---------------------------------------------------------------- printing

function printTables(o: Options, repos: Map<number, { repo: CachedRepo; note: string }>): void {
  for (const n of o.sizes) {
    const info = repos.get(n);
    if (!info) continue;
    console.log(`\n=== N = ${thousands(n)} files: ${info.note}`);
    for (const k of o.ks) {
      const rows: string[][] = [];
      for (const system of SYSTEMS) {
        const r = find(system, n, k);
        if (!r) continue;
        const m = median(r.times);
        const ratios = BASELINES.map((b) => (b === system ? '-' : ratio(m, med(b, n, k))));
        rows.push([
          LABELS[system],
          String(r.times.length),
          ms(m),
          ms(p90(r.times)),
          ...ratios,
          count(r.objectsRead),
          count(r.objectsWritten),
          count(r.packs),
          count(r.fsyncs),
          count(r.filesWritten),
          count(r.fsCalls),
        ]);
      }
      if (rows.length === 0) continue;
      console.log(`\nk = ${k} file${k === 1 ? '' : 's'} per batch (half modified tracked files, half new files, in ${BATCH_DIRS} leaf directories at every N)`);
      console.log(
        table(
          ['case', 'runs', 'median ms', 'p90 ms', ...BASELINES.map((b) => BASELINE_SHORT[b]), 'obj read', 'obj written', 'packs', 'fsyncs', 'files written', 'fs calls'],
          rows,
        ),
      );
      const sentences: string[] = [];
      for (const mine of ['shadow-disk', 'shadow-memfs'] as const) {
        const m = med(mine, n, k);
        if (!Number.isFinite(m)) continue;
        const parts = BASELINES.filter((b) => Number.isFinite(med(b, n, k))).map((b) => `${ratio(m, med(b, n, k))} than ${b}`);
        if (parts.length > 0) sentences.push(`${LABELS[mine]}: ${parts.join(', ')}`);
      }
      const cli = med('shadow-cli', n, k);
      if (Number.isFinite(cli) && Number.isFinite(med('plumbing', n, k))) sentences.push(`shadow batch as a process: ${ratio(cli, med('plumbing', n, k))} than plumbing as processes`);
      for (const s of sentences) console.log(`  ${s}`);
      for (const system of SYSTEMS) for (const note of find(system, n, k)?.notes ?? []) console.log(`  ${note}`);
    }
  }
}

interface Verdict {
  status: 'PASS' | 'FAIL' | 'SKIP';
  target: string;
  detail: string;
}

function verdicts(o: Options, startup: Startup | undefined): Verdict[] {
  const out: Verdict[] = [];
  const sd = (n: number, k: number): number => med('shadow-disk', n, k);
  const ks = (want: number[]): number[] => want.filter((k) => o.ks.includes(k));
  const add = (target: string, checks: Array<{ ok: boolean; text: string }>, missing: string): void => {
    if (checks.length === 0) out.push({ status: 'SKIP', target, detail: missing });
    else out.push({ status: checks.every((c) => c.ok) ? 'PASS' : 'FAIL', target, detail: checks.map((c) => c.text).join('; ') });
  };
  const both = (a: number, b: number): boolean => Number.isFinite(a) && Number.isFinite(b);

  for (const k of ks([1, 10])) {
    const checks = o.sizes
      .filter((n) => both(sd(n, k), med('fast-import', n, k)))
      .map((n) => {
        const x = med('fast-import', n, k) / sd(n, k);
        const f = fsyncMedians.get(n);
        const floor = f === undefined ? '' : `; 4x needs ${ms(med('fast-import', n, k) / 4)} ms, ${SERIAL_FSYNCS} serial fsyncs alone take ${ms(SERIAL_FSYNCS * f)}`;
        return { ok: x >= 4, text: `N=${thousands(n)}: ${x.toFixed(1)}x (${ms(sd(n, k))} vs ${ms(med('fast-import', n, k))} ms${floor})` };
      });
    add(`k=${k}: at least 4x faster than (b) fast-import`, checks, 'needs shadow-disk and fast-import');
    const n = 50000;
    const c = both(sd(n, k), med('checkpoint', n, k)) ? [{ ok: med('checkpoint', n, k) / sd(n, k) >= 25, text: `${(med('checkpoint', n, k) / sd(n, k)).toFixed(1)}x (${ms(sd(n, k))} vs ${ms(med('checkpoint', n, k))} ms)` }] : [];
    add(`k=${k}: at least 25x faster than (c) add -A && commit at N=50,000`, c, 'needs N=50,000 with shadow-disk and checkpoint');
  }
  for (const k of ks([100])) {
    const checks = o.sizes
      .filter((n) => both(sd(n, k), med('fast-import', n, k)))
      .map((n) => {
        const x = med('fast-import', n, k) / sd(n, k);
        return { ok: x > 1, text: `N=${thousands(n)}: ${x.toFixed(2)}x (${ms(sd(n, k))} vs ${ms(med('fast-import', n, k))} ms)` };
      });
    add(`k=${k}: faster than (b) fast-import`, checks, 'needs shadow-disk and fast-import');
  }
  for (const k of o.ks) {
    const a = sd(1000, k);
    const b = sd(50000, k);
    const ma = med('shadow-memfs', 1000, k);
    const mb = med('shadow-memfs', 50000, k);
    const memfs = both(ma, mb) ? `; memfs, for comparison: ${(mb / ma).toFixed(2)}x (${ms(mb)} vs ${ms(ma)} ms)` : '';
    const c = both(a, b) ? [{ ok: b / a <= 1.25, text: `${(b / a).toFixed(2)}x (${ms(b)} ms at N=50,000 vs ${ms(a)} ms at N=1,000)${memfs}` }] : [];
    add(`k=${k}: flat in N, median at N=50,000 within 1.25x of N=1,000`, c, 'needs N=1,000 and N=50,000 with shadow-disk');
  }
  if (startup) {
    const nodeMs = median(startup.node);
    const versionMs = median(startup.version);
    add('start-up: `shadow --version` within 2x of `node -e 0`', [{ ok: versionMs <= 2 * nodeMs, text: `${(versionMs / nodeMs).toFixed(2)}x (${ms(versionMs)} vs ${ms(nodeMs)} ms)` }], '');
  } else {
    add('start-up: `shadow --version` within 2x of `node -e 0`', [], 'not measured (--only)');
  }
  {
    const n = 50000;
    const a = med('shadow-cli', n, 10);
    const b = med('plumbing', n, 10);
    const c = both(a, b) ? [{ ok: a < b, text: `${(b / a).toFixed(2)}x (${ms(a)} vs ${ms(b)} ms)` }] : [];
    add('one-shot `shadow batch` (k=10, N=50,000) faster than (a) plumbing, as whole processes', c, 'needs N=50,000, k=10 with shadow-cli and plumbing');
  }
  return out;
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (!nodeFs.existsSync(SHADOW_BIN)) throw new Error(`the CLI bundle ${SHADOW_BIN} is missing: run npm run build first`);
  if (o.strace && !straceWorks()) {
    log('strace is not available here: the git baselines are shown without fsyncs and files written');
    o.strace = false;
  }
  nodeFs.mkdirSync(o.cacheDir, { recursive: true });
  const scratchRoot = join(o.cacheDir, `run-${process.pid}`);
  const home = join(scratchRoot, 'home');
  nodeFs.mkdirSync(home, { recursive: true });
  const cleanup = (): void => {
    if (!o.keep) nodeFs.rmSync(scratchRoot, { recursive: true, force: true });
  };
  process.on('exit', cleanup);
  process.on('SIGINT', () => process.exit(130));

  const env = gitEnv(home);
  const gitBaselineEnv = o.gitFsync === undefined ? env : { ...env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsync', GIT_CONFIG_VALUE_0: o.gitFsync };
  const gitVersion = run('git', ['--version']).trim();
  const started = performance.now();

  console.log('shadow batch benchmark (bench/batch.bench.ts)');
  console.log(`${new Date().toISOString()}  node ${process.version}  ${gitVersion}  ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}  ${Math.round(totalmem() / 2 ** 30)} GB`);
  console.log(`load average at the start: ${loadavg().map((x) => x.toFixed(2)).join(' ')} (other work on the machine slows the disk and the processes alike for every case)`);
  console.log(`sizes ${o.sizes.map(thousands).join(', ')}; k ${o.ks.join(', ')}; ${o.quick ? 'quick' : 'full'} run; cases: ${[...o.only].join(', ')}`);
  console.log(
    `shadow: in-process, warm handle (openShadow once, warm-up batches first), fsync on. git baselines: ${
      o.gitFsync === undefined ? "git's default core.fsync (packs and pack indexes fsynced; loose objects, refs and the index not)" : `core.fsync=${o.gitFsync}`
    }.`,
  );
  console.log('Each batch writes k files: half modify tracked files drawn at random over the tree (first touches), half create new files; every case applies the same batches.');
  console.log('The cases of one k run interleaved batch by batch, with `sync` (untimed) before every batch: dirty pages written back, as between an agent\'s batches.');
  console.log('(b) checkpoints after every batch; with fewer than 100 objects it explodes the pack into loose objects (fastimport.unpackLimit, a `git unpack-objects` child).');
  console.log("Ratios: the baseline's median over this row's median. Counts are per measured batch. shadow's come from sh.stats and a counting fs");
  console.log('(obj written includes the objects shadow rewrites when it merges its small packs; packs > 1 shows those merges). For git processes:');
  console.log('objects written from git count-objects, fsyncs and files written (opened for writing) from strace on one more batch; objects read are not known.');

  let startup: Startup | undefined;
  if (o.only.has('shadow-cli') || o.only.size === SYSTEMS.length) {
    log('start-up: node -e 0 vs shadow --version...');
    startup = measureStartup(o.quick ? 10 : 30, env);
    console.log(`\nstart-up (${startup.node.length} runs each, interleaved)`);
    console.log(
      table(
        ['process', 'median ms', 'p90 ms', 'ratio'],
        [
          ['node -e 0', ms(median(startup.node)), ms(p90(startup.node)), '1.00x'],
          ['node shadow.mjs --version', ms(median(startup.version)), ms(p90(startup.version)), `${(median(startup.version) / median(startup.node)).toFixed(2)}x`],
        ],
      ),
    );
  }

  const repos = new Map<number, { repo: CachedRepo; note: string }>();
  for (const n of o.sizes) {
    const repo = cachedRepo(o.cacheDir, n, env, log);
    const dir = join(scratchRoot, `repo-n${n}`);
    const t0 = performance.now();
    log(`N=${thousands(n)}: copying the cached repository to ${dir}...`);
    copyRepo(repo.dir, dir, env);
    const copySeconds = (performance.now() - t0) / 1000;
    const objs = countObjects([], dir, env);
    const probe = fsyncProbe(join(dir, '.git'));
    fsyncMedians.set(n, probe.median);
    const note =
      `${thousands(n + 2)} tracked files in ${thousands(repo.layout.leafDirs.length)} leaf directories under ${repo.layout.topDirs} top-level ones; ` +
      `${thousands(objs.inPack)} objects in ${objs.packs} pack (git gc)` +
      (repo.generatedIn !== undefined ? `; generated in ${repo.generatedIn.toFixed(1)} s` : '; from the cache') +
      `; copied in ${copySeconds.toFixed(1)} s` +
      `\n    fsync of a new 4 KB file on this disk, before the cases: median ${ms(probe.median)} ms, p90 ${ms(probe.p90)} ms`;
    repos.set(n, { repo, note });
    const scratch = join(scratchRoot, `scratch-n${n}`);
    nodeFs.mkdirSync(scratch, { recursive: true });
    const pristine = join(repo.dir, '.git');
    const restoreFrom = (rel: string, abs: string): void => nodeFs.copyFileSync(join(pristine, rel), abs);
    const gitDirs = { fastImport: join(scratch, 'fast-import.git'), plumbing: join(scratch, 'plumbing.git'), cli: join(scratch, 'cli.git') };
    for (const d of Object.values(gitDirs)) run('cp', ['-a', join(dir, '.git'), d]);
    const resets = [join(dir, '.git'), ...Object.values(gitDirs)].map((d) => new GitDirReset(nodeFs as never, d, restoreFrom));
    const e: Env = { o, repo, dir, scratch, env, gitEnv: gitBaselineEnv, spawner: new Spawner(scratch), resets, gitDirs };
    if (o.only.has('shadow-memfs')) {
      const vol = new Volume();
      const mfs = createFsFromVolume(vol);
      const files = copyIntoVolume(dir, '/repo', mfs as never);
      log(`N=${thousands(n)}: copied ${thousands(files)} files into a memfs volume`);
      e.memfs = { fs: mfs as unknown as FileSystem };
      resets.push(new GitDirReset(mfs as never, '/repo/.git', (rel, abs) => mfs.writeFileSync(abs, nodeFs.readFileSync(join(pristine, rel)))));
    }
    settle();
    for (const k of o.ks) {
      const most = Math.max(...SYSTEMS.map((s) => plan(s, n, k, o)).map((p) => p.warm + p.runs)) + 5;
      const batches = makeBatches(repo.layout, k, most, `k${k}`);
      // Everything but (c) leaves the working tree alone: interleaved. (c) writes into it: alone, after.
      const group = SYSTEMS.filter((s) => o.only.has(s) && s !== 'checkpoint' && (s !== 'shadow-cli' || k === 10));
      await runGroup(e, group, k, batches);
      if (o.only.has('checkpoint')) await runGroup(e, ['checkpoint'], k, batches);
    }
    e.memfs = undefined;
    if (!o.keep) {
      nodeFs.rmSync(dir, { recursive: true, force: true });
      nodeFs.rmSync(scratch, { recursive: true, force: true });
    }
  }

  printTables(o, repos);
  console.log('\n=== targets (shadow in-process, warm, on disk, fsync on)');
  const vs = verdicts(o, startup);
  for (const v of vs) console.log(`${v.status}  ${v.target}${v.detail ? `: ${v.detail}` : ''}`);
  const pass = vs.filter((v) => v.status === 'PASS').length;
  const fail = vs.filter((v) => v.status === 'FAIL').length;
  const skip = vs.filter((v) => v.status === 'SKIP').length;
  console.log(`load average at the end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`\n${pass} passed, ${fail} failed, ${skip} skipped  (${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.stack ?? e.message : e);
  process.exitCode = 1;
});
