import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openShadow } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { CRASH_WORKER, lastReported, runShadowChild, type Trigger } from './helpers/plan-child.js';
import {
  between,
  evolvingPlan,
  PLAN_BASE_FILES,
  planCommits,
  prng,
  treeFiles,
  type PlanCommit,
} from './helpers/plan-fixtures.js';
import { describe, events, ledger, range, readTracker } from './helpers/plan-records.js';

/**
 * Plans in real processes: a chain of `shadow run` / `shadow resume`
 * children SIGKILLed at 60 seeded-random moments; SIGKILL at exact steps
 * of a batch (a worker that kills itself there); SIGINT / SIGTERM / a stop
 * request between batches. Every moment is found by reading the child's
 * JSON-lines output (or a seeded delay after its first output), never by
 * sleeping. One uninterrupted run of the plan is the reference of them all.
 *
 *   PLAN_KILL_SEED=123 node dist/test/plan-kill.test.js    # another seed
 *   PLAN_KILL_KILLS=300 node dist/test/plan-kill.test.js   # more kills (60 keep the suite in its four minutes)
 */

const SEED = Number(process.env.PLAN_KILL_SEED ?? 20261122);
const BATCHES = 50;
const KILLS = Number(process.env.PLAN_KILL_KILLS ?? 60);
const CHAINS = 2;
const PLAN = evolvingPlan(BATCHES);

/** An uninterrupted run of the plan, in a repository of its own: the tree after each batch. */
interface Reference {
  trees: string[];
  final: string;
}

let reference: Reference | undefined;

function planRepo(): DiskRepo {
  const repo = new DiskRepo(PLAN_BASE_FILES);
  repo.write('plan.json', PLAN.text);
  // The plan file is not part of the tree the drafts start from.
  repo.write('.git/info/exclude', 'plan.json\nother.json\n');
  // One shadow process at a time works on these repositories: a lock still
  // there after a kill is left over, and a resume that waits for it (the
  // default is 5 s) fails the test all the same, only slower.
  repo.git('config', 'shadow.lockTimeout', '1000');
  return repo;
}

/** Run the plan once, uninterrupted, in a fresh repository (once per file). */
function uninterrupted(): Reference {
  if (reference) return reference;
  const repo = planRepo();
  try {
    const r = repo.shadow(['--draft', 'ref', 'run', 'plan.json']);
    assert.is(r.status, 0, r.stderr);
    const commits = planCommits(repo, 'ref');
    assert.equal(
      commits.map((c) => c.planBatch),
      range(1, BATCHES),
    );
    const final = repo.git('rev-parse', 'refs/shadow/drafts/ref^{tree}').trim();
    assert.equal(
      treeFiles(repo, 'refs/shadow/drafts/ref'),
      PLAN.files,
      'the uninterrupted run gives the simulated files',
    );
    reference = { trees: commits.map((c) => c.tree), final };
    return reference;
  } finally {
    repo.cleanup();
  }
}

function tree(repo: DiskRepo, draft: string): string {
  return repo.git('rev-parse', `refs/shadow/drafts/${draft}^{tree}`).trim();
}

/** The Shadow-Batch numbers of the commits the draft's reflog names (`git log -g`), a move a kill left unmade included. */
function reflogBatches(repo: DiskRepo, draft: string): Set<number> {
  const r = repo.gitResult(
    'log',
    '-g',
    '--format=%(trailers:key=Shadow-Batch,valueonly,separator=%x2C)',
    `refs/shadow/drafts/${draft}`,
    '--',
  );
  if (r.status !== 0) return new Set();
  return new Set(
    r.stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map(Number),
  );
}

/**
 * The draft's plan commits are exactly batches 1..k of the plan, in order,
 * each with the tree the uninterrupted run had after that batch, and the
 * draft's own batch counter beside them: 1..k, but for numbers only the
 * reflog names. Returns k.
 */
function checkPlanCommits(repo: DiskRepo, draft: string, ref: Reference, where: string): number {
  const commits: PlanCommit[] = planCommits(repo, draft);
  const k = commits.length;
  assert.equal(
    commits.map((c) => c.planBatch),
    range(1, k),
    `${where}: plan batches are 1..${k}, no duplicate, no gap`,
  );
  assert.equal(
    commits.map((c) => c.plan),
    Array(k).fill('evolve'),
    `${where}: Shadow-Plan`,
  );
  // The draft's batch numbers rise by one, except where a kill came after the reflog line of a batch and before its
  // ref moved (git's order, and shadow's: src/git/refs.ts): that number is named by the reflog, so it is never given
  // again, and the next batch skips it.
  const named = reflogBatches(repo, draft);
  let expected = 1;
  for (const c of commits) {
    while (c.batch > expected && named.has(expected) && !commits.some((o) => o.batch === expected)) expected++;
    assert.is(
      c.batch,
      expected,
      `${where}: Shadow-Batch ${c.batch} where ${expected} was next (reflog names ${[...named]})`,
    );
    expected++;
  }
  commits.forEach((c, i) => assert.is(c.tree, ref.trees[i], `${where}: the tree after plan batch ${i + 1}`));
  return k;
}

