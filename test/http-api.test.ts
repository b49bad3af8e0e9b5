import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { rawRequest } from './helpers/session-http.js';
import { assertError, assertFailure, begin, gitShow, setUp, tearDown, type Ctx } from './helpers/http-server.js';

/*
 * The local HTTP API with a real client (node's fetch), the server
 * in-process (startServer): bad input of every kind, the token, the Host
 * header, CORS, the loopback binding, and the draft endpoints.
 */

const Http = suite<Ctx>('write sessions over HTTP');
Http.before.each((c) => setUp(c));
Http.after.each(tearDown);

// ---------------------------------------------------------------- bad input

Http(
  'truncated and invalid JSON, wrong types and shapes: 400/415 with {error}, no session begun',
  async ({ api, sh }) => {
    const cases: Array<{
      name: string;
      path: string;
      body: string;
      type?: string;
      status: number;
      code: string;
      message?: RegExp;
    }> = [
      {
        name: 'truncated JSON',
        path: '/api/write-session/begin',
        body: '{"intent": "x", "target_file": "a.md", "oper',
        status: 400,
        code: 'INVALID_JSON',
        message: /cut off|truncated/,
      },
      {
        name: 'invalid JSON',
        path: '/api/write-session/begin',
        body: "{intent: 'x', target_file: 'a.md'}",
        status: 400,
        code: 'INVALID_JSON',
      },
      {
        name: 'trailing garbage',
        path: '/api/write-session/begin',
        body: '{"intent": "", "target_file": "a.md", "operation": "create"} }',
        status: 400,
        code: 'INVALID_JSON',
      },
      { name: 'an empty JSON body', path: '/api/write-session/begin', body: '', status: 400, code: 'INVALID_JSON' },
      { name: 'a JSON array', path: '/api/write-session/begin', body: '[]', status: 400, code: 'INVALID_ARGUMENT' },
      {
        name: 'no operation',
        path: '/api/write-session/begin',
        body: '{"intent": "", "target_file": "a.md"}',
        status: 400,
        code: 'INVALID_ARGUMENT',
      },
      {
        name: 'an unknown operation',
        path: '/api/write-session/begin',
        body: '{"intent": "", "target_file": "a.md", "operation": "delete"}',
        status: 400,
        code: 'INVALID_ARGUMENT',
      },
      {
        name: 'a path out of the repository',
        path: '/api/write-session/begin',
        body: '{"intent": "", "target_file": "../x.md", "operation": "create"}',
        status: 400,
        code: 'INVALID_PATH',
      },
      {
        name: 'begin as text',
        path: '/api/write-session/begin',
        body: '{"intent": "", "target_file": "a.md", "operation": "create"}',
        type: 'text/plain',
        status: 400,
        code: 'INVALID_ARGUMENT',
      },
      {
        name: 'an unknown media type',
        path: '/api/write-session/begin',
        body: '<begin/>',
        type: 'application/xml',
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      },
      {
        name: 'truncated finalize',
        path: '/api/write-session/finalize',
        body: '{"session_id": "abc',
        status: 400,
        code: 'INVALID_JSON',
      },
      {
        name: 'finalize without an id',
        path: '/api/write-session/finalize',
        body: '{}',
        status: 400,
        code: 'INVALID_ARGUMENT',
      },
      {
        name: 'a truncated batch',
        path: '/api/batch',
        body: '{"operations": [{"operation": "write", "path": "a.txt", "content": "abc',
        status: 400,
        code: 'INVALID_JSON',
      },
    ];
    for (const c of cases) {
      const r = await api.call('POST', c.path, { json: c.body, type: c.type ?? 'application/json' });
      assert.is(r.status, c.status, `${c.name}: ${JSON.stringify(r.body)}`);
      assertError(r, c.status, c.code, c.message);
    }
    assert.equal(sh.sessions.list(), []);
    // Content sent as JSON is refused, and the session keeps nothing of it.
    const id = await begin(api, 'a.md');
    const j = await api.call('POST', `/api/write-session/${id}/content`, { json: { content: 'x' } });
    assertError(j, 400, 'INVALID_ARGUMENT', 'session content is plain text, not JSON');
    assert.is((await api.status(id)).body.bytes, 0);
  },
);

