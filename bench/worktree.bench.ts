/**
 * bench/worktree.bench.ts: what a materialized worktree costs.
 *
 * materialize   a draft's view of a repository of N files (default 10,000;
 *               the draft changes 10 of them) into a new directory, against
 *               `git worktree add --detach <dir> <draft tip>`: the same
 *               commit's files, native, measured in the same run. shadow's
 *               rows: in-process on a fresh handle (`sh.worktrees.add`), and
 *               the whole `shadow worktree add` process (node's start
 *               included, as git's process start is).
 * sync          after another writer's batch of 10 files, bringing a
 *               worktree of N files (10,000 and 100,000) up to the draft's
 *               tip (`sh.worktrees.sync`, warm handle: what `shadow watch`
 *               does; and on a fresh handle). O(changed) means the time does
 *               not grow with N.
 *
 * Every timed run starts after an untimed `sync` of the disk (a copy's dirty
 * pages would otherwise be written back during the next run), the order of
 * the cases rotates per round, and the first round is a warm-up. Printed
 * beside the milliseconds: files written, fsyncs, objects read and fs calls
 * per run (machine-independent), then every target with PASS/FAIL.
 *
 * exec          \`shadow exec -- true\` on a repository of --exec-n files
 *               (default 4,800): the first call (the draft's git worktree
 *               made) and the second (after a 10-file batch: only those
 *               written), against \`git worktree add --detach\`; and
 *               \`shadow worktree add\` against it, peak RSS beside the ms.
 *
 *   node dist/bench/worktree.bench.js             # a few minutes (generates and caches the repositories)
 *   node dist/bench/worktree.bench.js --quick
 *   node dist/bench/worktree.bench.js --help
 */
import * as nodeFs from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeContext, openShadow, type Context, type Shadow } from '../src/index.js';
import { countingFs, delta, snapshot, type FsCounters } from './helpers/counting-fs.js';
import { cachedRepo, copyRepo, gitEnv, run, settle, type CachedRepo } from './helpers/repo.js';
import { positiveInt, positiveInts, readFlags, sharedFlags } from './helpers/flags.js';
import { count, median, ms, p90, ratio, table, thousands } from './helpers/stats.js';
import { content, prng } from './helpers/workload.js';
import { execRows, execTable } from './helpers/exec-cases.js';

const MATERIALIZE_FACTOR = 1.5;
const SYNC_BUDGET_MS = 20;
const BATCH_FILES = 10;

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHADOW_BIN = fileURLToPath(new URL('../bin/shadow.cjs', import.meta.url));

const HELP = `usage: node dist/bench/worktree.bench.js [options]

  --n 10000            files of the repository materialized          default: 10,000
  --sync-n 10000,100000  repository sizes the sync is timed at        default: 10,000 and 100,000
  --exec-n 4800        files of the repository exec is timed on       default: 4,800
  --only-exec          only the exec cases
  --quick              fewer runs (3 materializations, 5 syncs per size)
  --runs n             measured runs per case (defaults: 5 materializations, 15 syncs per size)
  --keep               keep the scratch copies
  --cache <dir>        where generated repositories are cached (default: bench/.cache)
`;

interface Options {
  n: number;
  syncNs: number[];
  execN: number;
  quick: boolean;
  runs: number | undefined;
  keep: boolean;
  cacheDir: string;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    n: 10000,
    syncNs: [10000, 100000],
    execN: 4800,
    quick: false,
    runs: undefined,
    keep: false,
    cacheDir: join(PROJECT_ROOT, 'bench', '.cache'),
  };
  readFlags(argv, HELP, {
    ...sharedFlags(o),
    '--n': (v) => (o.n = positiveInt(v(), '--n')),
    '--sync-n': (v) => (o.syncNs = positiveInts(v(), '--sync-n')),
    '--exec-n': (v) => (o.execN = positiveInt(v(), '--exec-n')),
    '--only-exec': () => undefined,
  });
  return o;
}

function log(s: string): void {
  process.stderr.write(`${s}\n`);
}

