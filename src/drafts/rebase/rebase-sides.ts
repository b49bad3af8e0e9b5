import { ShadowError } from '../../errors.js';
import type { Oid } from '../../git/format/git-objects.js';
import { lookupPath, type FileEntry } from '../../git/format/tree-lookup.js';
import { skipWorktreeEntry } from '../view/sparse-paths.js';
import type { Workspace } from '../workspace.js';

/**
 * The new base's side of a rebase ("ours"), path by path: the working tree
 * as `git add` would store it, or a commit's tree. `type` is what no blob
 * entry stands for: a directory, or a special file.
 */
export type Side = { entry: FileEntry | null; content?: Buffer } | { type: 'dir' | 'special' };

/** The working tree's side of `paths`, in clean form; a path git keeps out of the working tree reads as the index holds it. */
export function worktreeSides(ws: Workspace, paths: readonly string[]): Map<string, Side> {
  const lower = ws.worktreeLower(true)!;
  const view = ws.skipWorktreeView();
  const out = new Map<string, Side>();
  for (const path of paths) {
    const kept = view ? skipWorktreeEntry(ws, path, view) : undefined;
    if (kept !== undefined) {
      out.set(path, { entry: kept });
      continue;
    }
    try {
      const l = lower.read(path);
      if (l.kind === 'absent') out.set(path, { entry: null });
      else if (l.kind === 'dir') out.set(path, { type: 'dir' });
      else out.set(path, { entry: { mode: l.mode, oid: l.oid }, content: l.content() });
    } catch (e) {
      if (e instanceof ShadowError && e.code === 'SYMLINK_IN_PATH') out.set(path, { entry: null });
      else if (e instanceof ShadowError && e.code === 'UNSUPPORTED_FILE_TYPE') out.set(path, { type: 'special' });
      else throw e;
    }
  }
  return out;
}

/** A commit's side of `paths`: its tree's entries. */
export function treeSides(ws: Workspace, tree: Oid, paths: readonly string[]): Map<string, Side> {
  const out = new Map<string, Side>();
  for (const path of paths) {
    const k = lookupPath(ws.repo.objects, tree, path);
    out.set(
      path,
      k.kind === 'dir' ? { type: 'dir' } : { entry: k.kind === 'file' ? { mode: k.mode, oid: k.oid } : null },
    );
  }
  return out;
}
