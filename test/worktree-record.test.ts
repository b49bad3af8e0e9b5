import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { beside, cli, expectError, open, REF, repoSuite } from './helpers/worktree-repo.js';
import { read, snapshotTree } from './helpers/dir-snapshot.js';
import { batches, fsck, lsTree, nameStatus } from './helpers/draft-commits.js';

/*
 * `sh.worktrees.record`, `changes` and `remove` on real directories: what
 * was changed in a worktree becomes one batch, checked with native git.
 */

// ---------------------------------------------------------------- record and remove

const Record = repoSuite('worktree record, changes, remove');

Record('record: writes, new files, deletes, renames, exec bit and binary bytes as one batch', async ({ repo }) => {
  const sh = await open(repo);
  try {
    const wt = beside(repo);
    await sh.worktrees.add(wt);
    const before = snapshotTree(repo.dir);
    const binary = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x0a, 0x0d, 0x80]);
    fs.writeFileSync(join(wt, 'a.txt'), 'alpha edited\n');
    fs.writeFileSync(join(wt, 'bin.dat'), binary);
    fs.unlinkSync(join(wt, 'c.txt'));
    fs.renameSync(join(wt, 'src/deep/y.js'), join(wt, 'src/y2.js'));
    fs.chmodSync(join(wt, 'src/x.js'), 0o755);
    fs.writeFileSync(join(wt, 'ignored.log'), 'never\n');
    fs.writeFileSync(join(wt, 'a.txt.swp'), 'never\n');
    const changes = await sh.worktrees.changes(wt);
    assert.equal(changes.map((c) => `${c.kind} ${c.path}${c.to ? ` ${c.to}` : ''}`).sort(), [
      'delete c.txt',
      'rename src/deep/y.js src/y2.js',
      'write a.txt',
      'write bin.dat',
      'write src/x.js',
    ]);
    const r = await sh.worktrees.record(wt, { actor: 'tester', intent: 'by hand' });
    assert.ok(r.batch?.success, JSON.stringify(r.batch?.error));
    const [b] = batches(repo);
    assert.equal(
      { subject: b!.subject, author: b!.author, batch: b!.batch },
      { subject: 'by hand', author: 'tester', batch: 1 },
    );
    assert.equal(nameStatus(repo, b!.commit), [
      'A\tbin.dat',
      'D\tc.txt',
      'M\ta.txt',
      'M\tsrc/x.js',
      'R100\tsrc/deep/y.js\tsrc/y2.js',
    ]);
    assert.is(lsTree(repo, b!.commit, 'src/x.js')?.[0], '100755');
    const blob = spawnSync('git', ['cat-file', 'blob', `${b!.commit}:bin.dat`], { cwd: repo.dir, env: repo.env });
    assert.ok(Buffer.compare(blob.stdout, binary) === 0, 'binary bytes kept as they are');
    assert.equal(await sh.worktrees.changes(wt), [], 'nothing left to record');
    const again = await sh.worktrees.record(wt);
    assert.is(again.batch, null);
    assert.equal(snapshotTree(repo.dir), before, 'the working tree is untouched');
    fsck(repo);
  } finally {
    sh.close();
  }
});

Record(
  'record after another writer: its work comes in; a path it changed fails as a conflict, not overwritten',
  async ({ repo }) => {
    const sh = await open(repo);
    try {
      const wt = beside(repo);
      await sh.worktrees.add(wt);
      fs.writeFileSync(join(wt, 'a.txt'), 'mine\n');
      assert.ok((await sh.write('notes.txt', 'theirs\n')).success);
      const r = await sh.worktrees.record(wt);
      assert.ok(r.batch?.success, JSON.stringify(r.batch?.error));
      assert.equal(r.sync?.written, ['notes.txt']);
      assert.is(read(wt, 'notes.txt'), 'theirs\n');
      assert.is(repo.git('show', `${REF()}:a.txt`), 'mine\n');

      fs.writeFileSync(join(wt, 'a.txt'), 'mine again\n');
      assert.ok((await sh.write('a.txt', 'theirs again\n')).success);
      const tip = repo.ref(REF());
      const r2 = await sh.worktrees.record(wt);
      assert.is(r2.batch?.success, false, 'the batch fails');
      assert.is(repo.ref(REF()), tip, 'nothing committed');
      assert.is(repo.git('show', `${REF()}:a.txt`), 'theirs again\n');
      assert.is(read(wt, 'a.txt'), 'mine again\n', 'the worktree keeps its edit');
    } finally {
      sh.close();
    }
  },
);