// ---------------------------------------------------------------- results

/** One case's runs: times, and the counted facts summed (divided by runs when printed). */
class Tally {
  readonly times: number[] = [];
  private facts: { files: number; fsyncs: number; objects: number; calls: number } | undefined;

  add(ms: number, c?: FsCounters, objectsRead?: number): void {
    this.times.push(ms);
    if (!c) return;
    this.facts ??= { files: 0, fsyncs: 0, objects: 0, calls: 0 };
    this.facts.files += c.filesWritten;
    this.facts.fsyncs += c.fsyncs;
    this.facts.objects += objectsRead ?? 0;
    this.facts.calls += c.calls;
  }

  row(label: string, baseline?: number): string[] {
    const m = median(this.times);
    const per = (x: number | undefined): string =>
      x === undefined ? '-' : count(Math.round((10 * x) / this.times.length) / 10);
    return [
      label,
      String(this.times.length),
      ms(m),
      ms(p90(this.times)),
      baseline === undefined ? '' : ratio(m, baseline),
      per(this.facts?.files),
      per(this.facts?.fsyncs),
      per(this.facts?.objects),
      per(this.facts?.calls),
    ];
  }
}

const HEADER = ['case', 'runs', 'median ms', 'p90 ms', 'vs git', 'files written', 'fsyncs', 'obj read', 'fs calls'];

// ---------------------------------------------------------------- scratch repositories

interface Scratch {
  repo: CachedRepo;
  dir: string;
  env: Record<string, string>;
  /** shadow's file system: node's, counted. */
  fs: { ctx: Context; counters: FsCounters };
  open(): Promise<Shadow>;
}

function scratch(o: Options, root: string, n: number, env: Record<string, string>): Scratch {
  const repo = cachedRepo(o.cacheDir, n, env, log);
  const dir = join(root, `repo-n${n}`);
  log(`N=${thousands(n)}: copying the cached repository to ${dir}...`);
  copyRepo(repo.dir, dir, env);
  const base = nodeContext({ env: { ...env } });
  const counted = countingFs(base.fs);
  const ctx: Context = { ...base, fs: counted.fs };
  return {
    repo,
    dir,
    env,
    fs: { ctx, counters: counted.counters },
    open: () => openShadow({ dir, fs: ctx.fs, clock: ctx.clock, ids: ctx.ids, env: ctx.env, processes: ctx.processes }),
  };
}

/** A batch writing `k` tracked files drawn at random (new contents each time). */
function batchOf(
  s: Scratch,
  k: number,
  seed: number,
): { intent: string; operations: Array<{ operation: 'write'; path: string; content: string }> } {
  const rand = prng(seed);
  const picked = new Set<string>();
  while (picked.size < k) picked.add(s.repo.layout.paths[Math.floor(rand() * s.repo.layout.paths.length)]!);
  return {
    intent: `worktree bench ${seed}`,
    operations: [...picked].map((path) => ({
      operation: 'write' as const,
      path,
      content: content(rand, `// ${path} @${seed}`),
    })),
  };
}

function removeDir(dir: string): void {
  nodeFs.rmSync(dir, { recursive: true, force: true });
}

// ---------------------------------------------------------------- materialize

