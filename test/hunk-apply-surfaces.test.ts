/**
 * Hunk apply through its surfaces: `shadow diff --json` lists each file's
 * hunks with their ids, `shadow apply --hunks` takes paths relative to the
 * current directory, `shadow status` and `shadow review` count what was
 * applied and what was not yet, and the HTTP apply route takes `hunks` and
 * `patch` in its body (409 for a stale id or a patch that does not apply).
 */
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './helpers/disk-repo.js';
import { at, TWO_HUNK_BASE, TWO_HUNK_DRAFT, twoHunkDraftOverHttp } from './helpers/hunk-cases.js';
import { assertError, setUp, tearDown, type Ctx } from './helpers/http-server.js';

const Cli = suite<{ repo: DiskRepo }>('shadow apply --hunks, diff --json, status, review');
Cli.before((ctx) => {
  ctx.repo = new DiskRepo({ 'src/code.ts': TWO_HUNK_BASE.join(''), 'img.bin': 'x' });
  const batch = {
    intent: 'two hunks and a binary',
    operations: [
      { operation: 'write', path: 'src/code.ts', content: TWO_HUNK_DRAFT },
      { operation: 'write', path: 'img.bin', content: Buffer.from([0, 1, 2]).toString('base64'), encoding: 'base64' },
    ],
  };
  const r = ctx.repo.shadow(['batch', '-', '--json'], { input: JSON.stringify(batch) });
  assert.is(r.status, 0, r.stdout + r.stderr);
});
Cli.after((ctx) => ctx.repo.cleanup());

Cli(
  'the hunks diff --json lists are taken by id or by path relative to the current directory, and counted',
  ({ repo }) => {
    const diff = repo.shadow(['diff', '--json']);
    assert.is(diff.status, 0, diff.stderr);
    const files = diff.json().files as Array<{ path: string; whole?: string; hunks: Array<Record<string, unknown>> }>;
    const code = files.find((f) => f.path === 'src/code.ts')!;
    assert.equal(
      code.hunks.map((h) => [h.index, h.header, h.old_start, h.old_lines, h.new_start, h.new_lines]),
      [
        [1, '@@ -1,6 +1,6 @@', 1, 6, 1, 6],
        [2, '@@ -34,7 +34,7 @@ line 33', 34, 7, 34, 7],
      ],
    );
    assert.ok(code.hunks.every((h) => /^[0-9a-f]{12}$/.test(String(h.id))));
    assert.equal(
      files.find((f) => f.path === 'img.bin'),
      {
        ...files.find((f) => f.path === 'img.bin'),
        whole: 'binary',
        hunks: [],
      },
    );

    const stale = repo.shadow(['apply', '--hunks', '0123456789ab', '--json']);
    assert.is(stale.status, 1);
    assert.is(JSON.parse(stale.stdout || stale.stderr).error.code, 'STALE_HUNKS');

    const r = repo.shadow(['apply', '--hunks', 'code.ts:2', '--json'], { cwd: join(repo.dir, 'src') });
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.equal(r.json().partial, [{ path: 'src/code.ts', chosen: 1, hunks: 2 }]);
    assert.is(repo.read('src/code.ts'), at({ 37: 'thirty-seven\n' }));

    const status = repo.shadow(['status', '--json']).json();
    assert.equal(status.hunks, {
      applied: 1,
      remaining: 1,
      paths: [{ path: 'src/code.ts', applied: 1, remaining: 1 }],
    });
    const text = repo.shadow(['status']).stdout;
    assert.match(text, /src\/code\.ts {2}\(1 of 2 hunks applied, 1 not yet applied\)/);
    const review = repo.shadow(['review', '--json']).json();
    assert.equal(review.hunks, status.hunks);
    assert.match(repo.shadow(['review']).stdout, /partly applied \(1 path\): 1 hunks applied, 1 not yet applied/);

    // The id of what is left applies it; then nothing is partly applied.
    const left = repo
      .shadow(['diff', '--json'])
      .json()
      .files.find((f: { path: string }) => f.path === 'src/code.ts');
    assert.is(left.hunks.length, 1);
    const rest = repo.shadow(['apply', '--hunks', `${left.hunks[0].id},img.bin`, '--json']);
    assert.is(rest.status, 0, rest.stdout + rest.stderr);
    assert.is(repo.read('src/code.ts'), TWO_HUNK_DRAFT);
    assert.is(repo.shadow(['status', '--json']).json().hunks, undefined);
  },
);

const Http = suite<Ctx>('POST /api/drafts/:name/apply with hunks or a patch');
Http.before.each(async (c) => {
  await setUp(c, {}, { allowApply: true });
  await twoHunkDraftOverHttp(c);
});
Http.after.each(tearDown);

Http(
  'the diff route lists the hunks; the apply body takes their ids; a stale id is 409 STALE_HUNKS',
  async ({ api, repo }) => {
    const diff = await api.call('GET', '/api/drafts/default/diff?content=patch');
    assert.is(diff.status, 200, JSON.stringify(diff.body));
    const [file] = diff.body.files;
    assert.is(file.hunks.length, 2);
    const dry = await api.call('POST', '/api/drafts/default/apply', {
      json: { hunks: [file.hunks[0].id], dry_run: true },
    });
    assert.is(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.partial, [{ path: 'code.ts', chosen: 1, hunks: 2 }]);
    assert.is(repo.read('code.ts'), TWO_HUNK_BASE.join(''));
    const r = await api.call('POST', '/api/drafts/default/apply', { json: { hunks: [file.hunks[0].id] } });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.is(repo.read('code.ts'), at({ 3: 'three\n' }));
    // The draft's diff moved with the apply: that hunk is gone from it.
    const again = await api.call('POST', '/api/drafts/default/apply', { json: { hunks: [file.hunks[0].id] } });
    assertError(again, 409, 'STALE_HUNKS');
  },
);

Http(
  'a patch that does not apply is 409 PATCH_DOES_NOT_APPLY in git words; a bad body is 400',
  async ({ api, repo }) => {
    const patch = 'diff --git a/code.ts b/code.ts\n--- a/code.ts\n+++ b/code.ts\n@@ -3 +3 @@\n-line 4\n+four\n';
    const r = await api.call('POST', '/api/drafts/default/apply', { json: { patch } });
    assertError(r, 409, 'PATCH_DOES_NOT_APPLY', /^error: patch failed: code\.ts:3/);
    const bad = await api.call('POST', '/api/drafts/default/apply', { json: { hunks: 'code.ts:1' } });
    assertError(bad, 400, 'INVALID_ARGUMENT');
    assert.is(repo.read('code.ts'), TWO_HUNK_BASE.join(''));
  },
);

Cli.run();
Http.run();