// ---------------------------------------------------------------- kill

const Kill = suite('plan-kill');

/**
 * A seeded kill moment: on plan/start, on the 1st..3rd batch/commit line, or
 * 0..25 ms after the first output (anywhere in the next few batches: in the
 * pack write, under the ref lock, between the ref and the tracker, in the
 * ledger append).
 */
function killMoment(rand: () => number): Trigger {
  const r = rand();
  if (r < 0.2) return { kind: 'line', line: 1 };
  if (r < 0.5) return { kind: 'commits', count: between(rand, 1, 3) };
  return { kind: 'delay', ms: rand() * 25 };
}

interface ChainStats {
  kills: number;
  laps: number;
  trackerBehind: number;
  trackerAhead: number;
  killedBeforeFirstCommit: number;
}

/**
 * One repository: children run the plan on a draft, each SIGKILLed at a
 * seeded moment and checked; a child that reaches the end completes the
 * draft (checked), and the chain goes on with a new draft. After `kills`
 * kills, a last `shadow resume` runs to the end.
 */
async function chain(c: number, kills: number, ref: Reference): Promise<ChainStats> {
  const rand = prng(SEED + c);
  const repo = planRepo();
  const stats: ChainStats = { kills: 0, laps: 0, trackerBehind: 0, trackerAhead: 0, killedBeforeFirstCommit: 0 };
  const finishDraft = (draft: string, where: string): void => {
    assert.is(checkPlanCommits(repo, draft, ref, where), BATCHES, `${where}: all ${BATCHES} batches`);
    assert.is(tree(repo, draft), ref.final, `${where}: the final tree is the uninterrupted run's`);
    const t = readTracker(repo, draft)!;
    assert.equal([t.status, t.last_completed_batch_id], ['complete', BATCHES], `${where}: tracker`);
    stats.laps++;
  };
  try {
    let draft = `chain${c}-lap0`;
    let started = false;
    let k = 0;
    for (let attempts = 0; stats.kills < kills; attempts++) {
      assert.ok(attempts < kills * 3, 'the chain makes progress');
      const args = started ? ['--draft', draft, 'resume'] : ['--draft', draft, 'run', 'plan.json'];
      const moment = killMoment(rand);
      const where = `chain ${c} (seed ${SEED + c}) kill ${stats.kills + 1} [${draft}: shadow ${args.slice(2).join(' ')}, ${JSON.stringify(moment)}]`;
      const r = await runShadowChild(repo, args, moment);
      started = true;
      if (r.signal !== 'SIGKILL') {
        // It reached the end before the kill.
        assert.is(r.code, 0, `${where}: ${describe(r)}`);
        assert.is(r.events.at(-1)?.type, 'plan/complete', `${where}: ${describe(r)}`);
        finishDraft(draft, where);
        draft = `chain${c}-lap${stats.laps}`;
        started = false;
        k = 0;
        continue;
      }
      stats.kills++;
      const now = checkPlanCommits(repo, draft, ref, where);
      assert.ok(now >= k, `${where}: no committed batch is lost (${k} before, ${now} now)`);
      assert.ok(
        now >= lastReported(r),
        `${where}: every batch reported committed (${lastReported(r)}) is on the draft (${now})`,
      );
      if (now === 0) stats.killedBeforeFirstCommit++;
      const t = readTracker(repo, draft);
      if (t && t.last_completed_batch_id < now) stats.trackerBehind++;
      if (t && t.last_completed_batch_id > now) stats.trackerAhead++;
      k = now;
    }
    // The last resume, uninterrupted, to the end.
    const last = await runShadowChild(repo, ['--draft', draft, 'resume'], { kind: 'none' });
    assert.is(last.code, 0, `chain ${c} final resume: ${describe(last)}`);
    assert.equal(
      last.events[0],
      { type: 'plan/start', plan: 'evolve', total: BATCHES, start: k + 1 },
      `chain ${c} final resume starts after batch ${k}`,
    );
    finishDraft(draft, `chain ${c} final resume`);
    repo.git('fsck', '--strict', '--no-progress');
    return stats;
  } finally {
    repo.cleanup();
  }
}

