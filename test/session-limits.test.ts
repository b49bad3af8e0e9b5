import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import { IDLE_PROMPT } from '../src/index.js';
import type { MemRepo } from './helpers/mem-repo.js';
import { committed, files, NOT_FOUND, openAs, repoWith, ROOT, thrown } from './helpers/session-memfs.js';

/*
 * The limits of write sessions on memfs: the size limit, one session per
 * draft and target, and expiry after idle minutes.
 */

const MiB = 1024 * 1024;
const ACTIVE = { code: 'SESSION_ACTIVE', message: 'Another write session is already active' };

// ---------------------------------------------------------------- size limit

const Size = suite('the size limit');

Size(
  '10 MiB is accepted; the byte past it is refused at once with "Content exceeds 10MB limit" and the session is gone',
  async () => {
    const repo = await repoWith();
    const sh = await openAs(repo);
    const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'big.txt', operation: 'create' });
    const line = Buffer.alloc(MiB, 0x61);
    line[MiB - 1] = 0x0a;
    for (let i = 0; i < 10; i++) sh.sessions.push(id, line);
    assert.is(sh.sessions.status(id).bytes, 10 * MiB);
    const e = await thrown(() => sh.sessions.push(id, Buffer.from('\n')));
    assert.equal(e, { code: 'CONTENT_TOO_LARGE', message: 'Content exceeds 10MB limit' });
    assert.is(files(repo, id), undefined, 'its files are gone');
    assert.equal(await thrown(() => sh.sessions.status(id)), NOT_FOUND);
    assert.equal(await thrown(() => sh.sessions.finalize(id)), NOT_FOUND);
    sh.close();
  },
);

Size(
  'shadow.maxContentBytes sets the limit; a line without a newline is refused as soon as it crosses it',
  async () => {
    const repo = await repoWith({ 'shadow.maxContentBytes': '1k' });
    const sh = await openAs(repo);
    // Complete lines.
    let { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'a.txt', operation: 'create' });
    sh.sessions.push(id, Buffer.from(`${'a'.repeat(1023)}\n`));
    assert.equal(await thrown(() => sh.sessions.push(id, Buffer.from('b\n'))), {
      code: 'CONTENT_TOO_LARGE',
      message: 'Content exceeds 1KB limit',
    });
    assert.is(files(repo, id), undefined);
    // One long line, no newline: the stream must not be buffered past the limit.
    ({ session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'b.txt', operation: 'create' }));
    let refusedAt = -1;
    for (let i = 1; i <= 8 && refusedAt === -1; i++) {
      try {
        sh.sessions.push(id, Buffer.alloc(256, 0x62));
      } catch (e) {
        assert.is((e as Error).message, 'Content exceeds 1KB limit');
        refusedAt = i * 256;
      }
    }
    assert.is(refusedAt, 1280, 'the chunk that crosses 1 KiB is refused, not the end of the stream');
    sh.close();
  },
);

// ---------------------------------------------------------------- limits

const Limits = suite<{ repo: MemRepo }>('one session per draft, never two on one target');
Limits.before.each(async (c) => {
  c.repo = await repoWith();
});

Limits(
  'a second begin on the draft is refused with the exact message; another draft, or after cancel, is fine',
  async ({ repo }) => {
    const sh = await openAs(repo);
    const a = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' });
    for (const target of ['b.md', 'a.md'])
      assert.equal(
        await thrown(() => sh.sessions.begin({ intent: '', target_file: target, operation: 'create' })),
        ACTIVE,
      );
    // Another handle (another process) sees it too.
    const other = await openAs(repo, 200, { alive: [100] });
    assert.equal(
      await thrown(() => other.sessions.begin({ intent: '', target_file: 'b.md', operation: 'create' })),
      ACTIVE,
    );
    const elsewhere = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create', draft: 'other' });
    assert.is(sh.sessions.status(elsewhere.session_id).draft, 'other');
    sh.sessions.cancel(a.session_id);
    assert.is(files(repo, a.session_id), undefined);
    assert.is(
      (await sh.sessions.begin({ intent: '', target_file: 'b.md', operation: 'create' })).stage,
      'awaiting_content',
    );
    other.close();
    sh.close();
  },
);

