import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EMPTY_TREE_OID, MODE } from '../src/git/format/git-objects.js';
import { diffTrees, type FileChange } from '../src/git/format/tree-diff.js';
import type { FileEntry } from '../src/git/format/tree-lookup.js';
import { edit, F, MemStore, type Spec } from './helpers/mem-tree-store.js';

/*
 * diffTrees on an in-memory store: only what changed, in git path order,
 * and in agreement with editTree.
 */

// ---------------------------------------------------------------- diffTrees

const DiffTrees = suite('diffTrees');

const simplify = (changes: FileChange[]): Array<[string, string | null, string | null]> =>
  changes.map((c) => [
    c.path,
    c.old ? `${c.old.mode}:${c.old.oid.slice(0, 7)}` : null,
    c.new ? `${c.new.mode}:${c.new.oid.slice(0, 7)}` : null,
  ]);

DiffTrees('reports only changed files and never opens identical subtrees', () => {
  const s = new MemStore();
  const big: Spec = {};
  for (let i = 0; i < 50; i++) big[`f${i}.txt`] = `content ${i}`;
  const a = s.build({
    big,
    src: { 'a.ts': 'a', 'b.ts': 'b', deep: { 'c.ts': 'c' } },
    'top.txt': 'top',
    gone: { 'g.txt': 'g' },
  });
  const b = s.build({ big, src: { 'a.ts': 'A', 'b.ts': 'b', deep: { 'c.ts': 'c' }, 'new.ts': 'n' }, 'top.txt': 'top' });
  s.reads = [];
  const changes = diffTrees(s, a, b);
  const e = (content: string): string => `100644:${s.blob(content).slice(0, 7)}`;
  assert.equal(simplify(changes), [
    ['gone/g.txt', e('g'), null],
    ['src/a.ts', e('a'), e('A')],
    ['src/new.ts', null, e('n')],
  ]);
  const bigOid = s.treeAt(a, 'big')!;
  const deepOid = s.treeAt(a, 'src/deep')!;
  s.reads = [];
  diffTrees(s, a, b);
  assert.not.ok(s.reads.includes(bigOid), 'the identical subtree "big" was read');
  assert.not.ok(s.reads.includes(deepOid), 'the identical subtree "src/deep" was read');
  s.reads = [];
  assert.equal(diffTrees(s, a, a), []);
  assert.equal(s.reads, [], 'identical roots need no read');
});

DiffTrees('from nothing or from the empty tree, every file is added', () => {
  const s = new MemStore();
  const b = s.build({ 'x.txt': 'x', d: { 'y.txt': 'y' } });
  for (const from of [null, EMPTY_TREE_OID]) {
    const changes = diffTrees(s, from, b);
    assert.equal(
      changes.map((c) => [c.path, c.old, c.new?.oid]),
      [
        ['d/y.txt', null, s.blob('y')],
        ['x.txt', null, s.blob('x')],
      ],
    );
  }
  assert.equal(
    diffTrees(s, b, null).map((c) => [c.path, c.old?.oid, c.new]),
    [
      ['d/y.txt', s.blob('y'), null],
      ['x.txt', s.blob('x'), null],
    ],
  );
});

DiffTrees('a file that became a directory and the reverse; mode-only changes', () => {
  const s = new MemStore();
  const a = s.build({ p: 'file p', q: { 'inner.txt': 'i' }, 'run.sh': 'echo' });
  const b = s.build({ p: { 'child.txt': 'c' }, q: 'file q', 'run.sh': new F('echo', MODE.executable) });
  const changes = diffTrees(s, a, b);
  const byPath = new Map(changes.map((c) => [c.path, c]));
  assert.equal([...byPath.keys()].sort(), ['p', 'p/child.txt', 'q', 'q/inner.txt', 'run.sh']);
  assert.equal(byPath.get('p'), { path: 'p', old: { mode: MODE.file, oid: s.blob('file p') }, new: null });
  assert.equal(byPath.get('p/child.txt'), {
    path: 'p/child.txt',
    old: null,
    new: { mode: MODE.file, oid: s.blob('c') },
  });
  assert.equal(byPath.get('q'), { path: 'q', old: null, new: { mode: MODE.file, oid: s.blob('file q') } });
  assert.equal(byPath.get('q/inner.txt'), {
    path: 'q/inner.txt',
    old: { mode: MODE.file, oid: s.blob('i') },
    new: null,
  });
  assert.equal(byPath.get('run.sh'), {
    path: 'run.sh',
    old: { mode: MODE.file, oid: s.blob('echo') },
    new: { mode: MODE.executable, oid: s.blob('echo') },
  });
});

DiffTrees('lists changes in git path order and honours a prefix', () => {
  const s = new MemStore();
  const a = s.build({});
  const b = s.build({ a0: '1', 'a.b': '2', a: { x: '3' }, 'a-b': '4' });
  assert.equal(
    diffTrees(s, a, b).map((c) => c.path),
    ['a-b', 'a.b', 'a/x', 'a0'],
  );
  assert.equal(
    diffTrees(s, a, b, 'sub/').map((c) => c.path),
    ['sub/a-b', 'sub/a.b', 'sub/a/x', 'sub/a0'],
  );
});

DiffTrees('agrees with editTree: the diff of an edit is the edit', () => {
  const s = new MemStore();
  const root = s.build({ a: { b: { c: 'c', d: 'd' } }, e: 'e', f: { g: 'g' } });
  const changes: Array<[string, FileEntry | null]> = [
    ['a/b/c', null],
    ['a/b/new', s.entry('new')],
    ['e', s.entry('E')],
    ['f/g', null],
    ['h/i/j', s.entry('j')],
  ];
  const out = edit(s, root, changes);
  const diff = diffTrees(s, root, out.root);
  assert.equal(
    diff.map((c) => [c.path, c.new]),
    [...changes].sort((x, y) => (x[0] < y[0] ? -1 : 1)),
  );
});

DiffTrees.run();