Kill(
  `${KILLS} SIGKILLs at seeded moments (seed ${SEED}): after each the plan commits are 1..k; every resume ends with the uninterrupted tree`,
  async () => {
    const started = Date.now();
    const ref = uninterrupted();
    const all = await Promise.all(Array.from({ length: CHAINS }, (_, c) => chain(c, KILLS / CHAINS, ref)));
    const sum = (f: keyof ChainStats): number => all.reduce((n, s) => n + s[f], 0);
    assert.is(sum('kills'), KILLS);
    // Kills landed everywhere: before a first commit, and across several whole runs of the plan.
    assert.ok(sum('laps') >= CHAINS, 'every chain finished its draft at least once');
    process.stdout.write(
      `  plan-kill: ${sum('kills')} kills over ${sum('laps')} complete drafts; killed before the draft's first plan commit ${sum('killedBeforeFirstCommit')}, ` +
        `tracker behind the ref after ${sum('trackerBehind')}, ahead ${sum('trackerAhead')}; ${((Date.now() - started) / 1000).toFixed(1)}s\n`,
    );
  },
);

Kill.run();

// ---------------------------------------------------------------- crash points

const Crash = suite<{ repo: DiskRepo }>('plan-crash-points');
Crash.before.each((ctx) => {
  ctx.repo = planRepo();
});
Crash.after.each((ctx) => ctx.repo.cleanup());

/** The crash points run the first batches of the plan: the same batches, so the same trees as the uninterrupted run's first ones. */
const SHORT = 6;
const SHORT_PLAN = evolvingPlan(SHORT);

/** SIGKILL at an exact step (see helpers/plan-crash-worker.ts); `committed`: plan batches on the draft after it. */
const CRASH_POINTS: Array<{
  name: string;
  after: number;
  method: string;
  pattern: string;
  nth: number;
  committed: number;
  /** The draft's batch numbers (Shadow-Batch) of the plan's batches once resumed, when not 1..SHORT. */
  numbers?: number[];
}> = [
  {
    name: "the draft's first batch, holding the new draft's ref lock",
    after: 0,
    method: 'linkSync',
    pattern: 'refs/shadow/drafts/default\\.lock$',
    nth: 1,
    committed: 0,
  },
  {
    name: 'batch 3: its pack written, the ref not yet moved',
    after: 2,
    method: 'renameSync',
    pattern: '/objects/pack/pack-[0-9a-f]+\\.idx$',
    nth: 1,
    committed: 2,
  },
  {
    name: "batch 3: holding the draft's ref lock",
    after: 2,
    method: 'linkSync',
    pattern: 'refs/shadow/drafts/default\\.lock$',
    nth: 1,
    committed: 2,
  },
  {
    name: "batch 3: its reflog line durable, the ref not yet moved (as git's order leaves it)",
    after: 2,
    method: 'before:renameSync',
    pattern: 'refs/shadow/drafts/default$',
    nth: 1,
    committed: 2,
    // The reflog names batch 3's commit: its number is not given again, so the plan's batch 3 is the draft's 4.
    numbers: [1, 2, 4, 5, 6, 7],
  },
  {
    name: 'batch 3: the ref moved, draft.json not yet written',
    after: 2,
    method: 'renameSync',
    pattern: 'refs/shadow/drafts/default$',
    nth: 1,
    committed: 3,
  },
  {
    name: 'batch 3: holding the ledger lock for its batch/commit event',
    after: 2,
    method: 'openSync',
    pattern: '/events\\.jsonl$',
    nth: 1,
    committed: 3,
  },
  {
    name: 'batch 3: committed, the tracker not yet written (the tracker behind the ref)',
    after: 2,
    method: 'openSync',
    pattern: '/tracker\\.json\\.tmp-',
    nth: 1,
    committed: 3,
  },
  {
    name: 'batch 3: the tracker written, its event not yet printed',
    after: 2,
    method: 'renameSync',
    pattern: '/tracker\\.json$',
    nth: 1,
    committed: 3,
  },
  {
    name: 'after the last batch: holding the ledger lock for plan/complete',
    after: SHORT,
    method: 'openSync',
    pattern: '/events\\.jsonl$',
    nth: 1,
    committed: SHORT,
  },
];