Http('a missing, wrong or malformed token: 401, and nothing happens', async ({ api, sh }) => {
  const variants: Array<[string, Record<string, string>]> = [
    ['no Authorization header', {}],
    ['a wrong token', { authorization: `Bearer ${api.token}x` }],
    ['a prefix of the token', { authorization: `Bearer ${api.token.slice(0, -1)}` }],
    ['Basic instead of Bearer', { authorization: `Basic ${Buffer.from(`u:${api.token}`).toString('base64')}` }],
    ['the token without the scheme', { authorization: api.token }],
    ['Bearer and nothing', { authorization: 'Bearer ' }],
  ];
  for (const [name, headers] of variants) {
    const r = await api.call('POST', '/api/write-session/begin', {
      json: { intent: '', target_file: 'a.md', operation: 'create' },
      token: null,
      headers,
    });
    assertError(r, 401, 'UNAUTHORIZED');
    assert.is(typeof r.body.error.hint, 'string', name);
    assertError(await api.call('GET', '/api/drafts', { token: null, headers }), 401, 'UNAUTHORIZED');
  }
  assert.equal(sh.sessions.list(), []);
  assert.is(
    (await api.call('GET', '/api/drafts', { headers: { authorization: `bearer ${api.token}` } })).status,
    200,
    'the scheme is case-insensitive',
  );
});

Http('a foreign Host header is refused (DNS rebinding); 127.0.0.1 and localhost are served', async ({ server }) => {
  const auth = { authorization: `Bearer ${server.token}` };
  for (const host of [
    'evil.example',
    `evil.example:${server.port}`,
    `127.0.0.1.nip.io:${server.port}`,
    `localhost:${server.port + 1}`,
    `127.0.0.1`,
    `[::1]:${server.port}`,
  ]) {
    const r = await rawRequest(server.port, { path: '/api/drafts', headers: { ...auth, host } });
    assert.is(r.status, 403, host);
    assert.is(r.body.error.code, 'FORBIDDEN_HOST', host);
  }
  const none = await rawRequest(server.port, { path: '/api/drafts', headers: auth, setHost: false });
  assert.ok([400, 403].includes(none.status), `no Host header: ${none.status}`);
  for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `LOCALHOST:${server.port}`]) {
    assert.is((await rawRequest(server.port, { path: '/api/drafts', headers: { ...auth, host } })).status, 200, host);
  }
  // The Host check comes first: a foreign host learns nothing about the token.
  assert.is((await rawRequest(server.port, { path: '/api/drafts', headers: { host: 'evil.example' } })).status, 403);
});

Http('no CORS headers, not even for a preflight', async ({ api, server }) => {
  const headers = { origin: 'http://evil.example', 'access-control-request-method': 'POST' };
  const replies = [
    await api.call('GET', '/api/drafts', { headers: { origin: 'http://evil.example' } }),
    await api.call('OPTIONS', '/api/write-session/begin', { headers }),
    await api.call('POST', '/api/write-session/begin', {
      json: { intent: '', target_file: 'a.md', operation: 'create' },
      headers: { origin: 'http://evil.example' },
    }),
    await api.call('GET', '/api/drafts', { token: null, headers: { origin: 'http://evil.example' } }),
  ];
  for (const r of replies)
    for (const [k] of r.headers) assert.not.match(k, /^access-control-/i, `${k} on a ${r.status} reply`);
  const raw = await rawRequest(server.port, {
    method: 'OPTIONS',
    path: '/api/drafts',
    headers: { ...headers, host: 'evil.example' },
  });
  assert.ok(Object.keys(raw.headers).every((k) => !k.startsWith('access-control-')));
});

