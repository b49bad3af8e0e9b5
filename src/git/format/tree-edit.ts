import { ShadowError } from '../../errors.js';
import {
  compareTreeNames,
  EMPTY_TREE_OID,
  hashObject,
  isTreeMode,
  MODE,
  serializeTree,
  type Oid,
  type TreeEntry,
} from './git-objects.js';
import { findEntry, type FileEntry, type TreeReader } from './tree-lookup.js';

/** A tree object made by an edit, to be written to the store. */
export interface NewTree {
  oid: Oid;
  content: Buffer;
  entries: TreeEntry[];
}

/**
 * Apply file-level changes to the tree `root`, rebuilding only the trees on
 * the changed paths (O(paths × depth) tree reads, never a full scan).
 * Directories left empty disappear, as in git. Returns the new root and the
 * trees to write (trees that did not change are not returned).
 */
export function editTree(
  reader: TreeReader,
  root: Oid,
  changes: ReadonlyMap<string, FileEntry | null>,
): { root: Oid; trees: NewTree[] } {
  const trees: NewTree[] = [];
  const out = rebuild(reader, root, [...changes], trees);
  if (out === null) {
    trees.push({ oid: EMPTY_TREE_OID, content: Buffer.alloc(0), entries: [] });
    return { root: EMPTY_TREE_OID, trees };
  }
  return { root: out, trees };
}

function removeAt(entries: TreeEntry[], name: string): TreeEntry | undefined {
  const i = findEntry(entries, name);
  if (i === -1) return undefined;
  return entries.splice(i, 1)[0];
}

function insertSorted(entries: TreeEntry[], entry: TreeEntry): void {
  const isTree = isTreeMode(entry.mode);
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const e = entries[mid]!;
    if (compareTreeNames(e.name, isTreeMode(e.mode), entry.name, isTree, e.nameBytes) < 0) lo = mid + 1;
    else hi = mid;
  }
  entries.splice(lo, 0, entry);
}

function rebuild(
  reader: TreeReader,
  tree: Oid | null,
  changes: Array<[string, FileEntry | null]>,
  out: NewTree[],
): Oid | null {
  const entries = tree === null ? [] : [...reader.readTree(tree)];
  const direct = new Map<string, FileEntry | null>();
  const nested = new Map<string, Array<[string, FileEntry | null]>>();
  for (const [path, entry] of changes) {
    const slash = path.indexOf('/');
    if (slash === -1) {
      direct.set(path, entry);
    } else {
      const name = path.slice(0, slash);
      let list = nested.get(name);
      if (!list) nested.set(name, (list = []));
      list.push([path.slice(slash + 1), entry]);
    }
  }
  for (const [name, entry] of direct) {
    if (entry && nested.get(name)?.some(([, e]) => e !== null)) {
      throw new ShadowError('INTERNAL', `tree edit puts both a file and a directory at ${name}`);
    }
    const existing = removeAt(entries, name);
    if (entry && existing && isTreeMode(existing.mode)) {
      // A file may replace a directory only when the same edit empties it.
      if (rebuild(reader, existing.oid, nested.get(name) ?? [], []) !== null) {
        throw new ShadowError('INTERNAL', `tree edit replaces the non-empty directory ${name} with a file`);
      }
    }
    if (entry) insertSorted(entries, { mode: entry.mode, name, oid: entry.oid });
  }
  for (const [name, list] of nested) {
    if (direct.get(name)) continue; // replaced by a file, checked above
    const existing = removeAt(entries, name);
    if (existing && !isTreeMode(existing.mode)) {
      throw new ShadowError('INTERNAL', `tree edit writes below the file ${name}`);
    }
    const sub = rebuild(reader, existing ? existing.oid : null, list, out);
    if (sub !== null) insertSorted(entries, { mode: MODE.tree, name, oid: sub });
  }
  if (entries.length === 0) return null;
  const content = serializeTree(entries);
  const oid = hashObject('tree', content);
  if (oid !== tree) out.push({ oid, content, entries });
  return oid;
}
