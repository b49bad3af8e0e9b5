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
 */
import * as nodeFs from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeContext, openShadow, type FileSystem, type Shadow } from '../src/index.js';
import { Spawner, straceWorks, type TraceCounts } from './helpers/baselines.js';
import { countingFs, delta, snapshot, type FsCounters } from './helpers/counting-fs.js';
import { fsyncProbe } from './helpers/fsync-probe.js';
import { Profiler, inWindows, nowUs, type Window } from './helpers/profile.js';
import { cachedRepo, copyRepo, countObjects, gitEnv, run, settle, type CachedRepo } from './helpers/repo.js';
import { namesOf, positiveInt, positiveInts, readFlags } from './helpers/flags.js';
import { count, median, ms, p90, ratio, table, thousands } from './helpers/stats.js';
import { whereDelta, whereFs, whereSnapshot, type WhereCounters } from './helpers/where-fs.js';
import { content, prng } from './helpers/workload.js';

// ---------------------------------------------------------------- options

const CASES = ['shadow', 'floor', 'checkout'] as const;
type Case = (typeof CASES)[number];

/** The rows of a k's table. */
const ROWS = ['apply', 'unapply', 'dry-run', 'dry-run-cold', 'dry-run-first', 'floor', 'checkout'] as const;
type Row = (typeof ROWS)[number];

const LABELS: Record<Row, string> = {
  apply: 'shadow apply',
  unapply: 'shadow unapply',
  'dry-run': 'shadow apply --dry-run (warm handle)',
  'dry-run-cold': 'shadow apply --dry-run (fresh handle)',
  'dry-run-first': '  the same, first review (no cache)',
  floor: 'floor: node fs, write+fsync, dirs fsynced',
  checkout: 'git checkout <draft> -- <paths>',
};

const DRY_RUN_BUDGET_MS = 50;
/** Sampling interval of --profile: node --cpu-prof's default; finer sampling slows the applies it measures. */
const PROFILE_INTERVAL_US = 1000;
const FLOOR_FACTOR = 2;

interface Options {
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

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST_ROOT = fileURLToPath(new URL('../', import.meta.url));

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

function parseArgs(argv: string[]): Options {
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
    '--k': (v) => (o.ks = positiveInts(v(), '--k')),
    '--n': (v) => (o.n = positiveInt(v(), '--n')),
    '--quick': () => (o.quick = true),
    '--runs': (v) => (o.runs = positiveInt(v(), '--runs')),
    '--only': (v) => (o.only = namesOf(v(), CASES, '--only')),
    '--no-strace': () => (o.strace = false),
    '--keep': () => (o.keep = true),
    '--cache': (v) => (o.cacheDir = v()),
    '--profile': (v) => (o.profileDir = v()),
  });
  if (o.ks.some((k) => k > o.n)) throw new Error(`--k: a draft cannot change more than the ${o.n} files of the repository`);
  return o;
}

/** Warm-up rounds and measured runs for k. */
function plan(k: number, o: Options): { warm: number; runs: number; dryRuns: number } {
  const big = k >= 1000;
  if (o.quick) return { warm: 1, runs: o.runs ?? (big ? 2 : 3), dryRuns: o.runs ?? 3 };
  return { warm: 1, runs: o.runs ?? (big ? 5 : 10), dryRuns: o.runs ?? 10 };
}

function log(s: string): void {
  process.stderr.write(`${s}\n`);
}

// ---------------------------------------------------------------- results

/** Per-run facts (means over the measured runs). */
interface Facts {
  filesWritten?: number;
  /** Files written in the work tree (not under .git). */
  worktreeFiles?: number;
  fsyncs?: number;
  worktreeFileFsyncs?: number;
  worktreeDirFsyncs?: number;
  gitFsyncs?: number;
  objectsRead?: number;
  fsCalls?: number;
  bytesWritten?: number;
}

interface RowResult extends Facts {
  row: Row;
  k: number;
  times: number[];
}

const results: RowResult[] = [];

function find(row: Row, k: number): RowResult | undefined {
  return results.find((r) => r.row === row && r.k === k);
}

function med(row: Row, k: number): number {
  const r = find(row, k);
  return r && r.times.length > 0 ? median(r.times) : NaN;
}

