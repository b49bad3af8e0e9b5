import { compareTreeNames, isTreeMode, MODE, type Oid, type TreeEntry } from './git-objects.js';

/** Reads parsed trees by id. The store implements it; the core only calls it. */
export interface TreeReader {
  readTree(oid: Oid): readonly TreeEntry[];
}

/** A file-like entry of a tree: a blob, a symlink or a submodule commit. */
export interface FileEntry {
  mode: string;
  oid: Oid;
}

/** What a path names in a tree. */
export type PathKind =
  { kind: 'file'; mode: string; oid: Oid } | { kind: 'dir'; oid: Oid } | { kind: 'absent'; blockedBy?: string };

/**
 * Name → position maps of trees looked up often (a root tree is searched once
 * per touched path). Trees are immutable, so a map never goes stale; it goes
 * when its tree is dropped from the caches. Until a tree has its map, the
 * number of lookups it has had.
 */
const positions = new WeakMap<readonly TreeEntry[], Map<string, number> | number>();
const MAP_FROM = 32;
/**
 * A map costs about as much to build as 1/8 of its entries in binary
 * searches (a 700-entry tree: 150 µs, one search 2 µs): it is built once a
 * tree has been searched that often, never for a tree searched a few times.
 */
const SEARCHES_PER_MAPPED_ENTRY = 8;

/** Find the entry called `name` in sorted `entries` (either as a file or as a tree). */
export function findEntry(entries: readonly TreeEntry[], name: string): number {
  if (entries.length >= MAP_FROM && Object.isFrozen(entries)) {
    const known = positions.get(entries) ?? 0;
    if (typeof known !== 'number') return known.get(name) ?? -1;
    if (known + 1 < Math.max(2, entries.length / SEARCHES_PER_MAPPED_ENTRY)) positions.set(entries, known + 1);
    else {
      const map = new Map<string, number>();
      for (let i = 0; i < entries.length; i++) if (entries[i]!.nameBytes === undefined) map.set(entries[i]!.name, i);
      positions.set(entries, map);
      return map.get(name) ?? -1;
    }
  }
  for (const asTree of [false, true]) {
    let lo = 0;
    let hi = entries.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const e = entries[mid]!;
      const c = compareTreeNames(e.name, isTreeMode(e.mode), name, asTree, e.nameBytes);
      if (c === 0) {
        if (e.nameBytes === undefined) return mid;
        break;
      }
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
  }
  return -1;
}

/**
 * What `path` names under the tree `root`: O(depth) tree reads. A path below
 * a file is absent, with `blockedBy` naming that file.
 */
export function lookupPath(reader: TreeReader, root: Oid, path: string): PathKind {
  let tree = root;
  let start = 0;
  for (;;) {
    const slash = path.indexOf('/', start);
    const name = slash === -1 ? path.slice(start) : path.slice(start, slash);
    const entries = reader.readTree(tree);
    const i = findEntry(entries, name);
    if (i === -1) return { kind: 'absent' };
    const e = entries[i]!;
    if (slash === -1)
      return isTreeMode(e.mode) ? { kind: 'dir', oid: e.oid } : { kind: 'file', mode: e.mode, oid: e.oid };
    if (!isTreeMode(e.mode)) return { kind: 'absent', blockedBy: path.slice(0, slash) };
    tree = e.oid;
    start = slash + 1;
  }
}

/** True for the modes of a regular file. */
export function isRegularMode(mode: string): boolean {
  return mode === MODE.file || mode === MODE.executable || mode === '100664';
}
