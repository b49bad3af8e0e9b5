import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { DiskRepo } from './helpers/disk-repo.js';
import { exited, serveChild, spawnShadow, type ServeChild } from './helpers/session-http.js';

/*
 * One `shadow serve` per repository, with real processes: a second is
 * refused while the first lives, a record a killed server left is taken over,
 * and a server that stops removes only its own record.
 */

/** A serve expected to be refused, once it exited; one that starts serving instead is stopped and fails the test. */
async function refused(
  repo: DiskRepo,
  args: string[],
): Promise<ReturnType<typeof spawnShadow> & { exit: Awaited<ReturnType<typeof exited>> }> {
  const s = spawnShadow(repo, args);
  const served = s.stdout.waitFor(/shadow serving|^\{\s*"url"/m).then(
    () => true,
    () => false,
  );
  if (await Promise.race([served, exited(s.child).then(() => false)])) {
    s.child.kill('SIGTERM');
    await exited(s.child);
    assert.unreachable(`a second server started: ${s.stdout.text}`);
  }
  return { ...s, exit: await exited(s.child) };
}

interface Ctx {
  repo: DiskRepo;
  /** Every server started, so that a failed test leaves none running. */
  servers: ServeChild[];
  serve(): Promise<ServeChild>;
}

const Serve = suite<Ctx>('one shadow serve per repository');
Serve.before.each((c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n' });
  c.servers = [];
  c.serve = async () => {
    const s = await serveChild(c.repo);
    c.servers.push(s);
    return s;
  };
});
Serve.after.each(async (c) => {
  for (const s of c.servers) {
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await exited(s.child);
  }
  c.repo.cleanup();
});

Serve(
  'a second serve is refused with SERVER_RUNNING naming the first (pid, url); the first keeps serving and its server.json',
  async ({ repo, serve }) => {
    const first = await serve();
    const record = readFileSync(first.infoPath);
    const info = JSON.parse(record.toString('utf8'));
    assert.equal(Object.keys(info).sort(), ['host', 'pid', 'port', 'since', 'token', 'url']);
    assert.equal([info.pid, info.host, info.url], [first.child.pid, hostname(), `http://127.0.0.1:${first.port}`]);
    for (const args of [['serve', '--json'], ['serve']]) {
      const second = await refused(repo, args);
      assert.equal(second.exit, { code: 1, signal: null }, args.join(' '));
      if (args.includes('--json')) {
        const e = JSON.parse(second.stdout.text).error;
        assert.is(e.code, 'SERVER_RUNNING');
        assert.equal([e.data.pid, e.data.url, e.data.port], [first.child.pid, info.url, first.port]);
      } else {
        assert.match(second.stderr.text, `already running on this repository: process ${first.child.pid}`);
        assert.match(second.stderr.text, info.url);
      }
    }
    assert.equal(readFileSync(first.infoPath), record, "server.json is the first server's, byte for byte");
    assert.is((await first.api.call('GET', '/api/drafts')).status, 200);
    first.child.kill('SIGTERM');
    assert.equal(await exited(first.child), { code: 0, signal: null });
    assert.is(existsSync(first.infoPath), false);
  },
);

Serve('server.json left by a server killed with SIGKILL is taken over by the next serve', async ({ repo, serve }) => {
  const killed = await serve();
  killed.child.kill('SIGKILL');
  assert.equal(await exited(killed.child), { code: null, signal: 'SIGKILL' });
  assert.is(
    JSON.parse(readFileSync(killed.infoPath, 'utf8')).pid,
    killed.child.pid,
    "the dead server's record is still there",
  );
  const next = await serve();
  const info = JSON.parse(readFileSync(next.infoPath, 'utf8'));
  assert.equal([info.pid, info.port, info.token], [next.child.pid, next.port, next.token]);
  assert.is(statSync(next.infoPath).mode & 0o777, 0o600);
  assert.is((await next.api.call('GET', '/api/drafts')).status, 200);
  next.child.kill('SIGINT');
  assert.equal(await exited(next.child), { code: 0, signal: null });
  assert.is(existsSync(next.infoPath), false);
});

Serve(
  'a server that stops removes only its own server.json, never the record of a server still running',
  async ({ repo, serve }) => {
    const a = await serve();
    // Its record gone (removed by hand), a second server may start, and writes its own.
    rmSync(a.infoPath);
    const b = await serve();
    const record = readFileSync(b.infoPath);
    assert.is(JSON.parse(record.toString('utf8')).pid, b.child.pid);
    a.child.kill('SIGTERM');
    assert.equal(await exited(a.child), { code: 0, signal: null });
    assert.equal(readFileSync(b.infoPath), record, "b's record survives a stopping");
    assert.is((await b.api.call('GET', '/api/drafts')).status, 200);
    b.child.kill('SIGTERM');
    assert.equal(await exited(b.child), { code: 0, signal: null });
    assert.is(existsSync(b.infoPath), false);
  },
);

Serve.run();