/** Sums of the per-run facts of one row, divided by the runs at the end. */
class Tally {
  readonly times: number[] = [];
  private readonly sums: Required<Facts> = {
    filesWritten: 0,
    worktreeFiles: 0,
    fsyncs: 0,
    worktreeFileFsyncs: 0,
    worktreeDirFsyncs: 0,
    gitFsyncs: 0,
    objectsRead: 0,
    fsCalls: 0,
    bytesWritten: 0,
  };

  add(ms: number, c: FsCounters, w: WhereCounters, objectsRead?: number): void {
    this.times.push(ms);
    const wt = w.get(WORK_TREE) ?? { filesWritten: 0, fileFsyncs: 0, dirFsyncs: 0 };
    const git = w.get(GIT_DIR) ?? { filesWritten: 0, fileFsyncs: 0, dirFsyncs: 0 };
    this.sums.filesWritten += c.filesWritten;
    this.sums.worktreeFiles += wt.filesWritten;
    this.sums.fsyncs += c.fsyncs;
    this.sums.worktreeFileFsyncs += wt.fileFsyncs;
    this.sums.worktreeDirFsyncs += wt.dirFsyncs;
    this.sums.gitFsyncs += git.fileFsyncs + git.dirFsyncs;
    this.sums.objectsRead += objectsRead ?? 0;
    this.sums.fsCalls += c.calls;
    this.sums.bytesWritten += c.bytesWritten;
  }

  result(row: Row, k: number): RowResult {
    const n = this.times.length || 1;
    const per = (x: number): number => x / n;
    const s = this.sums;
    return {
      row,
      k,
      times: this.times,
      filesWritten: per(s.filesWritten),
      worktreeFiles: per(s.worktreeFiles),
      fsyncs: per(s.fsyncs),
      worktreeFileFsyncs: per(s.worktreeFileFsyncs),
      worktreeDirFsyncs: per(s.worktreeDirFsyncs),
      gitFsyncs: per(s.gitFsyncs),
      objectsRead: per(s.objectsRead),
      fsCalls: per(s.fsCalls),
      bytesWritten: per(s.bytesWritten),
    };
  }
}

// ---------------------------------------------------------------- the file systems

const WORK_TREE = 'work tree';
const GIT_DIR = '.git';

/** node's fs under the two wrappers: counts, and where the writes and fsyncs go. */
function instrumentedFs(root: string): { fs: FileSystem; counters: FsCounters; where: WhereCounters } {
  const gitPrefix = `${root}/.git/`;
  const w = whereFs(nodeFs as unknown as FileSystem, (p) => (p.startsWith(gitPrefix) || p === `${root}/.git` ? GIT_DIR : WORK_TREE));
  const c = countingFs(w.fs);
  return { fs: c.fs, counters: c.counters, where: w.counters };
}

/** A measurement window over both wrappers and shadow's object counters. */
function mark(i: { counters: FsCounters; where: WhereCounters }, sh?: Shadow): () => { c: FsCounters; w: WhereCounters; objectsRead?: number } {
  const c0 = snapshot(i.counters);
  const w0 = whereSnapshot(i.where);
  const o0 = sh?.stats.objectsRead;
  return () => ({ c: delta(i.counters, c0), w: whereDelta(i.where, w0), objectsRead: sh && o0 !== undefined ? sh.stats.objectsRead - o0 : undefined });
}

// ---------------------------------------------------------------- the workload

interface Change {
  path: string;
  old: Buffer;
  new: Buffer;
}

/**
 * k tracked files drawn at random over the whole tree (a seeded shuffle, so
 * every run changes the same files), each rewritten to 1-4 KB: a header
 * line, the file as it was, lines added up to a size drawn in 1,024..4,096.
 */
function makeChanges(repo: CachedRepo, dir: string, k: number): Change[] {
  const rand = prng(repo.n * 7919 + k);
  const order = [...repo.layout.paths];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order.slice(0, k).map((path) => {
    const old = nodeFs.readFileSync(join(dir, path));
    const target = 1024 + Math.floor(rand() * 3073);
    let text = `// ${path}: edited for the apply benchmark (k=${k})\n${old.toString('utf8')}`;
    while (Buffer.byteLength(text) < target) text += content(rand, '// added');
    const buf = Buffer.from(text, 'utf8');
    return { path, old, new: buf.length > 4096 ? Buffer.from(cutAtLine(buf, 4096)) : buf };
  });
}

