import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { historySince } from '../src/drafts/history.js';
import { loadDraft } from '../src/drafts/drafts.js';
import type { Shadow } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';

/*
 * `status`'s count of a draft's batches is kept in its metadata with the tip
 * it was counted at (drafts/history/batch-count.ts): at that tip nothing is
 * read again, at a later tip only the commits since, and after a rollback
 * or a ref moved by hand the whole history again; at every step it is the
 * count the history itself gives.
 */

const C = suite<{ repo: MemRepo }>("status's batch count");
C.before.each(async (c) => {
  c.repo = await memRepo({ 'README.md': 'Hello\n' });
});

/** The count the history gives: every commit from the root with a batch trailer. */
function counted(sh: Shadow): number {
  const d = loadDraft(sh.ws, 'default')!;
  return historySince(sh.ws.repo, d.tip, d.meta.root).filter((h) => h.trailers.batch !== undefined).length;
}

async function batches(sh: Shadow, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) assert.ok((await sh.write(`f${i}.txt`, `${i}\n`)).success);
}

/** status's count, and the objects it read (a new handle each time, as a command is). */
async function status(repo: MemRepo): Promise<{ batches: number; read: number; history: number }> {
  const sh = await repo.open();
  const before = sh.stats.objectsRead;
  const s = await sh.status();
  const read = sh.stats.objectsRead - before;
  const history = counted(sh);
  sh.close();
  return { batches: s.batches, read, history };
}

C(
  'the count is the history’s at every step; unchanged, nothing is read again; after a batch, only it',
  async ({ repo }) => {
    const sh = await repo.open();
    await batches(sh, 0, 30);
    sh.close();
    const first = await status(repo);
    assert.is(first.batches, 30);
    assert.is(first.batches, first.history);
    assert.ok(first.read >= 30, `the first status reads the history: ${first.read} objects`);
    const again = await status(repo);
    assert.is(again.batches, 30);
    assert.ok(again.read < 10, `unchanged: ${again.read} objects read`);
    const more = await repo.open();
    await batches(more, 30, 2);
    more.close();
    const after = await status(repo);
    assert.is(after.batches, 32);
    assert.is(after.batches, after.history);
    assert.ok(after.read < 12, `two batches later: ${after.read} objects read`);
  },
);

C('after a rollback and after a ref moved by hand, the count is the history’s again', async ({ repo }) => {
  const sh = await repo.open();
  await batches(sh, 0, 5);
  await sh.checkpoint('five');
  await batches(sh, 5, 5);
  sh.close();
  assert.is((await status(repo)).batches, 10);
  const back = await repo.open();
  await back.rollback('five');
  back.close();
  const rolled = await status(repo);
  assert.is(rolled.batches, rolled.history);
  assert.is(rolled.batches, 5);
  // A plain git command moves the ref back two commits, over the count's tip.
  const by = await repo.open();
  await batches(by, 10, 3);
  by.close();
  assert.is((await status(repo)).batches, 8);
  const d = await repo.open();
  const draft = loadDraft(d.ws, 'default')!;
  const two = d.ws.repo.objects.readCommit(d.ws.repo.objects.readCommit(draft.tip).parents[0]!).parents[0]!;
  d.close();
  repo.fs.writeFileSync('/repo/.git/refs/shadow/drafts/default', `${two}\n`);
  const moved = await status(repo);
  assert.is(moved.batches, moved.history);
  assert.is(moved.batches, 6);
});

C('a draft of many bases keeps its count too: the walk it saves is the history’s', async ({ repo }) => {
  const sh = await repo.open();
  const operations = Array.from({ length: 600 }, (_, i) => ({
    operation: 'write' as const,
    path: `many/m${i}.txt`,
    content: `${i}\n`,
  }));
  assert.ok((await sh.batch({ operations })).success);
  await batches(sh, 0, 40);
  sh.close();
  assert.is((await status(repo)).batches, 41);
  const again = await status(repo);
  assert.is(again.batches, 41);
  assert.ok(again.read < 10, `unchanged: ${again.read} objects read`);
});

C.run();