async function benchMaterialize(
  o: Options,
  s: Scratch,
  root: string,
): Promise<{ shadow: Tally; cli: Tally; git: Tally }> {
  const runs = o.runs ?? (o.quick ? 3 : 5);
  const sh = await s.open();
  const b = await sh.batch(batchOf(s, BATCH_FILES, 1));
  if (!b.success) throw new Error(`the draft's batch failed: ${JSON.stringify(b.error)}`);
  const tip = run('git', ['rev-parse', 'refs/shadow/drafts/default'], { cwd: s.dir, env: s.env }).trim();
  const out = { shadow: new Tally(), cli: new Tally(), git: new Tally() };
  const cases = {
    shadow: async (target: string, measured: boolean): Promise<void> => {
      settle();
      const c0 = snapshot(s.fs.counters);
      const t0 = performance.now();
      const fresh = await s.open();
      const r = await fresh.worktrees.add(target);
      const t = performance.now() - t0;
      const objects = fresh.stats.objectsRead;
      fresh.close();
      if (r.files !== s.repo.n + 2) throw new Error(`materialized ${r.files} files, expected ${s.repo.n + 2}`);
      if (measured) out.shadow.add(t, delta(s.fs.counters, c0), objects);
      await sh.worktrees.remove(target, { force: true });
    },
    cli: async (target: string, measured: boolean): Promise<void> => {
      settle();
      const t0 = performance.now();
      run(process.execPath, [SHADOW_BIN, 'worktree', 'add', target], { cwd: s.dir, env: s.env });
      const t = performance.now() - t0;
      if (measured) out.cli.add(t);
      await sh.worktrees.remove(target, { force: true });
    },
    git: async (target: string, measured: boolean): Promise<void> => {
      settle();
      const t0 = performance.now();
      run('git', ['worktree', 'add', '-q', '--detach', target, tip], { cwd: s.dir, env: s.env });
      const t = performance.now() - t0;
      if (measured) out.git.add(t);
      removeDir(target);
      run('git', ['worktree', 'prune'], { cwd: s.dir, env: s.env });
    },
  };
  const names = Object.keys(cases) as Array<keyof typeof cases>;
  for (let round = 0; round <= runs; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]!;
      await cases[name](join(root, `wt-${name}`), round > 0);
    }
    log(`materialize: round ${round}${round === 0 ? ' (warm-up)' : ''} of ${runs}`);
  }
  sh.close();
  return out;
}

// ---------------------------------------------------------------- sync

