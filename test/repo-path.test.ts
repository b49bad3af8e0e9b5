import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { repoPath, type PathBase } from '../cli/repo-path.js';
import { isShadowError } from '../src/index.js';

/**
 * The repository path a command-line path names, from where the command
 * stands: pure, no disk. test/cli-paths.test.ts holds the same rules
 * against native git from real directories.
 */

const ROOT = '/work/repo';
const at = (cwd: string, top: string | null = ROOT, gitDirs: string[] = [`${ROOT}/.git`]): PathBase => ({
  cwd,
  top,
  gitDirs,
});
const DEEP = at(`${ROOT}/src/deep`);

function refusal(arg: string, base: PathBase): { message: string; hint: string; data: Record<string, unknown> } {
  try {
    repoPath(arg, base);
  } catch (e) {
    assert.ok(isShadowError(e), `${arg}: a ShadowError, not ${String(e)}`);
    assert.is(e.code, 'INVALID_PATH', `${arg}: ${e.message}`);
    assert.type(e.hint, 'string', `${arg}: a hint says what to do`);
    assert.is(e.data?.path, arg, `${arg}: the error names the path as typed`);
    return { message: e.message, hint: e.hint!, data: { ...e.data } };
  }
  assert.unreachable(`${arg} should be refused`);
  throw new Error('unreachable');
}

const Relative = suite('repoPath: relative to the current directory');

const NAMED: Array<[string, PathBase, string]> = [
  ['new.txt', DEEP, 'src/deep/new.txt'],
  ['./new.txt', DEEP, 'src/deep/new.txt'],
  ['.//a//b/', DEEP, 'src/deep/a/b'],
  ['../x', DEEP, 'src/x'],
  ['../../x', DEEP, 'x'],
  ['a/../../y', DEEP, 'src/y'],
  ['.', DEEP, 'src/deep'],
  ['..', DEEP, 'src'],
  ['../..', DEEP, ''],
  ['x', at(ROOT), 'x'],
  ['.', at(ROOT), ''],
  ['x', at(`${ROOT}/`), 'x'],
];

Relative('a relative path is joined to the directory the command stands in, . and .. resolved', () => {
  for (const [arg, base, expected] of NAMED) assert.is(repoPath(arg, base), expected, `${arg} from ${base.cwd}`);
});

Relative('a working tree at the file system root has no prefix to strip', () => {
  assert.is(repoPath('k.txt', at('/src', '/', ['/.git'])), 'src/k.txt');
  assert.is(repoPath('/src/k.txt', at('/', '/', ['/.git'])), 'src/k.txt');
});

Relative('a path that climbs out of the working tree is refused as outside the repository', () => {
  for (const [arg, base] of [
    ['../../../x', DEEP],
    ['..', at(ROOT)],
    ['a/../../..', at(`${ROOT}/src`)],
    ['../repo2/x', at(ROOT)],
  ] as const) {
    const r = refusal(arg, base);
    assert.match(r.message, /is outside the repository at \/work\/repo$/, arg);
    assert.is(r.data.top, ROOT);
  }
});

