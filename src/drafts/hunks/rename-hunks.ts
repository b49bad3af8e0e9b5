import { blobOid, type Oid } from '../../git/format/git-objects.js';
import type { FileEntry } from '../../git/format/tree-lookup.js';
import { detectRenames } from '../../git/format/diff-renames.js';
import { DEFAULT_RENAME_SCORE } from '../../git/format/rename-similarity.js';
import type { PublishEntry } from '../publish-set/publish-set.js';
import { fileHunks, type FileHunks } from './file-hunks.js';
import { applyHunks } from './hunk-apply.js';

/**
 * Renames in a hunk apply. The publish set holds a rename as its two paths
 * (a deletion and an addition); paired as `git diff -M` pairs them (git's
 * default similarity), the new path's hunks are those of the old content
 * to the new, numbered as `shadow diff -M` numbers them. Taking any of them
 * (or `<newpath>:rename`, the rename alone) takes the rename: the old path
 * goes, the new one gets the old content with the chosen hunks.
 */

/** A rename of the draft: its two entries and the hunks between them. */
export interface RenamePair {
  from: PublishEntry;
  to: PublishEntry;
  hunks: FileHunks;
}

/** What a spec chose of a rename: hunk numbers, and whether the rename alone was named. */
export interface RenameChoice extends RenamePair {
  indices: Set<number>;
  alone: boolean;
}

/** The draft's renames, by new path (none when nothing is both deleted and added). */
export function renamePairs(
  all: readonly PublishEntry[],
  read: (e: FileEntry | null) => Buffer,
): Map<string, RenamePair> {
  const pairs = new Map<string, RenamePair>();
  if (!all.some((e) => e.new === null) || !all.some((e) => e.old === null)) return pairs;
  const byOid = (oid: Oid): Buffer => read({ mode: '100644', oid });
  const found = detectRenames(all, {
    minimum: DEFAULT_RENAME_SCORE,
    limit: 1000,
    size: (oid) => byOid(oid).length,
    read: byOid,
  });
  const byPath = new Map(all.map((e) => [e.path, e]));
  for (const c of found.changes) {
    if (!('from' in c && 'score' in c)) continue;
    const from = byPath.get(c.from)!;
    const to = byPath.get(c.path)!;
    const hunks = fileHunks(to.path, from.old, to.new, read(from.old), read(to.new));
    pairs.set(to.path, { from, to, hunks });
  }
  return pairs;
}

/** A rename chosen in part: the old path goes, the new one gets the old content + the chosen hunks. */
export function renameSelection(
  r: RenameChoice,
  read: (e: FileEntry | null) => Buffer,
  out: {
    entries: PublishEntry[];
    contents: Map<Oid, Buffer>;
    partial: Array<{ path: string; chosen: number; hunks: number; from?: string }>;
  },
): void {
  const chosen = r.hunks.hunks.filter((_, i) => r.indices.has(i + 1));
  out.entries.push(r.from);
  if (chosen.length === r.hunks.hunks.length && r.hunks.hunks.length > 0) {
    out.entries.push(r.to);
    return;
  }
  const old = read(r.from.old);
  const content = chosen.length === 0 ? old : Buffer.from(applyHunks(r.to.path, old.toString('utf8'), chosen), 'utf8');
  const entry = { mode: r.to.new!.mode, oid: blobOid(content) };
  if (entry.oid === r.to.new!.oid) out.entries.push(r.to);
  else {
    out.entries.push({ path: r.to.path, old: null, new: entry });
    out.contents.set(entry.oid, content);
  }
  out.partial.push({ path: r.to.path, chosen: chosen.length, hunks: r.hunks.hunks.length, from: r.from.path });
}
