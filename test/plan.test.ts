import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import { openShadow, parsePlan, type FileSystem, type PlanEvent, type Shadow, type Tracker } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { evolvingPlan, PLAN_BASE_FILES, writesPlan, type PlanDoc } from './helpers/plan-fixtures.js';

/**
 * Plans in-process on memfs: validation, trailers, events, the tracker and
 * its repair from the draft's commits, stop, resume, PLAN_CHANGED, failure,
 * retry and skip. History is read back with isomorphic-git.
 */

const PLAN_FILE = '/repo/plan.json';
const N = 12;

// ---------------------------------------------------------------- helpers

interface Entry {
  oid: string;
  tree: string;
  subject: string;
  trailers: Record<string, string>;
}

function trailersOf(message: string): Record<string, string> {
  const paragraphs = message.trimEnd().split('\n\n');
  const out: Record<string, string> = {};
  for (const line of paragraphs[paragraphs.length - 1]!.split('\n')) {
    const m = /^([A-Za-z-]+): (.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

async function refValue(repo: MemRepo, draft = 'default'): Promise<string | undefined> {
  try {
    return await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref: `refs/shadow/drafts/${draft}` });
  } catch {
    return undefined;
  }
}

/** The draft's tip read synchronously (a loose ref), for use inside onEvent. */
function looseRef(repo: MemRepo, draft = 'default'): string | undefined {
  const p = `/repo/.git/refs/shadow/drafts/${draft}`;
  return repo.fs.existsSync(p) ? String(repo.fs.readFileSync(p, 'utf8')).trim() : undefined;
}

/** The draft's first-parent history, oldest first ([] when the draft does not exist). */
async function history(repo: MemRepo, draft = 'default'): Promise<Entry[]> {
  let oid = await refValue(repo, draft);
  const out: Entry[] = [];
  while (oid !== undefined) {
    const { commit } = await git.readCommit({ fs: repo.fs, dir: repo.dir, oid });
    out.push({ oid, tree: commit.tree, subject: commit.message.split('\n')[0]!, trailers: trailersOf(commit.message) });
    oid = commit.parent[0];
  }
  return out.reverse();
}

async function planCommits(repo: MemRepo, draft = 'default'): Promise<Entry[]> {
  return (await history(repo, draft)).filter((e) => e.trailers['Shadow-Plan-Batch'] !== undefined);
}

/** The Shadow-Plan-Batch ids on the draft, oldest first. */
async function planBatchIds(repo: MemRepo, draft = 'default'): Promise<number[]> {
  return (await planCommits(repo, draft)).map((e) => Number(e.trailers['Shadow-Plan-Batch']));
}

/** Every file of the draft's tree. */
async function draftFiles(repo: MemRepo, draft = 'default'): Promise<Record<string, string>> {
  const ref = `refs/shadow/drafts/${draft}`;
  const oid = await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref });
  const out: Record<string, string> = {};
  for (const filepath of await git.listFiles({ fs: repo.fs, dir: repo.dir, ref })) {
    const { blob } = await git.readBlob({ fs: repo.fs, dir: repo.dir, oid, filepath });
    out[filepath] = Buffer.from(blob).toString('utf8');
  }
  return out;
}

function range(a: number, b: number): number[] {
  return Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);
}

function draftPath(draft = 'default'): string {
  return `/repo/.git/shadow/drafts/${draft}`;
}

function readTrackerFile(repo: MemRepo, draft = 'default'): Tracker | undefined {
  const p = `${draftPath(draft)}/tracker.json`;
  return repo.fs.existsSync(p) ? (JSON.parse(String(repo.fs.readFileSync(p, 'utf8'))) as Tracker) : undefined;
}

function writeTrackerFile(repo: MemRepo, t: unknown, draft = 'default'): void {
  repo.fs.writeFileSync(`${draftPath(draft)}/tracker.json`, typeof t === 'string' ? t : `${JSON.stringify(t)}\n`);
}

function writePlanFile(repo: MemRepo, text: string): void {
  repo.fs.writeFileSync(PLAN_FILE, text);
}

/** A handle that knows its process (for `stopPlan`): this pid on 'test-host', alive when in `alive`. */
function openAs(repo: MemRepo, self: number, alive: Set<number>, fs: FileSystem = repo.ctx.fs): Promise<Shadow> {
  return openShadow({
    dir: repo.dir,
    fs,
    clock: repo.ctx.clock,
    ids: repo.ctx.ids,
    env: repo.ctx.env,
    processes: { self, host: 'test-host', isAlive: (pid) => alive.has(pid) },
  });
}

