import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadDraft, META_FLUSH_BASES_PER_LAG, META_LAG_LIMIT } from '../src/drafts/drafts.js';
import { openShadow, SharedCaches, type Shadow } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';

/*
 * A handle's close brings draft.json up to the draft's tip when it lags and
 * writing it costs less than the walk the next handle would make instead
 * (flushLaggingMetas): a command run by the caller leaves the next one a
 * file it needs not catch up on. Not when the handle's caches are shared (a
 * server's), not for a draft of many bases, never over a file another
 * process rewrote or for a ref another process moved. And a file that
 * names the tip, read afresh, still learns from the reflog the batches
 * made past it before the ref was moved back (git update-ref by hand).
 */

const META = '/repo/.git/shadow/drafts/d/draft.json';
const REF = '/repo/.git/refs/shadow/drafts/d';

const F = suite<{ repo: MemRepo }>('draft.json brought up to date at close');
F.before.each(async (c) => {
  c.repo = await memRepo({ 'README.md': 'Hello\n' });
});

function open(repo: MemRepo, shared?: SharedCaches): Promise<Shadow> {
  const ctx = repo.ctx;
  return openShadow({ dir: '/repo', fs: repo.fs, clock: ctx.clock, ids: ctx.ids, env: ctx.env, shared });
}

const fileMeta = (repo: MemRepo): { bases_tip: string; high_batch: number; bases: Record<string, unknown> } =>
  JSON.parse(repo.fs.readFileSync(META, 'utf8') as string);
const tipOf = (repo: MemRepo): string => (repo.fs.readFileSync(REF, 'utf8') as string).trim();

/** A draft `d` whose draft.json is at its tip, then one small batch that leaves it lagging while `sh` is open. */
async function lagging(repo: MemRepo, shared?: SharedCaches): Promise<Shadow> {
  const first = await open(repo, shared);
  await first.draftNew('d', { actor: 'alice' });
  first.close();
  const sh = await open(repo, shared);
  assert.ok((await sh.write('a.txt', 'a\n', { draft: 'd' })).success);
  assert.is.not(fileMeta(repo).bases_tip, tipOf(repo), 'the batch left the file lagging while the handle is open');
  return sh;
}

F('a handle of its own writes the lagging file at close: bases, tip and batch number', async ({ repo }) => {
  const sh = await lagging(repo);
  sh.close();
  const meta = fileMeta(repo);
  assert.is(meta.bases_tip, tipOf(repo));
  assert.is(meta.high_batch, 1);
  assert.ok('a.txt' in meta.bases, JSON.stringify(meta.bases));
});

F("a handle whose caches are shared (a server's calls) leaves the file lagging", async ({ repo }) => {
  const sh = await lagging(repo, new SharedCaches());
  const before = repo.fs.readFileSync(META, 'utf8');
  sh.close();
  assert.is(repo.fs.readFileSync(META, 'utf8'), before);
});

F('a draft of many bases is not rewritten for a small lag: the walk costs less', async ({ repo }) => {
  const first = await open(repo);
  await first.draftNew('d', { actor: 'alice' });
  const many = META_LAG_LIMIT * META_FLUSH_BASES_PER_LAG;
  const operations = Array.from({ length: many }, (_, i) => ({
    operation: 'write' as const,
    path: `many/f${i}.txt`,
    content: `${i}\n`,
  }));
  assert.ok((await first.batch({ operations }, { draft: 'd' })).success);
  first.close();
  assert.is(fileMeta(repo).bases_tip, tipOf(repo), 'the large batch wrote the file at once');
  const sh = await open(repo);
  assert.ok((await sh.write('a.txt', 'a\n', { draft: 'd' })).success);
  const before = repo.fs.readFileSync(META, 'utf8');
  sh.close();
  assert.is(repo.fs.readFileSync(META, 'utf8'), before, 'left lagging');
});