Http('bound to 127.0.0.1 only', async ({ server }) => {
  const refused = (host: string): Promise<string> =>
    new Promise((resolve) => {
      const s = connect({ host, port: server.port });
      s.once('connect', () => {
        s.destroy();
        resolve('connected');
      });
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
  assert.is(await refused('127.0.0.1'), 'connected');
  const others = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && a.family === 'IPv4')
    .map((a) => a!.address);
  for (const host of ['::1', ...others])
    assert.ok(['ECONNREFUSED', 'EADDRNOTAVAIL', 'ENETUNREACH', 'EAFNOSUPPORT'].includes(await refused(host)), host);
});

// ---------------------------------------------------------------- the draft endpoints

Http('batch, drafts, diff, log, the view, checkpoints and rollback', async ({ api, repo }) => {
  const b1 = await api.call('POST', '/api/batch', {
    json: { intent: 'first', operations: [{ operation: 'write', path: 'src/a.txt', content: 'A\n' }] },
  });
  assert.is(b1.status, 200, JSON.stringify(b1.body));
  assert.equal([b1.body.success, b1.body.batch], [true, 1]);
  assertFailure(await api.call('POST', '/api/batch', { json: { intent: 'no ops' } }), 400, 'INVALID_BATCH');
  const drafts = await api.call('GET', '/api/drafts');
  assert.equal(
    drafts.body.drafts.map((d: { name: string; batches: number }) => [d.name, d.batches]),
    [['default', 1]],
  );
  const diff = await api.call('GET', '/api/drafts/default/diff');
  assert.is(diff.status, 200);
  assert.equal(
    diff.body.files.map((f: { path: string }) => f.path),
    ['src/a.txt'],
  );
  assert.match(diff.body.files[0].patch, /\+A/);
  assertError(await api.call('GET', '/api/drafts/default/diff?content=everything'), 400, 'INVALID_ARGUMENT');
  const log = await api.call('GET', '/api/drafts/default/log');
  assert.equal(
    log.body.batches.map((x: { batch: number; intent: string }) => [x.batch, x.intent]),
    [[1, 'first']],
  );
  assertError(await api.call('GET', '/api/drafts/default/log?limit=0'), 400, 'INVALID_ARGUMENT');
  const file = await api.call('GET', '/api/drafts/default/files/src/a.txt');
  assert.equal([file.status, file.bytes.toString(), file.headers.get('x-shadow-source')], [200, 'A\n', 'draft']);
  assert.is((await api.call('GET', '/api/drafts/default/files/README.md')).bytes.toString(), 'Hello\n');
  const dir = await api.call('GET', '/api/drafts/default/files/src');
  assert.equal(
    dir.body.entries.map((e: { name: string }) => e.name),
    ['a.txt'],
  );
  assertError(await api.call('GET', '/api/drafts/default/files/nope.txt'), 404, 'NOT_FOUND');
  const cp = await api.call('POST', '/api/drafts/default/checkpoints', { json: { name: 'cp1', message: 'before b' } });
  assert.is(cp.status, 200, JSON.stringify(cp.body));
  assertError(
    await api.call('POST', '/api/drafts/default/checkpoints', { json: { message: 'no name' } }),
    400,
    'INVALID_ARGUMENT',
  );
  assertError(
    await api.call('POST', '/api/drafts/default/checkpoints', { json: { name: 'cp1' } }),
    409,
    'CHECKPOINT_EXISTS',
  );
  // A session's commit is a batch like any other.
  const id = await begin(api, 'src/b.txt');
  assert.is((await api.content(id, 'B\nDONE\n')).status, 200);
  assert.is((await api.call('GET', '/api/drafts/default/log')).body.batches[0].session, id);
  const rb = await api.call('POST', '/api/drafts/default/rollback', { json: { target: 'cp1' } });
  assert.is(rb.status, 200, JSON.stringify(rb.body));
  assertError(await api.call('GET', '/api/drafts/default/files/src/b.txt'), 404, 'NOT_FOUND');
  assert.is(gitShow(repo, 'src/a.txt'), 'A\n');
  assert.is(gitShow(repo, 'src/b.txt'), undefined);
  assertError(await api.call('POST', '/api/drafts/default/rollback', { json: {} }), 400, 'INVALID_ARGUMENT');
  assertError(
    await api.call('POST', '/api/drafts/default/rollback', { json: { target: 'nonesuch' } }),
    400,
    'INVALID_TARGET',
  );
  assertError(await api.call('POST', '/api/drafts/ghost/checkpoints', { json: { name: 'x' } }), 404, 'DRAFT_NOT_FOUND');
  assert.equal(
    (await api.call('GET', '/api/drafts/ghost/log')).body,
    { draft: 'ghost', batches: [] },
    'a draft without batches reads as empty',
  );
  assertError(await api.call('GET', '/api/nothing-here'), 404, 'ROUTE_NOT_FOUND');
  // Renames paired as git diff -M, and pathspecs (repeated `path`).
  const moved = await api.call('POST', '/api/batch', {
    json: {
      intent: 'move',
      operations: [
        { operation: 'rename', path: 'src/a.txt', to: 'lib/a.txt' },
        { operation: 'write', path: 'b.txt', content: 'B\n' },
      ],
    },
  });
  assert.is(moved.status, 200, JSON.stringify(moved.body));
  const pair = (q: string) => api.call('GET', `/api/drafts/default/diff?range=cp1..&content=stat${q}`);
  assert.equal(
    (await pair('&renames=1')).body.files.map((f: any) => [f.status, f.from ?? null, f.path, f.similarity ?? null]),
    [
      ['A', null, 'b.txt', null],
      ['R', 'src/a.txt', 'lib/a.txt', 100],
    ],
  );
  assert.equal(
    (await pair('')).body.files.map((f: any) => [f.status, f.path]),
    [
      ['A', 'b.txt'],
      ['A', 'lib/a.txt'],
      ['D', 'src/a.txt'],
    ],
  );
  assert.equal(
    (await pair('&renames=1&path=lib/&path=src/')).body.files.map((f: any) => f.path),
    ['lib/a.txt'],
  );
  assert.equal(
    (await pair('&path=b.txt')).body.files.map((f: any) => f.path),
    ['b.txt'],
  );
  assertError(await pair('&renames=yes'), 400, 'INVALID_ARGUMENT');
  assertError(await pair('&path=../x'), 400, 'INVALID_ARGUMENT');
  assertError(await pair('&range=cp1..'), 400, 'INVALID_ARGUMENT');
});

Http.run();