/** Collects events; `stopAfter(k)` is a shouldStop that turns true once k batches committed in this run. */
function recorder(): { events: PlanEvent[]; onEvent: (e: PlanEvent) => void; stopAfter: (k: number) => () => boolean } {
  const events: PlanEvent[] = [];
  return {
    events,
    onEvent: (e) => events.push(e),
    stopAfter: (k) => () => events.filter((e) => e.type === 'batch/commit').length >= k,
  };
}

async function eventTypes(sh: Shadow): Promise<string[]> {
  return (await sh.events()).map((e) => e.type);
}

/** Run `text` (remembered as PLAN_FILE) and stop after `k` batches. */
async function runAndStop(repo: MemRepo, sh: Shadow, text: string, k: number): Promise<void> {
  writePlanFile(repo, text);
  const rec = recorder();
  const out = await sh.runPlan(text, { planFile: PLAN_FILE, shouldStop: rec.stopAfter(k), onEvent: rec.onEvent });
  assert.is(out.status, 'stopped');
  assert.is(out.last_completed_batch_id, k);
}

async function expectCode(p: Promise<unknown>, code: string): Promise<Error & { code: string; data?: any; hint?: string }> {
  try {
    await p;
  } catch (e) {
    assert.is((e as { code?: string }).code, code, (e as Error).message);
    return e as Error & { code: string };
  }
  assert.unreachable(`expected ${code}`);
  throw new Error('unreachable');
}

function expectThrowCode(fn: () => unknown, code: string): Error & { code: string; data?: any } {
  try {
    fn();
  } catch (e) {
    assert.is((e as { code?: string }).code, code, (e as Error).message);
    return e as Error & { code: string };
  }
  assert.unreachable(`expected ${code}`);
  throw new Error('unreachable');
}

const write = (path: string, content = `${path}\n`) => ({ operation: 'write' as const, path, content });

// ---------------------------------------------------------------- plan file

const PlanFile = suite<{ repo: MemRepo }>('plan-file');
PlanFile.before.each(async (ctx) => {
  ctx.repo = await memRepo(PLAN_BASE_FILES);
});

const good = (id: number): Record<string, unknown> => ({ id, operations: [write(`f${id}.txt`)] });
const jsonPlan = (batches: unknown[], extra: Record<string, unknown> = {}): string => JSON.stringify({ ...extra, batches });
const jsonLines = (batches: unknown[]): string => batches.map((b) => JSON.stringify(b)).join('\n');

