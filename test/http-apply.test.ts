import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './helpers/disk-repo.js';
import { assertError, setUp, tearDown, type Ctx } from './helpers/http-server.js';
import { exited, serveChild, type Api, type Reply } from './helpers/session-http.js';

/*
 * POST /api/drafts/:name/apply on a real repository: a dry run is always
 * served, a real apply only by a server started with allowApply (403
 * APPLY_NOT_ALLOWED otherwise, nothing written); paths publish part of the
 * draft, checked against the bytes on disk and the changes the draft
 * keeps; then `shadow serve --allow-apply` as a real process.
 */

const FILES = { 'src/a.ts': 'a\n', 'src/b.ts': 'b\n', 'docs/d.md': 'd\n', '.github/workflows/ci.yml': 'on: push\n' };
const DRAFT = {
  'src/a.ts': 'A\n',
  'src/b.ts': 'B\n',
  'docs/d.md': 'D\n',
  '.github/workflows/ci.yml': 'on: [push, pull_request]\n',
};
const ALL = Object.keys(DRAFT).sort();
const BATCH = {
  intent: 'everywhere',
  operations: Object.entries(DRAFT).map(([path, content]) => ({ operation: 'write', path, content })),
};

/** The fixture's files committed, and the draft changing all of them. */
async function seed(c: Ctx): Promise<void> {
  for (const [path, content] of Object.entries(FILES)) c.repo.write(path, content);
  c.repo.git('add', '-A');
  c.repo.git('commit', '-q', '-m', 'fixture');
  const r = await c.api.call('POST', '/api/batch', { json: BATCH });
  assert.is(r.status, 200, JSON.stringify(r.body));
}

const bytes = (repo: DiskRepo): Record<string, string> =>
  Object.fromEntries(Object.keys(FILES).map((p) => [p, repo.read(p)]));
const apply = (api: Api, body?: unknown): Promise<Reply> =>
  api.call('POST', '/api/drafts/default/apply', body === undefined ? {} : { json: body });
const pathsOf = (r: Reply): string[] => r.body.paths.map((p: { path: string }) => p.path);

/** The paths the draft still changes, as the API's diff lists them. */
async function draftChanges(api: Api): Promise<string[]> {
  const r = await api.call('GET', '/api/drafts/default/diff?content=stat');
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.files.map((f: { path: string }) => f.path).sort();
}

/* ------------------------------------------------------------------------------------------------
 * A server started without allowApply: dry runs only.
 * ---------------------------------------------------------------------------------------------- */

const Gated = suite<Ctx>('POST /api/drafts/:name/apply without allowApply');
Gated.before.each(async (c) => {
  await setUp(c);
  await seed(c);
});
Gated.after.each(tearDown);

Gated(
  'a dry run is served: the whole draft, or with paths only what they match and only their approvals; nothing is written',
  async ({ api, repo }) => {
    const whole = await apply(api, { dry_run: true });
    assert.is(whole.status, 200, JSON.stringify(whole.body));
    assert.equal([whole.body.dry_run, whole.body.applied, whole.body.ok], [true, false, false]);
    assert.equal(pathsOf(whole), ALL);
    assert.equal(
      whole.body.pendingApprovals.map((a: { kind: string }) => a.kind),
      ['protected_path'],
    );

    const part = await apply(api, { dry_run: true, paths: ['src/*.ts'] });
    assert.is(part.status, 200, JSON.stringify(part.body));
    assert.equal([part.body.dry_run, part.body.applied, part.body.ok], [true, false, true]);
    assert.equal(pathsOf(part), ['src/a.ts', 'src/b.ts']);
    assert.equal(part.body.pendingApprovals, []);
    assert.equal(part.body.conflicts, []);

    assert.equal(bytes(repo), FILES);
    assert.is(repo.git('status', '--porcelain'), '');
    assert.equal(await draftChanges(api), ALL);
  },
);

