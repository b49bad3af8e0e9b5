import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { generated, Pushable, type Reply } from './helpers/session-http.js';
import { assertError, assertFailure, begin, gitShow, lines, setUp, tearDown, type Ctx } from './helpers/http-server.js';

/*
 * Write sessions over the local HTTP API with a real client (node's fetch)
 * on a random loopback port, the server in-process (startServer): begin,
 * content, finalize end to end, the size limit, and the save timer.
 */

const MiB = 1024 * 1024;
const LIMIT = 10 * MiB;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NOT_FOUND_MSG = 'Session not found or expired';
const TOO_LARGE_MSG = 'Content exceeds 10MB limit';
/** 1 KiB: 1023 bytes and a newline. */
const KLINE = Buffer.from(`${'x'.repeat(1023)}\n`);
/** 64 KiB of KLINEs. */
const CHUNK64 = Buffer.concat(Array.from({ length: 64 }, () => KLINE));

/** Resolves once `test` holds, checking every 20 ms; `guardMs` only keeps a broken run from hanging. */
async function until(test: () => boolean, what: string, guardMs = 10_000): Promise<void> {
  const end = Date.now() + guardMs;
  while (!test()) {
    if (Date.now() > end) assert.unreachable(`waited ${guardMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// ---------------------------------------------------------------- sessions

const Http = suite<Ctx>('write sessions over HTTP');
Http.before.each((c) => setUp(c));
Http.after.each(tearDown);

Http(
  'begin, content in three requests appended in order, DONE finalizes: one commit with the trailer',
  async ({ repo, api, server }) => {
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
  },
);

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
  assert.equal(
    [s.body.stage, s.body.bytes, s.body.lines, s.body.target_file, s.body.operation],
    ['awaiting_content', body.length, 40_000, 'big/data.txt', 'create'],
  );
  assert.ok(s.body.last_save, 'saved while streaming');
  const f = await api.finalize({ session_id: id });
  assert.is(f.status, 200, JSON.stringify(f.body));
  assert.equal(
    f.body.results.map((x: { path: string; status: string }) => [x.path, x.status]),
    [['big/data.txt', 'created']],
  );
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

Http(
  'a failed validation is 422 with every error; the session stays; a corrected resend commits',
  async ({ repo, api }) => {
    const id = await begin(api, 'conf/new.json');
    const r = await api.content(id, '{"a": [1, 2\n```\nDONE\n');
    assert.is(r.status, 422, JSON.stringify(r.body));
    assert.is(r.body.success, false);
    assert.is(r.body.error.code, 'VALIDATION_FAILED');
    assert.match(
      r.body.error.message,
      /^Validation failed: the content ends inside an unterminated code fence \(```\); the content is not valid JSON: /,
    );
    assert.is(r.body.error.hint, 'resend the corrected content (2 attempts left)');
    assert.is(r.body.validation_errors.length, 2);
    assert.is(r.body.attempts_left, 2);
    assert.is(repo.ref('refs/shadow/drafts/default'), undefined, 'nothing committed');
    const s = await api.status(id);
    assert.equal([s.status, s.body.attempts, s.body.errors.length], [200, 1, 2]);
    const f = await api.finalize({ session_id: id, content: '{"a": [1, 2]}\n' });
    assert.is(f.status, 200, JSON.stringify(f.body));
    assert.is(gitShow(repo, 'conf/new.json'), '{"a": [1, 2]}\n');
  },
);

Http('content with invalid UTF-8 is refused at finalize with the byte offset', async ({ repo, api }) => {
  const id = await begin(api, 'bad.txt');
  assert.is((await api.content(id, Buffer.from([0x6f, 0x6b, 0x0a, 0xe2, 0x82, 0x0a]))).status, 200);
  const f = await api.finalize({ session_id: id });
  assertFailure(
    f,
    422,
    'VALIDATION_FAILED',
    'Validation failed: the content is not valid UTF-8 (byte 3); declare the session binary for non-text content',
  );
  assert.is(repo.ref('refs/shadow/drafts/default'), undefined);
  // A binary session takes the same bytes.
  await api.call('DELETE', `/api/write-session/${id}`);
  const bin = await begin(api, 'bad.bin', 'create', { binary: true });
  assert.is(
    (await api.content(bin, Buffer.from([0x6f, 0x6b, 0x0a, 0xe2, 0x82, 0x0a]), 'application/octet-stream')).status,
    200,
  );
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

Http(
  'finalize of an unknown, a finalized and an expired session: 404 "Session not found or expired"',
  async ({ api, skew }) => {
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
  },
);

Http(
  'two begins at once: exactly one wins, the other gets 409 "Another write session is already active"',
  async ({ api }) => {
    for (const targets of [
      ['x.md', 'x.md'],
      ['x.md', 'y.md'],
    ]) {
      const rs = await Promise.all(targets.map((t) => api.begin({ intent: '', target_file: t, operation: 'create' })));
      assert.equal(rs.map((r) => r.status).sort(), [200, 409], targets.join(', '));
      const lost = rs.find((r) => r.status === 409)!;
      assertError(lost, 409, 'SESSION_ACTIVE', 'Another write session is already active');
      const won = rs.find((r) => r.status === 200)!;
      assert.is((await api.call('DELETE', `/api/write-session/${won.body.session_id}`)).status, 200);
    }
  },
);

// ---------------------------------------------------------------- the size limit

const OVER: Array<{ name: string; last: string; streamed: boolean }> = [
  { name: 'streamed (chunked, no content-length), the extra byte a newline', last: '\n', streamed: true },
  { name: 'streamed (chunked, no content-length), the extra byte the start of a line', last: 'x', streamed: true },
  { name: 'whole (with content-length), the extra byte a newline', last: '\n', streamed: false },
  { name: 'whole (with content-length), the extra byte the start of a line', last: 'x', streamed: false },
];

for (const v of OVER) {
  Http(
    `10 MiB + 1 byte ${v.name}: the content request gets 413 "Content exceeds 10MB limit"; the session is gone`,
    async ({ api }) => {
      const id = await begin(api, 'big.txt');
      const body = Buffer.concat([
        ...Array.from({ length: LIMIT / CHUNK64.length }, () => CHUNK64),
        Buffer.from(v.last),
      ]);
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
    },
  );
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
  assert.ok(
    pulled < 4 * LIMIT,
    `the client had produced ${(pulled / MiB).toFixed(1)} MiB of ${total / MiB} when the server answered`,
  );
  assertError(await api.status(id), 404, 'SESSION_NOT_FOUND', NOT_FOUND_MSG);
});

// ---------------------------------------------------------------- the save timer

const Timer = suite<Ctx>('the server saves on a timer');
Timer.before.each((c) => setUp(c, { 'shadow.sessionSaveMs': '300' }));
Timer.after.each(tearDown);

Timer(
  'content under 50 lines is saved by the timer (shadow.sessionSaveMs) with no further request',
  async ({ repo, api }) => {
    const id = await begin(api, 'slow.md');
    const r = await api.content(id, 'two\nthree\n');
    assert.is(r.body.last_save, null, 'not due yet');
    const dir = repo.path(`.git/shadow/sessions/${id}`);
    await until(() => readFileSync(`${dir}/content.txt`, 'utf8') === 'two\nthree\n', 'the timed save');
    const state = JSON.parse(readFileSync(`${dir}/state.json`, 'utf8'));
    assert.equal([state.bytes, state.lines, typeof state.last_save], [10, 2, 'string']);
    assert.is((await api.finalize({ session_id: id })).status, 200);
    assert.is(gitShow(repo, 'slow.md'), 'two\nthree\n');
  },
);

Http.run();
Timer.run();
