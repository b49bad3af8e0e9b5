import type { BaseMap } from '../../state/base-map.js';
import { isInside } from '../../core/path-rules.js';
import type { FileEntry } from '../../git/format/tree-lookup.js';

/** One path of a publish: what the working tree should hold before, and after. */
export interface PublishEntry {
  path: string;
  old: FileEntry | null;
  new: FileEntry | null;
}

/** What a publish does to a path, for people. */
export type PublishAction = 'create' | 'modify' | 'delete' | 'mode' | 'type';

/** Do two entries (null: absent) name the same content and mode? */
export function sameEntry(a: FileEntry | null, b: FileEntry | null): boolean {
  return a === null || b === null ? a === b : a.oid === b.oid && a.mode === b.mode;
}

/**
 * The publish set: every path whose draft entry differs from its base, in
 * path order. `lookup` gives the draft tip's entry at a path.
 */
export function publishSet(bases: BaseMap, lookup: (path: string) => FileEntry | null): PublishEntry[] {
  const out: PublishEntry[] = [];
  for (const path of bases.paths().sort()) {
    const old = bases.get(path) ?? null;
    const next = lookup(path);
    if (!sameEntry(old, next)) out.push({ path, old, new: next });
  }
  return out;
}

export function actionOf(e: PublishEntry): PublishAction {
  if (!e.old) return 'create';
  if (!e.new) return 'delete';
  const kind = (m: string): string => (m === '120000' ? 'l' : m === '160000' ? 'g' : 'f');
  if (kind(e.old.mode) !== kind(e.new.mode)) return 'type';
  return e.old.oid === e.new.oid ? 'mode' : 'modify';
}

/**
 * The order to carry a publish out in: removals first, deepest first (so a
 * directory empties before a file takes its place), then writes in path
 * order (so a file that leaves makes room for a directory of the same name).
 */
export function publishOrder(entries: readonly PublishEntry[]): { removals: PublishEntry[]; writes: PublishEntry[] } {
  const removals = entries
    .filter((e) => e.new === null || (e.old !== null && kindChanges(e)))
    .sort((a, b) => depth(b.path) - depth(a.path) || (a.path < b.path ? 1 : -1));
  const writes = entries.filter((e) => e.new !== null).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { removals, writes };
}

function kindChanges(e: PublishEntry): boolean {
  return e.old !== null && e.new !== null && (e.old.mode === '120000') !== (e.new.mode === '120000');
}

function depth(path: string): number {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 0x2f) n++;
  return n;
}

/** Paths of `entries` that a directory at `dir` would have to hold only (dir → file transitions). */
export function removedInside(entries: readonly PublishEntry[], dir: string): Set<string> {
  return new Set(entries.filter((e) => e.new === null && isInside(e.path, dir)).map((e) => e.path));
}
