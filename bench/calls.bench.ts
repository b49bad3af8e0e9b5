/**
 * bench/calls.bench.ts: the price of a call, as the whole processes a user
 * or an agent runs, each against its baseline measured in the same run:
 *
 *   start-up     `shadow --version`        against `node -e 0`, with and
 *                                          without NODE_EXTRA_CA_CERTS
 *   batch k=1,10 `shadow batch <file>`     against a node script that only
 *                                          writes the k files
 *   diff         `shadow diff` (100 files) against `git diff <base> <draft>`,
 *                and `shadow diff --stat` against `git diff --stat` (by the
 *                caller: against `node -e 0` + 2x git's)
 *   status       `shadow status`           against `git status`
 *   apply        `shadow apply` (100)      against `git checkout <c> -- <paths>`,
 *                                          with the fsyncs each makes
 *   age          batch, status and diff on a draft of 1,000 batches over
 *                10,000 paths against a draft of one batch over the same
 *   server mode  `shadow serve`'s HTTP batch, p50 and p99 of one client's
 *                batches in a row, and the batches a second of 16 clients at
 *                once on one draft, sent by a load generator in a process
 *                of its own (calls/load-clients.ts; then by node's fetch,
 *                for what that client costs beside): two figures, since 16
 *                clients waiting on each other's answers at 500 a second
 *                wait 16/500 s = 32 ms each (Little's law), so a 3 ms p50
 *                is one client's
 *   start path   `shadow status` and a batch of 10 by the caller, started
 *                from the code cache and from two V8 start-up snapshots of
 *                the bundle (calls/snapshot-trial.ts), against `node -e 0`
 *
 * Beside each figure, how the process started (calls/start-path.ts): the
 * code cache of its command, none, a snapshot, or handed off.
 *
 * Each shadow command twice: run by the caller (SHADOW_HANDOFF=0, no
 * server), and handed to a running `shadow serve` (cli/handoff/). Then one
 * run of each under strace counts files read in the repository, files
 * written, fsyncs and stat calls.
 *
 *   node dist/bench/calls.bench.js                 # N = 50,000 files (generated once, cached)
 *   node dist/bench/calls.bench.js --quick --n 5000
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { openShadow } from '../src/index.js';
import { straceWorks } from './helpers/baselines.js';
import { loadAverage, machineLine } from './helpers/machine.js';
import { tracedRun, type ProcessFacts } from './helpers/process-facts.js';
import { log } from './helpers/progress.js';
import { cachedRepo, copyRepo, gitEnv, run } from './helpers/repo.js';
import { scratchRun } from './helpers/scratch.js';
import { ms, thousands } from './helpers/stats.js';
import { printVerdicts } from './helpers/targets.js';
import {
  BIN_DIR,
  LAUNCHER,
  med,
  SHADOW_CJS,
  startServe,
  timeCases,
  writeFloorScript,
  type Case,
  type Timed,
} from './calls/processes.js';
import { printFacts, printGroup } from './calls/report.js';
import { startBareDurable, startBareHandoff } from './calls/floors.js';
import { concurrentLine, measureServerMode, p99 } from './calls/server-mode.js';
import { buildSnapshots } from './calls/snapshot-trial.js';
import { cachePathOf } from './calls/start-path.js';
import { callVerdicts } from './calls/verdicts.js';
import { parseArgs } from './calls/options.js';
import { measurePhases, printPhases, type Phases } from './calls/phases.js';

const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

const batchDoc = (paths: readonly string[], tag: string): string =>
  JSON.stringify({ operations: paths.map((p) => ({ operation: 'write', path: p, content: `${tag} ${p}\n` })) });

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const runs = o.runs ?? (o.quick ? 5 : 15);
  const age = o.age ?? (o.quick ? 200 : 1000);
  if (!nodeFs.existsSync(SHADOW_CJS)) throw new Error(`${SHADOW_CJS} is missing: run npm run build first`);
  if (o.strace && !straceWorks()) {
    log('strace cannot trace here: no files read, written, fsyncs or stats are counted');
    o.strace = false;
  }
  const started = performance.now();
  const { root, home } = scratchRun(o.cacheDir, 'calls-run', o.keep);
  const env = gitEnv(home);
  const caller = { SHADOW_HANDOFF: '0' };
  console.log('the price of a call (bench/calls.bench.ts)');
  console.log(machineLine(run('git', ['--version']).trim()));
  console.log(`load average at the start: ${loadAverage()}; ${runs} runs per case, interleaved`);
  const cached = cachedRepo(o.cacheDir, o.n, env, log);
  const dir = join(root, `repo-n${o.n}`);
  log(`copying the repository of ${thousands(o.n)} files to ${dir}...`);
  copyRepo(cached.dir, dir, env);
  const git = (...args: string[]): string => run('git', args, { cwd: dir, env });
  const paths = cached.layout.paths;
  const pick = (from: number, k: number): string[] =>
    Array.from({ length: k }, (_, i) => paths[(from + i * 37) % paths.length]!);
  const floor = writeFloorScript(root, paths);
  const shadowCase = (label: string, args: string[] | (() => string[]), extra: Partial<Case> = {}): [Case, Case] => {
    const full = typeof args === 'function' ? () => [SHADOW_CJS, ...args()] : [SHADOW_CJS, ...args];
    return [
      { label: `${label}, by the caller`, cmd: process.execPath, args: full, env: caller, ...extra },
      { label: `${label}, handed to shadow serve`, cmd: process.execPath, args: full, ...extra },
    ];
  };

  // Drafts made untimed, in-process.
  log('making the drafts...');
  const sh = await openShadow({ dir, env });
  const diffPaths = pick(5, 100);
  await sh.batch(
    {
      operations: diffPaths.map((p) => ({
        operation: 'write',
        path: p,
        content: `${nodeFs.readFileSync(join(dir, p), 'utf8')}changed by the draft\n`,
      })),
    },
    { draft: 'diff100' },
  );
  const diffTip = git('rev-parse', 'refs/shadow/drafts/diff100').trim();
  const agePaths = pick(1000, 10 * age);
  for (let b = 0; b < age; b++) {
    if (b % 100 === 0) log(`  aged draft: batch ${b} of ${age}`);
    await sh.batch(
      {
        operations: agePaths
          .slice(b * 10, b * 10 + 10)
          .map((p) => ({ operation: 'write', path: p, content: `aged ${p}\n` })),
      },
      { draft: 'aged' },
    );
  }
  await sh.batch(
    { operations: agePaths.map((p) => ({ operation: 'write', path: p, content: `aged ${p}\n` })) },
    { draft: 'fresh' },
  );
  sh.close();

  let seq = 0;
  const k1 = pick(300, 1);
  const k10 = pick(400, 10);
  let applyDraft = '';
  const applyPaths = pick(9000, 100);
  const resetApply = (): void => void git('checkout', '-q', 'HEAD', '--', ...applyPaths);
  const newApplyDraft = (): void => {
    resetApply();
    applyDraft = `apply-${seq++}`;
    run(process.execPath, [SHADOW_CJS, 'batch', '--draft', applyDraft, '-'], {
      cwd: dir,
      env: { ...env, ...caller },
      input: batchDoc(applyPaths, applyDraft),
    });
  };
  let bare: Awaited<ReturnType<typeof startBareHandoff>> | undefined;
  let handedFacts: ProcessFacts | undefined;
  let phases: Phases[] = [];
  const traceOptions = (e: Record<string, string>) => ({ cwd: dir, env: e, root: dir, scratch: root });
  /** A batch of 10 new contents, as a file: the arguments of `shadow batch` for a traced run. */
  const traceBatch = (): string[] => {
    const file = join(root, `trace-batch-${seq}.json`);
    nodeFs.writeFileSync(file, batchDoc(k10, `traced ${seq++}`));
    return ['batch', '--draft', 'k10', file];
  };
  let bareDurable: Awaited<ReturnType<typeof startBareHandoff>> | undefined;
  let durable: Awaited<ReturnType<typeof startBareDurable>> | undefined;
  const groups = (): Array<{ title: string; cases: Case[] }> => [
    {
      title: 'batch, k=1',
      cases: [
        { label: 'node write-files.cjs (1 file)', cmd: process.execPath, args: [floor, join(root, 'floor'), ...k1] },
        ...shadowCase('shadow batch', ['batch', '--draft', 'k1', '@input'], {
          input: () => batchDoc(k1, `run ${seq++}`),
        }),
      ],
    },
    {
      title: 'batch, k=10',
      cases: [
        { label: 'node write-files.cjs (10 files)', cmd: process.execPath, args: [floor, join(root, 'floor'), ...k10] },
        ...shadowCase('shadow batch', ['batch', '--draft', 'k10', '@input'], {
          input: () => batchDoc(k10, `run ${seq++}`),
        }),
        {
          label: 'bare hand-off (node:net, two round trips, no work)',
          cmd: process.execPath,
          args: () => [bare!.client, bare!.socket, 'batch', '--draft', 'k10', '@input'],
          input: () => batchDoc(k10, `bare ${seq++}`),
        },
        {
          label: "bare durable hand-off (the same, and a batch's five flushes)",
          cmd: process.execPath,
          args: () => [bareDurable!.client, bareDurable!.socket, 'batch', '--draft', 'k10', '@input'],
          input: () => batchDoc(k10, `bare ${seq++}`),
        },
      ],
    },
    {
      title: 'diff, 100 changed files',
      cases: [
        { label: 'git diff <base> <draft>', cmd: 'git', args: ['diff', 'HEAD', diffTip] },
        ...shadowCase('shadow diff', ['diff', '--draft', 'diff100']),
      ],
    },
    {
      title: 'diff --stat, 100 changed files',
      cases: [
        { label: 'git diff --stat <base> <draft>', cmd: 'git', args: ['diff', '--stat', 'HEAD', diffTip] },
        ...shadowCase('shadow diff --stat', ['diff', '--stat', '--draft', 'diff100']),
        // In the same rounds, for the target node -e 0 + 2x git's.
        { label: 'node -e 0', cmd: process.execPath, args: ['-e', '0'] },
      ],
    },
    {
      title: 'status',
      cases: [
        { label: 'git status', cmd: 'git', args: ['status'] },
        ...shadowCase('shadow status', ['status', '--draft', 'diff100']),
        { label: 'node -e 0', cmd: process.execPath, args: ['-e', '0'] },
      ],
    },
    {
      title: 'apply, 100 files',
      cases: [
        {
          label: 'git checkout <draft> -- <100 paths>',
          cmd: 'git',
          args: ['checkout', '-q', diffTip, '--', ...diffPaths],
          before: () => void git('checkout', '-q', 'HEAD', '--', ...diffPaths),
        },
        ...shadowCase('shadow apply', () => ['apply', '--draft', applyDraft], { before: newApplyDraft }),
      ],
    },
  ];

  const results: Record<string, Timed[]> = {};
  const start = new Map<string, string>();
  let snapshotTitle = '';
  /** How each case started (start-path.ts): one more run of each shadow case run by the caller, watching its code cache. */
  const noteStart = (cases: readonly Case[]): void => {
    for (const c of cases) {
      const args = typeof c.args === 'function' ? c.args() : c.args;
      if (c.label.includes('handed to')) start.set(c.label, 'handed off');
      else if (args[0] === '--snapshot-blob') start.set(c.label, 'snapshot');
      else if (args[0] === SHADOW_CJS)
        start.set(
          c.label,
          cachePathOf(BIN_DIR, args[1]!, () => void timeCases([c], 0, dir, env)),
        );
    }
  };
  log('timing start-up...');
  const hasCa = nodeFs.existsSync(CA_BUNDLE);
  const startCases: Case[] = [
    { label: 'node -e 0', cmd: process.execPath, args: ['-e', '0'] },
    { label: 'node shadow.cjs --version', cmd: process.execPath, args: [SHADOW_CJS, '--version'] },
    { label: 'shadow --version (the launcher)', cmd: LAUNCHER, args: ['--version'] },
  ];
  results.start = timeCases(startCases, runs, dir, env);
  if (hasCa) results.startCa = timeCases(startCases, runs, dir, { ...env, NODE_EXTRA_CA_CERTS: CA_BUNDLE });

  const server = await startServe(dir, env);
  let mode: Awaited<ReturnType<typeof measureServerMode>>;
  try {
    // What a hand-off and a served batch cost with no work but theirs (calls/floors.ts): the floors of both.
    bare = await startBareHandoff(root);
    bareDurable = await startBareHandoff(root, true);
    durable = await startBareDurable(root);
    for (const g of groups()) {
      log(`timing ${g.title}...`);
      results[g.title] = timeCases(g.cases, runs, dir, env);
      noteStart(g.cases);
    }
    log('timing a V8 start-up snapshot against the code cache...');
    const blobs = buildSnapshots(join(BIN_DIR, 'shadow-cli.cjs'), join(root, 'snapshots'));
    snapshotTitle = `start-up path, by the caller: V8 snapshots (cold ${mb(blobs.sizes.cold)}, eager ${mb(blobs.sizes.eager)}) against the code cache (bundle ${mb(blobs.sizes.bundle)})`;
    const paths: Array<[string, string[]]> = [
      ['code cache', [SHADOW_CJS]],
      ['cold snapshot', ['--snapshot-blob', blobs.cold]],
      ['eager snapshot', ['--snapshot-blob', blobs.eager]],
    ];
    const snapCases: Case[] = [{ label: 'node -e 0', cmd: process.execPath, args: ['-e', '0'] }];
    for (const [how, pre] of paths)
      snapCases.push({
        label: `shadow status, ${how}`,
        cmd: process.execPath,
        args: [...pre, 'status', '--draft', 'diff100'],
        env: caller,
      });
    for (const [how, pre] of paths)
      snapCases.push({
        label: `shadow batch k=10, ${how}`,
        cmd: process.execPath,
        args: [...pre, 'batch', '--draft', 'k10', '@input'],
        env: caller,
        input: () => batchDoc(k10, `run ${seq++}`),
      });
    results.snapshot = timeCases(snapCases, runs, dir, env);
    noteStart(snapCases);
    log('timing the aged draft against the fresh one...');
    const ageCases: Case[] = [];
    for (const d of ['fresh', 'aged']) {
      ageCases.push({
        label: `shadow batch k=1 on ${d}`,
        cmd: process.execPath,
        args: [SHADOW_CJS, 'batch', '--draft', d, '@input'],
        env: caller,
        input: () => batchDoc(k1, `age ${seq++}`),
      });
      ageCases.push({
        label: `shadow status on ${d}`,
        cmd: process.execPath,
        args: [SHADOW_CJS, 'status', '--draft', d],
        env: caller,
      });
      ageCases.push({
        label: `shadow diff --stat on ${d}`,
        cmd: process.execPath,
        args: [SHADOW_CJS, 'diff', '--stat', '--draft', d],
        env: caller,
      });
    }
    results.age = timeCases(ageCases, runs, dir, env);
    log('timing the phases of a call by the caller...');
    const phaseCase = (label: string, args: string[], input?: () => string) => ({
      label: `shadow ${label}`,
      cmd: process.execPath,
      args: [SHADOW_CJS, ...args],
      env: caller,
      input,
    });
    phases = measurePhases(
      [
        { label: 'node -e 0', cmd: process.execPath, args: ['-e', '0'] },
        { label: 'node write-files.cjs (10 files)', cmd: process.execPath, args: [floor, join(root, 'floor'), ...k10] },
        phaseCase('batch k=10', ['batch', '--draft', 'k10', '-'], () => batchDoc(k10, `phase ${seq++}`)),
        phaseCase('status', ['status', '--draft', 'diff100']),
        phaseCase('diff --stat', ['diff', '--stat', '--draft', 'diff100']),
      ],
      runs,
      { cwd: dir, env, scratch: root },
    );
    log('server mode...');
    mode = await measureServerMode(server, durable.port, dir, env, o.quick ? 100 : 300, 16, o.quick ? 10 : 25);
    // The caller's side of a hand-off, counted while the server runs (the server's own work is not traced).
    if (o.strace) handedFacts = tracedRun(process.execPath, [SHADOW_CJS, ...traceBatch()], traceOptions(env));
  } finally {
    await server.stop();
    await durable?.stop();
    await bare?.stop();
    await bareDurable?.stop();
  }
  resetApply();
  const facts: Array<[string, ProcessFacts]> = [];
  if (o.strace) {
    log('counting under strace...');
    const trace = (label: string, cmd: string, args: string[], extra: Record<string, string> = {}): void =>
      void facts.push([label, tracedRun(cmd, args, traceOptions({ ...env, ...extra }))]);
    trace('node -e 0', process.execPath, ['-e', '0']);
    trace('shadow --version', process.execPath, [SHADOW_CJS, '--version']);
    trace('node write-files.cjs (10 files)', process.execPath, [floor, join(root, 'floor'), ...k10]);
    trace('shadow batch k=10 (caller)', process.execPath, [SHADOW_CJS, ...traceBatch()], caller);
    if (handedFacts) facts.push(['shadow batch k=10 (handed off: the caller)', handedFacts]);
    trace('git status', 'git', ['status']);
    trace('shadow status (caller)', process.execPath, [SHADOW_CJS, 'status', '--draft', 'diff100'], caller);
    trace('git diff <base> <draft>', 'git', ['diff', 'HEAD', diffTip]);
    trace('shadow diff (caller)', process.execPath, [SHADOW_CJS, 'diff', '--draft', 'diff100'], caller);
    git('checkout', '-q', 'HEAD', '--', ...diffPaths);
    trace('git checkout -- <100 paths>', 'git', ['checkout', '-q', diffTip, '--', ...diffPaths]);
    git('checkout', '-q', 'HEAD', '--', ...diffPaths);
    newApplyDraft();
    trace('shadow apply, 100 files (caller)', process.execPath, [SHADOW_CJS, 'apply', '--draft', applyDraft], caller);
    resetApply();
  }

  printGroup('start-up', results.start!);
  if (results.startCa) printGroup(`start-up with NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`, results.startCa);
  for (const g of groups()) printGroup(g.title, results[g.title]!, start);
  printGroup(snapshotTitle, results.snapshot!, start);
  printGroup('age: the same changes as one batch (fresh) and as many (aged); ratios to the first row', results.age!);
  console.log(
    `(the aged draft: ${age} batches of 10 paths, ${thousands(10 * age)} paths changed; the fresh one: 1 batch of the same ${thousands(10 * age)})`,
  );
  const seqP50 = med({ label: '', times: mode.sequential });
  console.log(
    `\nserver mode (HTTP, keep-alive): a k=1 batch p50 ${ms(seqP50)} ms, p99 ${ms(p99(mode.sequential))} ms over ${mode.sequential.length} calls;`,
  );
  console.log(
    `  the bare durable server (node's http, the same five flushes in turn, no other work; calls/floors.ts), alternating: p50 ${ms(med({ label: '', times: mode.floor }))} ms, p99 ${ms(p99(mode.floor))} ms;`,
  );
  for (const c of mode.concurrent) console.log(concurrentLine(c));
  printFacts(facts);
  if (phases.length > 0) printPhases(phases, runs);

  const verdicts = callVerdicts(results, mode, phases);
  console.log('\n=== targets (ratios to the baseline measured in the same run)');
  printVerdicts(verdicts, started);
  if (verdicts.some((v) => v.status === 'FAIL')) process.exitCode = 1;
}

await main();
