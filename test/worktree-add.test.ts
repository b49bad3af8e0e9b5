import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { MARKER } from '../src/index.js';
import { beside, expectError, open, REF, repoSuite } from './helpers/worktree-repo.js';
import { read, snapshotTree } from './helpers/dir-snapshot.js';
import { fsck, lsTree } from './helpers/draft-commits.js';

/*
 * `sh.worktrees.add` on real directories: the view it materializes (the
 * working tree with the draft laid over it), copied, never linked; the
 * targets it refuses.
 */

/** The files (and symlinks) under `dir`, relative, sorted. */
function filesUnder(dir: string, skip: readonly string[] = []): string[] {
  return Object.keys(snapshotTree(dir, skip))
    .filter((p) => !p.endsWith('/'))
    .sort();
}

// ---------------------------------------------------------------- materialize

const Materialize = repoSuite('worktree add (materialize)');

Materialize(
  'the view: the working tree (ignored files left out) with the draft laid over it; marker names repository and draft',
  async ({ repo }) => {
    const sh = await open(repo);
    try {
      const r1 = await sh.batch({
        intent: 'draft changes',
        operations: [
          { operation: 'edit', path: 'a.txt', old_content: 'alpha', content: 'ALPHA' },
          { operation: 'write', path: 'draft-only.txt', content: 'from the draft\n' },
          { operation: 'delete', path: 'c.txt' },
        ],
      });
      assert.ok(r1.success, JSON.stringify(r1.error));
      const before = snapshotTree(repo.dir);
      const wt = beside(repo);
      const r = await sh.worktrees.add(wt);
      assert.equal(
        filesUnder(wt),
        [
          MARKER,
          '.gitignore',
          'README.md',
          'a.txt',
          'bin/run.sh',
          'draft-only.txt',
          'notes.txt',
          'src/deep/y.js',
          'src/x.js',
        ].sort(),
      );
      assert.is(read(wt, 'a.txt'), 'ALPHA\n');
      assert.is(read(wt, 'draft-only.txt'), 'from the draft\n');
      assert.is(read(wt, 'README.md'), 'Hello, my uncommitted edit\n');
      assert.is(read(wt, 'notes.txt'), 'untracked, not ignored\n');
      assert.is(fs.statSync(join(wt, 'bin/run.sh')).mode & 0o111, 0o111, 'the exec bit is kept');
      assert.is(r.dir, wt);
      assert.is(r.draft, 'default');
      assert.is(r.tip, repo.ref(REF()));
      assert.is(r.files, 8);
      assert.is(r.copied, 6, 'files the draft does not own come from the working tree');
      const marker = JSON.parse(read(wt, MARKER));
      assert.equal(
        { repository: marker.repository, draft: marker.draft, id: marker.id },
        { repository: repo.dir, draft: 'default', id: r.id },
      );
      assert.is(sh.worktrees.find(wt).id, r.id);
      assert.equal(snapshotTree(repo.dir), before, 'the working tree is untouched');
      const list = await sh.worktrees.list();
      assert.is(list.length, 1);
      assert.equal(
        { dir: list[0]!.dir, exists: list[0]!.exists, draft_exists: list[0]!.draft_exists, behind: list[0]!.behind },
        { dir: wt, exists: true, draft_exists: true, behind: false },
      );
      assert.equal(await sh.worktrees.changes(wt), []);
    } finally {
      sh.close();
    }
  },
);

Materialize(
  'copies, never hard links: own inodes, nlink 1, a write in one never shows in the other',
  async ({ repo }) => {
    const sh = await open(repo);
    try {
      const wt = beside(repo);
      await sh.worktrees.add(wt);
      for (const p of filesUnder(wt)) {
        if (p === MARKER) continue;
        const a = fs.lstatSync(join(wt, p));
        const b = fs.lstatSync(repo.path(p));
        assert.is(a.nlink, 1, `${p}: nlink`);
        assert.is(b.nlink, 1, `${p}: nlink in the working tree`);
        assert.is.not(a.ino, b.ino, `${p}: own inode`);
      }
      // In place (same inode), both ways.
      fs.appendFileSync(join(wt, 'a.txt'), 'worktree line\n');
      assert.is(repo.read('a.txt'), 'alpha\n');
      fs.appendFileSync(repo.path('src/x.js'), '// user line\n');
      assert.is(read(wt, 'src/x.js'), 'export const x = "x";\n');
    } finally {
      sh.close();
    }
  },
);

