import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  compareTreeEntries,
  EMPTY_TREE_OID,
  hashObject,
  MODE,
  serializeTree,
  type Oid,
  type TreeEntry,
} from '../src/git/format/git-objects.js';
import { Overlay } from '../src/drafts/batch/overlay.js';
import type { TreeReader } from '../src/git/format/tree-lookup.js';
import { F, MemStore, type Spec } from './helpers/mem-tree-store.js';

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

Dirs('a base directory is gone once every file in it is deleted, and back when one is written', () => {
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