const BAD: Array<{ name: string; text: string; code?: string; says: RegExp[] }> = [
  {
    name: 'an op without a path in batch 3 of 4',
    text: jsonPlan([good(1), good(2), { id: 3, operations: [{ operation: 'write', content: 'x' }] }, good(4)]),
    says: [/batch 3\b/],
  },
  {
    name: 'an unknown operation in the last batch, 50 of 50',
    text: jsonPlan([...range(1, 49).map(good), { id: 50, operations: [{ operation: 'frobnicate', path: 'a' }] }]),
    says: [/batch 50\b/, /frobnicate/],
  },
  { name: 'no operations in batch 2', text: jsonPlan([good(1), { id: 2, operations: [] }, good(3)]), says: [/batch 2\b/] },
  { name: 'an unknown field in batch 4', text: jsonPlan([good(1), good(2), good(3), { ...good(4), when: 'now' }]), says: [/batch 4\b/, /when/] },
  { name: 'a path that escapes the repository in batch 2', text: jsonPlan([good(1), { id: 2, operations: [write('../outside.txt')] }]), says: [/batch 2\b/] },
  { name: 'ids out of order (1, 3, 2)', text: jsonPlan([good(1), good(3), good(2)]), says: [/must be 2/] },
  { name: 'a duplicate id (1, 2, 2)', text: jsonPlan([good(1), good(2), good(2)]), says: [/must be 3/] },
  { name: 'ids from 0', text: jsonPlan([good(0), good(1)]), says: [/id/] },
  { name: 'a gap in the ids (1, 2, 4)', text: jsonPlan([good(1), good(2), good(4)]), says: [/must be 3/] },
  { name: 'a batch without an id (the 2nd)', text: jsonPlan([good(1), { operations: [write('a')] }]), says: [/batch #2\b/] },
  { name: 'no batches', text: jsonPlan([]), says: [/batches/] },
  { name: 'a plan id with a space', text: jsonPlan([good(1)], { id: 'my plan' }), says: [/id/] },
  { name: 'an unknown top-level field', text: jsonPlan([good(1)], { steps: [] }), says: [/steps/] },
  { name: 'JSON Lines: a bad batch on line 3', text: jsonLines([good(1), good(2), { id: 3, operations: [{ operation: 'delete' }] }]), says: [/batch 3\b/] },
  { name: 'JSON Lines: ids out of order', text: jsonLines([good(1), good(3), good(2)]), says: [/must be 2/] },
  { name: 'JSON Lines: a line that is not JSON', text: `${JSON.stringify(good(1))}\n{"id": 2, "operations": [\n${JSON.stringify(good(3))}`, says: [/line 2\b/] },
  { name: 'malformed JSON', text: '{"batches": [{"id": 1, "operations": [', code: 'INVALID_JSON', says: [/plan/] },
];

for (const c of BAD) {
  PlanFile(`rejects ${c.name}, before anything is written`, async ({ repo }) => {
    const code = c.code ?? 'INVALID_PLAN';
    const e = expectThrowCode(() => parsePlan(c.text), code);
    for (const re of c.says) assert.match(e.message, re);
    const sh = await repo.open();
    const rec = recorder();
    const e2 = await expectCode(sh.runPlan(c.text, { planFile: PLAN_FILE, onEvent: rec.onEvent }), code);
    assert.is(e2.message, e.message);
    assert.equal(rec.events, [], 'no event');
    assert.is(await refValue(repo), undefined, 'no draft');
    assert.is(repo.fs.existsSync(draftPath()), false, 'no tracker, no ledger');
  });
}

PlanFile('a bad batch on a draft with history: the ref, the ledger and the tracker stay as they were', async ({ repo }) => {
  const sh = await repo.open();
  const text = jsonPlan([good(1), good(2)], { id: 'first' });
  await sh.runPlan(text);
  const tip = await refValue(repo);
  const ledger = await sh.events();
  const tracker = readTrackerFile(repo);
  await expectCode(sh.runPlan(jsonPlan([good(1), good(2), { id: 3, operations: [{ operation: 'edit', path: 'a' }] }], { id: 'second' })), 'INVALID_PLAN');
  assert.is(await refValue(repo), tip);
  assert.equal(await sh.events(), ledger);
  assert.equal(readTrackerFile(repo), tracker);
});

PlanFile('every bad batch is listed with its id', async () => {
  const e = expectThrowCode(() => parsePlan(jsonPlan([good(1), { id: 2, operations: [] }, good(3), { id: 4, operations: [{ operation: 'nope', path: 'x' }] }])), 'INVALID_PLAN');
  assert.match(e.message, /batch 2\b/);
  assert.match(e.message, /batch 4\b/);
  assert.match(e.message, /\(2 problems\)/);
  assert.is(e.data.problems.length, 2);
});

PlanFile('JSON Lines (blank lines, CRLF) is the same plan as JSON, with an id from its fingerprint', () => {
  const batches = [good(1), { id: 2, intent: 'two', operations: [write('b'), { operation: 'delete', path: 'README.md' }] }, good(3)];
  const fromJson = parsePlan(jsonPlan(batches));
  const fromLines = parsePlan(`\n${batches.map((b) => JSON.stringify(b)).join('\r\n\n')}\r\n`);
  assert.equal(fromLines.batches, fromJson.batches);
  assert.is(fromLines.fingerprint, fromJson.fingerprint);
  assert.match(fromJson.fingerprint, /^[0-9a-f]{64}$/);
  assert.is(fromJson.id, `plan-${fromJson.fingerprint.slice(0, 12)}`);
  assert.is(parsePlan(jsonPlan(batches, { id: 'named', intent: 'do it' })).id, 'named');
});

PlanFile('JSON Lines with a single batch is a one-batch plan', () => {
  const p = parsePlan(`${JSON.stringify(good(1))}\n`);
  assert.is(p.batches.length, 1);
  assert.is(p.batches[0]!.id, 1);
});

PlanFile('the fingerprint follows the content, not the layout', () => {
  const doc = writesPlan(3);
  const a = parsePlan(JSON.stringify(doc));
  assert.is(parsePlan(JSON.stringify(doc, null, 2)).fingerprint, a.fingerprint);
  const changed = writesPlan(3);
  changed.batches[2]!.operations = [write('w/f3.txt', 'changed\n')];
  assert.is.not(parsePlan(JSON.stringify(changed)).fingerprint, a.fingerprint);
});

PlanFile('a JSON Lines plan runs with its fingerprint id in the trailers', async ({ repo }) => {
  const sh = await repo.open();
  const text = jsonLines([good(1), good(2)]);
  const out = await sh.runPlan(text);
  assert.is(out.status, 'complete');
  const commits = await planCommits(repo);
  assert.equal(commits.map((c) => c.trailers['Shadow-Plan']), [parsePlan(text).id, parsePlan(text).id]);
  assert.equal(await planBatchIds(repo), [1, 2]);
});

PlanFile.run();

// ---------------------------------------------------------------- run

const Run = suite<{ repo: MemRepo }>('plan-run');
Run.before.each(async (ctx) => {
  ctx.repo = await memRepo(PLAN_BASE_FILES);
});

Run('each batch is one commit with Shadow-Plan and Shadow-Plan-Batch beside the draft Shadow-Batch counter', async ({ repo }) => {
  const sh = await repo.open();
  await sh.write('before.txt', 'before\n');
  const plan = evolvingPlan(N);
  const out = await sh.runPlan(plan.text);
  assert.equal(out, { plan: 'evolve', status: 'complete', total: N, last_completed_batch_id: N, ran: N });
  const all = await history(repo);
  assert.is(all.length, 1 + 1 + N, 'initial commit, one batch, one commit per plan batch');
  const commits = all.slice(2);
  assert.equal(commits.map((c) => c.trailers['Shadow-Plan']), Array(N).fill('evolve'));
  assert.equal(commits.map((c) => Number(c.trailers['Shadow-Plan-Batch'])), range(1, N));
  assert.equal(commits.map((c) => Number(c.trailers['Shadow-Batch'])), range(2, N + 1));
  assert.equal(commits.map((c) => c.trailers['Shadow-Draft']), Array(N).fill('default'));
  assert.equal(await draftFiles(repo), { ...plan.after(N), 'before.txt': 'before\n' });
});

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
      files[filepath] = Buffer.from((await git.readBlob({ fs: repo.fs, dir: repo.dir, oid, filepath })).blob).toString('utf8');
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
  assert.equal(events.map((e) => e.type), ['plan/start', ...Array(N).fill('batch/commit'), 'plan/complete']);
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
  assert.equal(tips.slice(1, N + 1), commits.map((c) => c.oid));
});

