import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import type { MemRepo } from './helpers/mem-repo.js';
import { FsSeam } from './helpers/fs-seam.js';
import { removeSessionFiles } from '../src/state/session-files.js';
import { testContext } from './helpers/context.js';
import {
  committed,
  files,
  lines,
  NOT_FOUND,
  openAs,
  repoWith,
  ROOT,
  SESSIONS,
  thrown,
} from './helpers/session-memfs.js';

/*
 * Write sessions on memfs that a crash left, resumed or cleaned up, and a
 * full disk while saving.
 */

// ---------------------------------------------------------------- recovery

const Recover = suite<{ repo: MemRepo }>('sessions a crash left');
Recover.before.each(async (c) => {
  c.repo = await repoWith();
});

Recover('a crash keeps every byte up to the last save; the next process resumes and finalizes it', async ({ repo }) => {
  const crashed = await openAs(repo, 100);
  const { session_id: id } = await crashed.sessions.begin({
    intent: 'recover me',
    target_file: 'long.md',
    operation: 'create',
  });
  for (let i = 0; i < 7; i++) crashed.sessions.push(id, Buffer.from(lines(10, i * 10 + 1)));
  // Process 100 dies here: no close, no end. 50 lines were saved, 20 were only in memory.
  const next = await openAs(repo, 200);
  const { resumable, cleaned } = next.sessions.orphans();
  assert.equal(cleaned, []);
  assert.equal(
    resumable.map((s) => [s.session_id, s.target_file, s.bytes, s.lines, s.orphaned, s.stage]),
    [[id, 'long.md', Buffer.byteLength(lines(50)), 50, true, 'awaiting_content']],
  );
  assert.is(String(files(repo, id)!.content), lines(50));
  // Resume: the rest, then DONE.
  assert.is(next.sessions.push(id, Buffer.from(`${lines(20, 51)}DONE\n`)), true);
  const r = await next.sessions.finalize(id);
  assert.is(r.success, true, r.error?.message);
  assert.is(String(await committed(repo, 'long.md')), lines(70));
  assert.equal(next.sessions.orphans(), { resumable: [], cleaned: [] });
  next.close();
});

Recover('finalize an orphan as it is; a session fed by a live process is not an orphan', async ({ repo }) => {
  const feeder = await openAs(repo, 100);
  const { session_id: id } = await feeder.sessions.begin({ intent: '', target_file: 'part.md', operation: 'create' });
  feeder.sessions.push(id, Buffer.from(lines(55)));
  const peer = await openAs(repo, 200, { alive: [100] });
  assert.equal(peer.sessions.orphans().resumable, [], 'process 100 still feeds it');
  assert.is(peer.sessions.status(id).orphaned, false);
  const after = await openAs(repo, 300);
  assert.equal(
    after.sessions.orphans().resumable.map((s) => s.session_id),
    [id],
  );
  const r = await after.sessions.finalize(id);
  assert.is(r.success, true);
  assert.is(String(await committed(repo, 'part.md')), lines(55));
  peer.close();
  after.close();
});

Recover('orphans under an hour old are offered; older ones are cleaned up', async ({ repo }) => {
  await git.setConfig({ fs: repo.fs, dir: ROOT, path: 'shadow.sessionIdleMs', value: String(3 * 60 * 60 * 1000) });
  const crashed = await openAs(repo, 100);
  const old = await crashed.sessions.begin({ intent: '', target_file: 'old.md', operation: 'create' });
  repo.ctx.advance(30 * 60 * 1000);
  const young = await crashed.sessions.begin({
    intent: '',
    target_file: 'young.md',
    operation: 'create',
    draft: 'other',
  });
  repo.ctx.advance(31 * 60 * 1000);
  const next = await openAs(repo, 200);
  const o = next.sessions.orphans();
  assert.equal(o.cleaned, [old.session_id]);
  assert.equal(
    o.resumable.map((s) => s.session_id),
    [young.session_id],
  );
  assert.is(files(repo, old.session_id), undefined);
  assert.ok(files(repo, young.session_id));
  next.close();
});

// ---------------------------------------------------------------- a full disk