Gated(
  'a real apply is 403 APPLY_NOT_ALLOWED, whatever the body; nothing is written and the draft keeps every change',
  async ({ api, repo }) => {
    for (const body of [
      undefined,
      {},
      { dry_run: false },
      { paths: ['src/a.ts'] },
      { paths: ['src'], conflict: 'markers' },
    ]) {
      const r = await apply(api, body);
      assertError(r, 403, 'APPLY_NOT_ALLOWED', 'this server does not apply drafts: the person applies');
      assert.match(r.body.error.hint, /dry_run.*--allow-apply/, JSON.stringify(body));
    }
    assert.equal(bytes(repo), FILES);
    assert.is(repo.git('status', '--porcelain'), '');
    assert.equal(await draftChanges(api), ALL);
    assert.is(repo.exists('.git/shadow/apply.lock'), false);
  },
);

Gated(
  'a bad body is 400 INVALID_ARGUMENT with a hint showing the shape, before the gate; an unmatched pathspec is INVALID_ARGUMENT naming it',
  async ({ api, repo }) => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['paths not a list', { paths: 'src', dry_run: true }, /paths must be an array, got a string/],
      ['a path not a string', { paths: [7] }, /paths\[0\] must be a string, got a number/],
      ['an empty list', { paths: [] }, /paths is empty; send at least one/],
      ['an empty path', { paths: ['src', ''] }, /paths\[1\] is empty/],
      ['an absolute path', { paths: ['/src/a.ts'] }, /paths\[0\] is absolute: give it relative to the repository root/],
      ['a .. step', { paths: ['docs/../src'] }, /paths\[0\] steps out with "\.\."/],
      ['dry_run not a boolean', { dry_run: 'yes' }, /dry_run must be a boolean, got a string/],
      ['an unknown conflict', { conflict: 'theirs' }, /conflict must be one of "refuse", "markers", got "theirs"/],
      ['an unknown field', { paths: ['src'], commit: true }, /has unknown field "commit"/],
      ['an array', ['src'], /must be an object, got an array/],
    ];
    for (const [name, body, message] of cases) {
      const r = await apply(api, body);
      assertError(r, 400, 'INVALID_ARGUMENT', message);
      assert.match(r.body.error.hint, /^send \{"paths"\?: \[/, name);
    }
    assertError(await api.call('POST', '/api/drafts/default/apply', { json: '{"paths": ["src' }), 400, 'INVALID_JSON');

    const unmatched = await apply(api, { dry_run: true, paths: ['src/b.ts', 'nothing/here'] });
    assertError(
      unmatched,
      400,
      'INVALID_ARGUMENT',
      /pathspec 'nothing\/here' did not match any path the draft changes/,
    );
    assert.equal(unmatched.body.error.data, { unmatched: ['nothing/here'] });
    assert.equal(bytes(repo), FILES);
    assert.equal(await draftChanges(api), ALL);
  },
);

Gated.run();

/* ------------------------------------------------------------------------------------------------
 * A server started with allowApply: the apply itself, approvals still holding.
 * ---------------------------------------------------------------------------------------------- */

const Allowed = suite<Ctx>('POST /api/drafts/:name/apply with allowApply');
Allowed.before.each(async (c) => {
  await setUp(c, {}, { allowApply: true });
  await seed(c);
});
Allowed.after.each(tearDown);

Allowed(
  "paths publish only what they match: those bytes are on disk, the rest are still the draft's changes and untouched",
  async ({ api, repo, sh }) => {
    const r = await apply(api, { paths: ['docs', 'src/b.ts'] });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.equal([r.body.ok, r.body.applied, r.body.dry_run], [true, true, false]);
    assert.type(r.body.id, 'string');
    assert.equal(pathsOf(r), ['docs/d.md', 'src/b.ts']);
    assert.equal(bytes(repo), { ...FILES, 'docs/d.md': 'D\n', 'src/b.ts': 'B\n' });
    assert.equal(repo.git('status', '--porcelain').split('\n').filter(Boolean).sort(), [' M docs/d.md', ' M src/b.ts']);
    const left = ['.github/workflows/ci.yml', 'src/a.ts'];
    assert.equal(await draftChanges(api), left);
    assert.equal((await sh.status()).changed.map((c: { path: string }) => c.path).sort(), left);
    assert.equal(pathsOf(await apply(api, { dry_run: true })), left);
  },
);

Allowed(
  'an unmatched pathspec is 400 INVALID_ARGUMENT and nothing is written, not even the paths that matched',
  async ({ api, repo }) => {
    assertError(
      await apply(api, { paths: ['src/a.ts', 'src/c.ts'] }),
      400,
      'INVALID_ARGUMENT',
      /pathspec 'src\/c\.ts' did not match/,
    );
    assert.equal(bytes(repo), FILES);
    assert.equal(await draftChanges(api), ALL);
  },
);

