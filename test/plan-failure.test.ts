import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PlanEvent, Shadow } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { evolvingPlan, PLAN_BASE_FILES } from './helpers/plan-fixtures.js';
import { draftFiles, planBatchIds, planCommits, refValue } from './helpers/mem-draft-history.js';
import {
  eventTypes,
  N,
  PLAN_FILE,
  range,
  readTrackerFile,
  recorder,
  runAndStop,
  write,
  writePlanFile,
} from './helpers/plan-memfs.js';

/*
 * A failing plan batch on memfs: the draft stays at the last good batch;
 * resume retries it, --skip skips it.
 */

// ---------------------------------------------------------------- failure

const Failure = suite<{ repo: MemRepo }>('plan-failure');
Failure.before.each(async (ctx) => {
  ctx.repo = await memRepo({ ...PLAN_BASE_FILES, 'config.txt': 'mode=slow\n' });
});

/** Batch 2 edits config.txt from mode=fast, which it is not (yet). */
const FAILING = JSON.stringify({
  id: 'fragile',
  batches: [
    { id: 1, operations: [write('a.txt', 'a\n')] },
    {
      id: 2,
      operations: [
        write('half.txt', 'never alone\n'),
        { operation: 'edit', path: 'config.txt', old_content: 'mode=fast', content: 'mode=turbo' },
      ],
    },
    { id: 3, operations: [{ operation: 'edit', path: 'a.txt', old_content: 'a', content: 'a3' }] },
    { id: 4, operations: [{ operation: 'rename', path: 'a.txt', to: 'b.txt' }] },
  ],
});

async function runFailing(repo: MemRepo, sh: Shadow): Promise<PlanEvent[]> {
  writePlanFile(repo, FAILING);
  const rec = recorder();
  const out = await sh.runPlan(FAILING, { planFile: PLAN_FILE, onEvent: rec.onEvent });
  assert.is(out.status, 'failed');
  assert.is(out.last_completed_batch_id, 1);
  assert.is(out.failed!.batch_id, 2);
  assert.is(out.failed!.error.code, 'EDIT_NO_MATCH');
  return rec.events;
}

Failure(
  'a failing batch leaves the draft at the last good batch and the tracker naming it and why',
  async ({ repo }) => {
    const sh = await repo.open();
    const events = await runFailing(repo, sh);
    assert.equal(
      events.map((e) => e.type),
      ['plan/start', 'batch/commit', 'plan/failed'],
    );
    const failed = events[2] as Extract<PlanEvent, { type: 'plan/failed' }>;
    assert.equal([failed.plan, failed.batch_id, failed.error.code], ['fragile', 2, 'EDIT_NO_MATCH']);
    const commits = await planCommits(repo);
    assert.equal(
      commits.map((c) => c.trailers['Shadow-Plan-Batch']),
      ['1'],
    );
    assert.is(await refValue(repo), commits[0]!.oid, 'the tip is batch 1');
    const files = await draftFiles(repo);
    assert.is(files['half.txt'], undefined, 'nothing of batch 2');
    assert.is(files['config.txt'], 'mode=slow\n');
    const t = readTrackerFile(repo)!;
    assert.is(t.status, 'failed');
    assert.is(t.last_completed_batch_id, 1);
    assert.equal([t.failed!.batch_id, t.failed!.code], [2, 'EDIT_NO_MATCH']);
    assert.match(t.failed!.message, /config\.txt/);
    const ledger = (await sh.events()).filter((e) => e.type === 'plan/failed');
    assert.equal(
      ledger.map((e) => [e.data.plan, e.data.batch_id, e.data.code]),
      [['fragile', 2, 'EDIT_NO_MATCH']],
    );
  },
);

Failure('a failing first batch on a fresh draft creates no draft', async ({ repo }) => {
  const sh = await repo.open();
  const out = await sh.runPlan(
    JSON.stringify({ id: 'x', batches: [{ id: 1, operations: [{ operation: 'delete', path: 'missing.txt' }] }] }),
  );
  assert.equal(
    [out.status, out.failed!.batch_id, out.failed!.error.code, out.last_completed_batch_id],
    ['failed', 1, 'NOT_FOUND', 0],
  );
  assert.is(await refValue(repo), undefined);
  assert.equal([readTrackerFile(repo)!.status, readTrackerFile(repo)!.failed!.batch_id], ['failed', 1]);
});