Relative('an empty path is refused: it names nothing', () => {
  assert.match(refusal('', DEEP).hint, /:\//);
});

const Magic = suite('repoPath: git pathspec magic');

Magic(':/ and :(top) name a path from the root, wherever the command stands', () => {
  for (const [arg, expected] of [
    [':/x', 'x'],
    [':/src/x', 'src/x'],
    [':/', ''],
    [':/:x', 'x'],
    [':(top)x', 'x'],
    [':(top,literal)a/b', 'a/b'],
    [':(literal,top)a', 'a'],
    [':/a/../b', 'b'],
  ]) {
    assert.is(repoPath(arg!, DEEP), expected, arg);
  }
});

Magic('a colon with no magic after it is dropped, as git drops it: the path stays relative', () => {
  assert.is(repoPath(':x', DEEP), 'src/deep/x');
  assert.is(repoPath('::x', DEEP), 'src/deep/x');
  assert.is(repoPath(':(literal)x', DEEP), 'src/deep/x');
  assert.is(repoPath('./:x', DEEP), 'src/deep/:x');
});

Magic('magic that selects a set of files (exclude, glob, icase, attr) is refused', () => {
  for (const arg of [':!x', ':^x', ':/!x', ':(exclude)x', ':(glob)*.ts', ':(icase)x', ':(attr:foo)x']) {
    assert.match(refusal(arg, DEEP).message, /pathspec magic/, arg);
  }
  assert.match(refusal(':(top', DEEP).message, /never closes/);
});

Magic(':/ cannot climb above the root either', () => {
  assert.match(refusal(':/../x', DEEP).message, /outside the repository/);
});

const Absolute = suite('repoPath: absolute paths');

Absolute('an absolute path inside the working tree is made relative to its root', () => {
  for (const [arg, expected] of [
    [`${ROOT}/src/a.ts`, 'src/a.ts'],
    [`${ROOT}/src/deep/../b.ts`, 'src/b.ts'],
    [`${ROOT}/`, ''],
    [ROOT, ''],
    [`/work/other/../repo/c`, 'c'],
    [`/../work/repo/d`, 'd'],
  ]) {
    assert.is(repoPath(arg!, DEEP), expected, arg);
  }
});

Absolute('an absolute path outside the working tree is refused, a sibling with the same prefix included', () => {
  for (const arg of ['/etc/passwd', '/work/repository/x', '/work', `${ROOT}/../x`, '/']) {
    assert.match(refusal(arg, DEEP).message, /is outside the repository at \/work\/repo$/, arg);
  }
});

const Places = suite('repoPath: where there is no place in the working tree');

Places('inside the git directory a relative path is refused; :/ and absolute paths still name the path', () => {
  for (const cwd of [`${ROOT}/.git`, `${ROOT}/.git/refs/heads`]) {
    const r = refusal('a.txt', at(cwd));
    assert.match(r.message, /inside the git directory/);
    assert.match(r.hint, /:\/<path>/);
    assert.is(r.data.cwd, cwd);
    assert.is(repoPath(':/a.txt', at(cwd)), 'a.txt');
    assert.is(repoPath(`${ROOT}/src/a.txt`, at(cwd)), 'src/a.txt');
  }
});

Places("a linked worktree's git dir and the common dir count as git directories too", () => {
  const linked = at('/work/repo/.git/worktrees/w/logs', '/work/w', ['/work/repo/.git/worktrees/w', '/work/repo/.git']);
  assert.match(refusal('a', linked).message, /inside the git directory/);
  const common = at('/work/repo/.git/objects', '/work/w', ['/work/repo/.git/worktrees/w', '/work/repo/.git']);
  assert.match(refusal('a', common).message, /inside the git directory/);
  assert.is(repoPath('a', at('/work/w/sub', '/work/w', ['/work/repo/.git/worktrees/w', '/work/repo/.git'])), 'sub/a');
});

Places('a directory that merely starts like .git is part of the working tree', () => {
  assert.is(repoPath('a', at(`${ROOT}/.github`)), '.github/a');
});

Places('outside the working tree (GIT_WORK_TREE elsewhere) paths are from the root, as git reads them there', () => {
  assert.is(repoPath('src/a', at('/elsewhere/sub')), 'src/a');
  assert.is(repoPath('./a/../b', at('/elsewhere')), 'b');
  assert.match(refusal('../x', at('/elsewhere')).message, /outside the repository/);
});

Places('a bare repository: paths are from the root; an absolute path has no working tree to be in', () => {
  const bare = at('/work/bare.git/refs', null, ['/work/bare.git']);
  assert.is(repoPath('src/a', bare), 'src/a');
  assert.is(repoPath(':/src/a', bare), 'src/a');
  assert.match(refusal('..', bare).message, /^"\.\." is outside the repository$/);
  assert.match(refusal('/work/bare.git/x', bare).message, /no working tree/);
});

Relative.run();
Magic.run();
Absolute.run();
Places.run();