Run('the ledger records plan/start, each batch/commit with its plan trailers, and plan/complete', async ({ repo }) => {
  const sh = await repo.open();
  const plan = evolvingPlan(4);
  await sh.runPlan(plan.text);
  const events = await sh.events();
  const planEvents = events.filter((e) => e.type.startsWith('plan/') || e.type === 'batch/commit');
  assert.equal(planEvents.map((e) => e.type), ['plan/start', 'batch/commit', 'batch/commit', 'batch/commit', 'batch/commit', 'plan/complete']);
  assert.equal(planEvents[0]!.data, { plan: 'evolve', fingerprint: parsePlan(plan.text).fingerprint, total: 4, start: 1 });
  assert.equal(planEvents.slice(1, 5).map((e) => [e.data.plan, e.data.planBatch]), [['evolve', '1'], ['evolve', '2'], ['evolve', '3'], ['evolve', '4']]);
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
    { plan_id: t.plan_id, fingerprint: t.fingerprint, plan_file: t.plan_file, total: t.total, last: t.last_completed_batch_id, status: t.status, skipped: t.skipped },
    { plan_id: 'evolve', fingerprint: parsePlan(plan.text).fingerprint, plan_file: PLAN_FILE, total: 3, last: 3, status: 'complete', skipped: [] },
  );
  assert.equal(await sh.planStatus(), t);
});

Run('a batch intent is the commit subject; without one, "<plan intent>: batch i of n"', async ({ repo }) => {
  const sh = await repo.open();
  await sh.runPlan(jsonPlan([good(1), { ...good(2), intent: 'the second step' }], { id: 'p', intent: 'grow' }));
  await sh.runPlan(jsonPlan([good(1)], { id: 'q' }));
  assert.equal((await planCommits(repo)).map((c) => c.subject), ['grow: batch 1 of 2', 'the second step', 'q: batch 1 of 1']);
});