/** The longest prefix of `buf` of at most `max` bytes that ends with a newline (ASCII text). */
function cutAtLine(buf: Buffer, max: number): Buffer {
  const nl = buf.lastIndexOf(0x0a, max - 1);
  return buf.subarray(0, nl === -1 ? max : nl + 1);
}

function directoriesOf(root: string, changes: readonly Change[]): string[] {
  return [...new Set(changes.map((c) => dirname(join(root, c.path))))];
}

/** True when every changed path holds `which` side of its change. */
function treeHolds(root: string, changes: readonly Change[], which: 'old' | 'new'): boolean {
  return changes.every((c) => nodeFs.readFileSync(join(root, c.path)).equals(c[which]));
}

// ---------------------------------------------------------------- the cases

/**
 * The floor: the same contents written in place with plain fs calls: open,
 * write, fsync, close each file; then open and fsync each directory touched.
 */
function floorWrite(fs: FileSystem, root: string, changes: readonly Change[], dirs: readonly string[]): void {
  for (const c of changes) {
    const fd = fs.openSync(join(root, c.path), 'w');
    try {
      let off = 0;
      while (off < c.new.length) off += fs.writeSync(fd, c.new, off, c.new.length - off);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
  for (const d of dirs) {
    const fd = fs.openSync(d, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
}

interface Env {
  o: Options;
  repo: CachedRepo;
  /** The scratch copy (working tree and .git) every case works in. */
  dir: string;
  env: Record<string, string>;
  spawner: Spawner;
  sh: Shadow;
  /** A new handle on the same instrumented fs (a fresh process's view, minus node's start). */
  open: () => Promise<Shadow>;
  shadowFs: { counters: FsCounters; where: WhereCounters };
  floorFs: { fs: FileSystem; counters: FsCounters; where: WhereCounters };
}

function git(e: Env, args: string[]): string {
  return run('git', args, { cwd: e.dir, env: e.env });
}

/**
 * Untimed: the index's stat data brought up to date after a case rewrote
 * files behind git's back (same contents, new inodes and times), so that no
 * later git checkout pays for re-checking them.
 */
function refreshIndex(e: Env): void {
  git(e, ['update-index', '-q', '--refresh']);
}

function checkoutArgs(ref: string, changes: readonly Change[]): string[] {
  return ['checkout', '-q', ref, '--', ...changes.map((c) => c.path)];
}

/** Profiles the measured `sh.apply` calls of one k, when asked. */
interface ProfileRun {
  profiler: Profiler;
  /** The measured applies. */
  windows: Window[];
  /** The measured dry runs. */
  dryWindows: Window[];
  /** The dry runs on a fresh handle. */
  coldWindows: Window[];
}

/** What runK reports besides the rows. */
interface KInfo {
  /** Directories the changes touch. */
  dirs: number;
  /** One fsync on this disk just before the k's runs (the disk is shared: it moves). */
  probe: { median: number; p90: number };
}

/** Run every case at k. */
async function runK(e: Env, k: number): Promise<KInfo> {
  const { o, sh, dir } = e;
  const t0 = performance.now();
  const { warm, runs, dryRuns } = plan(k, o);
  const draft = `apply-bench-k${k}`;
  const ref = `refs/shadow/drafts/${draft}`;
  const changes = makeChanges(e.repo, dir, k);
  const dirs = directoriesOf(dir, changes);

  // The draft: one batch of k modifications.
  const r = await sh.batch({ intent: `apply bench: ${k} files`, operations: changes.map((c) => ({ operation: 'write', path: c.path, content: c.new.toString('utf8') })) }, { draft });
  if (!r.success) throw new Error(`k=${k}: the draft's batch failed: ${JSON.stringify(r.error)}`);
  const plan0 = await sh.apply({ draft, dryRun: true });
  if (plan0.paths.length !== k || plan0.conflicts.length > 0) throw new Error(`k=${k}: the draft publishes ${plan0.paths.length} paths with ${plan0.conflicts.length} conflicts`);
  settle();
  const probe = fsyncProbe(join(dir, '.git'));

  const cases = CASES.filter((c) => o.only.has(c));
  const tallies = new Map<Row, Tally>(ROWS.map((row) => [row, new Tally()]));
  const profile: ProfileRun | undefined = o.profileDir !== undefined && o.only.has('shadow') ? { profiler: new Profiler(PROFILE_INTERVAL_US), windows: [], dryWindows: [], coldWindows: [] } : undefined;

  const step: Record<Case, (measured: boolean, verify: boolean) => Promise<void>> = {
    async shadow(measured, verify) {
      settle();
      let m = mark(e.shadowFs, sh);
      const w0 = nowUs();
      let t = performance.now();
      const a = await sh.apply({ draft });
      let ms = performance.now() - t;
      if (measured) profile?.windows.push([w0, nowUs()]);
      if (!a.applied || a.paths.length !== k) {
        const pending = (a as { pendingApprovals?: unknown[] }).pendingApprovals ?? [];
        throw new Error(`k=${k}: apply published ${a.paths.length} paths (applied: ${a.applied}${pending.length > 0 ? `; approvals pending: ${JSON.stringify(pending)}` : ''})`);
      }
      if (measured) {
        const d = m();
        tallies.get('apply')!.add(ms, d.c, d.w, d.objectsRead);
      }
      if (verify && !treeHolds(dir, changes, 'new')) throw new Error(`k=${k}: after shadow apply the work tree does not hold the draft's contents`);
      settle();
      m = mark(e.shadowFs, sh);
      t = performance.now();
      const u = await sh.unapply({ draft });
      ms = performance.now() - t;
      if (u.paths.length !== k) throw new Error(`k=${k}: unapply put back ${u.paths.length} paths`);
      if (measured) {
        const d = m();
        tallies.get('unapply')!.add(ms, d.c, d.w, d.objectsRead);
      }
      if (verify && !treeHolds(dir, changes, 'old')) throw new Error(`k=${k}: after shadow unapply the work tree does not hold the old contents`);
      refreshIndex(e);
    },
    async floor(measured, verify) {
      settle();
      const m = mark(e.floorFs);
      const t = performance.now();
      floorWrite(e.floorFs.fs, dir, changes, dirs);
      const ms = performance.now() - t;
      if (measured) {
        const d = m();
        tallies.get('floor')!.add(ms, d.c, d.w, 0);
      }
      if (verify && !treeHolds(dir, changes, 'new')) throw new Error(`k=${k}: after the floor's writes the work tree does not hold the draft's contents`);
      for (const c of changes) nodeFs.writeFileSync(join(dir, c.path), c.old);
      refreshIndex(e);
    },
    async checkout(measured, verify) {
      settle();
      const t = performance.now();
      e.spawner.run('git', checkoutArgs(ref, changes), { cwd: dir, env: e.env });
      const ms = performance.now() - t;
      if (measured) tallies.get('checkout')!.times.push(ms);
      if (verify && !treeHolds(dir, changes, 'new')) throw new Error(`k=${k}: after git checkout the work tree does not hold the draft's contents`);
      git(e, checkoutArgs('HEAD', changes));
    },
  };

  if (profile) await profile.profiler.start();
  const rounds = warm + runs;
  for (let i = 0; i < rounds; i++) {
    for (let j = 0; j < cases.length; j++) {
      const c = cases[(i + j) % cases.length]!;
      await step[c](i >= warm, i === 0);
    }
  }

  // One more checkout under strace: its fsyncs and files written.
  let trace: TraceCounts | undefined;
  if (o.only.has('checkout') && o.strace) {
    settle();
    e.spawner.startTrace();
    try {
      e.spawner.run('git', checkoutArgs(ref, changes), { cwd: dir, env: e.env });
    } finally {
      trace = e.spawner.stopTrace();
    }
    git(e, checkoutArgs('HEAD', changes));
  }

  // Dry runs: the tree holds the bases, nothing is written.
  if (o.only.has('shadow')) {
    settle();
    for (let i = 0; i < warm + dryRuns; i++) {
      const m = mark(e.shadowFs, sh);
      const w0 = nowUs();
      const t = performance.now();
      const d = await sh.apply({ draft, dryRun: true });
      const ms = performance.now() - t;
      if (i >= warm) profile?.dryWindows.push([w0, nowUs()]);
      if (d.applied || d.paths.length !== k || d.conflicts.length > 0) throw new Error(`k=${k}: the dry run lists ${d.paths.length} paths, ${d.conflicts.length} conflicts`);
      if (i >= warm) {
        const x = m();
        tallies.get('dry-run')!.add(ms, x.c, x.w, x.objectsRead);
      }
    }
    // As a fresh `shadow apply --dry-run` process sees it: a handle opened
    // (untimed) for each run, so no object, tree or review is cached.
    for (let i = 0; i < dryRuns; i++) {
      const fresh = await e.open();
      const m = mark(e.shadowFs, fresh);
      const w0 = nowUs();
      const t = performance.now();
      const d = await fresh.apply({ draft, dryRun: true });
      const ms = performance.now() - t;
      profile?.coldWindows.push([w0, nowUs()]);
      fresh.close();
      if (d.applied || d.paths.length !== k || d.conflicts.length > 0) throw new Error(`k=${k}: the cold dry run lists ${d.paths.length} paths, ${d.conflicts.length} conflicts`);
      const x = m();
      tallies.get('dry-run-cold')!.add(ms, x.c, x.w, x.objectsRead);
    }
    // A fresh handle on a draft state nobody reviewed yet: the review and
    // publish-set caches removed (untimed) before each run.
    for (let i = 0; i < dryRuns; i++) {
      for (const f of ['review.cache', 'publish.cache']) nodeFs.rmSync(`${e.dir}/.git/shadow/drafts/${draft}/${f}`, { force: true });
      const fresh = await e.open();
      const m = mark(e.shadowFs, fresh);
      const t = performance.now();
      const d = await fresh.apply({ draft, dryRun: true });
      const ms = performance.now() - t;
      fresh.close();
      if (d.paths.length !== k) throw new Error(`k=${k}: the first dry run lists ${d.paths.length} paths`);
      const x = m();
      tallies.get('dry-run-first')!.add(ms, x.c, x.w, x.objectsRead);
    }
  }

  if (profile) {
    const file = join(o.profileDir!, `apply-n${e.repo.n}-k${k}.cpuprofile`);
    const p = await profile.profiler.stop(file);
    if (profile.windows.length > 0) profiles.push({ k, what: 'sh.apply', file, summary: inWindows(p, profile.windows, DIST_ROOT), runs: profile.windows.length });
    if (profile.dryWindows.length > 0) profiles.push({ k, what: 'sh.apply --dry-run', file, summary: inWindows(p, profile.dryWindows, DIST_ROOT), runs: profile.dryWindows.length });
    if (profile.coldWindows.length > 0) profiles.push({ k, what: 'sh.apply --dry-run on a fresh handle', file, summary: inWindows(p, profile.coldWindows, DIST_ROOT), runs: profile.coldWindows.length });
  }

  // The tree is back as it was: nothing modified, nothing left over (temporary files, say).
  const status = git(e, ['status', '--porcelain']);
  if (status.trim() !== '') throw new Error(`k=${k}: the work tree was not restored:\n${status.slice(0, 2000)}`);

  for (const row of ROWS) {
    const t = tallies.get(row)!;
    if (t.times.length === 0) continue;
    // git checkout is a process: its counts are strace's (one more run), nothing else is known.
    const res: RowResult = row === 'checkout' ? { row, k, times: t.times, fsyncs: trace?.fsyncs, filesWritten: trace?.filesWritten } : t.result(row, k);
    results.push(res);
    log(`  k=${k} ${row.padEnd(8)} median ${ms(median(res.times))} ms over ${res.times.length} runs`);
  }
  log(`  (k=${k}: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return { dirs: dirs.length, probe };
}

const profiles: Array<{ k: number; what: string; file: string; runs: number; summary: ReturnType<typeof inWindows> }> = [];

// ---------------------------------------------------------------- printing

function printTable(k: number, info: KInfo): void {
  const dirCount = info.dirs;
  const rows: string[][] = [];
  for (const row of ROWS) {
    const r = find(row, k);
    if (!r) continue;
    const m = median(r.times);
    const versus = (b: Row): string => (b === row ? '-' : ratio(m, med(b, k)));
    rows.push([
      LABELS[row],
      String(r.times.length),
      ms(m),
      ms(p90(r.times)),
      row.startsWith('dry-run') ? '' : versus('floor'),
      row.startsWith('dry-run') ? '' : versus('checkout'),
      count(r.filesWritten),
      count(r.worktreeFiles),
      r.bytesWritten === undefined ? '-' : (r.bytesWritten / 1024).toFixed(0),
      count(r.fsyncs),
      count(r.worktreeFileFsyncs),
      count(r.worktreeDirFsyncs),
      count(r.gitFsyncs),
      count(r.objectsRead),
      count(r.fsCalls),
    ]);
  }
  if (rows.length === 0) return;
  console.log(
    `\nk = ${thousands(k)} changed file${k === 1 ? '' : 's'} (in ${thousands(dirCount)} director${dirCount === 1 ? 'y' : 'ies'}); ` +
      `fsync of a new 4 KB file just before: median ${ms(info.probe.median)} ms, p90 ${ms(info.probe.p90)} ms`,
  );
  console.log(
    table(
      ['case', 'runs', 'median ms', 'p90 ms', 'vs floor', 'vs checkout', 'files written', 'in wt', 'KB written', 'fsyncs', 'wt files', 'wt dirs', '.git', 'obj read', 'fs calls'],
      rows,
    ),
  );
  const a = med('apply', k);
  const parts: string[] = [];
  if (Number.isFinite(a) && Number.isFinite(med('floor', k))) parts.push(`${(a / med('floor', k)).toFixed(2)}x the floor's time`);
  if (Number.isFinite(a) && Number.isFinite(med('checkout', k))) parts.push(`${ratio(a, med('checkout', k))} than git checkout`);
  if (parts.length > 0) console.log(`  shadow apply: ${parts.join(', ')}`);
}

interface Verdict {
  status: 'PASS' | 'FAIL' | 'SKIP';
  target: string;
  detail: string;
}

function verdicts(o: Options): Verdict[] {
  const out: Verdict[] = [];
  const both = (a: number, b: number): boolean => Number.isFinite(a) && Number.isFinite(b);
  const add = (target: string, checks: Array<{ ok: boolean; text: string }>, missing: string): void => {
    if (checks.length === 0) out.push({ status: 'SKIP', target, detail: missing });
    else out.push({ status: checks.every((c) => c.ok) ? 'PASS' : 'FAIL', target, detail: checks.map((c) => c.text).join('; ') });
  };
  const at = o.n === 50000 ? '' : ` (at N=${thousands(o.n)}, not the target's 50,000)`;
  add(
    `apply within ${FLOOR_FACTOR}x of the floor (node fs, write+fsync, dirs fsynced) at every k${at}`,
    o.ks
      .filter((k) => both(med('apply', k), med('floor', k)))
      .map((k) => {
        const x = med('apply', k) / med('floor', k);
        return { ok: x <= FLOOR_FACTOR, text: `k=${k}: ${x.toFixed(2)}x (${ms(med('apply', k))} vs ${ms(med('floor', k))} ms)` };
      }),
    'needs shadow and floor',
  );
  add(
    `apply faster than git checkout <draft> -- <paths> at every k${at}`,
    o.ks
      .filter((k) => both(med('apply', k), med('checkout', k)))
      .map((k) => {
        const x = med('checkout', k) / med('apply', k);
        return { ok: x > 1, text: `k=${k}: ${x.toFixed(2)}x (${ms(med('apply', k))} vs ${ms(med('checkout', k))} ms)` };
      }),
    'needs shadow and checkout',
  );
  // Judged on the fresh handle: what a `shadow apply --dry-run` process pays
  // once the draft's state was reviewed (by `shadow review`, an earlier dry
  // run, in any process). The first review of a state is printed beside it.
  const d = med('dry-run-cold', 1000);
  const warmD = med('dry-run', 1000);
  const firstD = med('dry-run-first', 1000);
  add(
    `apply --dry-run at k=1,000 under ${DRY_RUN_BUDGET_MS} ms, on a fresh handle${at}`,
    Number.isFinite(d)
      ? [{ ok: d < DRY_RUN_BUDGET_MS, text: `${ms(d)} ms (p90 ${ms(p90(find('dry-run-cold', 1000)!.times))} ms; ${ms(warmD)} ms on the warm handle; the first review of the state, with no cache: ${ms(firstD)} ms)` }]
      : [],
    'needs k=1000 with shadow',
  );
  return out;
}

function printProfiles(): void {
  for (const p of profiles) {
    const { total, samples, functions } = p.summary;
    console.log(`\n=== CPU profile of the ${p.runs} measured ${p.what} calls at k=${thousands(p.k)}: ${p.file}`);
    console.log(`${ms(total)} ms sampled in ${thousands(samples)} samples (${ms(total / Math.max(1, p.runs))} ms per call); by inclusive time:`);
    // The benchmark's own frames (the case runner above sh.apply, the counting wrappers below it) are left out of the list.
    const own = functions.filter((f) => f.where.startsWith('bench/'));
    const rows = functions
      .filter((f) => !f.where.startsWith('bench/'))
      .slice(0, 30)
      .map((f) => [f.name, f.where || '(native)', ms(f.inclusive / p.runs), `${((100 * f.inclusive) / total).toFixed(1)}%`, ms(f.self / p.runs)]);
    console.log(table(['function', 'where', 'incl. ms/call', 'incl. %', 'self ms/call'], rows, 2));
    console.log(`the counting wrappers' own time: ${ms(own.reduce((s, f) => s + f.self, 0) / p.runs)} ms per call`);
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (o.strace && o.only.has('checkout') && !straceWorks()) {
    log('strace is not available here: git checkout is shown without fsyncs and files written');
    o.strace = false;
  }
  nodeFs.mkdirSync(o.cacheDir, { recursive: true });
  const scratchRoot = join(o.cacheDir, `apply-run-${process.pid}`);
  const home = join(scratchRoot, 'home');
  nodeFs.mkdirSync(home, { recursive: true });
  const cleanup = (): void => {
    if (!o.keep) nodeFs.rmSync(scratchRoot, { recursive: true, force: true });
  };
  process.on('exit', cleanup);
  process.on('SIGINT', () => process.exit(130));

  const env = gitEnv(home);
  const gitVersion = run('git', ['--version']).trim();
  const started = performance.now();

  console.log('shadow apply benchmark (bench/apply.bench.ts)');
  console.log(`${new Date().toISOString()}  node ${process.version}  ${gitVersion}  ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}  ${Math.round(totalmem() / 2 ** 30)} GB`);
  console.log(`load average at the start: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`N ${thousands(o.n)}; k ${o.ks.map(thousands).join(', ')}; ${o.quick ? 'quick' : 'full'} run; cases: ${[...o.only].join(', ')}${o.profileDir ? '; under the CPU profiler (slower)' : ''}`);

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
  console.log(`fsync of a new 4 KB file on this disk, before the cases: median ${ms(probe.median)} ms, p90 ${ms(probe.p90)} ms`);
  console.log('Each k: one batch makes a draft modifying k tracked files drawn at random over the tree (1-4 KB each).');
  console.log('Rounds: every case once (order rotating), an untimed `sync` before each timed run, the tree restored untimed after each;');
  console.log("the first round is a warm-up. shadow: in-process, warm handle, node fs; the floor and shadow go through the same counting wrapper.");
  console.log('Ratios: the baseline\'s median over this row\'s median. Counts are per run: shadow\'s and the floor\'s from the counting fs');
  console.log('(files written: opened for writing, in wt: of those in the work tree; KB written: bytes passed to write calls; fsyncs, of which');
  console.log('wt files, wt dirs: of work-tree files and directories, .git: under .git, i.e. shadow\'s journal, records, ledger), objects read from sh.stats;');
  console.log("git checkout's fsyncs and files written (opened for writing, the index's lock file included) from strace on one more run.");
  console.log('git checkout fsyncs no work-tree file or directory (and, by default, not the index): it is faster than durable, not a durable baseline.');

  const shadowI = instrumentedFs(dir);
  const ctx = nodeContext({ fs: shadowI.fs, env });
  const open = (): Promise<Shadow> => openShadow({ dir, fs: ctx.fs, clock: ctx.clock, ids: ctx.ids, env: ctx.env, processes: ctx.processes });
  const sh = await open();
  const scratch = join(scratchRoot, 'scratch');
  nodeFs.mkdirSync(scratch, { recursive: true });
  const e: Env = { o, repo, dir, env, spawner: new Spawner(scratch), sh, open, shadowFs: shadowI, floorFs: instrumentedFs(dir) };
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
  const vs = verdicts(o);
  for (const v of vs) console.log(`${v.status}  ${v.target}${v.detail ? `: ${v.detail}` : ''}`);
  const pass = vs.filter((v) => v.status === 'PASS').length;
  const fail = vs.filter((v) => v.status === 'FAIL').length;
  const skip = vs.filter((v) => v.status === 'SKIP').length;
  console.log(`load average at the end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`\n${pass} passed, ${fail} failed, ${skip} skipped  (${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
});
