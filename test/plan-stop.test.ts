import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Tracker } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { evolvingPlan, PLAN_BASE_FILES } from './helpers/plan-fixtures.js';
import { draftFiles, planBatchIds, refValue } from './helpers/mem-draft-history.js';
import {
  draftPath,
  eventTypes,
  expectCode,
  N,
  openAs,
  PLAN_FILE,
  range,
  readTrackerFile,
  recorder,
  writePlanFile,
  writeTrackerFile,
} from './helpers/plan-memfs.js';

/*
 * Stopping a plan in-process on memfs: shouldStop between batches, a stop
 * request from another handle, and resume after it.
 */

// ---------------------------------------------------------------- stop

const Stop = suite<{ repo: MemRepo }>('plan-stop');
Stop.before.each(async (ctx) => {
  ctx.repo = await memRepo(PLAN_BASE_FILES);
});

for (const k of [0, 1, 5, N - 1]) {
  Stop(
    `shouldStop after ${k} of ${N} batches: stopped between batches, state persisted, resume finishes`,
    async ({ repo }) => {
      const sh = await repo.open();
      const plan = evolvingPlan(N);
      writePlanFile(repo, plan.text);
      const rec = recorder();
      const out = await sh.runPlan(plan.text, {
        planFile: PLAN_FILE,
        shouldStop: rec.stopAfter(k),
        onEvent: rec.onEvent,
      });
      assert.equal(out, { plan: 'evolve', status: 'stopped', total: N, last_completed_batch_id: k, ran: k });
      assert.equal(
        rec.events.map((e) => e.type),
        ['plan/start', ...Array(k).fill('batch/commit'), 'plan/stopped'],
      );
      assert.equal(rec.events[k + 1], { type: 'plan/stopped', plan: 'evolve', last_completed_batch_id: k, total: N });
      assert.equal(await planBatchIds(repo), range(1, k));
      if (k > 0) assert.equal(await draftFiles(repo), plan.after(k));
      else assert.is(await refValue(repo), undefined);
      const t = readTrackerFile(repo)!;
      assert.is(t.status, 'stopped');
      assert.is(t.last_completed_batch_id, k);
      const ledger = (await eventTypes(sh)).filter((x) => x.startsWith('plan/'));
      assert.equal(ledger, ['plan/start', 'plan/stopped']);

      const rec2 = recorder();
      const again = await sh.resumePlan({ onEvent: rec2.onEvent });
      assert.equal(again, { plan: 'evolve', status: 'complete', total: N, last_completed_batch_id: N, ran: N - k });
      assert.equal(rec2.events[0], { type: 'plan/start', plan: 'evolve', total: N, start: k + 1 });
      assert.equal(await planBatchIds(repo), range(1, N));
      assert.equal(await draftFiles(repo), plan.after(N));
    },
  );
}

Stop('stopPlan from another handle (another process) stops the run after its current batch', async ({ repo }) => {
  const alive = new Set([4242, 4343]);
  const runner = await openAs(repo, 4242, alive);
  const other = await openAs(repo, 4343, alive);
  const plan = evolvingPlan(N);
  writePlanFile(repo, plan.text);
  const rec = recorder();
  let asked: Promise<Tracker> | undefined;
  const out = await runner.runPlan(plan.text, {
    planFile: PLAN_FILE,
    onEvent: (e) => {
      rec.onEvent(e);
      if (e.type === 'batch/commit' && e.plan_batch === 3) asked = other.stopPlan();
    },
  });
  const t = await asked!;
  assert.equal(
    { plan: t.plan_id, pid: t.pid, status: t.status, host: t.host },
    { plan: 'evolve', pid: 4242, status: 'running', host: 'test-host' },
  );
  assert.is(out.status, 'stopped');
  assert.is(out.last_completed_batch_id, 3);
  assert.equal(await planBatchIds(repo), [1, 2, 3]);
  assert.equal(rec.events.map((e) => e.type).slice(-2), ['batch/commit', 'plan/stopped']);
  assert.is(readTrackerFile(repo)!.status, 'stopped');
  // The request is used up: the next run goes to the end.
  const rest = await other.resumePlan();
  assert.is(rest.status, 'complete');
  assert.equal(await planBatchIds(repo), range(1, N));
});

Stop('stopPlan with no plan running is NO_PLAN', async ({ repo }) => {
  const alive = new Set([4242]);
  const sh = await openAs(repo, 4242, alive);
  const none = await expectCode(sh.stopPlan(), 'NO_PLAN');
  assert.match(none.hint ?? '', /shadow run/);
  await sh.runPlan(evolvingPlan(3).text);
  await expectCode(sh.stopPlan(), 'NO_PLAN');
  assert.is(repo.fs.existsSync(`${draftPath()}/stop`), false);
});

Stop(
  'stopPlan on a run whose process died (tracker left "running") is NO_PLAN, pointing to resume',
  async ({ repo }) => {
    const sh = await openAs(repo, 4242, new Set([4242]));
    await sh.runPlan(evolvingPlan(3).text);
    writeTrackerFile(repo, { ...readTrackerFile(repo)!, status: 'running', pid: 999_999, last_completed_batch_id: 2 });
    const e = await expectCode(sh.stopPlan(), 'NO_PLAN');
    assert.match(e.hint ?? '', /shadow resume/);
  },
);

Stop('a stop request left over from before the run does not stop it', async ({ repo }) => {
  const sh = await repo.open();
  repo.fs.mkdirSync(draftPath(), { recursive: true });
  repo.fs.writeFileSync(`${draftPath()}/stop`, 'old request\n');
  const out = await sh.runPlan(evolvingPlan(4).text);
  assert.is(out.status, 'complete');
  assert.is(repo.fs.existsSync(`${draftPath()}/stop`), false);
});

Stop.run();