async function benchSync(
  o: Options,
  s: Scratch,
  root: string,
): Promise<{ warm: Tally; fresh: Tally; changed: number }> {
  const runs = o.runs ?? (o.quick ? 5 : 15);
  const sh = await s.open();
  const other = await s.open();
  const target = join(root, `wt-sync-n${s.repo.n}`);
  await sh.worktrees.add(target);
  const out = { warm: new Tally(), fresh: new Tally(), changed: 0 };
  for (let round = 0; round <= runs * 2; round++) {
    const b = await other.batch(batchOf(s, BATCH_FILES, 1000 + round));
    if (!b.success) throw new Error(`the other writer's batch failed: ${JSON.stringify(b.error)}`);
    settle();
    const freshHandle = round % 2 === 1;
    const c0 = snapshot(s.fs.counters);
    const t0 = performance.now();
    const h = freshHandle ? await s.open() : sh;
    const o0 = h.stats.objectsRead;
    const r = await h.worktrees.sync(target);
    const t = performance.now() - t0;
    const objects = h.stats.objectsRead - o0;
    if (freshHandle) h.close();
    if (r.written.length + r.removed.length !== BATCH_FILES || r.conflicts.length > 0)
      throw new Error(
        `the sync wrote ${r.written.length}, removed ${r.removed.length}, with ${r.conflicts.length} conflicts`,
      );
    out.changed = r.written.length;
    if (round >= 2) (freshHandle ? out.fresh : out.warm).add(t, delta(s.fs.counters, c0), objects);
  }
  other.close();
  sh.close();
  return out;
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  nodeFs.mkdirSync(o.cacheDir, { recursive: true });
  const root = join(o.cacheDir, `worktree-run-${process.pid}`);
  const home = join(root, 'home');
  nodeFs.mkdirSync(home, { recursive: true });
  process.on('exit', () => {
    if (!o.keep) removeDir(root);
  });
  process.on('SIGINT', () => process.exit(130));
  if (!nodeFs.existsSync(SHADOW_BIN)) throw new Error(`${SHADOW_BIN} is missing: run npm run build first`);
  const env = gitEnv(home);

  console.log('shadow worktree benchmark (bench/worktree.bench.ts)');
  console.log(
    `${new Date().toISOString()}  node ${process.version}  ${run('git', ['--version']).trim()}  ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}  ${Math.round(totalmem() / 2 ** 30)} GB`,
  );
  console.log(
    `load average at the start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );

  const verdicts: Array<{ ok: boolean; target: string; detail: string }> = [];

  // Exec: the kept git worktree, first call and second, with peak memory.
  {
    const s = scratch(o, root, o.execN, env);
    const sh = await s.open();
    const rows = execRows({
      runs: o.runs ?? (o.quick ? 2 : 4),
      shadowBin: SHADOW_BIN,
      dir: s.dir,
      env: s.env,
      root,
      batch: (seed) =>
        void run(process.execPath, [SHADOW_BIN, 'batch', '-'], {
          cwd: s.dir,
          env: s.env,
          input: JSON.stringify(batchOf(s, BATCH_FILES, seed)),
        }),
    });
    sh.close();
    console.log(
      `\nexec and worktree add on ${thousands(o.execN)} files (processes; peak RSS of the largest process of each)`,
    );
    console.log(table(['case', 'runs', 'median ms', 'vs git', 'peak MiB'], execTable(rows)));
    const first = median(rows[0]!.ms);
    const second = median(rows[1]!.ms);
    verdicts.push({
      ok: second < first,
      target: 'the second exec costs less than the first (kept, synced by what changed)',
      detail: `${ms(second)} vs ${ms(first)} ms`,
    });
    removeDir(s.dir);
    if (process.argv.includes('--only-exec')) {
      for (const v of verdicts) console.log(`  ${v.ok ? 'PASS' : 'FAIL'}  ${v.target}: ${v.detail}`);
      return;
    }
  }

  // Materialize.
  const m = await benchMaterialize(o, scratch(o, root, o.n, env), root);
  const gitMs = median(m.git.times);
  console.log(
    `\nmaterialize a view of ${thousands(o.n)} files (the draft changes ${BATCH_FILES}) into a new directory`,
  );
  console.log(
    table(HEADER, [
      m.shadow.row('sh.worktrees.add (fresh handle, in-process)', gitMs),
      m.cli.row('shadow worktree add (a process)', gitMs),
      m.git.row('git worktree add --detach <dir> <tip>', gitMs),
    ]),
  );
  const x = median(m.shadow.times) / gitMs;
  const xCli = median(m.cli.times) / gitMs;
  verdicts.push({
    ok: x <= MATERIALIZE_FACTOR,
    target: `materialize ${thousands(o.n)} files within ${MATERIALIZE_FACTOR}x of git worktree add`,
    detail: `${x.toFixed(2)}x in-process (${ms(median(m.shadow.times))} vs ${ms(gitMs)} ms); the shadow process: ${xCli.toFixed(2)}x`,
  });

  // Sync, at every size.
  const rows: string[][] = [];
  const warmAt: Array<[number, number]> = [];
  for (const n of o.syncNs) {
    const s = scratch(o, root, n, env);
    const r = await benchSync(o, s, root);
    rows.push(
      r.warm.row(`N=${thousands(n)}: sh.worktrees.sync (warm handle)`),
      r.fresh.row(`N=${thousands(n)}: sh.worktrees.sync (fresh handle)`),
    );
    warmAt.push([n, median(r.warm.times)]);
    removeDir(s.dir);
  }
  console.log(`\nsync a worktree after another writer's batch of ${BATCH_FILES} files`);
  console.log(table(HEADER, rows));
  verdicts.push({
    ok: warmAt.every(([, t]) => t < SYNC_BUDGET_MS),
    target: `sync after a ${BATCH_FILES}-file batch under ${SYNC_BUDGET_MS} ms at every size`,
    detail: warmAt.map(([n, t]) => `N=${thousands(n)}: ${ms(t)} ms`).join('; '),
  });

  console.log('\ntargets');
  for (const v of verdicts) console.log(`  ${v.ok ? 'PASS' : 'FAIL'}  ${v.target}: ${v.detail}`);
  process.exitCode = verdicts.every((v) => v.ok) ? 0 : 1;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(2);
});