Recover(
  'a finalize killed among the removals of its files leaves the session gone, never there without its content',
  async ({ repo }) => {
    const sh = await openAs(repo, 100);
    assert.ok((await sh.write('gone.md', 'before\n')).success);
    const { session_id: id } = await sh.sessions.begin({
      intent: 'gone',
      target_file: 'gone.md',
      operation: 'overwrite',
    });
    sh.sessions.push(id, Buffer.from(`${lines(3)}DONE\n`));
    sh.close();
    const dir = `${SESSIONS}/${id}`;
    const names = (repo.fs.readdirSync(dir) as string[]).sort();
    assert.ok(names.includes('metadata.json') && names.includes('content.txt'), names.join(' '));
    const saved = new Map(names.map((n) => [n, repo.fs.readFileSync(`${dir}/${n}`)]));
    // A kill at each call of the removal, in turn (the files put back between).
    for (let at = 1; at <= names.length + 1; at++) {
      repo.fs.mkdirSync(dir, { recursive: true });
      for (const [n, bytes] of saved) repo.fs.writeFileSync(`${dir}/${n}`, bytes);
      const seam = new FsSeam(repo.fs);
      seam.arm(at);
      try {
        removeSessionFiles(testContext(seam.fs), `${ROOT}/.git/shadow`, id);
      } catch {
        // killed
      }
      seam.disarm();
      const next = await openAs(repo, 200 + at);
      const listed = next.sessions.list().some((s) => s.session_id === id);
      if (listed) {
        const r = await next.sessions.finalize(id);
        assert.ok(r.success, `killed at call ${at}: a session still listed finalizes (${JSON.stringify(r)})`);
      } else {
        assert.equal(await thrown(() => next.sessions.finalize(id)), NOT_FOUND, `killed at call ${at}`);
      }
      next.close();
    }
  },
);

const DiskFull = suite<{ repo: MemRepo; seam: FsSeam }>('a full disk while saving');
DiskFull.before.each(async (c) => {
  c.repo = await repoWith();
  c.seam = new FsSeam(c.repo.fs);
});

DiskFull(
  'ENOSPC on content.txt: the session continues in memory with a warning, and finalize commits every byte',
  async ({ repo, seam }) => {
    const sh = await openAs(repo, 100, { fs: seam.fs });
    const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'full.md', operation: 'create' });
    sh.sessions.push(id, Buffer.from(lines(50)));
    assert.is(String(files(repo, id)!.content), lines(50), 'saved while there was room');
    seam.inject({ op: ['writeSync', 'fsyncSync'], path: /content\.txt$/, code: 'ENOSPC' });
    sh.sessions.push(id, Buffer.from(lines(60, 51)));
    assert.equal(sh.sessions.warnings(id), [
      'the disk is full: the session continues in memory only, and a crash now would lose what is unsaved',
    ]);
    sh.sessions.push(id, Buffer.from(lines(60, 111)));
    assert.is(sh.sessions.push(id, Buffer.from('DONE\n')), true);
    assert.is(sh.sessions.warnings(id).length, 1, 'warned once');
    assert.is(String(files(repo, id)!.content), lines(50), 'content.txt kept what was saved before');
    const r = await sh.sessions.finalize(id);
    assert.is(r.success, true, r.error?.message);
    assert.is(String(await committed(repo, 'full.md')), lines(170));
    sh.close();
  },
);

DiskFull('ENOSPC on state.json as well: no error reaches the feeder', async ({ repo, seam }) => {
  const sh = await openAs(repo, 100, { fs: seam.fs });
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'full.md', operation: 'create' });
  seam.inject({ op: ['writeSync', 'openSync'], path: /(content\.txt|state\.json\.tmp-.*)$/, code: 'ENOSPC' });
  for (let i = 0; i < 4; i++) sh.sessions.push(id, Buffer.from(lines(50, i * 50 + 1)));
  assert.is(sh.sessions.warnings(id).length, 1);
  seam.heal();
  const r = await sh.sessions.finalize(id);
  assert.is(r.success, true, r.error?.message);
  assert.is(String(await committed(repo, 'full.md')), lines(200));
  sh.close();
});

DiskFull('ENOSPC in the middle of a save (some chunks written): no byte is lost or doubled', async ({ repo, seam }) => {
  const sh = await openAs(repo, 100, { fs: seam.fs });
  const { session_id: id } = await sh.sessions.begin({ intent: '', target_file: 'half.md', operation: 'create' });
  // 50 one-line chunks are buffered, then saved: the 3rd write of the save finds the disk full.
  seam.inject({ op: 'writeSync', path: /content\.txt$/, code: 'ENOSPC', after: 2 });
  for (let i = 1; i <= 60; i++) sh.sessions.push(id, Buffer.from(lines(1, i)));
  assert.is(sh.sessions.warnings(id).length, 1);
  sh.sessions.push(id, Buffer.from('DONE\n'));
  const r = await sh.sessions.finalize(id);
  assert.is(r.success, true, r.error?.message);
  assert.is(String(await committed(repo, 'half.md')), lines(60));
  sh.close();
});

Recover.run();
DiskFull.run();
