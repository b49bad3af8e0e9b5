import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './helpers/disk-repo.js';
import { Api } from './helpers/session-http.js';
import { openShadow, startServer, type Shadow } from '../src/index.js';

/**
 * A batch's size is bounded (shadow.maxBatchOps, shadow.maxBatchBytes): over
 * either bound it is refused with BATCH_TOO_LARGE before anything is
 * resolved, through the library, the CLI, HTTP and plans, and nothing is
 * written; at the bound it is accepted.
 */

const DRAFT = 'refs/shadow/drafts/default';

type Ctx = { repo: DiskRepo; sh: Shadow; seeded: string };

const Bounds = suite<Ctx>('batch bounds');
Bounds.before.each(async (ctx) => {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n' });
  ctx.repo.git('config', 'shadow.maxBatchOps', '3');
  ctx.repo.git('config', 'shadow.maxBatchBytes', '100');
  ctx.sh = await openShadow({ dir: ctx.repo.dir, env: ctx.repo.env });
  const r = await ctx.sh.batch({ operations: [{ operation: 'write', path: 'seed.txt', content: 'seed\n' }] });
  assert.ok(r.success);
  ctx.seeded = ctx.repo.ref(DRAFT)!;
});
Bounds.after.each((ctx) => {
  ctx.sh.close();
  ctx.repo.cleanup();
});

const writes = (n: number, content = 'x'): unknown[] =>
  Array.from({ length: n }, (_, i) => ({ operation: 'write', path: `f${i}.txt`, content }));

Bounds(
  'one operation over shadow.maxBatchOps is refused, naming the limit and the way out; the draft stays',
  async ({ repo, sh, seeded }) => {
    const r = await sh.batch({ operations: writes(4) });
    assert.is(r.success, false);
    assert.is(r.error?.code, 'BATCH_TOO_LARGE');
    assert.is(
      r.error?.message,
      'the batch has 4 operations, over the limit of 3 (shadow.maxBatchOps); nothing was written',
    );
    assert.match(r.error!.hint!, /git config shadow\.maxBatchOps <n>/);
    assert.equal(r.error?.data, { operations: 4, limit: 3, setting: 'shadow.maxBatchOps' });
    assert.equal(r.results, [], 'no result per operation: there may be 100,000');
    assert.is(r.batch, null);
    assert.is(repo.ref(DRAFT), seeded);
    assert.not.ok(repo.exists('f0.txt'));
  },
);

Bounds('at shadow.maxBatchOps the batch is accepted', async ({ repo, sh, seeded }) => {
  const r = await sh.batch({ operations: writes(3) });
  assert.ok(r.success, JSON.stringify(r.error));
  assert.is(repo.git('rev-parse', `${DRAFT}^`).trim(), seeded);
  assert.is(repo.git('cat-file', 'blob', `${DRAFT}:f2.txt`), 'x');
});

Bounds(
  'content, old_content and diff count toward shadow.maxBatchBytes, in UTF-8 bytes',
  async ({ repo, sh, seeded }) => {
    // 40 + (5 + 25) + 30 = 100 bytes: at the bound.
    const at = [
      { operation: 'write', path: 'a.txt', content: 'é'.repeat(20) },
      { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'H'.repeat(25) },
      { operation: 'patch', path: 'seed.txt', diff: '@@ -1 +1 @@\n-seed\n+seed, more\n' },
    ];
    const over = [...at.slice(0, 2), { operation: 'write', path: 'b.txt', content: 'é'.repeat(16) }];
    const refused = await sh.batch({ operations: over });
    assert.is(refused.error?.code, 'BATCH_TOO_LARGE');
    assert.is(
      refused.error?.message,
      'the batch carries more than 100 bytes of content (shadow.maxBatchBytes); nothing was written',
    );
    assert.equal(refused.error?.data, { bytes_at_least: 102, limit: 100, setting: 'shadow.maxBatchBytes' });
    assert.match(refused.error!.hint!, /git config shadow\.maxBatchBytes <bytes>/);
    assert.is(repo.ref(DRAFT), seeded);

    const accepted = await sh.batch({ operations: at });
    assert.ok(accepted.success, JSON.stringify(accepted.error));
    assert.is(repo.git('cat-file', 'blob', `${DRAFT}:seed.txt`), 'seed, more\n');
  },
);

