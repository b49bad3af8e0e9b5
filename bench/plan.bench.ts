/**
 * bench/plan.bench.ts: what the plan runner adds to each batch. A plan of
 * n batches of one small write each (`sh.runPlan`) against n bare batches
 * of the same writes (`sh.batch`, one call each), in-process, on disk,
 * fsync on, each on a fresh repository of the same kind, warm handles.
 *
 * The two interleave in blocks of 20 batches (alternating which goes
 * first), so that other work on the machine slows both alike: the plan runs
 * as one plan stopped (shouldStop) after each block and continued, on the
 * same draft. A plan batch's time is the interval between its batch/commit
 * event and the event before it (plan/start for the first of a block): the
 * stop poll, the batch, the tracker write. Added once, as one uninterrupted
 * run pays them: the first call's start (parse, progress walk, tracker,
 * before plan/start) and the last call's end (plan/complete). Left out, as
 * an artifact of the blocks: the other calls' start and stop, and (in the
 * verdict) a continued plan's first window, which also holds its extra
 * plan/start ledger event. The runner's overhead is the plan's mean per
 * batch over the bare mean, per pair of blocks, the plan's one-time costs
 * spread over every batch; the verdict is the median over the pairs, which
 * a disk stall caused by other work on the machine (hitting one block of a
 * pair) does not move. The target is under 10%. The overall means, medians
 * and CPU times are printed too.
 *
 * Also per batch: CPU time (user + system; less moved by the disk's latency
 * than wall time), and the machine-independent facts from a counting fs,
 * counted on one more, untimed, uninterrupted run each way: fsyncs, files
 * written, files read, fs calls.
 *
 *   node dist/bench/plan.bench.js            # 2 passes of 1,000 batches each way
 *   node dist/bench/plan.bench.js --quick    # 1 pass
 *   node dist/bench/plan.bench.js --help
 */
import * as nodeFs from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { nodeContext, openShadow, type PlanEvent, type Shadow } from '../src/index.js';
import { countingFs, delta, snapshot, type FsCounters } from './helpers/counting-fs.js';
import { fsyncProbe } from './helpers/fsync-probe.js';
import { gitEnv, run } from './helpers/repo.js';
import { positiveInt, readFlags } from './helpers/flags.js';
import { count, median, ms, p90, quantile, table, thousands } from './helpers/stats.js';

const TARGET = 0.1;

interface Options {
  batches: number;
  passes: number;
  block: number;
  warm: number;
  keep: boolean;
}

const HELP = `usage: node dist/bench/plan.bench.js [options]

  --quick          one pass (default: 2)
  --batches n      batches per pass, each way (default 1000)
  --passes n       passes, each on fresh repositories
  --block n        batches per interleaved block (default 20)
  --keep           keep the scratch repositories
`;

function parseArgs(argv: string[]): Options {
  const o: Options = { batches: 1000, passes: 2, block: 20, warm: 30, keep: false };
  readFlags(argv, HELP, {
    '--quick': () => (o.passes = 1),
    '--batches': (v) => (o.batches = positiveInt(v(), '--batches')),
    '--passes': (v) => (o.passes = positiveInt(v(), '--passes')),
    '--block': (v) => (o.block = positiveInt(v(), '--block')),
    '--keep': () => (o.keep = true),
  });
  return o;
}

/**
 * A full garbage collection, untimed, before every block of either side: a
 * continued plan parses the plan and walks the draft's history outside its
 * timed windows, and the garbage of that would otherwise be collected in
 * its timed batches (or in the other side's next block).
 */
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

function log(s: string): void {
  process.stderr.write(`${s}\n`);
}

// ---------------------------------------------------------------- fixtures

const FILES: Record<string, string> = {
  'README.md': '# plan bench\n',
  '.gitignore': 'node_modules/\n',
  'src/index.ts': 'export const x = 1;\n',
  'src/lib/util.ts': 'export function id<T>(x: T): T {\n  return x;\n}\n',
};

/** A fresh repository with a few committed files. */
function makeRepo(dir: string, env: Record<string, string>): void {
  nodeFs.mkdirSync(dir, { recursive: true });
  run('git', ['init', '-q', '-b', 'main'], { cwd: dir, env });
  run('git', ['config', 'user.name', 'Bench'], { cwd: dir, env });
  run('git', ['config', 'user.email', 'bench@example.com'], { cwd: dir, env });
  for (const [path, text] of Object.entries(FILES)) {
    nodeFs.mkdirSync(join(dir, path, '..'), { recursive: true });
    nodeFs.writeFileSync(join(dir, path), text);
  }
  run('git', ['add', '-A'], { cwd: dir, env });
  run('git', ['commit', '-q', '-m', 'initial'], { cwd: dir, env });
}

