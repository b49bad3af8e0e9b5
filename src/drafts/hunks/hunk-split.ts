import { ShadowError } from '../../errors.js';
import { blobOid, type Oid } from '../../git/format/git-objects.js';
import { mergeFile } from '../../git/format/merge-file.js';
import type { FileEntry } from '../../git/format/tree-lookup.js';
import { sameEntry, type PublishEntry } from '../publish-set/publish-set.js';
import { selectHunks, type SelectionRequest } from './hunk-selection.js';

/**
 * A split (`shadow split`, as `jj split`): the chosen hunks of a draft's
 * diff leave it for a new draft. Per path the selection names, the new
 * draft gets base + the chosen hunks (what a hunk apply would publish) and
 * the draft keeps base + the rest: its tip with the chosen hunks taken out.
 * The rest is the three-way merge of the tip and the base over the chosen
 * content, so that it is exact for any selection of the draft's own hunks
 * (they never touch: git's diff keeps them apart by more than their
 * context); an edited hunk whose lines touch lines left behind does not
 * separate and is refused.
 */

export interface SplitPath {
  path: string;
  /** The path's base, which both drafts keep. */
  base: FileEntry | null;
  /** The draft's entry before the split. */
  tip: FileEntry | null;
  /** What the new draft holds: base + the chosen hunks. */
  chosen: FileEntry | null;
  /** What the draft keeps: base + the hunks not chosen. */
  rest: FileEntry | null;
}

export interface HunkSplit {
  /** Sorted by path. */
  paths: SplitPath[];
  /** The new blobs (chosen and rest contents) no object store holds yet. */
  contents: Map<Oid, Buffer>;
  /** The paths cut in part, with how many of their hunks were chosen. */
  partial: Array<{ path: string; chosen: number; hunks: number }>;
}

type Read = (e: FileEntry | null) => Buffer;

function inseparable(path: string, why: string): ShadowError {
  return new ShadowError('INVALID_ARGUMENT', `${path}: ${why}; nothing was written`, {
    hint: `choose whole hunks of ${path} (shadow diff --json lists them), or the path whole`,
    data: { path },
  });
}

/** The split of the draft's publish set `all` by `request` (see the module comment). */
export function splitHunks(all: readonly PublishEntry[], read: Read, request: SelectionRequest): HunkSplit {
  const selection = selectHunks(all, read, request);
  const tips = new Map(all.map((e) => [e.path, e.new]));
  const contents = new Map(selection.contents);
  const readAny = (e: FileEntry | null): Buffer => (e && contents.get(e.oid)) ?? read(e);
  const paths = selection.entries.map((e): SplitPath => {
    const tip = tips.get(e.path) ?? null;
    const split = { path: e.path, base: e.old, tip, chosen: e.new };
    if (sameEntry(e.new, tip)) return { ...split, rest: e.old };
    if (e.old === null || e.new === null || tip === null) {
      throw inseparable(e.path, 'a file the draft creates or deletes moves whole');
    }
    const merged = mergeFile(readAny(e.new), readAny(tip), readAny(e.old), { ours: 'draft', theirs: 'base' });
    if (merged.status !== 'clean') throw inseparable(e.path, 'the chosen lines touch lines that are not chosen');
    const mode = e.new.mode === e.old.mode ? tip.mode : e.old.mode;
    const rest = { mode, oid: blobOid(merged.merged) };
    if (!sameEntry(rest, e.old)) contents.set(rest.oid, merged.merged);
    return { ...split, rest };
  });
  const cut = new Map(paths.map((p) => [p.path, p]));
  const remains = all.some((e) => {
    const p = cut.get(e.path);
    return p === undefined || !sameEntry(p.rest, p.base);
  });
  if (!remains) {
    throw new ShadowError(
      'INVALID_ARGUMENT',
      'the selection takes every change of the draft: nothing would remain in it; nothing was written',
      {
        hint: 'leave at least one hunk in the draft; to hand over all of it, continue it under another name: shadow draft new <name> --from <draft>',
      },
    );
  }
  return { paths, contents, partial: selection.partial };
}