Record(
  'core.filemode=false: an executable edited there stays 100755, its rename is paired; a symlink is no conflict',
  async ({ repo }) => {
    repo.git('config', 'core.filemode', 'false');
    fs.symlinkSync('a.txt', repo.path('link'));
    repo.git('add', 'link');
    repo.git('commit', '-q', '-m', 'link');
    const sh = await open(repo);
    try {
      const wt = beside(repo);
      const other = beside(repo, 'wt2');
      await sh.worktrees.add(wt);
      await sh.worktrees.add(other);
      fs.writeFileSync(join(wt, 'bin/run.sh'), '#!/bin/sh\necho changed\n');
      const r = await sh.worktrees.record(wt);
      assert.ok(r.batch?.success, JSON.stringify(r.batch?.error));
      assert.is(lsTree(repo, REF(), 'bin/run.sh')?.[0], '100755', 'the mode git knew is kept');
      fs.renameSync(join(wt, 'bin/run.sh'), join(wt, 'bin/go.sh'));
      const moved = await sh.worktrees.record(wt);
      assert.equal(moved.changes, [{ path: 'bin/run.sh', kind: 'rename', to: 'bin/go.sh' }]);
      assert.is(lsTree(repo, REF(), 'bin/go.sh')?.[0], '100755');
      // The other worktree: its symlink is untouched, the executable comes over.
      fs.unlinkSync(join(wt, 'link'));
      fs.symlinkSync('c.txt', join(wt, 'link'));
      assert.ok((await sh.worktrees.record(wt)).batch?.success);
      const s = await sh.worktrees.sync(other);
      assert.equal(s.conflicts, []);
      assert.is(fs.readlinkSync(join(other, 'link')), 'c.txt');
      assert.is(read(other, 'bin/go.sh'), '#!/bin/sh\necho changed\n');
    } finally {
      sh.close();
    }
  },
);

Record(
  'remove: WORKTREE_DIRTY while changes are not recorded; --force discards; a recorded worktree goes quietly',
  async ({ repo }) => {
    const sh = await open(repo);
    try {
      const wt = beside(repo);
      await sh.worktrees.add(wt);
      fs.writeFileSync(join(wt, 'a.txt'), 'unrecorded\n');
      const e = await expectError('WORKTREE_DIRTY', () => sh.worktrees.remove(wt));
      assert.equal(
        (e.data as { changes: Array<{ path: string }> }).changes.map((c) => c.path),
        ['a.txt'],
      );
      assert.is(read(wt, 'a.txt'), 'unrecorded\n', 'nothing removed');
      const c = cli(repo, ['worktree', 'remove', wt, '--json']);
      assert.is(c.status, 1);
      assert.is(c.json?.error?.code, 'WORKTREE_DIRTY');
      const r = await sh.worktrees.remove(wt, { force: true });
      assert.equal(
        r.discarded.map((d) => d.path),
        ['a.txt'],
      );
      assert.not.ok(fs.existsSync(wt));
      assert.equal(await sh.worktrees.list(), []);
      assert.is(repo.ref(REF()), undefined, 'nothing recorded');

      const wt2 = beside(repo, 'wt2');
      await sh.worktrees.add(wt2);
      fs.writeFileSync(join(wt2, 'a.txt'), 'recorded\n');
      await sh.worktrees.record(wt2);
      const r2 = await sh.worktrees.remove(wt2);
      assert.equal(r2.discarded, []);
      assert.not.ok(fs.existsSync(wt2));
      assert.is(repo.git('show', `${REF()}:a.txt`), 'recorded\n');
      assert.is(repo.read('a.txt'), 'alpha\n');
    } finally {
      sh.close();
    }
  },
);

Record.run();
