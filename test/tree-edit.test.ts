import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compareTreeEntries, EMPTY_TREE_OID, hashObject, MODE, parseTree, serializeTree, type Oid, type TreeEntry } from '../src/git/format/git-objects.js';
import { editTree, type NewTree } from '../src/git/format/tree-edit.js';
import { diffTrees, type FileChange } from '../src/git/format/tree-diff.js';
import { Overlay } from '../src/drafts/overlay.js';
import { findEntry, isRegularMode, lookupPath, type FileEntry, type TreeReader } from '../src/git/format/tree-lookup.js';

// ---------------------------------------------------------------- an in-memory object store

/** A file in a tree spec: content and mode. A plain string is a 100644 file. */
class F {
  constructor(
    readonly content: string | Buffer,
    readonly mode: string = MODE.file,
  ) {}
}
type Spec = { [name: string]: string | F | Spec };

/** Trees and blobs in memory; counts tree reads so tests can see what was visited. */
class MemStore implements TreeReader {
  readonly trees = new Map<Oid, TreeEntry[]>([[EMPTY_TREE_OID, []]]);
  readonly blobs = new Map<Oid, Buffer>();
  reads: Oid[] = [];

  readTree(oid: Oid): readonly TreeEntry[] {
    this.reads.push(oid);
    const t = this.trees.get(oid);
    if (!t) throw new Error(`tree ${oid} is not in the store`);
    return t;
  }

  blob(content: string | Buffer): Oid {
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    const oid = hashObject('blob', bytes);
    this.blobs.set(oid, bytes);
    return oid;
  }

  entry(content: string | Buffer, mode: string = MODE.file): FileEntry {
    return { mode, oid: this.blob(content) };
  }

  /** Store a tree from raw serialized content, as the object database would hold it. */
  putRaw(content: Buffer): Oid {
    const oid = hashObject('tree', content);
    this.trees.set(oid, parseTree(content, oid));
    return oid;
  }

  build(spec: Spec): Oid {
    const entries: TreeEntry[] = [];
    for (const [name, v] of Object.entries(spec)) {
      if (typeof v === 'string' || v instanceof F) {
        const f = typeof v === 'string' ? new F(v) : v;
        entries.push({ mode: f.mode, name, oid: this.blob(f.content) });
      } else {
        entries.push({ mode: MODE.tree, name, oid: this.build(v) });
      }
    }
    entries.sort(compareTreeEntries);
    return this.putRaw(serializeTree(entries));
  }

  /** Check and keep the trees an edit produced. */
  accept(trees: readonly NewTree[]): void {
    for (const t of trees) {
      assert.is(hashObject('tree', t.content), t.oid, 'a new tree has a wrong id');
      assert.ok(serializeTree(t.entries).equals(t.content), 'a new tree content does not match its entries');
      for (let i = 1; i < t.entries.length; i++) {
        assert.ok(compareTreeEntries(t.entries[i - 1]!, t.entries[i]!) < 0, `entries out of git order: ${t.entries[i - 1]!.name}, ${t.entries[i]!.name}`);
      }
      assert.equal(parseTree(t.content), t.entries.map((e) => (e.nameBytes ? e : { mode: e.mode, name: e.name, oid: e.oid })));
      this.trees.set(t.oid, t.entries);
    }
  }

  /** Every file under `root`: path → `mode content`. Throws when a tree is missing. */
  files(root: Oid, prefix = ''): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.readTree(root)) {
      const path = prefix + e.name;
      if (e.mode === MODE.tree) {
        assert.ok(this.readTree(e.oid).length > 0, `${path} is an empty tree`);
        Object.assign(out, this.files(e.oid, `${path}/`));
      } else {
        out[path] = `${e.mode} ${this.blobs.get(e.oid)?.toString('utf8') ?? `<${e.oid}>`}`;
      }
    }
    return out;
  }

  /** The id of the subtree at `path` under `root`. */
  treeAt(root: Oid, path: string): Oid | undefined {
    const k = lookupPath(this, root, path);
    return k.kind === 'dir' ? k.oid : undefined;
  }
}