for (const c of CRASH_POINTS) {
  Crash(
    `SIGKILL at ${c.name}: ${c.committed} batches stay, \`shadow resume\` finishes with the uninterrupted tree`,
    async ({ repo }) => {
      const ref = uninterrupted();
      repo.write('plan.json', SHORT_PLAN.text);
      const worker = spawnSync(
        process.execPath,
        [CRASH_WORKER, repo.dir, repo.path('plan.json'), String(c.after), c.method, c.pattern, String(c.nth)],
        { env: repo.env, encoding: 'utf8' },
      );
      assert.is(
        worker.signal,
        'SIGKILL',
        `the worker reached the crash point: exit ${worker.status}, ${worker.stderr}`,
      );
      assert.is(checkPlanCommits(repo, 'default', ref, c.name), c.committed);
      const r = repo.shadow(['resume']);
      assert.is(r.status, 0, `shadow resume after a crash at ${c.name}: ${r.stderr}`);
      assert.equal(events(r.stdout)[0], { type: 'plan/start', plan: 'evolve', total: SHORT, start: c.committed + 1 });
      assert.is(checkPlanCommits(repo, 'default', ref, `${c.name}, resumed`), SHORT);
      assert.equal(
        planCommits(repo, 'default').map((p) => p.batch),
        c.numbers ?? range(1, SHORT),
        `${c.name}: the draft's batch numbers`,
      );
      assert.is(tree(repo, 'default'), ref.trees[SHORT - 1]);
      const t = readTracker(repo, 'default')!;
      assert.equal([t.status, t.last_completed_batch_id], ['complete', SHORT]);
    },
  );
}

Crash.run();

// ---------------------------------------------------------------- stop

const Stop = suite<{ repo: DiskRepo }>('plan-stop-signals');
Stop.before.each((ctx) => {
  ctx.repo = planRepo();
});
Stop.after.each((ctx) => ctx.repo.cleanup());

const stopRand = prng(SEED ^ 0x5eed);
const draw = {
  sigint: [between(stopRand, 1, 30), between(stopRand, 1, 30)],
  delay: Number((2 + stopRand() * 20).toFixed(1)),
  sigterm: between(stopRand, 1, 30),
  request: between(stopRand, 1, 30),
};
const STOPS: Array<{ name: string; trigger: Trigger; via: NodeJS.Signals | 'request' }> = [
  { name: 'SIGINT on plan/start', trigger: { kind: 'line', line: 1 }, via: 'SIGINT' },
  ...draw.sigint.map((count) => ({
    name: `SIGINT when batch ${count} is reported`,
    trigger: { kind: 'commits', count } as Trigger,
    via: 'SIGINT' as const,
  })),
  { name: `SIGINT ${draw.delay} ms after the first output`, trigger: { kind: 'delay', ms: draw.delay }, via: 'SIGINT' },
  {
    name: `SIGTERM when batch ${draw.sigterm} is reported`,
    trigger: { kind: 'commits', count: draw.sigterm },
    via: 'SIGTERM',
  },
  // What `shadow stop` does (its request file), from this process: a `shadow stop` child starts too slowly for a 50-batch run (see plan-cli).
  {
    name: `a stop request (stopPlan from another process) when batch ${draw.request} is reported`,
    trigger: { kind: 'commits', count: draw.request },
    via: 'request',
  },
];

for (const s of STOPS) {
  Stop(
    `${s.name}: exit 130, a complete last batch, the line to resume, and a resume that finishes`,
    async ({ repo }) => {
      const ref = uninterrupted();
      let asked: Promise<unknown> | undefined;
      const via =
        s.via === 'request'
          ? (): void =>
              void (asked = openShadow({ dir: repo.dir }).then((sh) => sh.stopPlan().finally(() => sh.close())))
          : s.via;
      const r = await runShadowChild(repo, ['run', 'plan.json'], s.trigger, via);
      if (asked) await asked;
      assert.ok(r.sent, 'the stop was sent while the plan ran');
      assert.is(r.code, 130, describe(r));
      const m = /stopped after batch (\d+) of 50; continue with `shadow resume`/.exec(r.stderr);
      assert.ok(m, `stderr names the last batch and the command to resume: ${r.stderr}`);
      const last = Number(m![1]);
      assert.ok(last >= lastReported(r) && last < BATCHES, `stopped between batches: ${last}`);
      assert.equal(r.events.at(-1), {
        type: 'plan/stopped',
        plan: 'evolve',
        last_completed_batch_id: last,
        total: BATCHES,
      });
      assert.is(checkPlanCommits(repo, 'default', ref, s.name), last, 'the draft ends at the batch named');
      if (last > 0) assert.is(tree(repo, 'default'), ref.trees[last - 1], 'the last batch is complete');
      const t = readTracker(repo, 'default')!;
      assert.equal([t.status, t.last_completed_batch_id], ['stopped', last]);
      assert.equal(
        ledger(repo, 'default')
          .filter((e) => e.type === 'plan/stopped')
          .map((e) => e.data.last_completed_batch_id),
        [last],
      );

      const again = repo.shadow(['resume']);
      assert.is(again.status, 0, again.stderr);
      assert.equal(JSON.parse(again.stdout.split('\n')[0]!), {
        type: 'plan/start',
        plan: 'evolve',
        total: BATCHES,
        start: last + 1,
      });
      assert.is(checkPlanCommits(repo, 'default', ref, `${s.name}, resumed`), BATCHES);
      assert.is(tree(repo, 'default'), ref.final);
    },
  );
}

Stop.run();