Allowed(
  'approvals still hold: a protected path is 422 APPROVALS_PENDING with the result, nothing written; the other paths apply alone',
  async ({ api, repo }) => {
    const r = await apply(api, { paths: ['.github'] });
    assert.is(r.status, 422, JSON.stringify(r.body));
    assert.is(r.body.error.code, 'APPROVALS_PENDING');
    assert.match(r.body.error.message, /^nothing was applied: approvals are pending \(ap-[0-9a-f]{10}\)$/);
    assert.equal([r.body.ok, r.body.applied], [false, false]);
    assert.equal(
      r.body.pendingApprovals.map((a: { kind: string }) => a.kind),
      ['protected_path'],
    );
    assert.equal(bytes(repo), FILES);

    const rest = await apply(api, { paths: ['src', 'docs/d.md'] });
    assert.is(rest.status, 200, JSON.stringify(rest.body));
    assert.equal(bytes(repo), { ...DRAFT, '.github/workflows/ci.yml': 'on: push\n' });
    assert.equal(await draftChanges(api), ['.github/workflows/ci.yml']);
  },
);

Allowed(
  'conflict is passed on: where the person changed the same line, refuse is 409 CONFLICT and markers writes both sides',
  async ({ api, repo }) => {
    repo.write('src/a.ts', 'mine\n');
    const refused = await apply(api, { paths: ['src/a.ts'], conflict: 'refuse' });
    assertError(refused, 409, 'CONFLICT');
    assert.is(repo.read('src/a.ts'), 'mine\n');
    const marked = await apply(api, { paths: ['src/a.ts'], conflict: 'markers' });
    assert.is(marked.status, 200, JSON.stringify(marked.body));
    assert.equal(
      marked.body.paths.map((p: { path: string; merge: string }) => [p.path, p.merge]),
      [['src/a.ts', 'conflict']],
    );
    assert.match(repo.read('src/a.ts'), /^<<<<<<< [^\n]*\nmine\n=======\nA\n>>>>>>> [^\n]*\n$/);
    assert.equal(bytes(repo), { ...FILES, 'src/a.ts': repo.read('src/a.ts') });
  },
);

Allowed.run();

/* ------------------------------------------------------------------------------------------------
 * `shadow serve` as a real process: --allow-apply reaches the server.
 * ---------------------------------------------------------------------------------------------- */

const Serve = suite<{ repo: DiskRepo }>('shadow serve --allow-apply');
Serve.before.each((c) => {
  c.repo = new DiskRepo(FILES);
  const b = c.repo.shadow(['batch', '-', '--json'], { input: JSON.stringify(BATCH) });
  assert.is(b.status, 0, b.stdout + b.stderr);
});
Serve.after.each((c) => c.repo.cleanup());

Serve(
  'plain shadow serve answers dry runs and refuses the apply (403); with --allow-apply it applies the paths asked for',
  async ({ repo }) => {
    const plain = await serveChild(repo);
    try {
      assertError(await apply(plain.api, { paths: ['src/a.ts'] }), 403, 'APPLY_NOT_ALLOWED');
      assert.equal(pathsOf(await apply(plain.api, { paths: ['src/a.ts'], dry_run: true })), ['src/a.ts']);
    } finally {
      plain.child.kill('SIGTERM');
      await exited(plain.child);
    }
    assert.equal(bytes(repo), FILES);

    const allowed = await serveChild(repo, ['--allow-apply']);
    try {
      const r = await apply(allowed.api, { paths: ['src/a.ts'] });
      assert.is(r.status, 200, JSON.stringify(r.body));
      assert.equal([r.body.applied, pathsOf(r)], [true, ['src/a.ts']]);
    } finally {
      allowed.child.kill('SIGTERM');
      await exited(allowed.child);
    }
    assert.equal(bytes(repo), { ...FILES, 'src/a.ts': 'A\n' });
    const status = repo.shadow(['status', '--json']);
    assert.equal(
      status
        .json()
        .changed.map((c: { path: string }) => c.path)
        .sort(),
      ['.github/workflows/ci.yml', 'docs/d.md', 'src/b.ts'],
    );
  },
);

Serve.run();