Materialize(
  'a symlink pointing outside is copied as a symlink, never followed; recording keeps it a symlink',
  async ({ repo }) => {
    const outside = join(repo.root, 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE SECRET\n');
    fs.symlinkSync(join(outside, 'secret.txt'), repo.path('link-file'));
    fs.symlinkSync(outside, repo.path('link-dir'));
    fs.symlinkSync('../outside/secret.txt', repo.path('link-rel'));
    repo.git('add', 'link-file', 'link-dir', 'link-rel');
    repo.git('commit', '-q', '-m', 'links');
    const sh = await open(repo);
    try {
      const wt = beside(repo);
      await sh.worktrees.add(wt);
      for (const [p, target] of [
        ['link-file', join(outside, 'secret.txt')],
        ['link-dir', outside],
        ['link-rel', '../outside/secret.txt'],
      ] as const) {
        assert.ok(fs.lstatSync(join(wt, p)).isSymbolicLink(), `${p} is a symlink`);
        assert.is(fs.readlinkSync(join(wt, p)), target);
      }
      assert.not.ok(
        filesUnder(wt).some((p) => p.startsWith('link-dir/')),
        'the linked directory is not walked',
      );
      assert.equal(await sh.worktrees.changes(wt), [], 'copied links are not changes');

      // Retarget one link and add one; record: both stay links (mode 120000), targets as text.
      fs.unlinkSync(join(wt, 'link-file'));
      fs.symlinkSync('/etc/hostname', join(wt, 'link-file'));
      fs.symlinkSync('/etc', join(wt, 'new-link'));
      const r = await sh.worktrees.record(wt);
      assert.ok(r.batch?.success, JSON.stringify(r.batch?.error));
      assert.equal(r.changes.map((c) => `${c.kind} ${c.path}`).sort(), ['write link-file', 'write new-link']);
      const tip = repo.ref(REF())!;
      for (const [p, target] of [
        ['link-file', '/etc/hostname'],
        ['new-link', '/etc'],
        ['link-dir', outside],
      ] as const) {
        assert.is(lsTree(repo, tip, p)?.[0], '120000', `${p}: a symlink in the draft`);
        assert.is(repo.git('cat-file', 'blob', `${tip}:${p}`), target);
        assert.ok(fs.lstatSync(join(wt, p)).isSymbolicLink(), `${p}: still a symlink in the worktree`);
      }
      assert.is(
        repo.gitResult('grep', '-q', 'OUTSIDE SECRET', tip).status,
        1,
        'what the links point at never reaches the draft',
      );
      assert.is(
        fs.readlinkSync(repo.path('link-file')),
        join(outside, 'secret.txt'),
        'the working tree keeps its link',
      );
      fsck(repo);
    } finally {
      sh.close();
    }
  },
);

Materialize(
  'bad targets: not empty (ALREADY_EXISTS), a file (ALREADY_EXISTS), inside the working tree or .git (INVALID_TARGET), relative',
  async ({ repo }) => {
    const sh = await open(repo);
    try {
      const full = beside(repo, 'full');
      fs.mkdirSync(full);
      fs.writeFileSync(join(full, 'mine.txt'), 'mine\n');
      await expectError('ALREADY_EXISTS', () => sh.worktrees.add(full));
      assert.equal(fs.readdirSync(full), ['mine.txt'], 'nothing written there');
      const file = beside(repo, 'a-file');
      fs.writeFileSync(file, 'x');
      await expectError('ALREADY_EXISTS', () => sh.worktrees.add(file));
      const before = snapshotTree(repo.dir);
      await expectError('INVALID_TARGET', () => sh.worktrees.add(repo.path('sub/wt')));
      await expectError('INVALID_TARGET', () => sh.worktrees.add(repo.dir));
      await expectError('INVALID_TARGET', () => sh.worktrees.add(repo.path('.git/wt')));
      await expectError('INVALID_ARGUMENT', () => sh.worktrees.add('relative/wt'));
      assert.equal(snapshotTree(repo.dir), before, 'nothing created in the working tree');
      assert.equal(await sh.worktrees.list(), []);
      // An empty directory is fine.
      const empty = beside(repo, 'empty');
      fs.mkdirSync(empty);
      const r = await sh.worktrees.add(empty);
      assert.is(r.files, 8);
    } finally {
      sh.close();
    }
  },
);

Materialize.run();
