import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setUp, tearDown, type Ctx } from './helpers/http-server.js';

/*
 * The draft's moves beside a person over HTTP: rebase, revert and resolve
 * (always served: they write only the draft), and unapply (a dry run
 * always; the real one only under allowApply), on a real repository.
 */

const Http = suite<Ctx>('http: rebase, revert, resolve, unapply');
Http.before.each((c) => setUp(c, {}, { allowApply: false }));
Http.after.each(tearDown);

Http(
  'rebase onto the working tree leaves a conflict, resolve settles it, revert undoes a batch; bad bodies are 400 INVALID_ARGUMENT',
  async ({ repo, api, sh }) => {
    await sh.batch({
      intent: 'one',
      operations: [{ operation: 'write', path: 'notes.txt', content: 'one by the agent\n' }],
    });
    repo.write('notes.txt', 'one by the person\n');
    const r = await api.call('POST', '/api/drafts/default/rebase', { json: {} });
    assert.is(r.status, 200);
    assert.equal(r.body.conflicts, [{ path: 'notes.txt', reason: 'overlap' }]);
    const refused = await api.call('POST', '/api/drafts/default/apply', { json: { dry_run: true } });
    assert.is(refused.status, 200);
    assert.equal(refused.body.unresolved, [{ path: 'notes.txt', reason: 'overlap' }]);
    const res = await api.call('POST', '/api/drafts/default/resolve', { json: { paths: ['notes.txt'] } });
    assert.is(res.status, 200);
    assert.equal(res.body.resolved, ['notes.txt']);
    assert.equal((await sh.status()).conflicts, []);
    await sh.batch({ intent: 'two', operations: [{ operation: 'write', path: 'more.txt', content: 'more\n' }] });
    const batch = (await sh.log({ limit: 1 }))[0]!.batch;
    const rv = await api.call('POST', '/api/drafts/default/revert', { json: { batches: [String(batch)] } });
    assert.is(rv.status, 200);
    assert.equal(rv.body.paths, [{ path: 'more.txt', status: 'reverted' }]);
    assert.is(repo.gitResult('cat-file', '-e', 'refs/shadow/drafts/default:more.txt').status, 128);
    for (const [route, json] of [
      ['rebase', { onto: '' }],
      ['revert', { batches: [] }],
      ['resolve', { paths: 'x' }],
      ['rebase', { nope: 1 }],
    ] as const) {
      const bad = await api.call('POST', `/api/drafts/default/${route}`, { json });
      assert.is(bad.status, 400, route);
      assert.is(bad.body.error.code, 'INVALID_ARGUMENT');
    }
    const notFound = await api.call('POST', '/api/drafts/nope/rebase', { json: {} });
    assert.is(notFound.status, 404);
    assert.is(notFound.body.error.code, 'DRAFT_NOT_FOUND');
  },
);

Http(
  'unapply: a dry run is served, the real one is 403 APPLY_NOT_ALLOWED and writes nothing',
  async ({ repo, api, sh }) => {
    await sh.batch({
      intent: 'one',
      operations: [{ operation: 'write', path: 'notes.txt', content: 'one by the agent\n' }],
    });
    await sh.apply();
    const dry = await api.call('POST', '/api/drafts/default/unapply', { json: { dry_run: true } });
    assert.is(dry.status, 200);
    assert.equal(
      dry.body.paths.map((p: any) => [p.path, p.merge]),
      [['notes.txt', 'clean']],
    );
    const real = await api.call('POST', '/api/drafts/default/unapply', { json: {} });
    assert.is(real.status, 403);
    assert.is(real.body.error.code, 'APPLY_NOT_ALLOWED');
    assert.is(repo.read('notes.txt'), 'one by the agent\n');
  },
);

Http.run();
