import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { MARKER } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { beside, cli, expectError, open, repoSuite } from './helpers/worktree-repo.js';
import { read, snapshotTree } from './helpers/dir-snapshot.js';
import { fsck } from './helpers/draft-commits.js';

/*
 * `sh.worktrees.sync` on real directories: after other writers, a rollback
 * and an undo only the paths that differ are rewritten; a change not
 * recorded there is a conflict, never overwritten.
 */

// ---------------------------------------------------------------- sync

const Sync = repoSuite('worktree sync', () => {
  const files: Record<string, string> = { 'README.md': 'Hello\n' };
  for (let i = 0; i < 30; i++) files[`f/${String(i).padStart(2, '0')}.txt`] = `file ${i}\n`;
  return new DiskRepo(files);
});

const TEN = Array.from({ length: 10 }, (_, i) => `f/${String(i * 3).padStart(2, '0')}.txt`);

Sync('after other writers, rollback and undo: only the paths that differ are rewritten', async ({ repo }) => {
  const sh = await open(repo);
  try {
    const wt = beside(repo);
    await sh.worktrees.add(wt);
    const before = snapshotTree(repo.dir);

    // Batch 1 (the draft did not exist when the worktree was made).
    await sh.write('f/01.txt', 'one\n');
    assert.ok((await sh.worktrees.list())[0]!.behind);
    const s1 = await sh.worktrees.sync(wt);
    assert.equal(s1.written, ['f/01.txt']);
    assert.equal(s1.conflicts, []);
    assert.is(read(wt, 'f/01.txt'), 'one\n');

    // Batch 2: ten files, one new, one deleted.
    const wtBefore = snapshotTree(wt);
    const r2 = await sh.batch({
      intent: 'ten files',
      operations: [
        ...TEN.map((p) => ({ operation: 'write' as const, path: p, content: `edited ${p}\n` })),
        { operation: 'write', path: 'g/new.txt', content: 'new\n' },
        { operation: 'delete', path: 'f/29.txt' },
      ],
    });
    assert.ok(r2.success);
    const s2 = await sh.worktrees.sync(wt);
    assert.equal(s2.written.sort(), [...TEN, 'g/new.txt'].sort());
    assert.equal(s2.removed, ['f/29.txt']);
    assert.is(s2.from, s1.to);
    assert.is(s2.to, r2.commit);
    const wtAfter = snapshotTree(wt);
    for (const [p, v] of Object.entries(wtBefore)) {
      if (TEN.includes(p) || p === 'f/29.txt' || p === MARKER) continue;
      assert.is(wtAfter[p], v, `${p} is not rewritten (same inode and mtime)`);
    }
    for (const p of TEN) assert.is(read(wt, p), `edited ${p}\n`);

    // Rollback to batch 1, then sync: the ten come back from the working tree, the new file goes.
    await sh.rollback('1');
    const s3 = await sh.worktrees.sync(wt);
    assert.equal(s3.written.sort(), [...TEN, 'f/29.txt'].sort());
    assert.equal(s3.removed, ['g/new.txt']);
    assert.not.ok(fs.existsSync(join(wt, 'g')), 'the emptied directory goes too');
    for (const p of TEN) assert.is(read(wt, p), repo.read(p));
    assert.is(read(wt, 'f/01.txt'), 'one\n');

    // Undo the rollback: batch 2's state again.
    await sh.undo();
    const s4 = await sh.worktrees.sync(wt);
    assert.equal(s4.written.sort(), [...TEN, 'g/new.txt'].sort());
    assert.equal(s4.removed, ['f/29.txt']);
    assert.equal(await sh.worktrees.changes(wt), []);
    // Nothing moved: nothing to do.
    const s5 = await sh.worktrees.sync(wt);
    assert.equal([s5.written, s5.removed, s5.conflicts], [[], [], []]);
    assert.equal(snapshotTree(repo.dir), before, 'the working tree is untouched');
    fsck(repo);
  } finally {
    sh.close();
  }
});

Sync('a file changed in the worktree and not recorded is a conflict, never overwritten', async ({ repo }) => {
  const sh = await open(repo);
  try {
    const wt = beside(repo);
    await sh.worktrees.add(wt);
    fs.writeFileSync(join(wt, 'f/02.txt'), 'mine\n');
    fs.writeFileSync(join(wt, 'mine-new.txt'), 'created here\n');
    fs.writeFileSync(join(wt, 'f/03.txt'), 'same as theirs\n');
    fs.unlinkSync(join(wt, 'f/04.txt'));
    const r = await sh.batch({
      intent: 'theirs',
      operations: [
        { operation: 'write', path: 'f/02.txt', content: 'theirs\n' },
        { operation: 'write', path: 'mine-new.txt', content: 'theirs too\n' },
        { operation: 'write', path: 'f/03.txt', content: 'same as theirs\n' },
        { operation: 'write', path: 'f/04.txt', content: 'rewritten\n' },
        { operation: 'write', path: 'f/05.txt', content: 'no conflict\n' },
      ],
    });
    assert.ok(r.success);
    const s = await sh.worktrees.sync(wt);
    assert.equal(s.conflicts.map((c) => c.path).sort(), ['f/02.txt', 'f/04.txt', 'mine-new.txt']);
    assert.equal(s.written, ['f/05.txt']);
    assert.is(read(wt, 'f/02.txt'), 'mine\n');
    assert.is(read(wt, 'mine-new.txt'), 'created here\n');
    assert.not.ok(fs.existsSync(join(wt, 'f/04.txt')), 'a deletion made there is not undone');
    assert.is(read(wt, 'f/03.txt'), 'same as theirs\n');
    // Still conflicts on the next sync (nothing recorded meanwhile), and they stay pending changes.
    assert.equal((await sh.worktrees.changes(wt)).map((c) => c.path).sort(), ['f/02.txt', 'f/04.txt', 'mine-new.txt']);
  } finally {
    sh.close();
  }
});

Sync('a worktree whose draft was dropped: sync says DRAFT_NOT_FOUND, list says so', async ({ repo }) => {
  const sh = await open(repo);
  try {
    assert.ok((await sh.write('f/00.txt', 'feature\n', { draft: 'feat' })).success);
    const wt = beside(repo);
    await sh.worktrees.add(wt, { draft: 'feat' });
    assert.is(read(wt, 'f/00.txt'), 'feature\n');
    await sh.draftDrop('feat');
    await expectError('DRAFT_NOT_FOUND', () => sh.worktrees.sync(wt));
    assert.is(read(wt, 'f/00.txt'), 'feature\n', 'the worktree is left as it was');
    const [info] = await sh.worktrees.list();
    assert.equal(
      { draft: info!.draft, exists: info!.exists, draft_exists: info!.draft_exists },
      { draft: 'feat', exists: true, draft_exists: false },
    );
    const c = cli(repo, ['worktree', 'sync', wt, '--json']);
    assert.is(c.status, 1, c.stderr);
    assert.is(c.json?.error?.code, 'DRAFT_NOT_FOUND');
    // It can still be removed.
    const removed = await sh.worktrees.remove(wt);
    assert.ok(removed.removed);
    assert.not.ok(fs.existsSync(wt));
  } finally {
    sh.close();
  }
});

Sync.run();
