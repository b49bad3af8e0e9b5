import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';

/*
 * Batches of one process on one draft take turns (Workspace.inTurn): a
 * server's concurrent clients commit one after another, in the order they
 * were sent, without losing a race and backing off; a batch that waited is
 * still judged against the tip it was sent on.
 */

const T = suite<{ repo: MemRepo; sleeps: number[] }>('batches take turns on a draft');
T.before.each(async (c) => {
  c.repo = await memRepo({ 'README.md': 'Hello\n', 'shared.txt': 'one\ntwo\nthree\n' });
  c.sleeps = [];
  const sleep = c.repo.ctx.clock.sleep;
  c.repo.ctx.clock.sleep = (ms) => {
    c.sleeps.push(ms);
    return sleep(ms);
  };
});

T('16 batches sent at once on one draft: all land, numbered in the order sent, and none backs off', async ({ repo, sleeps }) => {
  const sh = await repo.open();
  const results = await Promise.all(
    Array.from({ length: 16 }, (_, i) => sh.batch({ operations: [{ operation: 'write', path: `c${i}/f.txt`, content: `client ${i}\n` }] }, { draft: 'shared' })),
  );
  assert.equal(
    results.map((r) => [r.success, r.batch]),
    Array.from({ length: 16 }, (_, i) => [true, i + 1]),
  );
  assert.equal(sleeps, [], 'no lost race, no backoff');
  const log = await sh.log({ draft: 'shared' });
  assert.is(log.length, 16);
  for (let i = 0; i < 16; i++) assert.is((await sh.cat(`c${i}/f.txt`, { draft: 'shared' })).content.toString(), `client ${i}\n`);
  sh.close();
});

T('a batch that waited is judged against the tip it was sent on: a write over a path the one before it changed is CONFLICT; an edit that still applies merges', async ({ repo }) => {
  const sh = await repo.open();
  await sh.batch({ operations: [{ operation: 'write', path: 'other.txt', content: 'x\n' }] }, { draft: 'd' });
  const [first, write, edit] = await Promise.all([
    sh.batch({ operations: [{ operation: 'edit', path: 'shared.txt', old_content: 'one', content: 'ONE' }] }, { draft: 'd' }),
    sh.batch({ operations: [{ operation: 'write', path: 'shared.txt', content: 'overwritten\n' }] }, { draft: 'd' }),
    sh.batch({ operations: [{ operation: 'edit', path: 'shared.txt', old_content: 'three', content: 'THREE' }] }, { draft: 'd' }),
  ]);
  assert.is(first.success, true);
  assert.equal([write.success, write.error?.code], [false, 'CONFLICT']);
  assert.is(edit.success, true);
  assert.is((await sh.cat('shared.txt', { draft: 'd' })).content.toString(), 'ONE\ntwo\nTHREE\n');
  sh.close();
});

T.run();
