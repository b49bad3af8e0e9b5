/**
 * `shadow diff` writes a change of type and a submodule as `git diff` does,
 * byte for byte: a file that becomes a symlink or a submodule (and back) is
 * the old one's deletion then the new one's creation (git's diff.c splits
 * such a pair), and a submodule's side is `Subproject commit <id>`, a line
 * counted by --stat and --numstat, not a binary file. Such a draft arrives
 * by another way than a batch (a fetched draft, one made before shadow
 * refused submodules): its commit is made here with git's plumbing.
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { both, DRAFT, sameAsGit } from './helpers/diff-as-git.js';

const OLD_SUB = '1'.repeat(40);
const NEW_SUB = '2'.repeat(40);
const ADDED_SUB = '3'.repeat(40);
const TYPED_SUB = '4'.repeat(40);

const Types = suite<{ repo: DiskRepo }>('shadow diff writes changes of type and submodules as git diff does');

Types.before.each(async (ctx) => {
  const repo = new DiskRepo({ 'to-link.txt': 'a\n', 'to-sub.txt': 'f\n', 'keep.txt': 'k\n' });
  ctx.repo = repo;
  symlinkSync('to-link.txt', join(repo.dir, 'from-link'));
  repo.git('add', '-A');
  // Submodules in HEAD: gitlinks with no checkout, as a clone without --recurse-submodules has them.
  for (const [path, oid] of [
    ['moved-sub', OLD_SUB],
    ['gone-sub', OLD_SUB],
    ['sub-to-file', OLD_SUB],
  ] as const)
    repo.git('update-index', '--add', '--cacheinfo', `160000,${oid},${path}`);
  repo.git('commit', '-q', '-m', 'files, a symlink and submodules');
  await withShadow(repo, async (sh) => {
    const r = await sh.batch({ operations: [{ operation: 'write', path: 'keep.txt', content: 'kept\n' }] });
    assert.ok(r.success, JSON.stringify(r.error));
  });
  // The draft's next commit, by plumbing: each kind of change of type, and submodules added, moved and removed.
  const index = { ...repo.env, GIT_INDEX_FILE: join(repo.root, 'plumbing-index') };
  const git = (...args: string[]): string => {
    const saved = repo.env;
    repo.env = index;
    try {
      return repo.git(...args).trim();
    } finally {
      repo.env = saved;
    }
  };
  git('read-tree', DRAFT);
  let blobs = 0;
  const blob = (text: string): string => {
    const file = join(repo.root, `blob-${blobs++}`);
    writeFileSync(file, text);
    return git('hash-object', '-w', file);
  };
  for (const path of ['to-link.txt', 'to-sub.txt', 'from-link', 'moved-sub', 'gone-sub', 'sub-to-file'])
    git('update-index', '--force-remove', path);
  const entries: Array<[string, string, string]> = [
    ['120000', blob('keep.txt'), 'to-link.txt'],
    ['160000', TYPED_SUB, 'to-sub.txt'],
    ['100644', blob('was a link\n'), 'from-link'],
    ['160000', NEW_SUB, 'moved-sub'],
    ['160000', ADDED_SUB, 'added-sub'],
    ['100644', blob('was a submodule\n'), 'sub-to-file'],
  ];
  for (const [mode, oid, path] of entries) git('update-index', '--add', '--cacheinfo', `${mode},${oid},${path}`);
  const commit = git('commit-tree', git('write-tree'), '-p', DRAFT, '-m', 'by plumbing');
  repo.git('update-ref', DRAFT, commit);
});

Types.after.each(({ repo }) => repo.cleanup());

Types(
  'the patch, coloured, reversed and with no context; --stat, --numstat, --shortstat, --name-status',
  ({ repo }) => {
    sameAsGit(repo, [
      [],
      ['--color=always'],
      ['-R'],
      ['-R', '--color=always'],
      ['-U0'],
      ['--stat'],
      ['--numstat'],
      ['--shortstat'],
      ['--name-status'],
    ]);
    const { ours } = both(repo, []);
    assert.match(
      ours,
      'diff --git a/to-sub.txt b/to-sub.txt\ndeleted file mode 100644\nindex 6a69f92..0000000\n--- a/to-sub.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-f\n' +
        `diff --git a/to-sub.txt b/to-sub.txt\nnew file mode 160000\nindex 0000000..${TYPED_SUB.slice(0, 7)}\n--- /dev/null\n+++ b/to-sub.txt\n@@ -0,0 +1 @@\n+Subproject commit ${TYPED_SUB}\n`,
    );
    assert.match(
      ours,
      `index ${OLD_SUB.slice(0, 7)}..${NEW_SUB.slice(0, 7)} 160000\n--- a/moved-sub\n+++ b/moved-sub\n@@ -1 +1 @@\n-Subproject commit ${OLD_SUB}\n+Subproject commit ${NEW_SUB}\n`,
    );
    assert.not.match(ours, 'Binary files');
    assert.match(both(repo, ['--numstat']).ours, /^1\t1\tmoved-sub$/m);
  },
);

Types.run();