const f = (content: string): string => `100644 ${content}`;

function edit(store: MemStore, root: Oid, changes: Array<[string, FileEntry | null]>): { root: Oid; trees: NewTree[] } {
  const out = editTree(store, root, new Map(changes));
  store.accept(out.trees);
  return out;
}

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
  assert.is(out.root, s.build({ 'README.md': 'hi\n', src: { 'a.ts': 'a\n' }, x: { y: { z: { 'deep.txt': 'deep\n' } } } }));
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
  assert.equal(s.readTree(out.root).map((e) => e.name), ['keep']);

  const root2 = s.build({ a: { b: { 'c.txt': 'c' }, 'd.txt': 'd' } });
  const out2 = edit(s, root2, [['a/b/c.txt', null]]);
  assert.equal(s.files(out2.root), { 'a/d.txt': f('d') });
  assert.equal(s.readTree(s.treeAt(out2.root, 'a')!).map((e) => e.name), ['d.txt']);
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
    ['flat', { d: { a: 'a', b: 'b' }, e: 'e' }, [['d/a', null], ['d/b', null]]],
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
  expectInternal(() => editTree(s, root, new Map([['d', s.entry('x')]])), /replaces the non-empty directory d with a file/);
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
  expectInternal(() => editTree(s, root, new Map([['file/below', s.entry('x')]])), 'tree edit writes below the file file');
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
  assert.equal(s.readTree(out.root).map((e) => e.name), ['a-b', 'a.b', 'a', 'a0']);
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
  const raw = (name: Buffer): Buffer => Buffer.concat([Buffer.from('100644 '), name, Buffer.from([0]), Buffer.from(hello, 'hex')]);
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
  assert.equal(entries.map((e) => e.name), ['café', 'z', 'zz', 'ÿf', '\xff\x66']);
  const kept = entries.at(-1)!;
  assert.equal([...kept.nameBytes!], [0xff, 0x66]);
  assert.is(kept.oid, hello);
  assert.ok(tree.content.includes(raw(rawName)), 'the raw entry bytes changed');

  const removed = edit(s, out.root, [['dir/café', null]]);
  const dirAfter = removed.trees.find((t) => t.oid === s.treeAt(removed.root, 'dir'))!;
  const after = parseTree(dirAfter.content);
  assert.equal(after.map((e) => e.name), ['z', 'zz', 'ÿf', '\xff\x66']);
  assert.equal([...after.at(-1)!.nameBytes!], [0xff, 0x66]);
  assert.ok(dirAfter.content.includes(raw(rawName)));
});

EditTree.run();

// ---------------------------------------------------------------- diffTrees

const DiffTrees = suite('diffTrees');

const simplify = (changes: FileChange[]): Array<[string, string | null, string | null]> =>
  changes.map((c) => [c.path, c.old ? `${c.old.mode}:${c.old.oid.slice(0, 7)}` : null, c.new ? `${c.new.mode}:${c.new.oid.slice(0, 7)}` : null]);

