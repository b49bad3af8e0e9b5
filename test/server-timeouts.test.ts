import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as nodeFs from 'node:fs';
import { connect } from 'node:net';
import { nodeContext, openShadow, startServer, type RunningServer, type Shadow } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { Api, Pushable } from './helpers/session-http.js';

/*
 * The HTTP server's bounds on a request body's time (shadow.serverIdleMs,
 * shadow.serverBodyMs), with small bounds so that a test takes about a
 * second: a raw socket sends the headers, then the body a byte at a time
 * slower than the bound, and the test waits for the socket to close.
 */

const IDLE_MS = 300;

interface Ctx {
  repo: DiskRepo;
  sh: Shadow;
  server: RunningServer;
  api: Api;
  /** Milliseconds each fsync and rename on the pool takes on top of its own: work that outlasts the idle bound. */
  slowDisk: { ms: number };
}

async function setUp(c: Ctx, config: Record<string, string>): Promise<void> {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n' });
  for (const [k, v] of Object.entries(config)) c.repo.git('config', k, v);
  const base = nodeContext({ env: c.repo.env });
  const slowDisk = (c.slowDisk = { ms: 0 });
  const later =
    <A extends unknown[]>(f: (...args: A) => void) =>
    (...args: A) =>
      void setTimeout(() => f(...args), slowDisk.ms);
  const fs = { ...base.fs, fsync: later(nodeFs.fsync), rename: later(nodeFs.rename) } as typeof base.fs;
  c.sh = await openShadow({ dir: c.repo.dir, ...base, fs });
  c.server = await startServer(c.sh);
  c.api = new Api(c.server.url, c.server.token);
}

async function tearDown(c: Ctx): Promise<void> {
  await c.server.close();
  c.sh.close();
  c.repo.cleanup();
}

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** Bytes of the body the client had sent when the socket closed. */
  sent: number;
}

/**
 * A request over a raw socket: the headers and `first` at once, then `rest`
 * one byte every `paceMs`; resolves with the reply once the server closes the
 * socket. `guardMs` only keeps a broken run from hanging.
 */
function slowRequest(
  port: number,
  head: string,
  first: Buffer,
  rest: Buffer,
  paceMs: number,
  guardMs = 10_000,
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port });
    const parts: Buffer[] = [];
    let sent = 0;
    let pacer: NodeJS.Timeout | undefined;
    const guard = setTimeout(() => {
      s.destroy();
      reject(
        new Error(
          `the server kept the connection open for ${guardMs} ms; it had sent ${Buffer.concat(parts).toString()}`,
        ),
      );
    }, guardMs);
    s.on('connect', () => {
      s.write(Buffer.concat([Buffer.from(head), first]));
      sent = first.length;
      pacer = setInterval(() => {
        if (sent - first.length < rest.length && s.writable)
          s.write(rest.subarray(sent - first.length, sent - first.length + 1), () => undefined);
        sent++;
      }, paceMs);
    });
    s.on('data', (d: Buffer) => parts.push(d));
    // Writes after the server closed fail; the reply is what counts.
    s.on('error', () => undefined);
    s.on('close', () => {
      clearInterval(pacer);
      clearTimeout(guard);
      resolve(parseReply(Buffer.concat(parts), Math.min(sent, first.length + rest.length)));
    });
  });
}

function parseReply(raw: Buffer, sent: number): RawReply {
  const text = raw.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, end === -1 ? text.length : end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
  }
  const bodyText = end === -1 ? '' : text.slice(end + 4);
  let body: unknown = bodyText;
  try {
    body = JSON.parse(bodyText);
  } catch {
    /* not JSON */
  }
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(statusLine ?? '')?.[1] ?? 0), headers, body, sent };
}