interface Handle {
  sh: Shadow;
  counters: FsCounters;
}

async function open(dir: string, env: Record<string, string>): Promise<Handle> {
  const { fs, counters } = countingFs(nodeFs);
  const ctx = nodeContext({ fs, env });
  const sh = await openShadow({
    dir,
    fs: ctx.fs,
    clock: ctx.clock,
    ids: ctx.ids,
    env: ctx.env,
    processes: ctx.processes,
  });
  return { sh, counters };
}

function write(i: number): { operation: 'write'; path: string; content: string } {
  return { operation: 'write', path: `out/f${String(i).padStart(4, '0')}.txt`, content: `file ${i}\n` };
}

function planText(n: number): string {
  return JSON.stringify({
    id: 'bench',
    batches: Array.from({ length: n }, (_, i) => ({ id: i + 1, operations: [write(i + 1)] })),
  });
}

const ZERO: FsCounters = { calls: 0, fsyncs: 0, filesWritten: 0, bytesWritten: 0, filesRead: 0, stats: 0 };

function add(a: FsCounters, b: FsCounters): FsCounters {
  return {
    calls: a.calls + b.calls,
    fsyncs: a.fsyncs + b.fsyncs,
    filesWritten: a.filesWritten + b.filesWritten,
    bytesWritten: a.bytesWritten + b.bytesWritten,
    filesRead: a.filesRead + b.filesRead,
    stats: a.stats + b.stats,
  };
}

/** Measured batches of one system: per-batch times, one-time costs, CPU and fs counts. */
class Tally {
  times: number[] = [];
  /** Time outside the per-batch windows that an uninterrupted run pays once. */
  once = 0;
  /** Time of the block artifacts (the plan's extra starts and stops), reported, not counted. */
  artifacts = 0;
  cpu = 0;
  fs: FsCounters = { ...ZERO };

  total(): number {
    return this.times.reduce((s, t) => s + t, 0) + this.once;
  }
}

function cpuMs(u: NodeJS.CpuUsage): number {
  return (u.user + u.system) / 1000;
}

async function bareBlock(h: Handle, from: number, to: number, t: Tally): Promise<void> {
  for (let i = from; i <= to; i++) {
    const c0 = snapshot(h.counters);
    const u0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await h.sh.batch({ intent: `bench batch ${i}`, operations: [write(i)] });
    t.times.push(performance.now() - t0);
    t.cpu += cpuMs(process.cpuUsage(u0));
    t.fs = add(t.fs, delta(h.counters, c0));
    if (!r.success) throw new Error(`bare batch ${i} failed: ${r.error?.message}`);
  }
}

/** Run the plan from where its draft stands until `to` has committed (then stop, unless it is the last batch). */
async function planBlock(h: Handle, text: string, to: number, first: boolean, last: boolean, t: Tally): Promise<void> {
  let mark = performance.now();
  let cpuMark = process.cpuUsage();
  let fsMark = snapshot(h.counters);
  const start = mark;
  let reached = 0;
  // Close the window that ends now: a batch (into times) or a one-time part.
  const close = (into: 'batch' | 'once' | 'artifact'): void => {
    const now = performance.now();
    if (into === 'batch') t.times.push(now - mark);
    else if (into === 'once') t.once += now - mark;
    else t.artifacts += now - mark;
    if (into !== 'artifact') {
      t.cpu += cpuMs(process.cpuUsage(cpuMark));
      t.fs = add(t.fs, delta(h.counters, fsMark));
    }

    mark = now;
    cpuMark = process.cpuUsage();
    fsMark = snapshot(h.counters);
  };
  const out = await h.sh.runPlan(text, {
    shouldStop: () => reached >= to,
    onEvent: (e: PlanEvent) => {
      if (e.type === 'plan/start') close(first ? 'once' : 'artifact');
      if (e.type === 'batch/commit') {
        reached = e.plan_batch;
        close('batch');
      }
    },
  });
  close(last ? 'once' : 'artifact');
  if (out.status !== (last ? 'complete' : 'stopped') || out.last_completed_batch_id !== to) {
    throw new Error(
      `the plan block to ${to} ended ${out.status} at ${out.last_completed_batch_id} (${performance.now() - start} ms)`,
    );
  }
}
interface Pass {
  bare: Tally;
  plan: Tally;
  /** Per pair of blocks: the mean batch time of each. */
  pairs: Array<{ bare: number; plan: number }>;
}

