import { ShadowError } from '../../errors.js';
import { blobOid, type Oid } from '../../git/format/git-objects.js';
import type { FileEntry } from '../../git/format/tree-lookup.js';
import { sameEntry, type PublishEntry } from '../publish-set/publish-set.js';
import { fileHunks, type FileHunks } from './file-hunks.js';
import { parseGitPatch, type FilePatch } from './git-patch.js';
import { applyHunks, patchFailed } from './hunk-apply.js';
import { parseHunkSpecs } from './hunk-spec.js';
import { renamePairs, renameSelection, type RenameChoice } from './rename-hunks.js';

/**
 * What a hunk apply publishes. A selection is a patch against the draft's
 * bases that is a part (or an edit) of the draft's own diff: the `patch`
 * option gives one, and `--hunks` specs become one, so both take the same
 * road. For each path it names, the patch applied to the path's base gives
 * the content to publish (base + chosen hunks), a new blob; the entry then
 * goes from the base to it, and that blob becomes the path's next base, so
 * that the draft's diff afterwards is exactly what was not taken.
 */

export interface HunkSelection {
  /** The publish entries: whole ones as the draft has them, partial ones to base + chosen hunks. */
  entries: PublishEntry[];
  /** The contents of the partial entries' new blobs, which no object store holds yet. */
  contents: Map<Oid, Buffer>;
  /** The paths taken in part, with how many of their hunks were chosen (`from`: a rename's old path, which goes with it). */
  partial: Array<{ path: string; chosen: number; hunks: number; from?: string }>;
}

/** What a selection is asked by: `--hunks` specs, or a patch. */
export interface SelectionRequest {
  hunks?: readonly string[];
  patch?: string;
}

type Read = (e: FileEntry | null) => Buffer;

function notChanged(path: string, how: string): ShadowError {
  return new ShadowError('INVALID_ARGUMENT', `${how} names ${path}, which the draft does not change`, {
    hint: "shadow diff --json lists the draft's paths and their hunks",
    data: { path },
  });
}

