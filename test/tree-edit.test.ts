import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EMPTY_TREE_OID, MODE, parseTree, serializeTree } from '../src/git/format/git-objects.js';
import { editTree } from '../src/git/format/tree-edit.js';
import { lookupPath, type FileEntry } from '../src/git/format/tree-lookup.js';
import { edit, MemStore, type Spec } from './helpers/mem-tree-store.js';

/*
 * editTree on an in-memory store: the trees an edit writes, and the
 * changes that cannot make a valid tree.
 */

const f = (content: string): string => `100644 ${content}`;

function expectInternal(fn: () => unknown, message: string | RegExp): void {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  if (thrown === undefined) assert.unreachable(`expected INTERNAL "${String(message)}", but the edit succeeded`);
  const err = thrown as { code?: string; message: string };
  assert.is(err.code, 'INTERNAL', err.message);
  if (typeof message === 'string') assert.is(err.message, message);
  else assert.match(err.message, message);
}

// ---------------------------------------------------------------- editTree

const EditTree = suite('editTree');

EditTree('adds a deep path, writing exactly the trees on it', () => {
  const s = new MemStore();
  const root = s.build({ 'README.md': 'hi\n', src: { 'a.ts': 'a\n' } });
  const srcBefore = s.treeAt(root, 'src');
  const out = edit(s, root, [['x/y/z/deep.txt', s.entry('deep\n')]]);
  assert.is(out.trees.length, 4, 'root, x, x/y and x/y/z');
  assert.is(out.trees.at(-1)!.oid, out.root, 'the root comes last, after its children');
  assert.equal(s.files(out.root), { 'README.md': f('hi\n'), 'src/a.ts': f('a\n'), 'x/y/z/deep.txt': f('deep\n') });
  assert.is(s.treeAt(out.root, 'src'), srcBefore);
  // The result is the tree git would build for the same files.
  assert.is(
    out.root,
    s.build({ 'README.md': 'hi\n', src: { 'a.ts': 'a\n' }, x: { y: { z: { 'deep.txt': 'deep\n' } } } }),
  );
});

EditTree('unchanged trees are not re-emitted', () => {
  const s = new MemStore();
  const root = s.build({ lib: { 'l.ts': 'l' }, src: { 'a.ts': 'a', inner: { 'b.ts': 'b' } }, 'top.txt': 't' });
  const out = edit(s, root, [['src/a.ts', s.entry('A')]]);
  assert.equal(
    out.trees.map((t) => t.oid),
    [s.treeAt(out.root, 'src'), out.root],
  );
  assert.is(s.treeAt(out.root, 'lib'), s.treeAt(root, 'lib'));
  assert.is(s.treeAt(out.root, 'src/inner'), s.treeAt(root, 'src/inner'));

  // Writing what is already there changes nothing at all.
  const same = editTree(s, root, new Map([['src/inner/b.ts', s.entry('b')]]));
  assert.equal(same, { root, trees: [] });
  const none = editTree(s, root, new Map());
  assert.equal(none, { root, trees: [] });
});

EditTree('deleting the last file of nested directories removes them', () => {
  const s = new MemStore();
  const root = s.build({ keep: 'k', a: { b: { 'c.txt': 'c' } } });
  const out = edit(s, root, [['a/b/c.txt', null]]);
  assert.equal(s.files(out.root), { keep: f('k') });
  assert.is(out.trees.length, 1);
  assert.equal(
    s.readTree(out.root).map((e) => e.name),
    ['keep'],
  );

  const root2 = s.build({ a: { b: { 'c.txt': 'c' }, 'd.txt': 'd' } });
  const out2 = edit(s, root2, [['a/b/c.txt', null]]);
  assert.equal(s.files(out2.root), { 'a/d.txt': f('d') });
  assert.equal(
    s.readTree(s.treeAt(out2.root, 'a')!).map((e) => e.name),
    ['d.txt'],
  );
});

EditTree('deleting everything leaves the empty tree', () => {
  const s = new MemStore();
  const root = s.build({ 'a.txt': 'a', d: { e: { 'f.txt': 'f' } } });
  const out = edit(s, root, [
    ['a.txt', null],
    ['d/e/f.txt', null],
  ]);
  assert.is(out.root, EMPTY_TREE_OID);
  assert.equal(out.trees, [{ oid: EMPTY_TREE_OID, content: Buffer.alloc(0), entries: [] }]);

  // And files can be added to the empty tree.
  const again = edit(s, EMPTY_TREE_OID, [['n/new.txt', s.entry('new')]]);
  assert.equal(s.files(again.root), { 'n/new.txt': f('new') });
});

EditTree('a deleted file can become a directory of the same name, in either order', () => {
  for (const order of ['delete first', 'create first']) {
    const s = new MemStore();
    const root = s.build({ x: 'I was a file', y: 'y' });
    const changes: Array<[string, FileEntry | null]> = [
      ['x', null],
      ['x/inner.txt', s.entry('now a dir')],
    ];
    if (order === 'create first') changes.reverse();
    const out = edit(s, root, changes);
    assert.equal(s.files(out.root), { 'x/inner.txt': f('now a dir'), y: f('y') }, order);
    assert.is(lookupPath(s, out.root, 'x').kind, 'dir', order);
  }
});

