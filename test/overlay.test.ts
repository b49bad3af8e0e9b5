import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compareTreeEntries, EMPTY_TREE_OID, hashObject, MODE, serializeTree, type Oid, type TreeEntry } from '../src/git/format/git-objects.js';
import { Overlay } from '../src/drafts/overlay.js';
import type { TreeReader } from '../src/git/format/tree-lookup.js';

/** Trees in memory: `build({ a: { b: 'x' } })` makes the tree of a/b holding "x". */
class Trees implements TreeReader {
  readonly trees = new Map<Oid, TreeEntry[]>([[EMPTY_TREE_OID, []]]);

  readTree(oid: Oid): readonly TreeEntry[] {
    const t = this.trees.get(oid);
    if (!t) throw new Error(`tree ${oid} is not in the store`);
    return t;
  }

  build(spec: Record<string, unknown>): Oid {
    const entries: TreeEntry[] = [];
    for (const [name, v] of Object.entries(spec)) {
      if (typeof v === 'string') entries.push({ mode: MODE.file, name, oid: hashObject('blob', Buffer.from(v)) });
      else entries.push({ mode: MODE.tree, name, oid: this.build(v as Record<string, unknown>) });
    }
    entries.sort(compareTreeEntries);
    const oid = hashObject('tree', serializeTree(entries));
    this.trees.set(oid, entries);
    return oid;
  }
}

const file = (c: string): { mode: string; oid: Oid } => ({ mode: MODE.file, oid: hashObject('blob', Buffer.from(c)) });

const Dirs = suite('overlay: directories follow the files below them');

Dirs('a directory appears with its first file and goes with its last, at every level', () => {
  const t = new Trees();
  const o = new Overlay(t, t.build({ keep: 'k' }));
  assert.is(o.get('a').kind, 'absent');
  o.set('a/b/c.txt', file('c'));
  o.set('a/b/d.txt', file('d'));
  assert.is(o.get('a').kind, 'dir');
  assert.is(o.get('a/b').kind, 'dir');
  o.set('a/b/c.txt', null);
  assert.is(o.get('a/b').kind, 'dir', 'd.txt is still there');
  o.set('a/b/d.txt', null);
  assert.is(o.get('a/b').kind, 'absent');
  assert.is(o.get('a').kind, 'absent');
  o.set('a/b/d.txt', file('again'));
  assert.is(o.get('a').kind, 'dir', 'written again after its deletion');
  assert.equal([...o.changes.keys()].sort(), ['a/b/c.txt', 'a/b/d.txt']);
});

Dirs("a base directory is gone once every file in it is deleted, and back when one is written", () => {
  const t = new Trees();
  const o = new Overlay(t, t.build({ src: { 'a.ts': 'a', lib: { 'b.ts': 'b' } }, top: 't' }));
  o.set('src/a.ts', null);
  assert.is(o.get('src').kind, 'dir', 'src/lib/b.ts is left');
  o.set('src/lib/b.ts', null);
  assert.is(o.get('src/lib').kind, 'absent');
  assert.is(o.get('src').kind, 'absent');
  o.set('src/new.ts', file('n'));
  assert.is(o.get('src').kind, 'dir');
  assert.is(o.get('src/lib').kind, 'absent');
  assert.is(o.get('top').kind, 'file');
});

Dirs('unset forgets a change: the base shows through, and the counts with it', () => {
  const t = new Trees();
  const o = new Overlay(t, t.build({ d: { 'only.txt': 'o' } }));
  o.set('d/only.txt', null);
  assert.is(o.get('d').kind, 'absent');
  o.unset('d/only.txt');
  assert.is(o.get('d').kind, 'dir');
  assert.is(o.get('d/only.txt').kind, 'file');
  o.set('n/x.txt', file('x'));
  o.unset('n/x.txt');
  assert.is(o.get('n').kind, 'absent');
  o.unset('never/set.txt');
  assert.is(o.changes.size, 0);
});

Dirs('a file set where a directory was blocks the paths below it', () => {
  const t = new Trees();
  const o = new Overlay(t, t.build({ d: { 'x.txt': 'x' } }));
  o.set('d/x.txt', null);
  o.set('d', file('now a file'));
  assert.equal(o.get('d/x.txt'), { kind: 'absent', blockedBy: 'd' });
  assert.is(o.fileAncestor('d/y/z.txt'), 'd');
  o.set('d', null);
  o.set('d/y.txt', file('y'));
  assert.is(o.get('d').kind, 'dir');
  assert.is(o.fileAncestor('d/y.txt'), undefined);
});

Dirs.run();
