import { isTreeMode, type Oid } from '../../git/format/git-objects.js';
import { lookupPath, type FileEntry, type TreeReader } from '../../git/format/tree-lookup.js';

/**
 * The tree edits of a rebase, kept to what a tree can hold: a path is a
 * file or a directory, never both. git's own trees obey it; a person's
 * working tree and a draft can each break it against the other (a file
 * that became a directory), and editTree refuses such an edit.
 */

/** Every file under the directory tree `tree`, as paths below `dir`. */
function filesUnder(reader: TreeReader, tree: Oid, dir: string, out: string[]): void {
  for (const e of reader.readTree(tree)) {
    const path = `${dir}/${e.name}`;
    if (isTreeMode(e.mode)) filesUnder(reader, e.oid, path, out);
    else out.push(path);
  }
}

function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
  return out;
}

/**
 * `changes` with what stands in their way removed, for a tree that must
 * hold them all (the working tree as it is): a file above a file to write
 * goes, and so does every file of a directory a file replaces.
 */
export function clearWay(
  reader: TreeReader,
  tree: Oid,
  changes: ReadonlyMap<string, FileEntry | null>,
): Map<string, FileEntry | null> {
  const out = new Map(changes);
  for (const [path, entry] of changes) {
    if (entry === null) continue;
    for (const a of ancestors(path)) if (!out.has(a) && lookupPath(reader, tree, a).kind === 'file') out.set(a, null);
    const here = lookupPath(reader, tree, path);
    if (here.kind !== 'dir') continue;
    const inside: string[] = [];
    filesUnder(reader, here.oid, path, inside);
    for (const p of inside) if (!out.has(p)) out.set(p, null);
  }
  return out;
}

/**
 * The paths of `changes` that `tree` cannot take without losing what is not
 * in `changes`: a file to write below a file that stays, or where a
 * directory stays with files the changes leave in it.
 */
export function clashes(reader: TreeReader, tree: Oid, changes: ReadonlyMap<string, FileEntry | null>): Set<string> {
  const out = new Set<string>();
  for (const [path, entry] of changes) {
    if (entry === null) continue;
    if (
      ancestors(path).some((a) =>
        changes.has(a) ? changes.get(a) !== null : lookupPath(reader, tree, a).kind === 'file',
      )
    ) {
      out.add(path);
      continue;
    }
    const here = lookupPath(reader, tree, path);
    if (here.kind !== 'dir') continue;
    const inside: string[] = [];
    filesUnder(reader, here.oid, path, inside);
    if (inside.some((p) => changes.get(p) !== null)) out.add(path);
  }
  return out;
}
