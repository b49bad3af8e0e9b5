import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeContext, openShadow, type FileSystem, type RebaseResult } from '../src/index.js';
import type { DiskRepo } from './helpers/disk-repo.js';
import { FsSeam, type CallRecord } from './helpers/fs-seam.js';
import { prng } from './helpers/prng.js';
import { CONFLICTS, DRAFT, frozenClock, rebaseOptions, rebaseRepo, type Target } from './helpers/rebase-fixture.js';
import { blockingLocks } from './helpers/lock-files.js';
import { powerLossSweep } from './helpers/rebase-power-loss.js';

/**
 * A rebase killed at a seeded file-system call (the seam throws there and
 * at every later call, and the handle runs as a process that is gone, so
 * nothing tidies up), on a real repository, onto the working tree and onto
 * a branch. After each kill a new handle (the next command) must find the
 * draft's ref on the old tip or on exactly the commit a whole run makes,
 * never anything else, with every object it reaches present (`git cat-file
 * -e`, `git rev-list --objects`, `git fsck --strict`); recover nothing
 * failed; read the draft (`sh.status` with the conflicts the ref's commit
 * holds, the ledger, and on a sample the whole `shadow status` process);
 * undo a rebase whose ref moved; do the rebase again, to the tree and
 * parents a whole run makes; let the next batch through; and leave no lock
 * that blocks anyone (a git-format lock left by the killed process goes
 * when the next command takes it).
 *
 * The kill points: every call from the first object written to the draft
 * ref's directory fsync (where the ref moves), and a seeded sample of the
 * others, REBASE_CRASH_POINTS in all per target (default 28; `all`: every
 * call). Then the power-loss half (rebase-power-loss.ts): every disk a
 * power loss during a rebase may leave.
 *
 *   REBASE_CRASH_SEED=7 REBASE_CRASH_POINTS=all node dist/test/rebase-crash.test.js
 */

const SEED = Number(process.env.REBASE_CRASH_SEED ?? 20261126);
const BUDGET = process.env.REBASE_CRASH_POINTS === 'all' ? Infinity : Number(process.env.REBASE_CRASH_POINTS ?? 28);
/** Every this many kill points, the whole `shadow status` process reads the repository too. */
const CLI_EVERY = 12;

/** Pids no process can have (above Linux's and macOS's largest): each crashed handle's own. */
const GONE = 1 << 22;

const MUTATING = new Set<string>([
  'openSync',
  'writeSync',
  'writeFileSync',
  'appendFileSync',
  'renameSync',
  'unlinkSync',
  'mkdirSync',
  'rmdirSync',
  'linkSync',
  'fsyncSync',
  'symlinkSync',
]);

/**
 * The kill points over a whole run's calls: the window where objects are
 * written and the ref moves, whole; then a seeded sample of the calls after
 * it (the checkpoint, the draft's file, the ledger) and, fewer, of those
 * before it (reads, and the plan lock, where every kill is much alike).
 * Within the budget the window comes first.
 */
function killPoints(log: readonly CallRecord[], budget: number, seed: number): number[] {
  if (log.length <= budget) return log.map((c) => c.n);
  const first = log.find((c) => MUTATING.has(c.op) && c.path?.includes('/objects/pack/tmp_'))!.n;
  const refDir = log.find((c) => c.op === 'fsyncSync' && c.path?.endsWith('/refs/shadow/drafts'))!.n;
  const window = log.filter((c) => c.n >= first - 1 && c.n <= refDir + 1).map((c) => c.n);
  const before = log.filter((c) => c.n < first - 1).map((c) => c.n);
  const after = log.filter((c) => c.n > refDir + 1).map((c) => c.n);
  const rand = prng(seed);
  const sample = (xs: number[], k: number): number[] => {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs.slice(0, Math.max(0, k));
  };
  if (window.length >= budget) return sample(window, budget).sort((a, b) => a - b);
  const left = budget - window.length;
  const early = sample(before, Math.floor(left / 4));
  return [...window, ...early, ...sample(after, left - early.length)].sort((a, b) => a - b);
}

/** The .git directory put back as it was before the rebase (the rebase writes nowhere else). */
function restoreGitDir(repo: DiskRepo, pristine: string): void {
  nodeFs.rmSync(join(repo.dir, '.git'), { recursive: true, force: true });
  nodeFs.cpSync(pristine, join(repo.dir, '.git'), { recursive: true });
}

/** Objects reachable from `ref` that the repository lacks: `git rev-list --objects` through `git cat-file --batch-check`. */
function missingObjects(repo: DiskRepo, ref: string): string[] {
  const listed = repo.gitResult('rev-list', '--objects', '--missing=print', ref);
  if (listed.status !== 0) return [`(git rev-list failed: ${listed.stderr.trim()})`];
  const oids = listed.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ')[0]!);
  const missing = oids.filter((o) => o.startsWith('?')).map((o) => o.slice(1));
  const present = oids.filter((o) => !o.startsWith('?'));
  const check = spawnSync('git', ['cat-file', '--batch-check'], {
    cwd: repo.dir,
    env: repo.env,
    input: `${present.join('\n')}\n`,
    encoding: 'utf8',
  });
  for (const line of check.stdout.split('\n')) if (line.endsWith(' missing')) missing.push(line.split(' ')[0]!);
  return missing;
}

