/**
 * `split` through its surfaces: `shadow split --hunks` takes paths relative
 * to the current directory and prints JSON with --json (an error too, with
 * its code and exit status); the HTTP route `POST /api/drafts/:name/split`
 * takes `hunks` or a patch in its body (409 for a stale id and an existing
 * new draft, 400 for a bad body).
 */
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './helpers/disk-repo.js';
import { at, TWO_HUNK_BASE, TWO_HUNK_DRAFT, twoHunkDraftOverHttp } from './helpers/hunk-cases.js';
import { assertError, setUp, tearDown, type Ctx } from './helpers/http-server.js';

const Cli = suite<{ repo: DiskRepo }>('shadow split');
Cli.before((ctx) => {
  ctx.repo = new DiskRepo({ 'src/code.ts': TWO_HUNK_BASE.join('') });
  const batch = {
    intent: 'two hunks',
    operations: [{ operation: 'write', path: 'src/code.ts', content: TWO_HUNK_DRAFT }],
  };
  const r = ctx.repo.shadow(['batch', '-', '--json'], { input: JSON.stringify(batch) });
  assert.is(r.status, 0, r.stdout + r.stderr);
});
Cli.after((ctx) => ctx.repo.cleanup());

Cli(
  '--hunks takes a path relative to the current directory; --into names the new draft; errors keep their code',
  ({ repo }) => {
    const r = repo.shadow(['split', '--hunks', 'code.ts:2', '--into', 'tail', '-m', 'the tail', '--json'], {
      cwd: join(repo.dir, 'src'),
    });
    assert.is(r.status, 0, r.stdout + r.stderr);
    const out = r.json();
    assert.equal([out.draft, out.into, out.paths], ['default', 'tail', [{ path: 'src/code.ts', moved: 'part' }]]);
    assert.is(repo.git('show', 'refs/shadow/drafts/tail:src/code.ts'), at({ 37: 'thirty-seven\n' }));
    assert.is(repo.git('show', 'refs/shadow/drafts/default:src/code.ts'), at({ 3: 'three\n' }));
    assert.is(repo.git('log', '-1', '--format=%s', 'refs/shadow/drafts/default').trim(), 'the tail');

    const taken = repo.shadow(['split', '--hunks', 'src/code.ts:1', '--into', 'tail', '--json']);
    assert.is(taken.status, 1);
    assert.is(JSON.parse(taken.stdout || taken.stderr).error.code, 'DRAFT_EXISTS');
    const text = repo.shadow(['split', '--hunks', 'src/code.ts:1']);
    assert.is(text.status, 1, 'nothing would remain');
    assert.match(text.stderr, /nothing would remain/);
    assert.is(repo.git('show', 'refs/shadow/drafts/default:src/code.ts'), at({ 3: 'three\n' }));
  },
);

const Http = suite<Ctx>('POST /api/drafts/:name/split');
Http.before.each(async (c) => {
  await setUp(c);
  await twoHunkDraftOverHttp(c);
});
Http.after.each(tearDown);

Http(
  'the body takes the ids of the diff route; a stale id and a taken name are 409; a bad body is 400',
  async ({ api, repo }) => {
    const diff = await api.call('GET', '/api/drafts/default/diff?content=patch');
    const [file] = diff.body.files;
    const r = await api.call('POST', '/api/drafts/default/split', { json: { hunks: [file.hunks[0].id] } });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.equal([r.body.into, r.body.partial], ['default-split', [{ path: 'code.ts', chosen: 1, hunks: 2 }]]);
    assert.is(repo.git('show', 'refs/shadow/drafts/default-split:code.ts'), at({ 3: 'three\n' }));
    const again = await api.call('POST', '/api/drafts/default/split', { json: { hunks: [file.hunks[1].id] } });
    assertError(again, 409, 'STALE_HUNKS');
    const taken = await api.call('POST', '/api/drafts/default/split', {
      json: { hunks: ['code.ts:1'], into: 'default-split' },
    });
    assertError(taken, 409, 'DRAFT_EXISTS');
    const bad = await api.call('POST', '/api/drafts/default/split', { json: { hunks: 'code.ts:1' } });
    assertError(bad, 400, 'INVALID_ARGUMENT');
    assert.is(repo.git('show', 'refs/shadow/drafts/default:code.ts'), at({ 37: 'thirty-seven\n' }));
  },
);

Http('a patch in the body moves what it holds', async ({ api, repo }) => {
  const patch =
    'diff --git a/code.ts b/code.ts\n--- a/code.ts\n+++ b/code.ts\n@@ -36,3 +36,3 @@\n line 36\n-line 37\n+thirty-seven\n line 38\n';
  const r = await api.call('POST', '/api/drafts/default/split', { json: { patch, into: 'p' } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(repo.git('show', 'refs/shadow/drafts/p:code.ts'), at({ 37: 'thirty-seven\n' }));
  assert.is(repo.git('show', 'refs/shadow/drafts/default:code.ts'), at({ 3: 'three\n' }));
});

Cli.run();
Http.run();
