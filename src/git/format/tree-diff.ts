import { compareTreeEntries, EMPTY_TREE_OID, isTreeMode, type Oid, type TreeEntry } from './git-objects.js';
import type { FileEntry, TreeReader } from './tree-lookup.js';

/** One file that differs between two trees. */
export interface FileChange {
  path: string;
  old: FileEntry | null;
  new: FileEntry | null;
}

/**
 * The files that differ between trees `a` and `b`, in path order. Subtrees
 * with the same id are skipped, so the cost is proportional to what changed.
 */
export function diffTrees(reader: TreeReader, a: Oid | null, b: Oid | null, prefix = ''): FileChange[] {
  const out: FileChange[] = [];
  walk(reader, a, b, prefix, out);
  return out;
}

function entries(reader: TreeReader, oid: Oid | null): readonly TreeEntry[] {
  return oid === null || oid === EMPTY_TREE_OID ? [] : reader.readTree(oid);
}

function addAll(reader: TreeReader, oid: Oid, prefix: string, side: 'old' | 'new', out: FileChange[]): void {
  for (const e of entries(reader, oid)) {
    const path = prefix + e.name;
    if (isTreeMode(e.mode)) addAll(reader, e.oid, `${path}/`, side, out);
    else
      out.push(
        side === 'old'
          ? { path, old: { mode: e.mode, oid: e.oid }, new: null }
          : { path, old: null, new: { mode: e.mode, oid: e.oid } },
      );
  }
}

function walk(reader: TreeReader, a: Oid | null, b: Oid | null, prefix: string, out: FileChange[]): void {
  if (a === b) return;
  const ea = entries(reader, a);
  const eb = entries(reader, b);
  const byName = new Map<string, [TreeEntry | undefined, TreeEntry | undefined]>();
  for (const e of ea) byName.set(e.name, [e, undefined]);
  for (const e of eb) {
    const pair = byName.get(e.name);
    if (pair) pair[1] = e;
    else byName.set(e.name, [undefined, e]);
  }
  const names = [...byName.keys()].sort((x, y) => {
    const px = byName.get(x)!;
    const py = byName.get(y)!;
    return compareTreeEntries((px[1] ?? px[0])!, (py[1] ?? py[0])!);
  });
  for (const name of names) {
    const [x, y] = byName.get(name)!;
    if (x && y && x.oid === y.oid && x.mode === y.mode) continue;
    const path = prefix + name;
    const xTree = x !== undefined && isTreeMode(x.mode);
    const yTree = y !== undefined && isTreeMode(y.mode);
    if (xTree && yTree) {
      walk(reader, x.oid, y.oid, `${path}/`, out);
      continue;
    }
    if (xTree) addAll(reader, x.oid, `${path}/`, 'old', out);
    if (yTree) addAll(reader, y.oid, `${path}/`, 'new', out);
    const oldFile = x && !xTree ? { mode: x.mode, oid: x.oid } : null;
    const newFile = y && !yTree ? { mode: y.mode, oid: y.oid } : null;
    if (oldFile || newFile) out.push({ path, old: oldFile, new: newFile });
  }
}
