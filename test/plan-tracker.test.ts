import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePlan, type FileSystem, type Tracker } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { evolvingPlan, PLAN_BASE_FILES } from './helpers/plan-fixtures.js';
import { draftFiles, planBatchIds } from './helpers/mem-draft-history.js';
import {
  draftPath,
  expectCode,
  N,
  openAs,
  PLAN_FILE,
  range,
  readTrackerFile,
  recorder,
  runAndStop,
  writePlanFile,
  writeTrackerFile,
} from './helpers/plan-memfs.js';

/*
 * The plan tracker on memfs: a crash before its write, and a tracker that
 * is damaged, missing or left running, repaired from the draft's commits.
 */

// ---------------------------------------------------------------- tracker

const TrackerSuite = suite<{ repo: MemRepo }>('plan-tracker');
TrackerSuite.before.each(async (ctx) => {
  ctx.repo = await memRepo(PLAN_BASE_FILES);
});

/** memfs whose `failAt`-th rename onto tracker.json throws: a crash between a batch commit and its tracker write. */
function crashOnTrackerWrite(base: FileSystem, failAt: number): FileSystem {
  let n = 0;
  return new Proxy(base, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (prop !== 'renameSync') return typeof v === 'function' ? v.bind(target) : v;
      return (from: string, to: string) => {
        if (String(to).endsWith('/tracker.json') && ++n === failAt)
          throw new Error('simulated crash before the tracker write');
        return (v as FileSystem['renameSync']).call(target, from, to);
      };
    },
  });
}

TrackerSuite(
  'a crash between a batch commit and its tracker write: the ref wins, the batch is not applied twice',
  async ({ repo }) => {
    const plan = evolvingPlan(N);
    writePlanFile(repo, plan.text);
    // Tracker writes: #1 at the start, #k+1 after batch k; #5 is batch 4's.
    const crashing = await openAs(repo, 4242, new Set(), crashOnTrackerWrite(repo.ctx.fs, 5));
    try {
      await crashing.runPlan(plan.text, { planFile: PLAN_FILE });
      assert.unreachable('the simulated crash');
    } catch (e) {
      assert.match((e as Error).message, /simulated crash/);
    }
    assert.equal(await planBatchIds(repo), [1, 2, 3, 4]);
    const stale = readTrackerFile(repo)!;
    assert.equal([stale.status, stale.last_completed_batch_id], ['running', 3], 'the tracker is behind the ref');
    const sh = await repo.open();
    assert.is((await sh.planStatus())!.last_completed_batch_id, 4, 'planStatus repairs it from the ref');
    const rec = recorder();
    const out = await sh.resumePlan({ onEvent: rec.onEvent });
    assert.equal(rec.events[0], { type: 'plan/start', plan: 'evolve', total: N, start: 5 });
    assert.equal(out, { plan: 'evolve', status: 'complete', total: N, last_completed_batch_id: N, ran: N - 4 });
    assert.equal(await planBatchIds(repo), range(1, N));
    assert.equal(await draftFiles(repo), plan.after(N));
    assert.equal([readTrackerFile(repo)!.status, readTrackerFile(repo)!.last_completed_batch_id], ['complete', N]);
  },
);

const TRACKERS: Array<{ name: string; tracker: (t: Tracker) => unknown; status: 'repaired' | 'unreadable' }> = [
  {
    name: 'stale (behind the ref)',
    tracker: (t) => ({ ...t, last_completed_batch_id: 1, status: 'running' }),
    status: 'repaired',
  },
  {
    name: 'ahead of the ref',
    tracker: (t) => ({ ...t, last_completed_batch_id: 9, status: 'stopped' }),
    status: 'repaired',
  },
  {
    name: 'saying complete',
    tracker: (t) => ({ ...t, last_completed_batch_id: N, status: 'complete' }),
    status: 'repaired',
  },
  { name: 'corrupt', tracker: () => '{"version": 1, "plan_id": "evol', status: 'unreadable' },
  { name: 'of another version', tracker: (t) => ({ ...t, version: 2 }), status: 'unreadable' },
];
for (const c of TRACKERS) {
  TrackerSuite(
    `a tracker ${c.name}: progress comes from the ref (4 batches), resume runs 5..${N} once`,
    async ({ repo }) => {
      const sh = await repo.open();
      const plan = evolvingPlan(N);
      await runAndStop(repo, sh, plan.text, 4);
      writeTrackerFile(repo, c.tracker(readTrackerFile(repo)!));
      const status = await sh.planStatus();
      if (c.status === 'repaired') assert.is(status!.last_completed_batch_id, 4);
      else assert.is(status, undefined);
      const rec = recorder();
      const out = await sh.resumePlan({ planText: plan.text, onEvent: rec.onEvent });
      assert.equal(rec.events[0], { type: 'plan/start', plan: 'evolve', total: N, start: 5 });
      assert.is(out.status, 'complete');
      assert.equal(await planBatchIds(repo), range(1, N));
      assert.equal(await draftFiles(repo), plan.after(N));
      const t = readTrackerFile(repo)!;
      assert.equal(
        [t.status, t.last_completed_batch_id, t.fingerprint],
        ['complete', N, parsePlan(plan.text).fingerprint],
      );
    },
  );
}

TrackerSuite(
  'a missing tracker: resume needs the plan, then continues after the last batch on the draft',
  async ({ repo }) => {
    const sh = await repo.open();
    const plan = evolvingPlan(N);
    await runAndStop(repo, sh, plan.text, 4);
    repo.fs.unlinkSync(`${draftPath()}/tracker.json`);
    assert.is(await sh.planStatus(), undefined);
    const e = await expectCode(sh.resumePlan(), 'NO_PLAN');
    assert.match(e.hint ?? '', /shadow resume <plan>/);
    const rec = recorder();
    const out = await sh.resumePlan({ planText: plan.text, onEvent: rec.onEvent });
    assert.equal(rec.events[0], { type: 'plan/start', plan: 'evolve', total: N, start: 5 });
    assert.is(out.ran, N - 4);
    assert.equal(await planBatchIds(repo), range(1, N));
    assert.is(readTrackerFile(repo)!.status, 'complete');
  },
);

TrackerSuite('a tracker left "running" by a process that died: resume continues from the ref', async ({ repo }) => {
  const sh = await openAs(repo, 4242, new Set([4242]));
  const plan = evolvingPlan(N);
  await runAndStop(repo, sh, plan.text, 6);
  writeTrackerFile(repo, { ...readTrackerFile(repo)!, status: 'running', pid: 999_999 });
  const out = await sh.resumePlan();
  assert.is(out.ran, N - 6);
  assert.equal(await planBatchIds(repo), range(1, N));
});

TrackerSuite.run();
