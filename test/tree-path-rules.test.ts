import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pathProblem } from '../src/core/path-rules.js';
import { isNtfsDotGit, treePathProblem } from '../src/core/tree-path-rules.js';
import { entriesProblem } from '../src/drafts/path-gate.js';
import { GIT_ACCEPTS, GIT_REFUSES, SHADOW_REFUSES } from './helpers/hostile-paths.js';

const Rules = suite('treePathProblem');

const show = (p: string): string => JSON.stringify(p);

Rules('refuses every entry git refuses to check out, with a reason', () => {
  for (const c of [...GIT_REFUSES, ...SHADOW_REFUSES]) {
    const reason = treePathProblem(c.path, c.mode);
    assert.type(reason, 'string', `${show(c.path)} ${c.mode} should be refused`);
  }
});

Rules('accepts the look-alikes git checks out', () => {
  for (const c of GIT_ACCEPTS)
    assert.is(treePathProblem(c.path, c.mode), undefined, `${show(c.path)} ${c.mode} should be accepted`);
});

Rules('a symlinked dotfile is refused, the same name as a file is not', () => {
  for (const name of [
    '.gitmodules',
    '.gitattributes',
    '.gitignore',
    '.mailmap',
    'GITMOD~1',
    'gi7eba~9',
    'gi250a~1',
    'maba30~2',
  ]) {
    assert.type(treePathProblem(name, '120000'), 'string', `${name} as a symlink`);
    assert.is(treePathProblem(name, '100644'), undefined, `${name} as a file`);
  }
});

Rules('is_ntfs_dotgit: .git or git~1, then dots and spaces, then an end, a separator or a stream', () => {
  const yes = [
    '.git',
    '.GIT',
    '.git.',
    '.git. . ',
    '.git/x',
    '.git\\x',
    '.git:x',
    '.git::$INDEX_ALLOCATION',
    'git~1',
    'GIT~1 .',
    'git~1:y',
  ];
  const no = ['.gitx', '.git.x', '.git~1', 'git~2', 'git~10', 'git~1x', '.gi', 'git', ''];
  for (const n of yes) assert.ok(isNtfsDotGit(n), n);
  for (const n of no) assert.not.ok(isNtfsDotGit(n), n);
});

Rules('a batch path check refuses everything a tree may not hold', () => {
  // pathProblem is stricter (backslashes, drive letters, controls): never looser.
  for (const c of [...GIT_REFUSES, ...SHADOW_REFUSES].filter((c) => c.mode !== '120000')) {
    assert.type(pathProblem(c.path), 'string', `the batch check should refuse ${show(c.path)}`);
  }
  for (const p of [
    '.git:foo',
    '.git::$INDEX_ALLOCATION/config',
    'git~1:stream',
    '.shadow-worktree',
    'sub/.SHADOW-WORKTREE',
  ]) {
    assert.type(pathProblem(p), 'string', show(p));
  }
});

const Entries = suite('entriesProblem');

Entries('a file beyond a symlink the same set makes is refused, whatever the order', () => {
  const link = { path: 'a', old: null, new: { mode: '120000', oid: '1'.repeat(40) } };
  const file = { path: 'a/x', old: null, new: { mode: '100644', oid: '2'.repeat(40) } };
  for (const set of [
    [link, file],
    [file, link],
  ]) {
    const p = entriesProblem(set);
    assert.is(p?.path, 'a/x');
    assert.match(p!.reason, /symbolic link a/);
  }
  // A symlink replaced by a directory is fine: the file goes where the link was.
  assert.is(entriesProblem([{ path: 'a', old: link.new, new: null }, file]), undefined);
});

Entries('a delete of a path git refuses is refused too (the old side counts)', () => {
  const p = entriesProblem([{ path: '.git/config', old: { mode: '100644', oid: '3'.repeat(40) }, new: null }]);
  assert.is(p?.path, '.git/config');
});

Rules.run();
Entries.run();