interface WholeRun {
  result: RebaseResult;
  /** The rebase commit's tree and parents, `git rev-parse` of `<tip>^{tree} <tip>^1 <tip>^2`. */
  shape: string;
  log: CallRecord[];
}

/** A commit's tree and parents, which a rebase of the same state makes whatever its batch number and time. */
function shapeOf(repo: DiskRepo, commit: string): string {
  return repo.git('rev-parse', `${commit}^{tree}`, `${commit}^1`, `${commit}^2`).trim();
}

/** One whole rebase onto `target` under the frozen clock, every fs call logged; the .git directory put back after. */
async function wholeRun(repo: DiskRepo, pristine: string, target: Target): Promise<WholeRun> {
  const base = nodeContext();
  const seam = new FsSeam(nodeFs as unknown as FileSystem);
  const sh = await openShadow({
    dir: repo.dir,
    fs: seam.fs,
    clock: frozenClock(),
    ids: base.ids,
    env: { ...repo.env },
    processes: base.processes,
    git: base.git,
  });
  seam.record = true;
  seam.arm();
  try {
    const result = await sh.rebase(rebaseOptions(target));
    seam.disarm();
    return { result, shape: shapeOf(repo, result.tip), log: [...seam.log] };
  } finally {
    sh.close();
    restoreGitDir(repo, pristine);
  }
}

/** One kill at call `n` and what the next command finds: the problems, each a line. */
async function killAt(
  repo: DiskRepo,
  whole: WholeRun,
  target: Target,
  n: number,
  pid: number,
  cli: boolean,
): Promise<{ problems: string[]; moved: boolean; killed: boolean }> {
  const base = nodeContext();
  const problems: string[] = [];
  const seam = new FsSeam(nodeFs as unknown as FileSystem);
  const processes = { self: pid, host: base.processes!.host, isAlive: base.processes!.isAlive };
  const crashing = await openShadow({
    dir: repo.dir,
    fs: seam.fs,
    clock: frozenClock(),
    ids: base.ids,
    env: { ...repo.env },
    processes,
    git: base.git,
  });
  seam.record = true;
  seam.arm(n);
  try {
    // A run's calls can differ by one or two from the whole run's (a stat the pack cache skips): one that ends first is a whole run.
    const r = await crashing.rebase(rebaseOptions(target));
    if (r.tip !== whole.result.tip)
      problems.push(`${target} N=${n}: the rebase, not killed, made ${r.tip}, a whole run ${whole.result.tip}`);
  } catch (e) {
    if (!seam.crashed) problems.push(`${target} N=${n}: failed without a crash: ${(e as Error).message}`);
  }
  const killed = seam.crashed;
  seam.disarm();
  const call = seam.log.at(-1);
  const where = `${target} N=${n} (${call?.op} ${call?.path?.replace(repo.dir, '') ?? ''})`;

  const ref = repo.ref(`refs/shadow/drafts/${DRAFT}`);
  const moved = ref === whole.result.tip;
  if (ref !== whole.result.from && !moved)
    problems.push(`${where}: the draft's ref is ${ref}, neither the old tip nor the rebase's commit`);
  if (moved) {
    const tree = whole.shape.split('\n')[0]!;
    if (repo.gitResult('cat-file', '-e', tree).status !== 0)
      problems.push(`${where}: the rebase commit's tree ${tree} is missing`);
    const missing = missingObjects(repo, ref!);
    if (missing.length > 0)
      problems.push(`${where}: objects the moved ref reaches are missing: ${missing.slice(0, 3).join(', ')}`);
  }

  // The next commands, on a live process.
  const next = await openShadow({
    dir: repo.dir,
    fs: base.fs,
    clock: frozenClock(),
    ids: base.ids,
    env: { ...repo.env },
    processes: base.processes,
    git: base.git,
  });
  try {
    const failed = next.recovered?.failed ?? [];
    if (failed.length > 0) problems.push(`${where}: recovery failed: ${failed[0]!.error}`);
    const status = await next.status({ draft: DRAFT });
    if (status.tip !== ref) problems.push(`${where}: status says the tip is ${status.tip}, the ref ${ref}`);
    const conflicts = status.conflicts.map((c) => c.path).sort();
    const expected = moved ? whole.result.conflicts.map((c) => c.path).sort() : [];
    if (JSON.stringify(conflicts) !== JSON.stringify(expected))
      problems.push(
        `${where}: status lists conflicts ${JSON.stringify(conflicts)}, expected ${JSON.stringify(expected)}`,
      );
    const ledger = await next.verifyEvents({ draft: DRAFT });
    if (!ledger.ok)
      problems.push(`${where}: the ledger does not verify: ${JSON.stringify(ledger.broken).slice(0, 200)}`);
    if (cli) {
      const r = repo.shadow(['status', '--json'], { env: { SHADOW_DRAFT: DRAFT } });
      if (r.status !== 0 || r.json().tip !== ref)
        problems.push(`${where}: shadow status exited ${r.status}: ${r.stdout.slice(0, 200)}${r.stderr.slice(0, 200)}`);
    }
    if (moved) {
      // A rebase whose ref moved is undone like one that returned (its reflog line is written before the ref moves).
      const undone = await next.undo({ draft: DRAFT });
      if (undone.to !== whole.result.from)
        problems.push(`${where}: undo moved the draft to ${undone.to}, not the old tip`);
    }
    // The rebase done again makes the commit a whole run makes (its batch number may be higher: see the reflog).
    const again = await next.rebase(rebaseOptions(target));
    if (shapeOf(repo, again.tip) !== whole.shape)
      problems.push(`${where}: the rebase done again made ${shapeOf(repo, again.tip)}, a whole run ${whole.shape}`);
    const r = await next.batch(
      { intent: 'after the kill', operations: [{ operation: 'write', path: 'docs/after.md', content: `${n}\n` }] },
      { draft: DRAFT },
    );
    if (!r.success) problems.push(`${where}: the next batch failed: ${r.error?.code} ${r.error?.message}`);
  } catch (e) {
    problems.push(`${where}: the next command failed: ${(e as { code?: string }).code} ${(e as Error).message}`);
  } finally {
    next.close();
  }
  const locks = blockingLocks(join(repo.dir, '.git'), (p) => p >= GONE);
  if (locks.length > 0) problems.push(`${where}: locks left: ${locks.join(', ')}`);
  const fsck = repo.gitResult('fsck', '--strict', '--no-progress', '--no-dangling');
  if (fsck.status !== 0) problems.push(`${where}: git fsck: ${fsck.stdout}${fsck.stderr}`.slice(0, 400));
  return { problems, moved, killed };
}

