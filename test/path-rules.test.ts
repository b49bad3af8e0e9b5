import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  basename,
  dirname,
  isInside,
  MAX_NAME_BYTES,
  MAX_PATH_BYTES,
  parentDirs,
  pathProblem,
} from '../src/core/path-rules.js';
import { checkpointNameProblem, checkpointRef, draftRef } from '../src/drafts/ref-names.js';
import { refComponentProblem } from '../src/core/ref-component.js';

// ---------------------------------------------------------------- pathProblem

const PathProblem = suite('pathProblem');

/** A path of exactly `bytes` UTF-8 bytes, made of components no longer than 255. */
function pathOfBytes(bytes: number): string {
  const parts: string[] = [];
  let left = bytes;
  while (left > 0) {
    const take = Math.min(200, left);
    parts.push('p'.repeat(take));
    left -= take + 1;
  }
  let path = parts.join('/');
  // The last component absorbs any rounding so the total is exact.
  while (Buffer.byteLength(path) < bytes) path += 'q';
  return path.slice(0, bytes);
}

const ACCEPTED = [
  'a',
  'README.md',
  'src/deep/er/file.ts',
  '.gitignore',
  '.github/workflows/ci.yml',
  '.gitmodules',
  'git',
  'a.git',
  '.gitx/y',
  'git~2',
  '...',
  'a..b',
  '.hidden/..dots',
  'with space/and-dash_under.score',
  'ünïcödé/文件.txt',
  'emoji/😀.md',
  'x'.repeat(MAX_NAME_BYTES),
  'é'.repeat(127), // 254 bytes
  pathOfBytes(MAX_PATH_BYTES),
];

PathProblem('accepts ordinary relative paths, up to the byte limits', () => {
  for (const path of ACCEPTED) {
    assert.is(pathProblem(path), undefined, `expected ${JSON.stringify(path.slice(0, 60))} to be accepted`);
  }
  assert.is(Buffer.byteLength(pathOfBytes(MAX_PATH_BYTES)), 4096);
});

const REFUSED: Array<[string, string | RegExp]> = [
  ['', 'the path is empty'],
  ['/etc/passwd', 'the path is absolute; give it relative to the repository root'],
  ['/', 'the path is absolute; give it relative to the repository root'],
  ['C:/Windows/x', 'the path has a drive letter; give it relative to the repository root'],
  ['c:x', 'the path has a drive letter; give it relative to the repository root'],
  ['a\0b', 'the path contains a NUL byte at index 1'],
  ['\0', 'the path contains a NUL byte at index 0'],
  ['a/b\nc', 'the path contains the control character U+000a at index 3'],
  ['tab\there', 'the path contains the control character U+0009 at index 3'],
  ['esc\x1b', 'the path contains the control character U+001b at index 3'],
  ['del\x7f', 'the path contains the control character U+007f at index 3'],
  ['cr\r', 'the path contains the control character U+000d at index 2'],
  ['a\\b', 'the path contains a backslash; use forward slashes'],
  ['..\\x', 'the path contains a backslash; use forward slashes'],
  ['a\ud800b', 'the path contains a lone surrogate at index 1'],
  ['a/\udc00', 'the path contains a lone surrogate at index 2'],
  ['😀\ud83d', 'the path contains a lone surrogate at index 2'],
  ['a//b', 'the path has an empty segment (a doubled or trailing slash)'],
  ['a/', 'the path has an empty segment (a doubled or trailing slash)'],
  ['./a', 'the path has a "." segment; give the path without it'],
  ['a/./b', 'the path has a "." segment; give the path without it'],
  ['.', 'the path has a "." segment; give the path without it'],
  ['..', 'the path has a ".." segment; give the path without it'],
  ['../x', 'the path has a ".." segment; give the path without it'],
  ['a/../../b', 'the path has a ".." segment; give the path without it'],
  ['a/b/..', 'the path has a ".." segment; give the path without it'],
  ['.git', 'the path goes into .git, which shadow never writes'],
  ['.git/config', 'the path goes into .git, which shadow never writes'],
  ['.GIT/HEAD', 'the path goes into .git, which shadow never writes'],
  ['.Git/hooks/pre-commit', 'the path goes into .git, which shadow never writes'],
  ['a/.git/b', 'the path goes into .git, which shadow never writes'],
  ['sub/module/.git', 'the path goes into .git, which shadow never writes'],
  ['.git./x', 'the path goes into .git, which shadow never writes'],
  ['.git.../x', 'the path goes into .git, which shadow never writes'],
  ['.git /x', 'the path goes into .git, which shadow never writes'],
  ['.git . /x', 'the path goes into .git, which shadow never writes'],
  ['git~1/x', 'the path goes into .git, which shadow never writes'],
  ['GIT~1/config', 'the path goes into .git, which shadow never writes'],
  ['.g\u200cit/config', 'the path goes into .git, which shadow never writes'],
  ['\ufeff.git/config', 'the path goes into .git, which shadow never writes'],
  ['.gi\u200dt', 'the path goes into .git, which shadow never writes'],
  [pathOfBytes(MAX_PATH_BYTES + 1), 'the path is longer than 4096 bytes'],
  ['a/'.repeat(3000) + 'b', 'the path is longer than 4096 bytes'],
  ['x'.repeat(MAX_NAME_BYTES + 1), 'a path component is longer than 255 bytes'],
  ['dir/' + 'é'.repeat(128), 'a path component is longer than 255 bytes'], // 128 characters, 256 bytes
  ['dir/' + '文'.repeat(86) + '/f', 'a path component is longer than 255 bytes'], // 258 bytes
];