Failure(
  'resume retries the failed batch: again failed while nothing changed, then through once it applies',
  async ({ repo }) => {
    const sh = await repo.open();
    await runFailing(repo, sh);
    const tip = await refValue(repo);
    const again = await sh.resumePlan();
    assert.equal([again.status, again.failed!.batch_id], ['failed', 2]);
    assert.is(await refValue(repo), tip);
    await sh.edit('config.txt', 'mode=slow', 'mode=fast');
    const rec = recorder();
    const out = await sh.resumePlan({ onEvent: rec.onEvent });
    assert.equal(rec.events[0], { type: 'plan/start', plan: 'fragile', total: 4, start: 2 });
    assert.equal(out, { plan: 'fragile', status: 'complete', total: 4, last_completed_batch_id: 4, ran: 3 });
    assert.equal(await planBatchIds(repo), [1, 2, 3, 4]);
    const files = await draftFiles(repo);
    assert.equal(
      [files['config.txt'], files['half.txt'], files['b.txt'], files['a.txt']],
      ['mode=turbo\n', 'never alone\n', 'a3\n', undefined],
    );
    const t = readTrackerFile(repo)!;
    assert.equal([t.status, t.failed, t.skipped], ['complete', undefined, []]);
  },
);

Failure(
  '--skip skips the failed batch, records it in the tracker and the ledger (plan/skip), and runs the rest',
  async ({ repo }) => {
    const sh = await repo.open();
    await runFailing(repo, sh);
    const rec = recorder();
    const out = await sh.resumePlan({ skip: true, onEvent: rec.onEvent });
    assert.equal(out, { plan: 'fragile', status: 'complete', total: 4, last_completed_batch_id: 4, ran: 2 });
    assert.equal(rec.events[0], { type: 'plan/start', plan: 'fragile', total: 4, start: 3 });
    assert.equal(await planBatchIds(repo), [1, 3, 4]);
    const files = await draftFiles(repo);
    assert.equal([files['half.txt'], files['config.txt'], files['b.txt']], [undefined, 'mode=slow\n', 'a3\n']);
    const skips = (await sh.events()).filter((e) => e.type === 'plan/skip');
    assert.is(skips.length, 1);
    assert.equal([skips[0]!.data.plan, skips[0]!.data.batch_id], ['fragile', 2]);
    assert.match(String(skips[0]!.data.reason), /config\.txt/);
    const order = (await eventTypes(sh)).filter((x) => x.startsWith('plan/'));
    assert.equal(order, ['plan/start', 'plan/failed', 'plan/skip', 'plan/start', 'plan/complete']);
    assert.equal(readTrackerFile(repo)!.skipped, [2]);
  },
);

Failure('--skip with no failed batch skips nothing', async ({ repo }) => {
  const sh = await repo.open();
  const plan = evolvingPlan(N);
  await runAndStop(repo, sh, plan.text, 3);
  const out = await sh.resumePlan({ skip: true });
  assert.is(out.ran, N - 3);
  assert.equal(await planBatchIds(repo), range(1, N));
  assert.equal(
    (await eventTypes(sh)).filter((x) => x === 'plan/skip'),
    [],
  );
  assert.equal(readTrackerFile(repo)!.skipped, []);
});

Failure('a skipped batch stays skipped when the run is stopped before the next batch and resumed', async ({ repo }) => {
  const sh = await repo.open();
  await runFailing(repo, sh);
  const stopped = await sh.resumePlan({ skip: true, shouldStop: () => true });
  assert.is(stopped.status, 'stopped');
  assert.equal(readTrackerFile(repo)!.skipped, [2]);
  const rec = recorder();
  const out = await sh.resumePlan({ onEvent: rec.onEvent });
  assert.equal(
    rec.events[0],
    { type: 'plan/start', plan: 'fragile', total: 4, start: 3 },
    'resume starts after the skipped batch',
  );
  assert.is(out.status, 'complete', JSON.stringify(out.failed));
  assert.equal(await planBatchIds(repo), [1, 3, 4]);
});

Failure.run();