function blockMean(t: Tally, from: number): number {
  const xs = t.times.slice(from);
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

async function pass(root: string, name: string, env: Record<string, string>, n: number, block: number): Promise<Pass> {
  const dirs = { bare: join(root, `${name}-bare`), plan: join(root, `${name}-plan`) };
  makeRepo(dirs.bare, env);
  makeRepo(dirs.plan, env);
  const bare = await open(dirs.bare, env);
  const plan = await open(dirs.plan, env);
  const text = planText(n);
  const out: Pass = { bare: new Tally(), plan: new Tally(), pairs: [] };
  for (let from = 1, b = 0; from <= n; from += block, b++) {
    const to = Math.min(n, from + block - 1);
    const marks = { bare: out.bare.times.length, plan: out.plan.times.length };
    const runBare = (): Promise<void> => {
      collect();
      return bareBlock(bare, from, to, out.bare);
    };
    const runPlan = (): Promise<void> => {
      collect();
      return planBlock(plan, text, to, from === 1, to === n, out.plan);
    };
    if (b % 2 === 0) {
      await runBare();
      await runPlan();
    } else {
      await runPlan();
      await runBare();
    }
    // A continued plan's first window also holds its plan/start ledger event (fsynced): a block artifact, left out here.
    out.pairs.push({
      bare: blockMean(out.bare, marks.bare),
      plan: blockMean(out.plan, from === 1 ? marks.plan : marks.plan + 1),
    });
  }
  bare.sh.close();
  plan.sh.close();
  return out;
}

/** fs counts of one uninterrupted run each way (untimed): n bare batches, and one plan call of n batches, start to end. */
async function countRun(
  root: string,
  env: Record<string, string>,
  n: number,
): Promise<{ bare: FsCounters; plan: FsCounters }> {
  makeRepo(join(root, 'count-bare'), env);
  makeRepo(join(root, 'count-plan'), env);
  const bare = await open(join(root, 'count-bare'), env);
  const plan = await open(join(root, 'count-plan'), env);
  const b0 = snapshot(bare.counters);
  for (let i = 1; i <= n; i++) await bare.sh.batch({ intent: `bench batch ${i}`, operations: [write(i)] });
  const b = delta(bare.counters, b0);
  const p0 = snapshot(plan.counters);
  const out = await plan.sh.runPlan(planText(n));
  const p = delta(plan.counters, p0);
  if (out.status !== 'complete') throw new Error(`the counting plan ended ${out.status}`);
  bare.sh.close();
  plan.sh.close();
  return { bare: b, plan: p };
}

function pct(x: number): string {
  return `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
}

function perBatch(c: FsCounters, n: number, f: keyof FsCounters): string {
  return count(Math.round((c[f] / n) * 100) / 100);
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const root = nodeFs.mkdtempSync(join(tmpdir(), 'shadow-plan-bench-'));
  const home = join(root, 'home');
  nodeFs.mkdirSync(home, { recursive: true });
  const env = gitEnv(home);
  const cleanup = (): void => {
    if (!o.keep) nodeFs.rmSync(root, { recursive: true, force: true });
  };
  process.on('exit', cleanup);
  process.on('SIGINT', () => process.exit(130));

  const n = o.batches;
  console.log('shadow plan runner benchmark (bench/plan.bench.ts)');
  console.log(
    `${new Date().toISOString()}  node ${process.version}  ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}  load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `a ${thousands(n)}-batch plan of one small write each (sh.runPlan) vs ${thousands(n)} bare batches of the same writes (sh.batch), in-process, warm handles,`,
  );
  console.log(
    `on disk (${tmpdir()}), fsync on, fresh repositories of ${Object.keys(FILES).length} files; ${o.passes} pass${o.passes === 1 ? '' : 'es'}, interleaved in blocks of ${o.block} batches.`,
  );
  const probe = fsyncProbe(root);
  console.log(`one fsync of a new 4 KB file here: median ${ms(probe.median)} ms, p90 ${ms(probe.p90)} ms`);

  log(`warm-up: ${o.warm} batches each way...`);
  await pass(root, 'warm', env, o.warm, 10);

  const passes: Pass[] = [];
  for (let p = 0; p < o.passes; p++) {
    log(`pass ${p + 1}/${o.passes}: ${thousands(n)} batches each way, blocks of ${o.block}...`);
    passes.push(await pass(root, `pass${p}`, env, n, o.block));
  }

  log(`counting: one uninterrupted run each way, ${thousands(n)} batches (untimed)...`);
  const counted = await countRun(root, env, n);

  const batches = n * o.passes;
  const sum = (k: 'bare' | 'plan'): Tally => {
    const t = new Tally();
    for (const p of passes) {
      t.times.push(...p[k].times);
      t.once += p[k].once;
      t.artifacts += p[k].artifacts;
      t.cpu += p[k].cpu;
      t.fs = add(t.fs, p[k].fs);
    }
    return t;
  };
  const bare = sum('bare');
  const plan = sum('plan');
  const row = (label: string, t: Tally, c: FsCounters): string[] => [
    label,
    thousands(t.times.length),
    ms(median(t.times)),
    ms(p90(t.times)),
    ms(t.total() / batches),
    ms(t.once),
    ms(t.cpu / batches),
    perBatch(c, n, 'fsyncs'),
    perBatch(c, n, 'filesWritten'),
    perBatch(c, n, 'filesRead'),
    perBatch(c, n, 'calls'),
  ];
  console.log(
    '\nper batch (times in ms, interleaved; "once" is the total of the one-time start and end of a run, spread into the mean;',
  );
  console.log(`fs counts from one more, uninterrupted run each way of ${thousands(n)} batches, start to end)`);
  console.log(
    table(
      ['case', 'batches', 'median', 'p90', 'mean', 'once', 'cpu', 'fsyncs', 'files written', 'files read', 'fs calls'],
      [row('bare batches (sh.batch)', bare, counted.bare), row('plan batches (sh.runPlan)', plan, counted.plan)],
    ),
  );
  if (o.passes > 1) {
    console.log('\nper pass: overhead of the mean (median)');
    console.log(
      passes
        .map(
          (p, i) =>
            `  pass ${i + 1}: ${pct(p.plan.total() / p.bare.total() - 1)} (${pct(median(p.plan.times) / median(p.bare.times) - 1)})`,
        )
        .join('\n'),
    );
  }
  const adds = (f: keyof FsCounters): string =>
    count(Math.round(((counted.plan[f] - counted.bare[f]) / n) * 100) / 100);
  console.log(
    `\nthe runner adds per batch: ${adds('fsyncs')} fsyncs, ${adds('filesWritten')} files written (the tracker), ` +
      `${adds('filesRead')} files read (the stop request poll), ${adds('calls')} fs calls`,
  );
  console.log(
    `left out (block artifacts: the plan's ${Math.ceil(n / o.block) - 1} extra starts and stops per pass): ${ms(plan.artifacts)} ms in all; ` +
      `each extra start also appends one plan/start ledger event inside its first batch's window`,
  );
  // Per pair of blocks, the plan's one-time costs spread over each of its batches.
  const pairOverheads = passes.flatMap((p) => p.pairs.map((b) => (b.plan + p.plan.once / n) / b.bare - 1));
  const overhead = median(pairOverheads);
  console.log(
    `\noverall: mean per batch ${ms(plan.total() / batches)} vs ${ms(bare.total() / batches)} ms (${pct(plan.total() / bare.total() - 1)}); ` +
      `medians ${ms(median(plan.times))} vs ${ms(median(bare.times))} ms (${pct(median(plan.times) / median(bare.times) - 1)}); CPU time ${pct(plan.cpu / bare.cpu - 1)}`,
  );
  console.log(
    `per pair of blocks (${pairOverheads.length}): overhead of the mean, quartiles ${pct(quantile(pairOverheads, 0.25))} / ${pct(overhead)} / ${pct(quantile(pairOverheads, 0.75))}`,
  );
  console.log(
    `\nrunner overhead per batch over a bare batch commit (median over the pairs of blocks): ${pct(overhead)}`,
  );
  console.log(`${overhead < TARGET ? 'PASS' : 'FAIL'}  plan runner overhead < ${TARGET * 100}% per batch`);
  process.exitCode = overhead < TARGET ? 0 : 1;
}

await main();