PathProblem('refuses every bad path with the reason', () => {
  for (const [path, expected] of REFUSED) {
    const problem = pathProblem(path);
    const label = JSON.stringify(path.length > 60 ? `${path.slice(0, 60)}…` : path);
    if (typeof expected === 'string') assert.is(problem, expected, `for ${label}`);
    else assert.match(problem ?? '', expected, `for ${label}`);
  }
});

PathProblem('the length limit counts UTF-8 bytes, not characters', () => {
  // 2,066 characters, most of them two bytes: 4,111 bytes.
  const path = Array.from({ length: 21 }, () => 'é'.repeat(97)).join('/') + '/' + 'é'.repeat(8);
  assert.ok(path.length < MAX_PATH_BYTES);
  assert.ok(Buffer.byteLength(path) > MAX_PATH_BYTES);
  assert.is(pathProblem(path), 'the path is longer than 4096 bytes');
});

PathProblem.run();

// ---------------------------------------------------------------- path helpers

const PathHelpers = suite('parentDirs, dirname, basename, isInside');

PathHelpers('parentDirs lists the ancestors, outermost first', () => {
  const cases: Array<[string, string[]]> = [
    ['a', []],
    ['a/b', ['a']],
    ['a/b/c', ['a', 'a/b']],
    ['src/core/deep/x.ts', ['src', 'src/core', 'src/core/deep']],
    ['ü/ñ/文', ['ü', 'ü/ñ']],
  ];
  for (const [path, expected] of cases) assert.equal(parentDirs(path), expected, path);
});

PathHelpers('dirname and basename split at the last slash', () => {
  const cases: Array<[string, string, string]> = [
    ['a', '', 'a'],
    ['a/b', 'a', 'b'],
    ['a/b/c.txt', 'a/b', 'c.txt'],
    ['.github/workflows/ci.yml', '.github/workflows', 'ci.yml'],
  ];
  for (const [path, dir, base] of cases) {
    assert.is(dirname(path), dir, `dirname(${path})`);
    assert.is(basename(path), base, `basename(${path})`);
  }
});

PathHelpers('isInside is strict and respects component boundaries', () => {
  const cases: Array<[string, string, boolean]> = [
    ['a/b', 'a', true],
    ['a/b/c', 'a', true],
    ['a/b/c', 'a/b', true],
    ['a', 'a', false],
    ['ab', 'a', false],
    ['ab/c', 'a', false],
    ['a/bc', 'a/b', false],
    ['a.b/c', 'a', false],
    ['b/a', 'a', false],
    ['a', '', true],
    ['a/b', '', true],
    ['', '', false],
  ];
  for (const [path, dir, expected] of cases)
    assert.is(isInside(path, dir), expected, `isInside(${JSON.stringify(path)}, ${JSON.stringify(dir)})`);
});

PathHelpers.run();

// ---------------------------------------------------------------- ref names

const RefNames = suite('refComponentProblem, checkpointNameProblem');

const GOOD_COMPONENTS = [
  'main',
  'default',
  'feature-x',
  'v1.2.3',
  'a_b',
  'fix#12',
  'ünïcödé',
  'a@b',
  'x'.repeat(200),
  'a.lock2',
  'lock',
  '123',
  'a-',
];

RefNames('accepts names that git check-ref-format accepts as one component', () => {
  for (const name of GOOD_COMPONENTS) assert.is(refComponentProblem(name), undefined, name);
});

const BAD_COMPONENTS: Array<[string, string]> = [
  ['', 'it is empty'],
  ['x'.repeat(201), 'it is longer than 200 bytes'],
  ['é'.repeat(101), 'it is longer than 200 bytes'],
  ['a/b', 'it contains "/"'],
  ['/a', 'it contains "/"'],
  ['.hidden', 'it starts with "."'],
  ['..', 'it starts with "."'],
  ['-rf', 'it starts with "-", which reads as a command-line flag'],
  ['name.', 'it ends with "."'],
  ['branch.lock', 'it ends with ".lock"'],
  ['a..b', 'it contains ".."'],
  ['a@{1}', 'it contains "@{"'],
  ['@', 'it is "@"'],
  ['tab\there', 'it contains a control character'],
  ['nul\0', 'it contains a control character'],
  ['del\x7f', 'it contains a control character'],
  ['with space', 'it contains " "'],
  ['a~1', 'it contains "~"'],
  ['a^', 'it contains "^"'],
  ['a:b', 'it contains ":"'],
  ['what?', 'it contains "?"'],
  ['glob*', 'it contains "*"'],
  ['a[0]', 'it contains "["'],
  ['back\\slash', 'it contains "\\"'],
];

RefNames('refuses what git check-ref-format refuses, saying why', () => {
  for (const [name, expected] of BAD_COMPONENTS) {
    assert.is(refComponentProblem(name), expected, JSON.stringify(name));
    // A checkpoint name follows the same rules first.
    assert.is(checkpointNameProblem(name), expected, `checkpoint ${JSON.stringify(name)}`);
  }
});

RefNames('checkpoint names may not read as rollback targets', () => {
  for (const name of ['1', '42', '007']) {
    assert.is(refComponentProblem(name), undefined, name);
    assert.is(
      checkpointNameProblem(name),
      'it is a plain number, which `shadow rollback` reads as a batch number',
      name,
    );
  }
  for (const name of ['~1', '~']) {
    const problem = checkpointNameProblem(name);
    assert.ok(problem !== undefined, `${name} must be refused`);
    assert.match(problem!, /~/);
  }
  for (const name of ['before-refactor', 'v2', '1a', 'a1', 'step-3'])
    assert.is(checkpointNameProblem(name), undefined, name);
});

RefNames('ref names are built under refs/shadow', () => {
  assert.is(draftRef('default'), 'refs/shadow/drafts/default');
  assert.is(checkpointRef('default', 'v1'), 'refs/shadow/checkpoints/default/v1');
});

RefNames.run();
