import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { DiskRepo } from './helpers/disk-repo.js';
import { exited, Pushable, serveChild } from './helpers/session-http.js';
import { assertError, BASE_FILES, begin, gitShow, lines } from './helpers/http-server.js';

/*
 * `shadow serve` as a real process: server.json while it runs, SIGKILL
 * mid-stream and a restart that recovers the session, and the cleanup of
 * old sessions.
 */

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

Serve(
  'SIGKILL mid-stream, restart: recover finds the session with every byte up to the last save, and it resumes',
  async ({ repo }) => {
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
      rec
        .json()
        .resumable.map((s: { session_id: string; bytes: number; lines: number; orphaned: boolean }) => [
          s.session_id,
          s.bytes,
          s.lines,
          s.orphaned,
        ]),
      [[id, A.length, 50, true]],
    );
    // Resume where the save left off, over HTTP.
    const r = await second.api.content(id, `${B}${C} here\nDONE\n`);
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.is(gitShow(repo, 'long.md'), `${A}${B}${C} here\n`);
    second.child.kill('SIGTERM');
    assert.is((await exited(second.child)).code, 0);
    assert.is(existsSync(second.infoPath), false);
  },
);

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

Serve.run();