/** Resolve a selection against the draft's publish set (`all`). */
export function selectHunks(all: readonly PublishEntry[], read: Read, request: SelectionRequest): HunkSelection {
  const byPath = new Map(all.map((e) => [e.path, e]));
  const cut = new Map<string, FileHunks>();
  const hunksOf = (e: PublishEntry): FileHunks => {
    let f = cut.get(e.path);
    if (!f) cut.set(e.path, (f = fileHunks(e.path, e.old, e.new, read(e.old), read(e.new))));
    return f;
  };
  const renames: RenameChoice[] = [];
  const patches =
    request.patch !== undefined
      ? patchFiles(request.patch, byPath)
      : specPatches(request.hunks ?? [], byPath, hunksOf, renamePairs(all, read), renames);
  const out: HunkSelection = { entries: [], contents: new Map(), partial: [] };
  for (const r of renames) renameSelection(r, read, out);
  for (const { entry, patch } of patches) {
    if (patch === 'whole') {
      out.entries.push(entry);
      continue;
    }
    const f = hunksOf(entry);
    const next = partialEntry(entry, f, patch, read);
    if (next === null) continue;
    if (sameEntry(next.entry, entry.new)) {
      out.entries.push(entry);
      continue;
    }
    out.entries.push({ path: entry.path, old: entry.old, new: next.entry });
    if (next.content) out.contents.set(next.entry!.oid, next.content);
    out.partial.push({ path: entry.path, chosen: patch.hunks.length, hunks: f.hunks.length });
  }
  if (out.entries.length === 0) {
    throw new ShadowError('INVALID_ARGUMENT', 'the selection takes no change of the draft: nothing to apply', {
      hint: 'name at least one hunk that changes something (shadow diff --json lists them)',
    });
  }
  // A path chosen whole and as a rename's side is published once.
  const seen = new Set<string>();
  out.entries = out.entries.filter((e) => !seen.has(e.path) && seen.add(e.path) !== undefined);
  out.entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

type Chosen = { entry: PublishEntry; patch: FilePatch | 'whole' };

/** The files of a patch, each one a path of the draft. */
function patchFiles(text: string, byPath: Map<string, PublishEntry>): Chosen[] {
  const files = parseGitPatch(text);
  if (files.length === 0) {
    throw new ShadowError('INVALID_PATCH', 'the patch names no file', {
      hint: "give a patch in git's format against the draft's bases (diff --git, ---/+++, @@ hunks), as shadow diff prints it",
    });
  }
  const seen = new Set<string>();
  return files.map((f) => {
    const path = (f.newPath ?? f.oldPath)!;
    if (f.oldPath !== null && f.newPath !== null && f.oldPath !== f.newPath) {
      throw new ShadowError(
        'INVALID_ARGUMENT',
        `the patch renames ${f.oldPath} to ${f.newPath}: a rename is taken whole`,
        {
          hint: `apply both paths whole: shadow apply ${f.oldPath} ${f.newPath}`,
          data: { from: f.oldPath, path: f.newPath },
        },
      );
    }
    const entry = byPath.get(path);
    if (!entry) throw notChanged(path, 'the patch');
    if (seen.has(path)) throw new ShadowError('INVALID_PATCH', `the patch names ${path} twice`, { data: { path } });
    seen.add(path);
    return { entry, patch: f.binary ? 'whole' : f };
  });
}

/** `--hunks` specs as one patch per path (the chosen hunks of the draft's own diff). */
function specPatches(
  specs: readonly string[],
  byPath: Map<string, PublishEntry>,
  hunksOf: (e: PublishEntry) => FileHunks,
  pairs: ReturnType<typeof renamePairs>,
  renames: RenameChoice[],
): Chosen[] {
  const renamed = new Map<string, RenameChoice>();
  const rename = (to: string): RenameChoice => {
    let r = renamed.get(to);
    if (!r) renamed.set(to, (r = { ...pairs.get(to)!, indices: new Set(), alone: false }));
    return r;
  };
  const wanted = new Map<string, { whole: boolean; indices: Set<number>; mode: boolean }>();
  const want = (path: string): { whole: boolean; indices: Set<number>; mode: boolean } => {
    let w = wanted.get(path);
    if (!w) wanted.set(path, (w = { whole: false, indices: new Set(), mode: false }));
    return w;
  };
  let ids: Map<string, { path: string; index: number; paired?: true }> | undefined;
  for (const item of parseHunkSpecs(specs)) {
    if (item.kind === 'id') {
      ids ??= new Map([
        ...[...byPath.values()].flatMap((e) =>
          hunksOf(e).infos.map((h) => [h.id, { path: e.path, index: h.index }] as const),
        ),
        ...[...pairs.values()].flatMap((p) =>
          p.hunks.infos.map((h) => [h.id, { path: p.to.path, index: h.index, paired: true as const }] as const),
        ),
      ]);
      const hit = ids.get(item.id);
      if (hit?.paired) rename(hit.path).indices.add(hit.index);
      else if (hit) want(hit.path).indices.add(hit.index);
      else if (byPath.has(item.id)) want(item.id).whole = true;
      else throw staleHunks([item.id]);
      continue;
    }
    const entry = byPath.get(item.path);
    if (!entry) throw notChanged(item.path, `--hunks ${item.path}`);
    if (item.kind === 'whole') {
      want(item.path).whole = true;
      continue;
    }
    const pair = pairs.get(item.path);
    if (item.rename && !pair) {
      throw new ShadowError('INVALID_ARGUMENT', `--hunks ${item.path}:rename: the draft does not rename a file to it`, {
        hint: 'shadow diff -M --json shows the renames (status R) and their hunks',
        data: { path: item.path },
      });
    }
    // A rename's new path is numbered as `shadow diff -M` numbers it: the hunks of the old content to the new.
    const f = pair ? pair.hunks : hunksOf(entry);
    if (item.indices.length > 0 && f.whole !== undefined) throw wholeOnly(f);
    const over = item.indices.filter((n) => n > f.hunks.length);
    if (over.length > 0) {
      throw new ShadowError(
        'INVALID_ARGUMENT',
        `--hunks ${item.path}:${over.join(',')}: ${item.path} has ${f.hunks.length} hunk${f.hunks.length === 1 ? '' : 's'}`,
        {
          hint: 'shadow diff --json lists the hunks of each path, numbered from 1',
          data: { path: item.path, hunks: f.hunks.length },
        },
      );
    }
    if (item.mode && !f.modeChange) {
      throw new ShadowError('INVALID_ARGUMENT', `--hunks ${item.path}:mode: the draft does not change its mode`, {
        hint: 'name its hunks by number instead (shadow diff --json lists them)',
        data: { path: item.path },
      });
    }
    if (pair) {
      const r = rename(item.path);
      for (const n of item.indices) r.indices.add(n);
      if (item.rename) r.alone = true;
      continue;
    }
    const w = want(item.path);
    for (const n of item.indices) w.indices.add(n);
    if (item.mode) w.mode = true;
  }
  for (const [to, r] of renamed) if (!wanted.get(to)?.whole) renames.push(r);
  return [...wanted].map(([path, w]): Chosen => {
    const entry = byPath.get(path)!;
    const f = hunksOf(entry);
    // Taking every hunk of a file and its mode change (or a created or deleted file's one hunk) is taking it whole.
    const all = w.indices.size === f.hunks.length && (w.mode || !f.modeChange);
    if (w.whole || all || entry.old === null || entry.new === null) return { entry, patch: 'whole' };
    return {
      entry,
      patch: {
        oldPath: path,
        newPath: path,
        oldMode: entry.old.mode,
        newMode: w.mode ? entry.new.mode : entry.old.mode,
        binary: false,
        hunks: f.hunks.filter((_, i) => w.indices.has(i + 1)),
      },
    };
  });
}

/** STALE_HUNKS: ids that name no hunk of the draft as it is now. */
function staleHunks(ids: string[]): ShadowError {
  return new ShadowError(
    'STALE_HUNKS',
    `no hunk of the draft has the id ${ids.join(', ')}: the draft moved since its hunks were listed; nothing was written`,
    { hint: 'shadow diff --json shows the hunks now', data: { ids } },
  );
}

function wholeOnly(f: FileHunks): ShadowError {
  const why = {
    binary: 'binary',
    type: 'a symlink, submodule or change of type',
    encoding: 'not UTF-8 text',
    empty: 'an empty file',
  }[f.whole!];
  return new ShadowError('INVALID_ARGUMENT', `${f.path} is ${why}: whole file only`, {
    hint: `apply it whole: --hunks ${f.path} (or shadow apply ${f.path})`,
    data: { path: f.path, whole: f.whole },
  });
}

/**
 * A path's entry after `patch`: base + its hunks, in the mode it says; null
 * when that is the base itself (the patch takes nothing of the path).
 */
function partialEntry(
  e: PublishEntry,
  f: FileHunks,
  patch: FilePatch,
  read: Read,
): { entry: FileEntry | null; content?: Buffer } | null {
  if (patch.hunks.length > 0 && f.whole !== undefined) throw wholeOnly(f);
  if (patch.oldPath === null && e.old !== null) throw patchFailed(e.path, 0, 'the patch creates a file the base has');
  if (patch.oldPath !== null && e.old === null) throw patchFailed(e.path, 0, 'the base has no such file');
  const modeMoves = patch.oldMode !== undefined && patch.newMode !== undefined && patch.oldMode !== patch.newMode;
  if (modeMoves && (e.old?.mode !== patch.oldMode || e.new?.mode !== patch.newMode)) {
    throw new ShadowError('INVALID_ARGUMENT', `the patch changes the mode of ${e.path} as the draft does not`, {
      hint: "shadow diff shows the draft's mode change",
      data: { path: e.path, old: patch.oldMode, new: patch.newMode },
    });
  }
  const text = applyHunks(e.path, read(e.old).toString('utf8'), patch.hunks);
  if (patch.newPath === null) {
    if (text !== '') throw patchFailed(e.path, 1, 'a deletion that leaves lines in the file');
    return e.new === null ? { entry: null } : null;
  }
  const mode = e.old === null ? e.new!.mode : modeMoves ? e.new!.mode : e.old.mode;
  const content = Buffer.from(text, 'utf8');
  const entry = { mode, oid: blobOid(content) };
  if (sameEntry(entry, e.old)) return null;
  return { entry, content };
}