Bounds(
  'the bound is checked before validation: a huge batch of bad operations is refused for its size',
  async ({ sh }) => {
    const r = await sh.batch({ operations: Array.from({ length: 50 }, () => ({ operation: 'frob' })) });
    assert.is(r.error?.code, 'BATCH_TOO_LARGE');
  },
);

Bounds('the CLI refuses it with exit 1 and the code, writing nothing', ({ repo, seeded }) => {
  const r = repo.shadow(['batch', '-', '--json'], { input: JSON.stringify({ operations: writes(4) }) });
  assert.is(r.status, 1, r.stdout + r.stderr);
  assert.is(r.json().error.code, 'BATCH_TOO_LARGE');
  assert.is(repo.ref(DRAFT), seeded);
  const text = repo.shadow(['batch', '-'], { input: JSON.stringify({ operations: writes(1, 'y'.repeat(101)) }) });
  assert.is(text.status, 1);
  assert.match(text.stdout, /more than 100 bytes of content \(shadow\.maxBatchBytes\)/);
  assert.match(text.stderr, /hint: split it into several batches/);
  assert.is(repo.ref(DRAFT), seeded);
});

Bounds('POST /api/batch refuses it with 413 and the code, writing nothing', async ({ repo, sh, seeded }) => {
  const server = await startServer(sh);
  try {
    const api = new Api(server.url, server.token);
    const ops = await api.call('POST', '/api/batch', { json: { operations: writes(4) } });
    assert.is(ops.status, 413);
    assert.is(ops.body.error.code, 'BATCH_TOO_LARGE');
    const bytes = await api.call('POST', '/api/batch', { json: { operations: writes(1, 'y'.repeat(101)) } });
    assert.is(bytes.status, 413);
    assert.is(bytes.body.error.code, 'BATCH_TOO_LARGE');
    assert.is(repo.ref(DRAFT), seeded);
    const ok = await api.call('POST', '/api/batch', { json: { operations: writes(3) } });
    assert.is(ok.status, 200, JSON.stringify(ok.body));
  } finally {
    await server.close();
  }
});

Bounds('a plan with one batch over the bound runs none of its batches', async ({ repo, sh, seeded }) => {
  const plan = JSON.stringify({
    id: 'big',
    batches: [
      { id: 1, operations: writes(1) },
      { id: 2, operations: writes(4) },
    ],
  });
  try {
    await sh.runPlan(plan);
    assert.unreachable('the plan ran');
  } catch (e) {
    assert.is((e as { code?: string }).code, 'BATCH_TOO_LARGE');
    assert.match((e as Error).message, /^batch 2 of plan big has 4 operations, over the limit of 3/);
  }
  assert.is(repo.ref(DRAFT), seeded);
});

Bounds('without configuration the bounds are 10,000 operations and 256 MiB', async ({ repo, seeded }) => {
  repo.git('config', '--unset', 'shadow.maxBatchOps');
  repo.git('config', '--unset', 'shadow.maxBatchBytes');
  const sh = await openShadow({ dir: repo.dir, env: repo.env });
  try {
    const r = await sh.batch({
      operations: Array.from({ length: 10_001 }, (_, i) => ({ operation: 'delete', path: `f${i}` })),
    });
    assert.is(r.error?.code, 'BATCH_TOO_LARGE');
    assert.equal(r.error?.data, { operations: 10_001, limit: 10_000, setting: 'shadow.maxBatchOps' });
    // Strings are counted, not copied: 257 MiB in 2 ops costs only their length.
    const big = 'z'.repeat(128.5 * 1024 * 1024);
    const bytes = await sh.batch({
      operations: [
        { operation: 'write', path: 'a', content: big },
        { operation: 'write', path: 'b', content: big },
      ],
    });
    assert.is(bytes.error?.code, 'BATCH_TOO_LARGE');
    assert.is(bytes.error?.data?.limit, 256 * 1024 * 1024);
  } finally {
    sh.close();
  }
  assert.is(repo.ref(DRAFT), seeded);
});

Bounds.run();