EditTree('a directory whose files were all deleted can become a file', () => {
  const cases: Array<[string, Spec, Array<[string, null]>]> = [
    [
      'flat',
      { d: { a: 'a', b: 'b' }, e: 'e' },
      [
        ['d/a', null],
        ['d/b', null],
      ],
    ],
    ['nested', { d: { sub: { a: 'a' } }, e: 'e' }, [['d/sub/a', null]]],
  ];
  for (const [label, spec, deletions] of cases) {
    for (const order of ['deletions first', 'file first']) {
      const s = new MemStore();
      const root = s.build(spec);
      const changes: Array<[string, FileEntry | null]> = [...deletions, ['d', s.entry('now a file')]];
      if (order === 'file first') changes.reverse();
      const out = edit(s, root, changes);
      assert.equal(s.files(out.root), { d: f('now a file'), e: f('e') }, `${label}, ${order}`);
    }
  }
});

EditTree('changes that cannot make a valid tree are INTERNAL errors', () => {
  const s = new MemStore();
  const root = s.build({ d: { a: 'a', b: 'b' }, file: 'f' });
  expectInternal(
    () => editTree(s, root, new Map([['d', s.entry('x')]])),
    /replaces the non-empty directory d with a file/,
  );
  expectInternal(
    () =>
      editTree(
        s,
        root,
        new Map([
          ['d', s.entry('x')],
          ['d/c', s.entry('c')],
        ]),
      ),
    'tree edit puts both a file and a directory at d',
  );
  expectInternal(
    () => editTree(s, root, new Map([['file/below', s.entry('x')]])),
    'tree edit writes below the file file',
  );
});

EditTree('replacing a directory with a file while a file remains under it is refused, not a silent loss', () => {
  const s = new MemStore();
  const root = s.build({ d: { a: 'a', b: 'b' }, file: 'f' });
  // d/b is neither deleted nor kept by these changes: dropping it would lose a file.
  expectInternal(
    () =>
      editTree(
        s,
        root,
        new Map<string, FileEntry | null>([
          ['d/a', null],
          ['d', s.entry('x')],
        ]),
      ),
    /\b(directory|at) d\b/,
  );
});

EditTree('keeps git tree order: "a.b" before the tree "a", "a" before "a0"', () => {
  const s = new MemStore();
  const hello = 'hello\n';
  const root = s.build({ 'a-b': hello, a0: hello });
  const out = edit(s, root, [
    ['a/x', s.entry('')],
    ['a.b', s.entry(hello)],
  ]);
  assert.equal(
    s.readTree(out.root).map((e) => e.name),
    ['a-b', 'a.b', 'a', 'a0'],
  );
  assert.is(out.root, 'a0df6b2cf90fc61c96e9327dd0386e36a62bd186', 'the id git mktree gives');
});

EditTree('mode changes rewrite the entry in place', () => {
  const s = new MemStore();
  const root = s.build({ bin: { 'run.sh': 'echo\n' } });
  const out = edit(s, root, [['bin/run.sh', s.entry('echo\n', MODE.executable)]]);
  assert.equal(s.files(out.root), { 'bin/run.sh': `100755 echo\n` });
  assert.is(out.trees.length, 2);
});

EditTree('an entry whose name is not UTF-8 survives edits of its tree byte-exact', () => {
  const s = new MemStore();
  const hello = s.blob('hello\n');
  const raw = (name: Buffer): Buffer =>
    Buffer.concat([Buffer.from('100644 '), name, Buffer.from([0]), Buffer.from(hello, 'hex')]);
  const rawName = Buffer.from([0xff, 0x66]);
  const sub = s.putRaw(Buffer.concat([raw(Buffer.from('café')), raw(Buffer.from('z')), raw(rawName)]));
  const withSub = s.putRaw(serializeTree([{ mode: MODE.tree, name: 'dir', oid: sub }]));

  const out = edit(s, withSub, [
    ['dir/zz', s.entry('zz')],
    ['dir/z', s.entry('changed')],
    ['dir/ÿf', s.entry('a different, UTF-8 name')], // U+00FF is c3 bf in UTF-8, not ff
  ]);
  const dirOid = s.treeAt(out.root, 'dir')!;
  const tree = out.trees.find((t) => t.oid === dirOid)!;
  const entries = parseTree(tree.content);
  assert.equal(
    entries.map((e) => e.name),
    ['café', 'z', 'zz', 'ÿf', '\xff\x66'],
  );
  const kept = entries.at(-1)!;
  assert.equal([...kept.nameBytes!], [0xff, 0x66]);
  assert.is(kept.oid, hello);
  assert.ok(tree.content.includes(raw(rawName)), 'the raw entry bytes changed');

  const removed = edit(s, out.root, [['dir/café', null]]);
  const dirAfter = removed.trees.find((t) => t.oid === s.treeAt(removed.root, 'dir'))!;
  const after = parseTree(dirAfter.content);
  assert.equal(
    after.map((e) => e.name),
    ['z', 'zz', 'ÿf', '\xff\x66'],
  );
  assert.equal([...after.at(-1)!.nameBytes!], [0xff, 0x66]);
  assert.ok(dirAfter.content.includes(raw(rawName)));
});

EditTree.run();
