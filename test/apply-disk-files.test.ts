import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import { DiskRepo } from './helpers/disk-repo.js';
import { BASE_FILES, cli, draft, records, scan, status } from './helpers/apply-disk-repo.js';

/*
 * `shadow apply` on real directories: the user's own files are left byte
 * for byte, and an empty draft writes nothing.
 */

// ---------------------------------------------------------------- the user's files

const Untouched = suite("apply on disk: the user's files");

Untouched(
  'untracked, ignored and dirty files outside the set stay byte-identical and are never rewritten, through apply and unapply',
  async () => {
    const repo = new DiskRepo({
      ...BASE_FILES,
      '.gitignore': '.env\nbuild/\n*.log\n',
      'dirty.txt': 'committed\n',
      'staged.txt': 'committed\n',
    });
    try {
      await draft(repo, [
        [
          { operation: 'write', path: 'a.txt', content: 'A\n' },
          { operation: 'write', path: 'src/new/feature.ts', content: 'f\n' },
          { operation: 'delete', path: 'old/gone.txt' },
        ],
        [{ operation: 'rename', path: 'src/lib/util.ts', to: 'src/util.ts' }],
      ]);
      // The user's own state, made after the draft: none of it is in the set.
      repo.write('notes.txt', 'untracked\n');
      repo.write('old/untracked-inside.txt', 'in a directory the publish empties of tracked files\n');
      repo.write('.env', 'TOKEN=abc\n');
      repo.write('build/out.js', 'built\n');
      repo.write('debug.log', Buffer.from([0, 1, 2, 255]));
      repo.write('dirty.txt', 'committed\nand dirty\n');
      repo.write('staged.txt', 'staged change\n');
      repo.git('add', 'staged.txt');
      fs.chmodSync(repo.path('notes.txt'), 0o600);
      const set = ['a.txt', 'src/new/feature.ts', 'old/gone.txt', 'src/lib/util.ts', 'src/util.ts'];
      const dirsOfSet = ['src', 'src/new', 'src/lib', 'old'];
      const outsideSet = (p: string): boolean => !set.includes(p) && !dirsOfSet.includes(p);

      const before = scan(repo.dir);
      const statusBefore = status(repo);
      const r = cli(repo, ['apply']);
      assert.is(r.status, 0, r.stderr);
      assert.is(r.json.applied, true);
      const after = scan(repo.dir);
      for (const p of Object.keys(before.content).filter(outsideSet)) {
        assert.is(after.content[p], before.content[p], `apply changed ${p}`);
        assert.is(after.identity[p], before.identity[p], `apply rewrote ${p}`);
      }
      assert.is(repo.read('a.txt'), 'A\n');
      assert.is(repo.read('src/util.ts'), 'export const u = 1\n');
      assert.is(repo.exists('src/lib'), false, 'an emptied directory is removed');
      assert.is(
        repo.read('old/untracked-inside.txt'),
        'in a directory the publish empties of tracked files\n',
        'a directory holding an untracked file stays',
      );
      assert.is(
        repo.git('diff', '--cached', '--name-only'),
        'staged.txt\n',
        'the index is not touched without --commit',
      );

      const u = cli(repo, ['unapply']);
      assert.is(u.status, 0, u.stderr);
      const back = scan(repo.dir);
      assert.equal(back.content, before.content, 'after unapply the working tree holds exactly what it held');
      for (const p of Object.keys(before.content).filter(outsideSet))
        assert.is(back.identity[p], before.identity[p], `unapply rewrote ${p}`);
      assert.equal(status(repo), statusBefore);
    } finally {
      repo.cleanup();
    }
  },
);

Untouched('an empty draft: exit 0, nothing to apply, nothing written', async () => {
  const repo = new DiskRepo(BASE_FILES);
  try {
    assert.is(cli(repo, ['draft', 'new', 'empty']).status, 0);
    const before = scan(repo.dir);
    for (const args of [
      ['apply', '--draft', 'empty', '--dry-run'],
      ['apply', '--draft', 'empty'],
    ]) {
      const r = cli(repo, args);
      assert.is(r.status, 0, r.stdout + r.stderr);
      assert.equal(r.json.paths, []);
      assert.is(r.json.applied, false);
    }
    const text = repo.shadow(['apply', '--draft', 'empty']);
    assert.is(text.status, 0);
    assert.match(text.stdout, /nothing to apply/);
    assert.equal(scan(repo.dir), before);
    assert.equal(records(repo, 'empty'), []);
  } finally {
    repo.cleanup();
  }
});

Untouched.run();