DiffTrees('reports only changed files and never opens identical subtrees', () => {
  const s = new MemStore();
  const big: Spec = {};
  for (let i = 0; i < 50; i++) big[`f${i}.txt`] = `content ${i}`;
  const a = s.build({ big, src: { 'a.ts': 'a', 'b.ts': 'b', deep: { 'c.ts': 'c' } }, 'top.txt': 'top', gone: { 'g.txt': 'g' } });
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
  assert.equal(
    [...byPath.keys()].sort(),
    ['p', 'p/child.txt', 'q', 'q/inner.txt', 'run.sh'],
  );
  assert.equal(byPath.get('p'), { path: 'p', old: { mode: MODE.file, oid: s.blob('file p') }, new: null });
  assert.equal(byPath.get('p/child.txt'), { path: 'p/child.txt', old: null, new: { mode: MODE.file, oid: s.blob('c') } });
  assert.equal(byPath.get('q'), { path: 'q', old: null, new: { mode: MODE.file, oid: s.blob('file q') } });
  assert.equal(byPath.get('q/inner.txt'), { path: 'q/inner.txt', old: { mode: MODE.file, oid: s.blob('i') }, new: null });
  assert.equal(byPath.get('run.sh'), { path: 'run.sh', old: { mode: MODE.file, oid: s.blob('echo') }, new: { mode: MODE.executable, oid: s.blob('echo') } });
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

// ---------------------------------------------------------------- Overlay

const OverlaySuite = suite('Overlay');

function overlayOn(spec: Spec): { s: MemStore; o: Overlay; root: Oid } {
  const s = new MemStore();
  const root = s.build(spec);
  return { s, o: new Overlay(s, root), root };
}

OverlaySuite('with no changes it reads the base tree', () => {
  const { s, o } = overlayOn({ 'a.txt': 'a', d: { e: { 'f.txt': 'f' } }, 'run.sh': new F('x', MODE.executable) });
  assert.equal(o.get('a.txt'), { kind: 'file', mode: MODE.file, oid: s.blob('a') });
  assert.equal(o.get('run.sh'), { kind: 'file', mode: MODE.executable, oid: s.blob('x') });
  assert.is(o.get('d').kind, 'dir');
  assert.is(o.get('d/e').kind, 'dir');
  assert.equal(o.get('missing'), { kind: 'absent' });
  assert.equal(o.get('d/missing/x'), { kind: 'absent' });
  assert.equal(o.get('a.txt/below'), { kind: 'absent', blockedBy: 'a.txt' });
  assert.is(o.fileAncestor('a.txt/below/deeper'), 'a.txt');
  assert.is(o.fileAncestor('d/e/new'), undefined);
});

OverlaySuite('files set in the overlay are seen, with their directories', () => {
  const { s, o } = overlayOn({ 'a.txt': 'a' });
  const e = s.entry('new');
  o.set('n/m/x.txt', e);
  assert.equal(o.get('n/m/x.txt'), { kind: 'file', ...e });
  assert.is(o.get('n').kind, 'dir');
  assert.is(o.get('n/m').kind, 'dir');
  assert.equal(o.get('n/m/x.txt/y'), { kind: 'absent', blockedBy: 'n/m/x.txt' });
  assert.is(o.fileAncestor('n/m/x.txt/y/z'), 'n/m/x.txt');
  assert.is(o.get('nm').kind, 'absent', 'a name sharing a prefix is not inside');
});

OverlaySuite('a directory whose files were all deleted is absent', () => {
  const { o } = overlayOn({ d: { a: 'a', sub: { b: 'b' } }, keep: 'k' });
  o.set('d/a', null);
  assert.is(o.get('d').kind, 'dir', 'd/sub/b is still there');
  o.set('d/sub/b', null);
  assert.equal(o.get('d'), { kind: 'absent' });
  assert.equal(o.get('d/sub'), { kind: 'absent' });
  assert.equal(o.get('d/a'), { kind: 'absent' });
  assert.is(o.get('keep').kind, 'file');
});

OverlaySuite('a deleted file no longer blocks paths below it', () => {
  const { s, o } = overlayOn({ f: 'file' });
  o.set('f', null);
  assert.equal(o.get('f'), { kind: 'absent' });
  assert.equal(o.get('f/g'), { kind: 'absent' });
  assert.is(o.fileAncestor('f/g'), undefined);
  const e = s.entry('g');
  o.set('f/g', e);
  assert.is(o.get('f').kind, 'dir');
  assert.equal(o.get('f/g'), { kind: 'file', ...e });
});

OverlaySuite('a file written over a deleted directory hides what was below', () => {
  const { s, o } = overlayOn({ d: { a: 'a' } });
  o.set('d/a', null);
  const e = s.entry('file d');
  o.set('d', e);
  assert.equal(o.get('d'), { kind: 'file', ...e });
  assert.equal(o.get('d/a'), { kind: 'absent', blockedBy: 'd' });
});

OverlaySuite.run();

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
