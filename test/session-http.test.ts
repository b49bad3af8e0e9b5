import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { nodeContext, openShadow, startServer, type RunningServer, type Shadow } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { Api, exited, generated, Pushable, rawRequest, serveChild, type Reply } from './helpers/session-http.js';

/*
 * The local HTTP API with a real client (node's fetch) on a random loopback
 * port: write sessions end to end, the draft endpoints, and bad input of
 * every kind. Most tests run the server in-process (startServer); the
 * server.json/exit test and the SIGKILL test run `shadow serve`.
 */

const MiB = 1024 * 1024;
const LIMIT = 10 * MiB;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const BASE_FILES = { 'README.md': 'Hello\n', 'notes.txt': 'one\n' };
const NOT_FOUND_MSG = 'Session not found or expired';
const TOO_LARGE_MSG = 'Content exceeds 10MB limit';
/** 1 KiB: 1023 bytes and a newline. */
const KLINE = Buffer.from(`${'x'.repeat(1023)}\n`);
/** 64 KiB of KLINEs. */
const CHUNK64 = Buffer.concat(Array.from({ length: 64 }, () => KLINE));

interface Ctx {
  repo: DiskRepo;
  sh: Shadow;
  server: RunningServer;
  api: Api;
  log: string[];
  skew: { ms: number };
}

/** A fresh repository and an in-process server whose clock can be moved forward. */
async function setUp(c: Ctx, config: Record<string, string> = {}): Promise<void> {
  c.repo = new DiskRepo(BASE_FILES);
  for (const [k, v] of Object.entries(config)) c.repo.git('config', k, v);
  const base = nodeContext({ env: c.repo.env });
  c.skew = { ms: 0 };
  const skew = c.skew;
  c.sh = await openShadow({ dir: c.repo.dir, fs: base.fs, ids: base.ids, env: c.repo.env, processes: base.processes, clock: { ...base.clock, now: () => Date.now() + skew.ms } });
  c.log = [];
  c.server = await startServer(c.sh, { log: (l) => c.log.push(l) });
  c.api = new Api(c.server.url, c.server.token);
}

async function tearDown(c: Ctx): Promise<void> {
  await c.server.close();
  c.sh.close();
  c.repo.cleanup();
}

/** `n` numbered lines. */
function lines(n: number, from = 1): string {
  let s = '';
  for (let i = from; i < from + n; i++) s += `line ${String(i).padStart(5, '0')} of the guide\n`;
  return s;
}

/** A file of the draft, as native git reads it (undefined when absent). */
function gitShow(repo: DiskRepo, path: string, draft = 'default'): string | undefined {
  const r = repo.gitResult('show', `refs/shadow/drafts/${draft}:${path}`);
  return r.status === 0 ? r.stdout : undefined;
}

function assertError(r: Reply, status: number, code: string, message?: string | RegExp): void {
  assert.is(r.status, status, JSON.stringify(r.body));
  assert.equal(Object.keys(r.body), ['error'], 'errors are {error: {...}}');
  assert.is(r.body.error.code, code);
  assert.type(r.body.error.message, 'string');
  if (typeof message === 'string') assert.is(r.body.error.message, message);
  else if (message) assert.match(r.body.error.message, message);
}

/** A failed result that carries its own fields beside `error` (finalize, batch). */
function assertFailure(r: Reply, status: number, code: string, message?: string): void {
  assert.is(r.status, status, JSON.stringify(r.body));
  assert.is(r.body.success, false);
  assert.is(r.body.error.code, code);
  if (message !== undefined) assert.is(r.body.error.message, message);
}