const Kill = suite('rebase: killed at any point');

for (const target of ['worktree', 'person'] as const) {
  Kill(
    `a rebase onto ${target === 'worktree' ? 'the working tree' : 'a branch'} killed at seeded fs calls leaves the ref on the old tip or the whole new commit, and the next command goes on`,
    async () => {
      const { repo, tip } = await rebaseRepo();
      const pristine = join(repo.root, 'pristine.git');
      try {
        nodeFs.cpSync(join(repo.dir, '.git'), pristine, { recursive: true });
        const whole = await wholeRun(repo, pristine, target);
        assert.is(whole.result.from, tip);
        const conflicts = whole.result.conflicts.map((c) => c.path);
        assert.ok(
          whole.result.tip !== tip && CONFLICTS[target].every((p) => conflicts.includes(p)),
          `the whole run makes a rebase commit with the overlaps in conflict: ${JSON.stringify(conflicts)}`,
        );
        const points = killPoints(whole.log, BUDGET, SEED + (target === 'worktree' ? 0 : 1));
        const problems: string[] = [];
        let moved = 0;
        let killed = 0;
        for (const [i, n] of points.entries()) {
          const out = await killAt(repo, whole, target, n, GONE + i, i % CLI_EVERY === 0);
          problems.push(...out.problems);
          if (out.moved) moved++;
          if (out.killed) killed++;
          restoreGitDir(repo, pristine);
          if (problems.length > 8) break;
        }
        assert.equal(problems, [], `${problems.length} problems over ${points.length} kill points`);
        assert.ok(killed >= points.length - 2, `${killed} of ${points.length} runs killed`);
        // Both outcomes were reached: kills before the ref moved, and after.
        assert.ok(moved > 0 && moved < points.length, `${moved} of ${points.length} kills left the ref moved`);
        console.log(
          `rebase onto ${target}: ${killed} kills at ${points.length} points of ${whole.log.length} fs calls, ${moved} after the ref moved`,
        );
      } finally {
        repo.cleanup();
      }
    },
  );
}

Kill.run();

const Power = suite('rebase: power lost at any point');

// Onto the working tree only: a rebase onto a branch logs the same changes and fsyncs, with one object fewer (the base commit, which is the branch's).
Power(
  'after a power loss at any point of a rebase onto the working tree, the ref never names a commit whose objects were lost, and one that returned is durable',
  async () => {
    const counts = await powerLossSweep('worktree');
    assert.ok(
      counts.moved > 0 && counts.moved < counts.states,
      `${counts.moved} of ${counts.states} disks with the ref moved`,
    );
    console.log(
      `rebase onto the working tree: ${counts.states} power-loss states over ${counts.points} crash points, ${counts.moved} with the ref moved`,
    );
  },
);

Power.run();
