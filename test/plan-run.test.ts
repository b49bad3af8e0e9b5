import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import { parsePlan, type PlanEvent } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { evolvingPlan, PLAN_BASE_FILES, writesPlan } from './helpers/plan-fixtures.js';
import { draftFiles, history, planBatchIds, planCommits, refValue } from './helpers/mem-draft-history.js';
import {
  expectCode,
  good,
  jsonPlan,
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
 * Plans run in-process on memfs: one commit per batch with its trailers,
 * the events, the ledger, the tracker, --from. History is read back with
 * isomorphic-git.
 */

/** The draft's tip read synchronously (a loose ref), for use inside onEvent. */
function looseRef(repo: MemRepo, draft = 'default'): string | undefined {
  const p = `/repo/.git/refs/shadow/drafts/${draft}`;
  return repo.fs.existsSync(p) ? String(repo.fs.readFileSync(p, 'utf8')).trim() : undefined;
}

// ---------------------------------------------------------------- run

const Run = suite<{ repo: MemRepo }>('plan-run');
Run.before.each(async (ctx) => {
  ctx.repo = await memRepo(PLAN_BASE_FILES);
});

Run(
  'each batch is one commit with Shadow-Plan and Shadow-Plan-Batch beside the draft Shadow-Batch counter',
  async ({ repo }) => {
    const sh = await repo.open();
    await sh.write('before.txt', 'before\n');
    const plan = evolvingPlan(N);
    const out = await sh.runPlan(plan.text);
    assert.equal(out, { plan: 'evolve', status: 'complete', total: N, last_completed_batch_id: N, ran: N });
    const all = await history(repo);
    assert.is(all.length, 1 + 1 + N, 'initial commit, one batch, one commit per plan batch');
    const commits = all.slice(2);
    assert.equal(
      commits.map((c) => c.trailers['Shadow-Plan']),
      Array(N).fill('evolve'),
    );
    assert.equal(
      commits.map((c) => Number(c.trailers['Shadow-Plan-Batch'])),
      range(1, N),
    );
    assert.equal(
      commits.map((c) => Number(c.trailers['Shadow-Batch'])),
      range(2, N + 1),
    );
    assert.equal(
      commits.map((c) => c.trailers['Shadow-Draft']),
      Array(N).fill('default'),
    );
    assert.equal(await draftFiles(repo), { ...plan.after(N), 'before.txt': 'before\n' });
  },
);

Run('the tree after each plan batch is the plan applied up to that batch', async ({ repo }) => {
  const sh = await repo.open();
  const plan = evolvingPlan(30);
  await sh.runPlan(plan.text);
  const commits = await planCommits(repo);
  assert.is(commits.length, 30);
  for (const k of [1, 5, 7, 10, 25, 30]) {
    const files: Record<string, string> = {};
    const oid = commits[k - 1]!.oid;
    for (const filepath of await git.listFiles({ fs: repo.fs, dir: repo.dir, ref: oid })) {
      files[filepath] = Buffer.from((await git.readBlob({ fs: repo.fs, dir: repo.dir, oid, filepath })).blob).toString(
        'utf8',
      );
    }
    assert.equal(files, plan.after(k), `after batch ${k}`);
  }
  assert.is((await draftFiles(repo))['src/settings.ts'], 'export const level = 3;\n');
});

Run('events: plan/start, batch/commit for 1..n (with the commit now on the ref), plan/complete', async ({ repo }) => {
  const sh = await repo.open();
  const plan = evolvingPlan(N);
  const events: PlanEvent[] = [];
  const tips: Array<string | undefined> = [];
  await sh.runPlan(plan.text, {
    onEvent: (e) => {
      events.push(e);
      tips.push(looseRef(repo));
    },
  });
  assert.equal(
    events.map((e) => e.type),
    ['plan/start', ...Array(N).fill('batch/commit'), 'plan/complete'],
  );
  assert.equal(events[0], { type: 'plan/start', plan: 'evolve', total: N, start: 1 });
  assert.equal(events[N + 1], { type: 'plan/complete', plan: 'evolve', total: N });
  const commits = await planCommits(repo);
  events.slice(1, N + 1).forEach((e, i) => {
    assert.equal(e, {
      type: 'batch/commit',
      plan: 'evolve',
      plan_batch: i + 1,
      total: N,
      batch: i + 1,
      commit: commits[i]!.oid,
      ops: plan.doc.batches[i]!.operations.length,
    });
  });
  // When a batch/commit event is emitted, its commit is already the draft's tip.
  assert.equal(
    tips.slice(1, N + 1),
    commits.map((c) => c.oid),
  );
});

Run('the ledger records plan/start, each batch/commit with its plan trailers, and plan/complete', async ({ repo }) => {
  const sh = await repo.open();
  const plan = evolvingPlan(4);
  await sh.runPlan(plan.text);
  const events = await sh.events();
  const planEvents = events.filter((e) => e.type.startsWith('plan/') || e.type === 'batch/commit');
  assert.equal(
    planEvents.map((e) => e.type),
    ['plan/start', 'batch/commit', 'batch/commit', 'batch/commit', 'batch/commit', 'plan/complete'],
  );
  assert.equal(planEvents[0]!.data, {
    plan: 'evolve',
    fingerprint: parsePlan(plan.text).fingerprint,
    total: 4,
    start: 1,
  });
  assert.equal(
    planEvents.slice(1, 5).map((e) => [e.data.plan, e.data.planBatch]),
    [
      ['evolve', '1'],
      ['evolve', '2'],
      ['evolve', '3'],
      ['evolve', '4'],
    ],
  );
  assert.equal(planEvents[5]!.data, { plan: 'evolve', total: 4 });
  assert.is((await sh.verifyEvents()).ok, true);
});

Run('the tracker after a complete run', async ({ repo }) => {
  const sh = await repo.open();
  const plan = evolvingPlan(3);
  writePlanFile(repo, plan.text);
  await sh.runPlan(plan.text, { planFile: PLAN_FILE });
  const t = readTrackerFile(repo)!;
  assert.equal(
    {
      plan_id: t.plan_id,
      fingerprint: t.fingerprint,
      plan_file: t.plan_file,
      total: t.total,
      last: t.last_completed_batch_id,
      status: t.status,
      skipped: t.skipped,
    },
    {
      plan_id: 'evolve',
      fingerprint: parsePlan(plan.text).fingerprint,
      plan_file: PLAN_FILE,
      total: 3,
      last: 3,
      status: 'complete',
      skipped: [],
    },
  );
  assert.equal(await sh.planStatus(), t);
});

Run('a batch intent is the commit subject; without one, "<plan intent>: batch i of n"', async ({ repo }) => {
  const sh = await repo.open();
  await sh.runPlan(jsonPlan([good(1), { ...good(2), intent: 'the second step' }], { id: 'p', intent: 'grow' }));
  await sh.runPlan(jsonPlan([good(1)], { id: 'q' }));
  assert.equal(
    (await planCommits(repo)).map((c) => c.subject),
    ['grow: batch 1 of 2', 'the second step', 'q: batch 1 of 1'],
  );
});

Run('a batch actor is its commit actor', async ({ repo }) => {
  const sh = await repo.open();
  await sh.runPlan(jsonPlan([good(1), { ...good(2), actor: 'planner-bot' }], { id: 'p' }), { actor: 'runner' });
  assert.equal(
    (await planCommits(repo)).map((c) => c.trailers['Shadow-Actor']),
    ['runner', 'planner-bot'],
  );
});

Run('a batch that changes nothing still records its step as a commit', async ({ repo }) => {
  const sh = await repo.open();
  const out = await sh.runPlan(jsonPlan([good(1), { id: 2, operations: [write('f1.txt')] }, good(3)], { id: 'p' }));
  assert.is(out.status, 'complete');
  const commits = await planCommits(repo);
  assert.equal(
    commits.map((c) => Number(c.trailers['Shadow-Plan-Batch'])),
    [1, 2, 3],
  );
  assert.is(commits[1]!.tree, commits[0]!.tree);
});

Run('running a complete plan again runs nothing and leaves the draft as it is', async ({ repo }) => {
  const sh = await repo.open();
  const plan = evolvingPlan(N);
  await sh.runPlan(plan.text);
  const tip = await refValue(repo);
  const rec = recorder();
  const out = await sh.runPlan(plan.text, { onEvent: rec.onEvent });
  assert.equal(out, { plan: 'evolve', status: 'complete', total: N, last_completed_batch_id: N, ran: 0 });
  assert.equal(rec.events[0], { type: 'plan/start', plan: 'evolve', total: N, start: N + 1 });
  assert.is(await refValue(repo), tip);
});

const FROM: Array<{ from: number; ok: boolean }> = [
  { from: 1, ok: true },
  { from: 3, ok: true },
  { from: 6, ok: true },
  { from: 7, ok: true },
  { from: 0, ok: false },
  { from: -1, ok: false },
  { from: 8, ok: false },
];
for (const c of FROM) {
  Run(
    `--from ${c.from} on a fresh draft of a 6-batch plan ${c.ok ? `runs batches ${c.from}..6` : 'is INVALID_ARGUMENT, nothing written'}`,
    async ({ repo }) => {
      const sh = await repo.open();
      const rec = recorder();
      const text = JSON.stringify(writesPlan(6));
      if (!c.ok) {
        await expectCode(sh.runPlan(text, { from: c.from, onEvent: rec.onEvent }), 'INVALID_ARGUMENT');
        assert.is(await refValue(repo), undefined);
        assert.equal(rec.events, []);
        assert.is(readTrackerFile(repo), undefined);
        return;
      }
      const out = await sh.runPlan(text, { from: c.from, onEvent: rec.onEvent });
      assert.is(out.status, 'complete');
      assert.is(out.ran, 7 - c.from);
      assert.equal(rec.events[0], { type: 'plan/start', plan: 'writes', total: 6, start: c.from });
      assert.equal(await planBatchIds(repo), range(c.from, 6));
    },
  );
}

Run('--from restarts a plan at an explicit batch after a stop', async ({ repo }) => {
  const sh = await repo.open();
  const text = JSON.stringify(writesPlan(6));
  await runAndStop(repo, sh, text, 2);
  const out = await sh.runPlan(text, { from: 5 });
  assert.is(out.ran, 2);
  assert.equal(await planBatchIds(repo), [1, 2, 5, 6]);
});

Run(
  '--from never applies again a batch whose commit is on the draft; after a rollback, the batches rolled back run again',
  async ({ repo }) => {
    const sh = await repo.open();
    const text = JSON.stringify(writesPlan(6));
    assert.is((await sh.runPlan(text)).ran, 6);
    const again = await sh.runPlan(text, { from: 2 });
    assert.equal([again.status, again.ran, again.last_completed_batch_id], ['complete', 0, 6]);
    assert.equal(await planBatchIds(repo), [1, 2, 3, 4, 5, 6], 'no batch twice');
    await sh.rollback('~2');
    const redo = await sh.runPlan(text, { from: 3 });
    assert.is(redo.ran, 2);
    assert.equal(await planBatchIds(repo), [1, 2, 3, 4, 5, 6]);
  },
);

Run.run();