/** Resolves once `test` holds, checking every 20 ms; `guardMs` only keeps a broken run from hanging. */
async function until(test: () => boolean, what: string, guardMs = 10_000): Promise<void> {
  const end = Date.now() + guardMs;
  while (!test()) {
    if (Date.now() > end) assert.unreachable(`waited ${guardMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function begin(api: Api, target: string, operation = 'create', extra: Record<string, unknown> = {}): Promise<string> {
  const r = await api.begin({ intent: `write ${target}`, target_file: target, operation, ...extra });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.session_id as string;
}

// ---------------------------------------------------------------- sessions

const Http = suite<Ctx>('write sessions over HTTP');
Http.before.each((c) => setUp(c));
Http.after.each(tearDown);

Http('begin, content in three requests appended in order, DONE finalizes: one commit with the trailer', async ({ repo, api, server }) => {
  const b = await api.begin({ intent: 'the guide', target_file: 'docs/guide.md', operation: 'create' });
  assert.is(b.status, 200);
  assert.equal(Object.keys(b.body).sort(), ['instructions', 'session_dir', 'session_id', 'stage']);
  assert.match(b.body.session_id, UUID_V4);
  assert.is(b.body.stage, 'awaiting_content');
  assert.match(b.body.instructions, /plain text.*End with DONE on its own line/s);
  assert.ok(statSync(b.body.session_dir).isDirectory());
  const id = b.body.session_id as string;
  const r1 = await api.content(id, '# Guide\n\nThe job is DONE when');
  assert.is(r1.status, 200);
  assert.equal([r1.body.stage, r1.body.bytes], ['awaiting_content', 9], 'the unfinished line waits');
  const r2 = await api.content(id, ' the tests pass.\nDONE is not alone here\n');
  assert.is(r2.body.bytes, 9 + 38 + 22);
  const r3 = await api.content(id, 'Last line.\nDONE\nnot content\n');
  assert.is(r3.status, 200, JSON.stringify(r3.body));
  assert.is(r3.body.success, true);
  assert.is(r3.body.session_id, id);
  const expected = '# Guide\n\nThe job is DONE when the tests pass.\nDONE is not alone here\nLast line.\n';
  assert.is(gitShow(repo, 'docs/guide.md'), expected);
  assert.is(repo.git('rev-parse', 'refs/shadow/drafts/default').trim(), r3.body.commit);
  const msg = repo.git('log', '-1', '--format=%B', 'refs/shadow/drafts/default');
  assert.ok(msg.split('\n').includes(`Shadow-Session: ${id}`), msg);
  assert.is(existsSync(b.body.session_dir), false, 'success removes the session directory');
  const view = await api.call('GET', '/api/drafts/default/files/docs/guide.md');
  assert.is(view.bytes.toString(), expected);
  assertError(await api.status(id), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
  assert.is(server.url, `http://127.0.0.1:${server.port}`);
});

Http('a streamed body (chunked, no content-length) in 64 KiB chunks, then finalize by id', async ({ repo, api }) => {
  const id = await begin(api, 'big/data.txt');
  const body = Buffer.from(lines(40_000));
  const p = new Pushable();
  const sent = api.content(id, p.stream);
  for (let i = 0; i < body.length; i += 64 * 1024) p.push(body.subarray(i, i + 64 * 1024));
  p.end();
  const r = await sent;
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal([r.body.bytes, r.body.lines], [body.length, 40_000]);
  const s = await api.status(id);
  assert.equal([s.body.stage, s.body.bytes, s.body.lines, s.body.target_file, s.body.operation], ['awaiting_content', body.length, 40_000, 'big/data.txt', 'create']);
  assert.ok(s.body.last_save, 'saved while streaming');
  const f = await api.finalize({ session_id: id });
  assert.is(f.status, 200, JSON.stringify(f.body));
  assert.equal(f.body.results.map((x: { path: string; status: string }) => [x.path, x.status]), [['big/data.txt', 'created']]);
  assert.is(gitShow(repo, 'big/data.txt'), body.toString());
});

Http('append and overwrite targets', async ({ repo, api }) => {
  const id = await begin(api, 'notes.txt', 'append');
  const r = await api.content(id, 'two\nthree\n');
  assert.is(r.body.last_save, null, '2 lines: not saved yet');
  assert.is(readFileSync(repo.path(`.git/shadow/sessions/${id}/content.txt`), 'utf8'), '');
  assert.is((await api.finalize({ session_id: id })).status, 200);
  assert.is(gitShow(repo, 'notes.txt'), 'one\ntwo\nthree\n');
  const o = await begin(api, 'README.md', 'overwrite');
  assert.is((await api.content(o, 'Bye\nDONE\n')).status, 200);
  assert.is(gitShow(repo, 'README.md'), 'Bye\n');
});

Http('a failed validation is 422 with every error; the session stays; a corrected resend commits', async ({ repo, api }) => {
  const id = await begin(api, 'conf/new.json');
  const r = await api.content(id, '{"a": [1, 2\n```\nDONE\n');
  assert.is(r.status, 422, JSON.stringify(r.body));
  assert.is(r.body.success, false);
  assert.is(r.body.error.code, 'VALIDATION_FAILED');
  assert.match(r.body.error.message, /^Validation failed: the content ends inside an unterminated code fence \(```\); the content is not valid JSON: /);
  assert.is(r.body.error.hint, 'resend the corrected content (2 attempts left)');
  assert.is(r.body.validation_errors.length, 2);
  assert.is(r.body.attempts_left, 2);
  assert.is(repo.ref('refs/shadow/drafts/default'), undefined, 'nothing committed');
  const s = await api.status(id);
  assert.equal([s.status, s.body.attempts, s.body.errors.length], [200, 1, 2]);
  const f = await api.finalize({ session_id: id, content: '{"a": [1, 2]}\n' });
  assert.is(f.status, 200, JSON.stringify(f.body));
  assert.is(gitShow(repo, 'conf/new.json'), '{"a": [1, 2]}\n');
});

Http('content with invalid UTF-8 is refused at finalize with the byte offset', async ({ repo, api }) => {
  const id = await begin(api, 'bad.txt');
  assert.is((await api.content(id, Buffer.from([0x6f, 0x6b, 0x0a, 0xe2, 0x82, 0x0a]))).status, 200);
  const f = await api.finalize({ session_id: id });
  assertFailure(f, 422, 'VALIDATION_FAILED', 'Validation failed: the content is not valid UTF-8 (byte 3); declare the session binary for non-text content');
  assert.is(repo.ref('refs/shadow/drafts/default'), undefined);
  // A binary session takes the same bytes.
  await api.call('DELETE', `/api/write-session/${id}`);
  const bin = await begin(api, 'bad.bin', 'create', { binary: true });
  assert.is((await api.content(bin, Buffer.from([0x6f, 0x6b, 0x0a, 0xe2, 0x82, 0x0a]), 'application/octet-stream')).status, 200);
  assert.is((await api.finalize({ session_id: bin })).status, 200);
  assert.is(repo.git('cat-file', '-s', 'refs/shadow/drafts/default:bad.bin').trim(), '6');
  const view = await api.call('GET', '/api/drafts/default/files/bad.bin');
  assert.equal(view.bytes, Buffer.from([0x6f, 0x6b, 0x0a, 0xe2, 0x82, 0x0a]));
});

Http('status and DELETE; then the id is unknown everywhere', async ({ api, repo }) => {
  const id = await begin(api, 'a.md');
  await api.content(id, 'one\ntwo\n');
  const s = await api.status(id);
  assert.is(s.status, 200);
  assert.equal(
    [s.body.session_id, s.body.stage, s.body.bytes, s.body.intent, s.body.draft, s.body.orphaned],
    [id, 'awaiting_content', 8, 'write a.md', 'default', false],
  );
  const d = await api.call('DELETE', `/api/write-session/${id}`);
  assert.is(d.status, 200);
  assert.is(d.body.cancelled.session_id, id);
  assert.is(existsSync(repo.path(`.git/shadow/sessions/${id}`)), false);
  assertError(await api.status(id), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
  assertError(await api.content(id, 'x\n'), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
  assertError(await api.call('DELETE', `/api/write-session/${id}`), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
  assertError(await api.finalize({ session_id: id }), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
});

Http('the content reply and status count the lines received, as they count the bytes', async ({ api }) => {
  const id = await begin(api, 'a.md');
  const r = await api.content(id, 'one\ntwo\nthr');
  assert.equal([r.body.bytes, r.body.lines], [8, 2], 'the reply');
  const s = await api.status(id);
  assert.equal([s.body.bytes, s.body.lines], [8, 2], 'status');
});

Http('finalize of an unknown, a finalized and an expired session: 404 "Session not found or expired"', async ({ api, skew }) => {
  for (const unknown of ['7d0c9b8e-1f1a-4c3e-9d2b-5a6f7e8d9c0b', 'nope', '..%2F..%2Fconfig']) {
    assertError(await api.finalize({ session_id: unknown }), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
    assertError(await api.status(unknown), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
  }
  const done = await begin(api, 'a.md');
  assert.is((await api.content(done, 'a\nDONE\n')).status, 200);
  assertError(await api.finalize({ session_id: done }), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
  const idle = await begin(api, 'b.md');
  skew.ms += 5 * 60 * 1000 + 1000;
  assertError(await api.finalize({ session_id: idle }), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
  assertError(await api.content(idle, 'late\n'), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
  // Expired, it no longer holds the draft.
  assert.is((await api.begin({ intent: '', target_file: 'b.md', operation: 'create' })).status, 200);
});

Http('two begins at once: exactly one wins, the other gets 409 "Another write session is already active"', async ({ api }) => {
  for (const targets of [['x.md', 'x.md'], ['x.md', 'y.md']]) {
    const rs = await Promise.all(targets.map((t) => api.begin({ intent: '', target_file: t, operation: 'create' })));
    assert.equal(rs.map((r) => r.status).sort(), [200, 409], targets.join(', '));
    const lost = rs.find((r) => r.status === 409)!;
    assertError(lost, 409, 'SESSION_ACTIVE', 'Another write session is already active');
    const won = rs.find((r) => r.status === 200)!;
    assert.is((await api.call('DELETE', `/api/write-session/${won.body.session_id}`)).status, 200);
  }
});

// ---------------------------------------------------------------- the size limit

const OVER: Array<{ name: string; last: string; streamed: boolean }> = [
  { name: 'streamed (chunked, no content-length), the extra byte a newline', last: '\n', streamed: true },
  { name: 'streamed (chunked, no content-length), the extra byte the start of a line', last: 'x', streamed: true },
  { name: 'whole (with content-length), the extra byte a newline', last: '\n', streamed: false },
  { name: 'whole (with content-length), the extra byte the start of a line', last: 'x', streamed: false },
];

for (const v of OVER) {
  Http(`10 MiB + 1 byte ${v.name}: the content request gets 413 "Content exceeds 10MB limit"; the session is gone`, async ({ api }) => {
    const id = await begin(api, 'big.txt');
    const body = Buffer.concat([...Array.from({ length: LIMIT / CHUNK64.length }, () => CHUNK64), Buffer.from(v.last)]);
    assert.is(body.length, LIMIT + 1);
    let r: Reply;
    if (v.streamed) {
      const p = new Pushable();
      const sent = api.content(id, p.stream);
      for (let i = 0; i < body.length; i += CHUNK64.length) p.push(body.subarray(i, i + CHUNK64.length));
      p.end();
      r = await sent;
    } else {
      r = await api.content(id, body);
    }
    assertError(r, 413, 'CONTENT_TOO_LARGE', TOO_LARGE_MSG);
    assertError(await api.status(id), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
    assertError(await api.finalize({ session_id: id }), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
  });
}

Http('content announced over the limit by its content-length is refused from the header', async ({ api }) => {
  const id = await begin(api, 'big2.txt');
  const r = await api.content(id, Buffer.alloc(11 * MiB, 0x0a)).catch((e: Error) => e);
  // The server may close before the client has sent it all; when the reply arrives, it is the 413.
  if (!(r instanceof Error)) assertError(r, 413, 'CONTENT_TOO_LARGE', TOO_LARGE_MSG);
  assertError(await api.status(id), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
});

Http('an endless stream is cut off soon after the limit: the server stops reading', async ({ api }) => {
  const id = await begin(api, 'endless.txt');
  const total = 8 * LIMIT;
  const { stream, produced } = generated(total, CHUNK64);
  // The 413 comes while the client still sends: it reads it, or sees the connection close first.
  const r = await api.content(id, stream).catch((e: Error) => e);
  // (After a failed write, fetch drains the rest of the body on its own: count what was pulled by then.)
  const pulled = produced();
  if (!(r instanceof Error)) assertError(r, 413, 'CONTENT_TOO_LARGE', TOO_LARGE_MSG);
  assert.ok(pulled < 4 * LIMIT, `the client had produced ${(pulled / MiB).toFixed(1)} MiB of ${total / MiB} when the server answered`);
  assertError(await api.status(id), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
});

// ---------------------------------------------------------------- bad input

Http('truncated and invalid JSON, wrong types and shapes: 400/415 with {error}, no session begun', async ({ api, sh }) => {
  const cases: Array<{ name: string; path: string; body: string; type?: string; status: number; code: string; message?: RegExp }> = [
    { name: 'truncated JSON', path: '/api/write-session/begin', body: '{"intent": "x", "target_file": "a.md", "oper', status: 400, code: 'INVALID_JSON', message: /cut off|truncated/ },
    { name: 'invalid JSON', path: '/api/write-session/begin', body: "{intent: 'x', target_file: 'a.md'}", status: 400, code: 'INVALID_JSON' },
    { name: 'trailing garbage', path: '/api/write-session/begin', body: '{"intent": "", "target_file": "a.md", "operation": "create"} }', status: 400, code: 'INVALID_JSON' },
    { name: 'an empty JSON body', path: '/api/write-session/begin', body: '', status: 400, code: 'INVALID_JSON' },
    { name: 'a JSON array', path: '/api/write-session/begin', body: '[]', status: 400, code: 'INVALID_ARGUMENT' },
    { name: 'no operation', path: '/api/write-session/begin', body: '{"intent": "", "target_file": "a.md"}', status: 400, code: 'INVALID_ARGUMENT' },
    { name: 'an unknown operation', path: '/api/write-session/begin', body: '{"intent": "", "target_file": "a.md", "operation": "delete"}', status: 400, code: 'INVALID_ARGUMENT' },
    { name: 'a path out of the repository', path: '/api/write-session/begin', body: '{"intent": "", "target_file": "../x.md", "operation": "create"}', status: 400, code: 'INVALID_PATH' },
    { name: 'begin as text', path: '/api/write-session/begin', body: '{"intent": "", "target_file": "a.md", "operation": "create"}', type: 'text/plain', status: 400, code: 'INVALID_ARGUMENT' },
    { name: 'an unknown media type', path: '/api/write-session/begin', body: '<begin/>', type: 'application/xml', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    { name: 'truncated finalize', path: '/api/write-session/finalize', body: '{"session_id": "abc', status: 400, code: 'INVALID_JSON' },
    { name: 'finalize without an id', path: '/api/write-session/finalize', body: '{}', status: 400, code: 'INVALID_ARGUMENT' },
    { name: 'a truncated batch', path: '/api/batch', body: '{"operations": [{"operation": "write", "path": "a.txt", "content": "abc', status: 400, code: 'INVALID_JSON' },
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
});

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
    const r = await api.call('POST', '/api/write-session/begin', { json: { intent: '', target_file: 'a.md', operation: 'create' }, token: null, headers });
    assertError(r, 401, 'UNAUTHORIZED');
    assert.is(typeof r.body.error.hint, 'string', name);
    assertError(await api.call('GET', '/api/drafts', { token: null, headers }), 401, 'UNAUTHORIZED');
  }
  assert.equal(sh.sessions.list(), []);
  assert.is((await api.call('GET', '/api/drafts', { headers: { authorization: `bearer ${api.token}` } })).status, 200, 'the scheme is case-insensitive');
});

Http('a foreign Host header is refused (DNS rebinding); 127.0.0.1 and localhost are served', async ({ server }) => {
  const auth = { authorization: `Bearer ${server.token}` };
  for (const host of ['evil.example', `evil.example:${server.port}`, `127.0.0.1.nip.io:${server.port}`, `localhost:${server.port + 1}`, `127.0.0.1`, `[::1]:${server.port}`]) {
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
    await api.call('POST', '/api/write-session/begin', { json: { intent: '', target_file: 'a.md', operation: 'create' }, headers: { origin: 'http://evil.example' } }),
    await api.call('GET', '/api/drafts', { token: null, headers: { origin: 'http://evil.example' } }),
  ];
  for (const r of replies) for (const [k] of r.headers) assert.not.match(k, /^access-control-/i, `${k} on a ${r.status} reply`);
  const raw = await rawRequest(server.port, { method: 'OPTIONS', path: '/api/drafts', headers: { ...headers, host: 'evil.example' } });
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
  for (const host of ['::1', ...others]) assert.ok(['ECONNREFUSED', 'EADDRNOTAVAIL', 'ENETUNREACH', 'EAFNOSUPPORT'].includes(await refused(host)), host);
});

// ---------------------------------------------------------------- the draft endpoints

Http('batch, drafts, diff, log, the view, checkpoints and rollback', async ({ api, repo }) => {
  const b1 = await api.call('POST', '/api/batch', { json: { intent: 'first', operations: [{ operation: 'write', path: 'src/a.txt', content: 'A\n' }] } });
  assert.is(b1.status, 200, JSON.stringify(b1.body));
  assert.equal([b1.body.success, b1.body.batch], [true, 1]);
  assertFailure(await api.call('POST', '/api/batch', { json: { intent: 'no ops' } }), 400, 'INVALID_BATCH');
  const drafts = await api.call('GET', '/api/drafts');
  assert.equal(drafts.body.drafts.map((d: { name: string; batches: number }) => [d.name, d.batches]), [['default', 1]]);
  const diff = await api.call('GET', '/api/drafts/default/diff');
  assert.is(diff.status, 200);
  assert.equal(diff.body.files.map((f: { path: string }) => f.path), ['src/a.txt']);
  assert.match(diff.body.files[0].patch, /\+A/);
  assertError(await api.call('GET', '/api/drafts/default/diff?content=everything'), 400, 'INVALID_ARGUMENT');
  const log = await api.call('GET', '/api/drafts/default/log');
  assert.equal(log.body.batches.map((x: { batch: number; intent: string }) => [x.batch, x.intent]), [[1, 'first']]);
  assertError(await api.call('GET', '/api/drafts/default/log?limit=0'), 400, 'INVALID_ARGUMENT');
  const file = await api.call('GET', '/api/drafts/default/files/src/a.txt');
  assert.equal([file.status, file.bytes.toString(), file.headers.get('x-shadow-source')], [200, 'A\n', 'draft']);
  assert.is((await api.call('GET', '/api/drafts/default/files/README.md')).bytes.toString(), 'Hello\n');
  const dir = await api.call('GET', '/api/drafts/default/files/src');
  assert.equal(dir.body.entries.map((e: { name: string }) => e.name), ['a.txt']);
  assertError(await api.call('GET', '/api/drafts/default/files/nope.txt'), 404, 'NOT_FOUND');
  const cp = await api.call('POST', '/api/drafts/default/checkpoints', { json: { name: 'cp1', message: 'before b' } });
  assert.is(cp.status, 200, JSON.stringify(cp.body));
  assertError(await api.call('POST', '/api/drafts/default/checkpoints', { json: { message: 'no name' } }), 400, 'INVALID_ARGUMENT');
  assertError(await api.call('POST', '/api/drafts/default/checkpoints', { json: { name: 'cp1' } }), 409, 'CHECKPOINT_EXISTS');
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
  assertError(await api.call('POST', '/api/drafts/default/rollback', { json: { target: 'nonesuch' } }), 400, 'INVALID_TARGET');
  assertError(await api.call('POST', '/api/drafts/ghost/checkpoints', { json: { name: 'x' } }), 404, 'DRAFT_NOT_FOUND');
  assert.equal((await api.call('GET', '/api/drafts/ghost/log')).body, { draft: 'ghost', batches: [] }, 'a draft without batches reads as empty');
  assertError(await api.call('GET', '/api/nothing-here'), 404, 'ROUTE_NOT_FOUND');
});

// ---------------------------------------------------------------- the save timer

const Timer = suite<Ctx>('the server saves on a timer');
Timer.before.each((c) => setUp(c, { 'shadow.sessionSaveMs': '300' }));
Timer.after.each(tearDown);

Timer('content under 50 lines is saved by the timer (shadow.sessionSaveMs) with no further request', async ({ repo, api }) => {
  const id = await begin(api, 'slow.md');
  const r = await api.content(id, 'two\nthree\n');
  assert.is(r.body.last_save, null, 'not due yet');
  const dir = repo.path(`.git/shadow/sessions/${id}`);
  await until(() => readFileSync(`${dir}/content.txt`, 'utf8') === 'two\nthree\n', 'the timed save');
  const state = JSON.parse(readFileSync(`${dir}/state.json`, 'utf8'));
  assert.equal([state.bytes, state.lines, typeof state.last_save], [10, 2, 'string']);
  assert.is((await api.finalize({ session_id: id })).status, 200);
  assert.is(gitShow(repo, 'slow.md'), 'two\nthree\n');
});

// ---------------------------------------------------------------- shadow serve, a real process

const Serve = suite<{ repo: DiskRepo }>('shadow serve, a real process');
Serve.before.each((c) => {
  c.repo = new DiskRepo(BASE_FILES);
});
Serve.after.each((c) => c.repo.cleanup());

Serve('server.json (mode 0600: port, token, pid) while it runs; SIGTERM and SIGINT remove it', async ({ repo }) => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const s = await serveChild(repo);
    assert.is(statSync(s.infoPath).mode & 0o777, 0o600);
    const info = JSON.parse(readFileSync(s.infoPath, 'utf8'));
    assert.equal(Object.keys(info).sort(), ['host', 'pid', 'port', 'since', 'token', 'url']);
    assert.is(info.pid, s.child.pid);
    assert.ok(info.port > 0 && info.token.length >= 24);
    assert.is((await s.api.call('GET', '/api/drafts')).status, 200);
    assertError(await s.api.call('GET', '/api/drafts', { token: 'guess' }), 401, 'UNAUTHORIZED');
    s.child.kill(signal);
    assert.equal(await exited(s.child), { code: 0, signal: null }, signal);
    assert.is(existsSync(s.infoPath), false, `server.json is gone after ${signal}`);
  }
});

Serve('SIGKILL mid-stream, restart: recover finds the session with every byte up to the last save, and it resumes', async ({ repo }) => {
  // Saves by line count only (every 50 lines), never by time during the test.
  repo.git('config', 'shadow.sessionSaveMs', '600000');
  const first = await serveChild(repo);
  const id = await begin(first.api, 'long.md');
  const A = lines(50);
  const B = lines(30, 51);
  const C = 'line 00081 is cut';
  const body = new Pushable();
  const stream = first.api.content(id, body.stream).catch((e: Error) => e);
  const bytesSeen = async (n: number): Promise<void> => {
    for (;;) {
      const s = await first.api.status(id);
      if (s.body.bytes === n) return;
      assert.ok(s.body.bytes < n, `status says ${s.body.bytes} bytes`);
    }
  };
  body.push(A);
  await bytesSeen(A.length);
  body.push(B);
  body.push(C);
  await bytesSeen(A.length + B.length);
  first.child.kill('SIGKILL');
  assert.equal(await exited(first.child), { code: null, signal: 'SIGKILL' });
  assert.ok((await stream) instanceof Error, 'the client saw the connection die');
  // On disk: exactly the 50 lines of the last save.
  const dir = repo.path(`.git/shadow/sessions/${id}`);
  assert.is(readFileSync(`${dir}/content.txt`, 'utf8'), A);
  const state = JSON.parse(readFileSync(`${dir}/state.json`, 'utf8'));
  assert.equal([state.bytes, state.lines, state.pid, typeof state.last_save], [A.length, 50, first.pid, 'string']);
  assert.ok(existsSync(first.infoPath), 'SIGKILL leaves server.json behind');
  // Restart: the server reports the orphan, the CLI offers it.
  const second = await serveChild(repo);
  await second.stderr.waitFor(new RegExp(`orphaned write session ${id} \\(long\\.md, ${A.length} bytes\\)`));
  assert.is(JSON.parse(readFileSync(second.infoPath, 'utf8')).pid, second.child.pid);
  const rec = repo.shadow(['session', 'recover', '--json']);
  assert.is(rec.status, 0, rec.stdout + rec.stderr);
  assert.equal(
    rec.json().resumable.map((s: { session_id: string; bytes: number; lines: number; orphaned: boolean }) => [s.session_id, s.bytes, s.lines, s.orphaned]),
    [[id, A.length, 50, true]],
  );
  // Resume where the save left off, over HTTP.
  const r = await second.api.content(id, `${B}${C} here\nDONE\n`);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(gitShow(repo, 'long.md'), `${A}${B}${C} here\n`);
  second.child.kill('SIGTERM');
  assert.is((await exited(second.child)).code, 0);
  assert.is(existsSync(second.infoPath), false);
});

Serve('a server starting over a session older than an hour cleans it up', async ({ repo }) => {
  repo.git('config', 'shadow.sessionIdleMs', String(3 * 60 * 60 * 1000));
  const b = repo.shadow(['session', 'begin', '--target', 'old.md', '--op', 'create', '--json']);
  const id = b.json().session_id as string;
  const meta = repo.path(`.git/shadow/sessions/${id}/metadata.json`);
  const doc = JSON.parse(readFileSync(meta, 'utf8'));
  doc.created_at = new Date(Date.now() - 61 * 60 * 1000).toISOString();
  repo.write(`.git/shadow/sessions/${id}/metadata.json`, JSON.stringify(doc));
  const state = JSON.parse(readFileSync(repo.path(`.git/shadow/sessions/${id}/state.json`), 'utf8'));
  state.last_activity = doc.created_at;
  repo.write(`.git/shadow/sessions/${id}/state.json`, JSON.stringify(state));
  const s = await serveChild(repo);
  assert.is(existsSync(repo.path(`.git/shadow/sessions/${id}`)), false);
  s.child.kill('SIGTERM');
  await exited(s.child);
});

Http.run();
Timer.run();
Serve.run();
