import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { literalPathspec, pathspecMatcher, pathspecProblem, unmatchedSpecs } from '../src/core/pathspec.js';

/* Pathspecs as apply takes them: files, directories, globs, and git's `:(literal)`. */

const PATHS = ['src/a.ts', 'src/lib/b.ts', 'docs/guide.md', 'w[1].txt', 'w1.txt', '.github/ci.yml', 'README.md'];
const matching = (...specs: string[]): string[] => PATHS.filter(pathspecMatcher(specs));

test('a file, a directory (with or without its slash), everything', () => {
  assert.equal(matching('src/a.ts'), ['src/a.ts']);
  assert.equal(matching('src'), ['src/a.ts', 'src/lib/b.ts']);
  assert.equal(matching('src/'), ['src/a.ts', 'src/lib/b.ts']);
  assert.equal(matching('.'), PATHS);
});

test('globs: * within a component, ** across, dot files included; a glob matching a directory takes what is below it', () => {
  assert.equal(matching('src/*.ts'), ['src/a.ts']);
  assert.equal(matching('src/**/*.ts'), ['src/a.ts', 'src/lib/b.ts']);
  assert.equal(matching('*/ci.yml'), ['.github/ci.yml']);
  assert.equal(matching('s*'), ['src/a.ts', 'src/lib/b.ts']);
  // As git ls-files -- 'w[1].txt' lists them: the class matches w1.txt, and the spec matches itself literally too.
  assert.equal(matching('w[1].txt'), ['w[1].txt', 'w1.txt']);
});

test(':(literal) takes the spec as it is, as git does', () => {
  assert.equal(matching(':(literal)w[1].txt'), ['w[1].txt']);
  assert.equal(matching(literalPathspec('w[1].txt')), ['w[1].txt']);
  assert.equal(matching(literalPathspec('src')), ['src/a.ts', 'src/lib/b.ts']);
  assert.equal(unmatchedSpecs([literalPathspec('nope*'), 'src'], PATHS), [':(literal)nope*']);
});

test('what a spec from the root may not be', () => {
  assert.is(pathspecProblem(''), 'is empty');
  assert.match(pathspecProblem('/etc/passwd')!, /absolute/);
  assert.match(pathspecProblem('C:/x')!, /absolute/);
  assert.match(pathspecProblem('a/../b')!, /\.\./);
  assert.is(pathspecProblem('src/**'), undefined);
});

test.run();
