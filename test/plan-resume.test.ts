import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePlan } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { evolvingPlan, PLAN_BASE_FILES, type PlanDoc } from './helpers/plan-fixtures.js';
import { draftFiles, history, planBatchIds, refValue } from './helpers/mem-draft-history.js';
import {
  expectCode,
  N,
  PLAN_FILE,
  range,
  readTrackerFile,
  recorder,
  runAndStop,
  writePlanFile,
} from './helpers/plan-memfs.js';

/*
 * Resuming a plan on memfs: the plan file it began with, PLAN_CHANGED and
 * --force, NO_PLAN, plans on two drafts.
 */

// ---------------------------------------------------------------- resume

const Resume = suite<{ repo: MemRepo }>('plan-resume');
Resume.before.each(async (ctx) => {
  ctx.repo = await memRepo(PLAN_BASE_FILES);
});

/** The evolving plan with batch `id`'s generated file changed (same shape, other content). */
function edited(doc: PlanDoc, id: number): PlanDoc {
  const copy = JSON.parse(JSON.stringify(doc)) as PlanDoc;
  const op = copy.batches[id - 1]!.operations.find((o) => o.operation === 'write')!;
  if (op.operation === 'write') op.content = 'changed after the run began\n';
  return copy;
}

Resume('resume reads the plan file the run began with', async ({ repo }) => {
  const sh = await repo.open();
  const plan = evolvingPlan(N);
  await runAndStop(repo, sh, plan.text, 5);
  const out = await sh.resumePlan();
  assert.is(out.ran, N - 5);
  assert.equal(await draftFiles(repo), plan.after(N));
});

Resume('a plan file that changed since the run began: PLAN_CHANGED, nothing written', async ({ repo }) => {
  const sh = await repo.open();
  const plan = evolvingPlan(N);
  await runAndStop(repo, sh, plan.text, 5);
  const tip = await refValue(repo);
  const ledger = await sh.events();
  const tracker = readTrackerFile(repo);
  writePlanFile(repo, JSON.stringify(edited(plan.doc, 8)));
  const e = await expectCode(sh.resumePlan(), 'PLAN_CHANGED');
  assert.match(e.hint ?? '', /--force/);
  assert.is(await refValue(repo), tip);
  assert.equal(await sh.events(), ledger);
  assert.equal(readTrackerFile(repo), tracker);
  // Also when the changed plan is given as text.
  await expectCode(sh.resumePlan({ planText: JSON.stringify(edited(plan.doc, 8)) }), 'PLAN_CHANGED');
  assert.is(await refValue(repo), tip);
});

Resume('--force runs the changed plan from where the draft stands', async ({ repo }) => {
  const sh = await repo.open();
  const plan = evolvingPlan(N);
  await runAndStop(repo, sh, plan.text, 5);
  const changed = JSON.stringify(edited(plan.doc, 8));
  writePlanFile(repo, changed);
  const rec = recorder();
  const out = await sh.resumePlan({ force: true, onEvent: rec.onEvent });
  assert.equal(rec.events[0], { type: 'plan/start', plan: 'evolve', total: N, start: 6 });
  assert.is(out.status, 'complete');
  assert.equal(await planBatchIds(repo), range(1, N));
  const files = await draftFiles(repo);
  const gen8 = plan.doc.batches[7]!.operations.find((o) => o.operation === 'write')!.path;
  assert.is(files[gen8], 'changed after the run began\n');
  assert.is(
    readTrackerFile(repo)!.fingerprint,
    parsePlan(changed).fingerprint,
    'the tracker now holds the new fingerprint',
  );
});

Resume(
  '--force on a plan without an id continues after the last batch on the draft, not from batch 1',
  async ({ repo }) => {
    const sh = await repo.open();
    const plan = evolvingPlan(N, null);
    await runAndStop(repo, sh, plan.text, 5);
    writePlanFile(repo, JSON.stringify(edited(plan.doc, 8)));
    const rec = recorder();
    const out = await sh.resumePlan({ force: true, onEvent: rec.onEvent });
    assert.is(rec.events[0]!.type, 'plan/start');
    assert.is((rec.events[0] as { start: number }).start, 6, 'batches 1..5 are on the draft already');
    assert.is(out.status, 'complete', JSON.stringify(out.failed));
    assert.equal(await planBatchIds(repo), range(1, N), 'each plan batch once');
  },
);

Resume('no plan to resume: NO_PLAN; a plan file that is gone: NO_PLAN', async ({ repo }) => {
  const sh = await repo.open();
  await expectCode(sh.resumePlan(), 'NO_PLAN');
  const plan = evolvingPlan(N);
  await runAndStop(repo, sh, plan.text, 2);
  repo.fs.unlinkSync(PLAN_FILE);
  const e = await expectCode(sh.resumePlan(), 'NO_PLAN');
  assert.match(e.message, /plan\.json/);
  const out = await sh.resumePlan({ planText: plan.text });
  assert.is(out.ran, N - 2);
});

Resume('resuming a complete plan runs nothing', async ({ repo }) => {
  const sh = await repo.open();
  const plan = evolvingPlan(4);
  writePlanFile(repo, plan.text);
  await sh.runPlan(plan.text, { planFile: PLAN_FILE });
  const tip = await refValue(repo);
  const out = await sh.resumePlan();
  assert.equal(out, { plan: 'evolve', status: 'complete', total: 4, last_completed_batch_id: 4, ran: 0 });
  assert.is(await refValue(repo), tip);
});

Resume('plans on two drafts are independent', async ({ repo }) => {
  const sh = await repo.open();
  const plan = evolvingPlan(N);
  writePlanFile(repo, plan.text);
  await sh.runPlan(plan.text, { draft: 'a', planFile: PLAN_FILE, shouldStop: recorder().stopAfter(0) });
  await sh.runPlan(plan.text, { draft: 'b', planFile: PLAN_FILE });
  assert.equal(await planBatchIds(repo, 'a'), []);
  assert.is((await sh.resumePlan({ draft: 'a' })).ran, N);
  assert.equal(await planBatchIds(repo, 'a'), range(1, N));
  assert.equal(await planBatchIds(repo, 'b'), range(1, N));
  assert.is((await history(repo, 'a')).at(-1)!.tree, (await history(repo, 'b')).at(-1)!.tree);
});

Resume.run();