F('a file another process rewrote meanwhile is left as it is', async ({ repo }) => {
  const sh = await lagging(repo);
  // Another process's rewrite: a new file renamed over it (new inode), as every writer of draft.json does.
  const theirs = `${JSON.stringify({ ...fileMeta(repo), created_by: 'another process' }, null, 1)}\n`;
  repo.fs.writeFileSync(`${META}.tmp`, theirs);
  repo.fs.renameSync(`${META}.tmp`, META);
  sh.close();
  assert.is(repo.fs.readFileSync(META, 'utf8'), theirs);
});

F('a ref another process moved meanwhile: the file is left for the next reader', async ({ repo }) => {
  const sh = await lagging(repo);
  const other = await open(repo);
  assert.ok((await other.write('b.txt', 'b\n', { draft: 'd' })).success);
  const moved = tipOf(repo);
  const before = repo.fs.readFileSync(META, 'utf8');
  sh.close();
  assert.is(repo.fs.readFileSync(META, 'utf8'), before, 'not written by the handle that did not move the ref last');
  other.close();
  assert.is(fileMeta(repo).bases_tip, moved, 'the other handle brings it up to date at its close');
});

F('a file at the tip the ref was moved back to still counts the batches past it, from the reflog', async ({ repo }) => {
  const sh = await open(repo);
  await sh.draftNew('d', { actor: 'alice' });
  assert.ok((await sh.write('a.txt', 'a\n', { draft: 'd' })).success);
  sh.close();
  const atA = repo.fs.readFileSync(META, 'utf8') as string;
  const a = tipOf(repo);
  assert.is(JSON.parse(atA).bases_tip, a);
  const more = await open(repo);
  for (const n of ['b', 'c']) assert.ok((await more.write(`${n}.txt`, `${n}\n`, { draft: 'd' })).success);
  more.close();
  // The file as a server that kept it lagging leaves it, and the ref moved back by hand (with its reflog line).
  repo.fs.writeFileSync(META, atA);
  const c = tipOf(repo);
  repo.fs.writeFileSync(REF, `${a}\n`);
  const log = `/repo/.git/logs/refs/shadow/drafts/d`;
  repo.fs.appendFileSync(log, `${c} ${a} A U Thor <a@example.com> 1700000000 +0000\tback by hand\n`);
  const next = await open(repo);
  const r = await next.write('d.txt', 'd\n', { draft: 'd' });
  assert.ok(r.success);
  assert.is(r.batch, 4, 'batches 2 and 3 are not given again');
  next.close();
});

F(
  'bases that are not bases make draft.json unreadable: rebuilt from the history; unknown fields of a base are dropped',
  async ({ repo }) => {
    const sh = await open(repo);
    await sh.draftNew('d', { actor: 'alice' });
    assert.ok((await sh.write('a.txt', 'a\n', { draft: 'd' })).success);
    sh.close();
    const good = fileMeta(repo);
    const bad: unknown[] = [
      [],
      'bases',
      { 'a.txt': 'not a base' },
      { 'a.txt': { mode: 100644, oid: 'x' } },
      { 'a.txt': { mode: '100644' } },
      { 'a.txt': [] },
    ];
    for (const bases of bad) {
      repo.fs.writeFileSync(META, JSON.stringify({ ...good, bases }));
      const next = await open(repo);
      assert.is((await next.cat('a.txt', { draft: 'd' })).content.toString(), 'a\n', JSON.stringify(bases));
      next.close();
      assert.equal(fileMeta(repo).bases, good.bases, `rebuilt after ${JSON.stringify(bases)}`);
    }
    repo.fs.writeFileSync(
      META,
      JSON.stringify({ ...good, bases: { 'a.txt': null, 'b.txt': { mode: '100644', oid: 'c'.repeat(40), extra: 1 } } }),
    );
    const next = await open(repo);
    const draft = loadDraft(next.ws, 'd');
    next.close();
    assert.equal(draft?.meta.bases.get('b.txt'), { mode: '100644', oid: 'c'.repeat(40) });
    assert.is(draft?.meta.bases.get('a.txt'), null);
  },
);

F.run();