Run('a batch actor is its commit actor', async ({ repo }) => {
  const sh = await repo.open();
  await sh.runPlan(jsonPlan([good(1), { ...good(2), actor: 'planner-bot' }], { id: 'p' }), { actor: 'runner' });
  assert.equal((await planCommits(repo)).map((c) => c.trailers['Shadow-Actor']), ['runner', 'planner-bot']);
});

Run('a batch that changes nothing still records its step as a commit', async ({ repo }) => {
  const sh = await repo.open();
  const out = await sh.runPlan(jsonPlan([good(1), { id: 2, operations: [write('f1.txt')] }, good(3)], { id: 'p' }));
  assert.is(out.status, 'complete');
  const commits = await planCommits(repo);
  assert.equal(commits.map((c) => Number(c.trailers['Shadow-Plan-Batch'])), [1, 2, 3]);
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
  Run(`--from ${c.from} on a fresh draft of a 6-batch plan ${c.ok ? `runs batches ${c.from}..6` : 'is INVALID_ARGUMENT, nothing written'}`, async ({ repo }) => {
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
  });
}

Run('--from restarts a plan at an explicit batch after a stop', async ({ repo }) => {
  const sh = await repo.open();
  const text = JSON.stringify(writesPlan(6));
  await runAndStop(repo, sh, text, 2);
  const out = await sh.runPlan(text, { from: 5 });
  assert.is(out.ran, 2);
  assert.equal(await planBatchIds(repo), [1, 2, 5, 6]);
});

Run('--from never applies again a batch whose commit is on the draft; after a rollback, the batches rolled back run again', async ({ repo }) => {
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
});

Run.run();

// ---------------------------------------------------------------- stop

const Stop = suite<{ repo: MemRepo }>('plan-stop');
Stop.before.each(async (ctx) => {
  ctx.repo = await memRepo(PLAN_BASE_FILES);
});

for (const k of [0, 1, 5, N - 1]) {
  Stop(`shouldStop after ${k} of ${N} batches: stopped between batches, state persisted, resume finishes`, async ({ repo }) => {
    const sh = await repo.open();
    const plan = evolvingPlan(N);
    writePlanFile(repo, plan.text);
    const rec = recorder();
    const out = await sh.runPlan(plan.text, { planFile: PLAN_FILE, shouldStop: rec.stopAfter(k), onEvent: rec.onEvent });
    assert.equal(out, { plan: 'evolve', status: 'stopped', total: N, last_completed_batch_id: k, ran: k });
    assert.equal(rec.events.map((e) => e.type), ['plan/start', ...Array(k).fill('batch/commit'), 'plan/stopped']);
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
  });
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
  assert.equal({ plan: t.plan_id, pid: t.pid, status: t.status, host: t.host }, { plan: 'evolve', pid: 4242, status: 'running', host: 'test-host' });
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

Stop('stopPlan on a run whose process died (tracker left "running") is NO_PLAN, pointing to resume', async ({ repo }) => {
  const sh = await openAs(repo, 4242, new Set([4242]));
  await sh.runPlan(evolvingPlan(3).text);
  writeTrackerFile(repo, { ...readTrackerFile(repo)!, status: 'running', pid: 999_999, last_completed_batch_id: 2 });
  const e = await expectCode(sh.stopPlan(), 'NO_PLAN');
  assert.match(e.hint ?? '', /shadow resume/);
});

Stop('a stop request left over from before the run does not stop it', async ({ repo }) => {
  const sh = await repo.open();
  repo.fs.mkdirSync(draftPath(), { recursive: true });
  repo.fs.writeFileSync(`${draftPath()}/stop`, 'old request\n');
  const out = await sh.runPlan(evolvingPlan(4).text);
  assert.is(out.status, 'complete');
  assert.is(repo.fs.existsSync(`${draftPath()}/stop`), false);
});

Stop.run();

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
        if (String(to).endsWith('/tracker.json') && ++n === failAt) throw new Error('simulated crash before the tracker write');
        return (v as FileSystem['renameSync']).call(target, from, to);
      };
    },
  });
}

TrackerSuite('a crash between a batch commit and its tracker write: the ref wins, the batch is not applied twice', async ({ repo }) => {
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
});

