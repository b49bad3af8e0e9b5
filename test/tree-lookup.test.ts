import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MODE } from '../src/git/format/git-objects.js';
import { findEntry, isRegularMode, lookupPath } from '../src/git/format/tree-lookup.js';
import { MemStore } from './helpers/mem-tree-store.js';

/*
 * tree-lookup: finding a path in git trees, and the modes of regular files.
 */

// ---------------------------------------------------------------- tree lookup

const Lookup = suite('tree-lookup');

Lookup('lookupPath walks trees; findEntry finds files and trees by name', () => {
  const s = new MemStore();
  const root = s.build({ a: { x: 'x' }, 'a.b': 'ab', a0: 'a0', f: 'f' });
  assert.is(lookupPath(s, root, 'a').kind, 'dir');
  assert.equal(lookupPath(s, root, 'a/x'), { kind: 'file', mode: MODE.file, oid: s.blob('x') });
  assert.equal(lookupPath(s, root, 'a.b'), { kind: 'file', mode: MODE.file, oid: s.blob('ab') });
  assert.equal(lookupPath(s, root, 'a/y'), { kind: 'absent' });
  assert.equal(lookupPath(s, root, 'f/g/h'), { kind: 'absent', blockedBy: 'f' });
  assert.equal(lookupPath(s, root, 'zz'), { kind: 'absent' });
  s.reads = [];
  lookupPath(s, root, 'a/x');
  assert.is(s.reads.length, 2, 'O(depth) tree reads');

  const entries = s.readTree(root);
  for (const name of ['a', 'a.b', 'a0', 'f']) assert.is(entries[findEntry(entries, name)]!.name, name);
  for (const name of ['', 'b', 'a.', 'a1', 'f0']) assert.is(findEntry(entries, name), -1, name);
  assert.is(findEntry([], 'a'), -1);
});

Lookup('isRegularMode accepts the modes of regular files only', () => {
  const cases: Array<[string, boolean]> = [
    ['100644', true],
    ['100755', true],
    ['100664', true],
    ['120000', false],
    ['160000', false],
    ['40000', false],
  ];
  for (const [mode, expected] of cases) assert.is(isRegularMode(mode), expected, mode);
});

Lookup.run();
