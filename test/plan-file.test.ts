import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePlan } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { PLAN_BASE_FILES, writesPlan } from './helpers/plan-fixtures.js';
import { planBatchIds, planCommits, refValue } from './helpers/mem-draft-history.js';
import {
  draftPath,
  expectCode,
  good,
  jsonPlan,
  PLAN_FILE,
  range,
  readTrackerFile,
  recorder,
  write,
} from './helpers/plan-memfs.js';

/*
 * Plan files on memfs: JSON and JSON Lines, the fingerprint, and every bad
 * plan refused before anything is written.
 */

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

// ---------------------------------------------------------------- plan file

const PlanFile = suite<{ repo: MemRepo }>('plan-file');
PlanFile.before.each(async (ctx) => {
  ctx.repo = await memRepo(PLAN_BASE_FILES);
});

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
  {
    name: 'no operations in batch 2',
    text: jsonPlan([good(1), { id: 2, operations: [] }, good(3)]),
    says: [/batch 2\b/],
  },
  {
    name: 'an unknown field in batch 4',
    text: jsonPlan([good(1), good(2), good(3), { ...good(4), when: 'now' }]),
    says: [/batch 4\b/, /when/],
  },
  {
    name: 'a path that escapes the repository in batch 2',
    text: jsonPlan([good(1), { id: 2, operations: [write('../outside.txt')] }]),
    says: [/batch 2\b/],
  },
  { name: 'ids out of order (1, 3, 2)', text: jsonPlan([good(1), good(3), good(2)]), says: [/must be 2/] },
  { name: 'a duplicate id (1, 2, 2)', text: jsonPlan([good(1), good(2), good(2)]), says: [/must be 3/] },
  { name: 'ids from 0', text: jsonPlan([good(0), good(1)]), says: [/id/] },
  { name: 'a gap in the ids (1, 2, 4)', text: jsonPlan([good(1), good(2), good(4)]), says: [/must be 3/] },
  {
    name: 'a batch without an id (the 2nd)',
    text: jsonPlan([good(1), { operations: [write('a')] }]),
    says: [/batch #2\b/],
  },
  { name: 'no batches', text: jsonPlan([]), says: [/batches/] },
  { name: 'a plan id with a space', text: jsonPlan([good(1)], { id: 'my plan' }), says: [/id/] },
  { name: 'an unknown top-level field', text: jsonPlan([good(1)], { steps: [] }), says: [/steps/] },
  {
    name: 'JSON Lines: a bad batch on line 3',
    text: jsonLines([good(1), good(2), { id: 3, operations: [{ operation: 'delete' }] }]),
    says: [/batch 3\b/],
  },
  { name: 'JSON Lines: ids out of order', text: jsonLines([good(1), good(3), good(2)]), says: [/must be 2/] },
  {
    name: 'JSON Lines: a line that is not JSON',
    text: `${JSON.stringify(good(1))}\n{"id": 2, "operations": [\n${JSON.stringify(good(3))}`,
    says: [/line 2\b/],
  },
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

PlanFile(
  'a bad batch on a draft with history: the ref, the ledger and the tracker stay as they were',
  async ({ repo }) => {
    const sh = await repo.open();
    const text = jsonPlan([good(1), good(2)], { id: 'first' });
    await sh.runPlan(text);
    const tip = await refValue(repo);
    const ledger = await sh.events();
    const tracker = readTrackerFile(repo);
    await expectCode(
      sh.runPlan(
        jsonPlan([good(1), good(2), { id: 3, operations: [{ operation: 'edit', path: 'a' }] }], { id: 'second' }),
      ),
      'INVALID_PLAN',
    );
    assert.is(await refValue(repo), tip);
    assert.equal(await sh.events(), ledger);
    assert.equal(readTrackerFile(repo), tracker);
  },
);

PlanFile('every bad batch is listed with its id', async () => {
  const e = expectThrowCode(
    () =>
      parsePlan(
        jsonPlan([
          good(1),
          { id: 2, operations: [] },
          good(3),
          { id: 4, operations: [{ operation: 'nope', path: 'x' }] },
        ]),
      ),
    'INVALID_PLAN',
  );
  assert.match(e.message, /batch 2\b/);
  assert.match(e.message, /batch 4\b/);
  assert.match(e.message, /\(2 problems\)/);
  assert.is(e.data.problems.length, 2);
});

PlanFile('JSON Lines (blank lines, CRLF) is the same plan as JSON, with an id from its fingerprint', () => {
  const batches = [
    good(1),
    { id: 2, intent: 'two', operations: [write('b'), { operation: 'delete', path: 'README.md' }] },
    good(3),
  ];
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
  assert.equal(
    commits.map((c) => c.trailers['Shadow-Plan']),
    [parsePlan(text).id, parsePlan(text).id],
  );
  assert.equal(await planBatchIds(repo), [1, 2]);
});

PlanFile.run();