Limits('shadow.maxSessions raises the count per draft, but two sessions never share a target', async ({ repo }) => {
  await git.setConfig({ fs: repo.fs, dir: ROOT, path: 'shadow.maxSessions', value: '2' });
  const sh = await openAs(repo);
  assert.is(sh.sessions.settings().maxPerDraft, 2);
  const a = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' });
  assert.equal(await thrown(() => sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' })), ACTIVE);
  const b = await sh.sessions.begin({ intent: '', target_file: 'b.md', operation: 'create' });
  assert.equal(await thrown(() => sh.sessions.begin({ intent: '', target_file: 'c.md', operation: 'create' })), ACTIVE);
  // Both are fed at once and commit separately.
  sh.sessions.push(a.session_id, Buffer.from('A\n'));
  sh.sessions.push(b.session_id, Buffer.from('B\n'));
  assert.is((await sh.sessions.finalize(b.session_id)).success, true);
  assert.is((await sh.sessions.finalize(a.session_id)).success, true);
  assert.equal([String(await committed(repo, 'a.md')), String(await committed(repo, 'b.md'))], ['A\n', 'B\n']);
  sh.close();
});

Limits('two begins at once: exactly one wins, the other gets the message', async ({ repo }) => {
  for (const targets of [
    ['x.md', 'x.md'],
    ['x.md', 'y.md'],
  ]) {
    const sh = await openAs(repo);
    const other = await openAs(repo, 200, { alive: [100] });
    const rs = await Promise.allSettled([
      sh.sessions.begin({ intent: '', target_file: targets[0]!, operation: 'create' }),
      other.sessions.begin({ intent: '', target_file: targets[1]!, operation: 'create' }),
    ]);
    const won = rs.filter((r) => r.status === 'fulfilled');
    const lost = rs.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.is(won.length, 1, targets.join(' and '));
    assert.is(lost[0]!.reason.message, ACTIVE.message);
    assert.is(sh.sessions.list().length, 1);
    for (const s of sh.sessions.list()) sh.sessions.cancel(s.session_id);
    other.close();
    sh.close();
  }
});

Limits('unknown ids: status, push, end, finalize and cancel say "Session not found or expired"', async ({ repo }) => {
  const sh = await openAs(repo);
  for (const id of ['00000000-0000-4000-8000-00000000abcd', 'not-a-session', '../../../etc/passwd', '']) {
    assert.equal(await thrown(() => sh.sessions.status(id)), NOT_FOUND, id);
    assert.equal(await thrown(() => sh.sessions.push(id, Buffer.from('a\n'))), NOT_FOUND, id);
    assert.equal(await thrown(() => sh.sessions.end(id)), NOT_FOUND, id);
    assert.equal(await thrown(() => sh.sessions.finalize(id)), NOT_FOUND, id);
    assert.equal(await thrown(() => sh.sessions.cancel(id)), NOT_FOUND, id);
  }
  sh.close();
});

// ---------------------------------------------------------------- expiry

const Expire = suite<{ repo: MemRepo }>('expiry after idle minutes');
Expire.before.each(async (c) => {
  c.repo = await repoWith();
});

Expire(
  'a session idle for more than 5 minutes is gone: status, finalize and push say so, and the draft is free',
  async ({ repo }) => {
    const sh = await openAs(repo);
    assert.is(sh.sessions.settings().expireMs, 5 * 60 * 1000);
    const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' });
    repo.ctx.advance(5 * 60 * 1000);
    assert.is(sh.sessions.status(id).stage, 'awaiting_content', 'exactly 5 minutes: still there');
    repo.ctx.advance(1);
    assert.equal(await thrown(() => sh.sessions.finalize(id)), NOT_FOUND);
    assert.equal(await thrown(() => sh.sessions.status(id)), NOT_FOUND);
    assert.equal(await thrown(() => sh.sessions.push(id, Buffer.from('x\n'))), NOT_FOUND);
    assert.is(files(repo, id), undefined, 'its files are removed');
    assert.is(
      (await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' })).stage,
      'awaiting_content',
    );
    sh.close();
  },
);

Expire('a session fed in this process and then left idle expires too', async ({ repo }) => {
  const sh = await openAs(repo);
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' });
  sh.sessions.push(id, Buffer.from('first line\n'));
  repo.ctx.advance(5 * 60 * 1000 + 1);
  assert.equal(await thrown(() => sh.sessions.status(id)), NOT_FOUND, 'status of the idle session');
  assert.equal(await thrown(() => sh.sessions.push(id, Buffer.from('late\n'))), NOT_FOUND, 'push to the idle session');
  const again = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' }).then(
    (r) => r.stage,
    (e: Error) => e.message,
  );
  assert.is(again, 'awaiting_content', 'the idle session no longer blocks the draft');
  sh.close();
});

Expire('shadow.sessionIdleMs sets the idle time; content that arrives keeps a session alive', async ({ repo }) => {
  await git.setConfig({ fs: repo.fs, dir: ROOT, path: 'shadow.sessionIdleMs', value: '1000' });
  await git.setConfig({ fs: repo.fs, dir: ROOT, path: 'shadow.sessionSaveLines', value: '1' });
  const feeder = await openAs(repo, 100);
  const { session_id: id } = await feeder.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' });
  for (let i = 0; i < 5; i++) {
    repo.ctx.advance(800);
    feeder.sessions.push(id, Buffer.from(`${i}\n`));
  }
  // Another process reads the activity from disk.
  const watcher = await openAs(repo, 200, { alive: [100] });
  assert.is(watcher.sessions.status(id).lines, 5, '4 s old, but never idle for 1 s');
  repo.ctx.advance(1001);
  assert.equal(await thrown(() => watcher.sessions.status(id)), NOT_FOUND);
  assert.equal(watcher.sessions.list(), []);
  watcher.close();
  feeder.close();
});

Expire('status prompts for DONE once the session has been idle for shadow.sessionPromptMs', async ({ repo }) => {
  await git.setConfig({ fs: repo.fs, dir: ROOT, path: 'shadow.sessionPromptMs', value: '300' });
  const sh = await openAs(repo);
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'a.md', operation: 'create' });
  sh.sessions.push(id, Buffer.from('a\n'));
  repo.ctx.advance(299);
  assert.is(sh.sessions.status(id).prompt, undefined);
  repo.ctx.advance(1);
  assert.is(sh.sessions.status(id).prompt, IDLE_PROMPT);
  assert.is(IDLE_PROMPT, "If you're finished, reply DONE on its own line; otherwise continue");
  sh.sessions.push(id, Buffer.from('b\n'));
  assert.is(sh.sessions.status(id).prompt, undefined, 'content ends the idle period');
  sh.close();
});

Size.run();
Limits.run();
Expire.run();
