import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setUp, tearDown, type Ctx } from './helpers/http-server.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { pageSession } from './helpers/page-client.js';

/*
 * Hunks taken from the review page: its apply route's `hunks` (ids of the
 * diff's hunks, whole paths beside them), git apply of the same hunks as
 * the oracle of the bytes written. One repository and server for the file,
 * a draft and paths per test.
 */

const lines = (n: number, tag: string): string[] => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}\n`);
const change = (base: string[], at: Record<number, string>): string =>
  base.map((l, i) => (at[i + 1] !== undefined ? at[i + 1]! : l)).join('');

/** git's side: the `@@` lines of `git diff` from `from` to `to`, and what `git apply` makes of the chosen hunks (from 1). */
function gitHunks(path: string, from: string, to: string, chosen: number[]): { headers: string[]; result: string } {
  const scratch = new DiskRepo(null);
  try {
    scratch.write(path, from);
    scratch.git('add', '-A');
    scratch.git('commit', '-q', '-m', 'base');
    scratch.write(path, to);
    const full = scratch.git('diff');
    scratch.git('checkout', '-q', '--', path);
    const at = full.indexOf('\n@@');
    const hunks = full.slice(at + 1).split(/^(?=@@ )/m);
    const headers = hunks.map((h) => /^@@ [^@]* @@/.exec(h)![0]);
    const patch = `${full.slice(0, at + 1)}${hunks.filter((_, i) => chosen.includes(i + 1)).join('')}`;
    const file = join(scratch.root, 'chosen.patch');
    writeFileSync(file, patch);
    if (chosen.length > 0) scratch.git('apply', file);
    return { headers, result: scratch.read(path) };
  } finally {
    scratch.cleanup();
  }
}

async function batch(c: Ctx, draft: string, operations: unknown[]): Promise<void> {
  const r = await c.sh.batch({ intent: `change ${draft}`, operations: operations as never }, { draft });
  assert.ok(r.success, JSON.stringify(r));
}

/** Commit files into the repository: the bases a draft captures. */
function commit(c: Ctx, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) c.repo.write(path, content);
  c.repo.git('add', '-A');
  c.repo.git('commit', '-q', '-m', 'bases');
}

const A = lines(40, 'a');
const A_NEXT = change(A, { 3: 'three\n', 20: 'twenty\n', 37: 'thirty-seven\n' });

const Http = suite<Ctx>('the page applies hunks');
Http.before(async (c) => {
  await setUp(c);
  commit(c, { 'http/a.txt': A.join(''), 'http/b.txt': 'beta\n' });
});
Http.after(async (c) => {
  await tearDown(c);
});

Http('hunks by id and a whole path beside them: base + those hunks on disk, as git apply makes it', async (c) => {
  await batch(c, 'http', [
    { operation: 'write', path: 'http/a.txt', content: A_NEXT },
    { operation: 'write', path: 'http/b.txt', content: 'beta\nmore\n' },
  ]);
  const page = await pageSession(c);
  const diff = await page.get('/ui/api/drafts/http/diff');
  assert.is(diff.status, 200);
  const a = diff.body.files.find((f: { path: string }) => f.path === 'http/a.txt');
  assert.is(a.hunks.length, 3);
  const { review } = (await page.get('/ui/api/drafts/http')).body;
  const r = await page.post('/ui/api/drafts/http/apply', {
    hunks: [a.hunks[2].id, 'http/b.txt'],
    expect: review.review_fingerprint,
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.partial, [{ path: 'http/a.txt', chosen: 1, hunks: 3 }]);
  assert.is(c.repo.read('http/a.txt'), gitHunks('http/a.txt', A.join(''), A_NEXT, [3]).result);
  assert.is(c.repo.read('http/b.txt'), 'beta\nmore\n');
  // The page reads what remains and the counts.
  const after = (await page.get('/ui/api/drafts/http')).body.review;
  assert.equal(after.hunks, { applied: 1, remaining: 2, paths: [{ path: 'http/a.txt', applied: 1, remaining: 2 }] });
});

Http(
  'an id the draft no longer has is 409 STALE_HUNKS; hunks with paths is 400: nothing written either way',
  async (c) => {
    await batch(c, 'http-stale', [{ operation: 'write', path: 'http/c.txt', content: A_NEXT }]);
    const page = await pageSession(c);
    const old = (await page.get('/ui/api/drafts/http-stale/diff')).body.files[0].hunks[0].id as string;
    await batch(c, 'http-stale', [{ operation: 'write', path: 'http/c.txt', content: `${A_NEXT}end\n` }]);
    const stale = await page.post('/ui/api/drafts/http-stale/apply', { hunks: [old] });
    assert.is(stale.status, 409, JSON.stringify(stale.body));
    assert.is(stale.body.error.code, 'STALE_HUNKS');
    const both = await page.post('/ui/api/drafts/http-stale/apply', { hunks: ['http/c.txt:1'], paths: ['http/c.txt'] });
    assert.is(both.status, 400, JSON.stringify(both.body));
    assert.is(both.body.error.code, 'INVALID_ARGUMENT');
    assert.not.ok(c.repo.exists('http/c.txt'), 'nothing written');
    assert.equal(
      (await c.sh.events({ draft: 'http-stale' })).filter((e) => e.type.startsWith('apply/')),
      [],
    );
  },
);

Http.run();