function head(c: Ctx, path: string, type: string, length: number, token: string | null = c.server.token): string {
  const auth = token === null ? '' : `Authorization: Bearer ${token}\r\n`;
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${c.server.port}\r\n${auth}Content-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`;
}

function assertTimeout(r: RawReply, bound: 'idle' | 'total', total: number): void {
  assert.is(r.status, 408, JSON.stringify(r));
  assert.equal(Object.keys(r.body), ['error']);
  assert.is(r.body.error.code, 'REQUEST_TIMEOUT');
  assert.is(r.body.error.data.bound, bound);
  assert.type(r.body.error.hint, 'string');
  assert.is(r.headers.connection, 'close');
  assert.ok(r.sent < total, `closed with ${r.sent} of ${total} bytes sent`);
}

async function begin(api: Api, target: string): Promise<string> {
  const r = await api.begin({ intent: `write ${target}`, target_file: target, operation: 'create' });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.session_id as string;
}

function gitShow(repo: DiskRepo, path: string): string | undefined {
  const r = repo.gitResult('show', `refs/shadow/drafts/default:${path}`);
  return r.status === 0 ? r.stdout : undefined;
}

// ---------------------------------------------------------------- the idle bound

const Idle = suite<Ctx>('a request body that stops coming');
Idle.before.each((c) => setUp(c, { 'shadow.serverIdleMs': String(IDLE_MS), 'shadow.serverBodyMs': '60000' }));
Idle.after.each(tearDown);

Idle(
  'a JSON body slower than shadow.serverIdleMs gets 408 REQUEST_TIMEOUT and its connection closed; nothing is written',
  async (c) => {
    const batch = Buffer.from(JSON.stringify({ operations: [{ operation: 'write', path: 'a.txt', content: 'A\n' }] }));
    const r = await slowRequest(
      c.server.port,
      head(c, '/api/batch', 'application/json', batch.length),
      batch.subarray(0, 10),
      batch.subarray(10),
      2 * IDLE_MS,
    );
    assertTimeout(r, 'idle', batch.length);
    assert.is(c.repo.gitResult('rev-parse', '--verify', '-q', 'refs/shadow/drafts/default').status, 1, 'no draft');
    // The server goes on serving.
    assert.is((await c.api.call('GET', '/api/drafts')).status, 200);
  },
);

Idle(
  'a slow body without a valid token gets its 401 and the connection closes (node does not drain it at the client pace)',
  async (c) => {
    const body = Buffer.from('x'.repeat(40));
    for (const token of [null, 'wrong']) {
      const r = await slowRequest(
        c.server.port,
        head(c, '/api/batch', 'application/json', body.length, token),
        Buffer.alloc(0),
        body,
        2 * IDLE_MS,
      );
      assert.is(r.status, 401, JSON.stringify(r));
      assert.is(r.body.error.code, 'UNAUTHORIZED');
      assert.ok(r.sent < body.length, `closed with ${r.sent} of ${body.length} bytes sent`);
    }
  },
);

Idle(
  'a session stream cut by the idle bound keeps every line it received; a later request finishes the file',
  async (c) => {
    const id = await begin(c.api, 'cut.md');
    const first = Buffer.from('line 1\nline 2\npart');
    const rest = Buffer.from('ial and more that never comes\n');
    const r = await slowRequest(
      c.server.port,
      head(c, `/api/write-session/${id}/content`, 'text/plain', first.length + rest.length),
      first,
      rest,
      2 * IDLE_MS,
    );
    assertTimeout(r, 'idle', first.length + rest.length);
    const s = await c.api.status(id);
    assert.equal(
      [s.status, s.body.stage, s.body.bytes, s.body.lines],
      [200, 'awaiting_content', 14, 2],
      JSON.stringify(s.body),
    );
    const done = await c.api.content(id, 'ial line\nDONE\n');
    assert.is(done.status, 200, JSON.stringify(done.body));
    assert.is(gitShow(c.repo, 'cut.md'), 'line 1\nline 2\npartial line\n');
  },
);

Idle(
  "a DONE line answers on the route's time: a finalize longer than the bound, a rest stalled after DONE, still gets its 200",
  async (c) => {
    const id = await begin(c.api, 'done.md');
    const first = Buffer.from('kept\nDONE\n');
    const rest = Buffer.from('after DONE, and slow');
    c.slowDisk.ms = 2 * IDLE_MS;
    const r = await slowRequest(
      c.server.port,
      head(c, `/api/write-session/${id}/content`, 'text/plain', first.length + rest.length),
      first,
      rest,
      4 * IDLE_MS,
    );
    c.slowDisk.ms = 0;
    assert.is(r.status, 200, JSON.stringify(r));
    assert.is(r.body.success, true);
    assert.is(r.headers.connection, 'close', 'the rest is not drained at the client pace');
    assert.ok(r.sent < first.length + rest.length);
    assert.is(gitShow(c.repo, 'done.md'), 'kept\n');
  },
);

Idle('a session stream that keeps sending stays open well past the idle bound', async ({ api, repo }) => {
  const id = await begin(api, 'steady.md');
  const p = new Pushable();
  const sent = api.content(id, p.stream);
  let expected = '';
  // Twelve lines, one every third of the bound: four bounds in all.
  for (let i = 1; i <= 12; i++) {
    const line = `line ${i}\n`;
    expected += line;
    p.push(line);
    await new Promise((r) => setTimeout(r, IDLE_MS / 3));
  }
  p.push('DONE\n');
  p.end();
  const r = await sent;
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.success, true);
  assert.is(gitShow(repo, 'steady.md'), expected);
});

Idle('a normal request works, and an idle keep-alive connection is closed after the bound', async (c) => {
  const ok = await c.api.call('POST', '/api/batch', {
    json: { operations: [{ operation: 'write', path: 'b.txt', content: 'B\n' }] },
  });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.is(gitShow(c.repo, 'b.txt'), 'B\n');
  const get = `GET /api/drafts HTTP/1.1\r\nHost: 127.0.0.1:${c.server.port}\r\nAuthorization: Bearer ${c.server.token}\r\nConnection: keep-alive\r\n\r\n`;
  const r = await slowRequest(c.server.port, get, Buffer.alloc(0), Buffer.alloc(0), IDLE_MS);
  assert.is(r.status, 200);
  assert.equal(
    r.body.drafts.map((d: { name: string }) => d.name),
    ['default'],
  );
});

// ---------------------------------------------------------------- the total bound

const Total = suite<Ctx>('a request body that takes too long in all');
Total.before.each((c) => setUp(c, { 'shadow.serverIdleMs': String(IDLE_MS), 'shadow.serverBodyMs': '1000' }));
Total.after.each(tearDown);

Total('bytes that keep coming, faster than the idle bound, are cut at shadow.serverBodyMs with 408', async (c) => {
  const id = await begin(c.api, 'slow.md');
  const body = Buffer.from('a line\n'.repeat(40));
  const r = await slowRequest(
    c.server.port,
    head(c, `/api/write-session/${id}/content`, 'text/plain', body.length),
    Buffer.alloc(0),
    body,
    IDLE_MS / 4,
  );
  assertTimeout(r, 'total', body.length);
  assert.match(r.body.error.message, /did not arrive within 1000 ms/);
  // What arrived is kept: whole lines only.
  const s = await c.api.status(id);
  assert.ok(s.body.bytes > 0 && s.body.bytes % 7 === 0 && s.body.bytes < body.length, JSON.stringify(s.body));
});

Total('a bound that is not a positive number is refused when the server starts', async () => {
  const repo = new DiskRepo({ 'README.md': 'Hello\n' });
  try {
    const bad: Array<[string, string]> = [
      ['shadow.serverIdleMs', '0'],
      ['shadow.serverBodyMs', '-5'],
      ['shadow.serverIdleMs', 'soon'],
    ];
    for (const [key, value] of bad) {
      repo.git('config', key, value);
      const sh = await openShadow({ dir: repo.dir, ...nodeContext({ env: repo.env }) });
      try {
        await startServer(sh);
        assert.unreachable(`${key}=${value} was accepted`);
      } catch (e) {
        assert.is((e as { code?: string }).code, 'INVALID_ARGUMENT', `${key}=${value}: ${String(e)}`);
      } finally {
        sh.close();
      }
      repo.git('config', '--unset', key);
    }
  } finally {
    repo.cleanup();
  }
});

Idle.run();
Total.run();