const TRACKERS: Array<{ name: string; tracker: (t: Tracker) => unknown; status: 'repaired' | 'unreadable' }> = [
  { name: 'stale (behind the ref)', tracker: (t) => ({ ...t, last_completed_batch_id: 1, status: 'running' }), status: 'repaired' },
  { name: 'ahead of the ref', tracker: (t) => ({ ...t, last_completed_batch_id: 9, status: 'stopped' }), status: 'repaired' },
  { name: 'saying complete', tracker: (t) => ({ ...t, last_completed_batch_id: N, status: 'complete' }), status: 'repaired' },
  { name: 'corrupt', tracker: () => '{"version": 1, "plan_id": "evol', status: 'unreadable' },
  { name: 'of another version', tracker: (t) => ({ ...t, version: 2 }), status: 'unreadable' },
];
for (const c of TRACKERS) {
  TrackerSuite(`a tracker ${c.name}: progress comes from the ref (4 batches), resume runs 5..${N} once`, async ({ repo }) => {
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
    assert.equal([t.status, t.last_completed_batch_id, t.fingerprint], ['complete', N, parsePlan(plan.text).fingerprint]);
  });
}

TrackerSuite('a missing tracker: resume needs the plan, then continues after the last batch on the draft', async ({ repo }) => {
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
});

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
  assert.is(readTrackerFile(repo)!.fingerprint, parsePlan(changed).fingerprint, 'the tracker now holds the new fingerprint');
});

Resume('--force on a plan without an id continues after the last batch on the draft, not from batch 1', async ({ repo }) => {
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
});

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
    { id: 2, operations: [write('half.txt', 'never alone\n'), { operation: 'edit', path: 'config.txt', old_content: 'mode=fast', content: 'mode=turbo' }] },
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

Failure('a failing batch leaves the draft at the last good batch and the tracker naming it and why', async ({ repo }) => {
  const sh = await repo.open();
  const events = await runFailing(repo, sh);
  assert.equal(events.map((e) => e.type), ['plan/start', 'batch/commit', 'plan/failed']);
  const failed = events[2] as Extract<PlanEvent, { type: 'plan/failed' }>;
  assert.equal([failed.plan, failed.batch_id, failed.error.code], ['fragile', 2, 'EDIT_NO_MATCH']);
  const commits = await planCommits(repo);
  assert.equal(commits.map((c) => c.trailers['Shadow-Plan-Batch']), ['1']);
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
  assert.equal(ledger.map((e) => [e.data.plan, e.data.batch_id, e.data.code]), [['fragile', 2, 'EDIT_NO_MATCH']]);
});

Failure('a failing first batch on a fresh draft creates no draft', async ({ repo }) => {
  const sh = await repo.open();
  const out = await sh.runPlan(JSON.stringify({ id: 'x', batches: [{ id: 1, operations: [{ operation: 'delete', path: 'missing.txt' }] }] }));
  assert.equal([out.status, out.failed!.batch_id, out.failed!.error.code, out.last_completed_batch_id], ['failed', 1, 'NOT_FOUND', 0]);
  assert.is(await refValue(repo), undefined);
  assert.equal([readTrackerFile(repo)!.status, readTrackerFile(repo)!.failed!.batch_id], ['failed', 1]);
});

Failure('resume retries the failed batch: again failed while nothing changed, then through once it applies', async ({ repo }) => {
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
  assert.equal([files['config.txt'], files['half.txt'], files['b.txt'], files['a.txt']], ['mode=turbo\n', 'never alone\n', 'a3\n', undefined]);
  const t = readTrackerFile(repo)!;
  assert.equal([t.status, t.failed, t.skipped], ['complete', undefined, []]);
});

Failure('--skip skips the failed batch, records it in the tracker and the ledger (plan/skip), and runs the rest', async ({ repo }) => {
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
});

Failure('--skip with no failed batch skips nothing', async ({ repo }) => {
  const sh = await repo.open();
  const plan = evolvingPlan(N);
  await runAndStop(repo, sh, plan.text, 3);
  const out = await sh.resumePlan({ skip: true });
  assert.is(out.ran, N - 3);
  assert.equal(await planBatchIds(repo), range(1, N));
  assert.equal((await eventTypes(sh)).filter((x) => x === 'plan/skip'), []);
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
  assert.equal(rec.events[0], { type: 'plan/start', plan: 'fragile', total: 4, start: 3 }, 'resume starts after the skipped batch');
  assert.is(out.status, 'complete', JSON.stringify(out.failed));
  assert.equal(await planBatchIds(repo), [1, 3, 4]);
});

Failure.run();
