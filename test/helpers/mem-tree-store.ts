import * as assert from 'uvu/assert';
import {
  compareTreeEntries,
  EMPTY_TREE_OID,
  hashObject,
  MODE,
  parseTree,
  serializeTree,
  type Oid,
  type TreeEntry,
} from '../../src/git/format/git-objects.js';
import { editTree, type NewTree } from '../../src/git/format/tree-edit.js';
import { lookupPath, type FileEntry, type TreeReader } from '../../src/git/format/tree-lookup.js';

/*
 * Git trees and blobs in memory, built from a spec ({ a: { b: 'x' } } is the
 * tree of a/b holding "x"); the store counts its tree reads, and checks and
 * keeps the trees an edit produces.
 */

/** A file in a tree spec: content and mode. A plain string is a 100644 file. */
export class F {
  constructor(
    readonly content: string | Buffer,
    readonly mode: string = MODE.file,
  ) {}
}
export type Spec = { [name: string]: string | F | Spec };

/** Trees and blobs in memory; counts tree reads so tests can see what was visited. */
export class MemStore implements TreeReader {
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
        assert.ok(
          compareTreeEntries(t.entries[i - 1]!, t.entries[i]!) < 0,
          `entries out of git order: ${t.entries[i - 1]!.name}, ${t.entries[i]!.name}`,
        );
      }
      assert.equal(
        parseTree(t.content),
        t.entries.map((e) => (e.nameBytes ? e : { mode: e.mode, name: e.name, oid: e.oid })),
      );
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

export function edit(
  store: MemStore,
  root: Oid,
  changes: Array<[string, FileEntry | null]>,
): { root: Oid; trees: NewTree[] } {
  const out = editTree(store, root, new Map(changes));
  store.accept(out.trees);
  return out;
}
