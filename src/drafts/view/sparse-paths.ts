import { ShadowError } from '../../errors.js';
import type { PublishEntry } from '../publish-set/publish-set.js';
import { lookupPath, type FileEntry } from '../../git/format/tree-lookup.js';
import type { IndexView } from '../../git/index-view.js';
import type { Workspace } from '../workspace.js';

/**
 * Paths git keeps out of the working tree: outside the sparse-checkout cone,
 * or marked `git update-index --skip-worktree`. git reads them from its
 * index, not from the (absent or stale) working-tree file, and so does
 * shadow: such a path is never a deletion, its base is the index's blob, and
 * publishing into it is refused (SPARSE_PATH): checking it out is git's to
 * decide. A draft may still change it; the refusal comes at apply.
 */

/**
 * The index's entry at `path` when git keeps the path out of the working
 * tree (null: inside a sparse index's collapsed directory, which does not
 * hold it), or undefined when the working tree is the truth there. `view`
 * defaults to the index read only if it may hold such paths (see
 * Workspace.skipWorktreeView).
 */
export function skipWorktreeEntry(
  ws: Workspace,
  path: string,
  view: IndexView | undefined = ws.skipWorktreeView(),
): FileEntry | null | undefined {
  const kept = view?.skipWorktree(path);
  if (kept === undefined || 'mode' in kept) return kept;
  const inDir = lookupPath(ws.repo.objects, kept.tree, path.slice(kept.dir.length + 1));
  return inDir.kind === 'file' ? { mode: inDir.mode, oid: inDir.oid } : null;
}

/** The publish entries whose paths git keeps out of the working tree. */
export function sparsePaths(ws: Workspace, entries: readonly PublishEntry[]): string[] {
  if (entries.length === 0) return [];
  const view = ws.skipWorktreeView();
  if (!view) return [];
  return entries.filter((e) => skipWorktreeEntry(ws, e.path, view) !== undefined).map((e) => e.path);
}

/** SPARSE_PATH for a publish (`verb`) that would write `paths`. */
export function sparsePathError(ws: Workspace, paths: readonly string[], verb: string, dryRun = false): ShadowError {
  const cone = ws.repo.config.getBool('core.sparsecheckout') === true;
  const list = paths.slice(0, 10).join(', ') + (paths.length > 10 ? `, and ${paths.length - 10} more` : '');
  const dirs = [...new Set(paths.map((p) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '.')))];
  const widen = `widen the sparse checkout with \`git sparse-checkout add ${dirs.join(' ')}\``;
  const clear = `clear the flag with \`git update-index --no-skip-worktree -- ${paths.join(' ')}\``;
  return new ShadowError(
    'SPARSE_PATH',
    `${verb} ${dryRun ? 'would stop' : 'stopped'} before writing anything: git keeps ${paths.length === 1 ? 'this path' : `${paths.length} paths`} out of the working tree (sparse checkout or skip-worktree): ${list}`,
    {
      hint: `${cone ? `${widen}, or ${clear}` : `${clear}, or ${widen}`}; then run \`shadow ${verb}\` again`,
      data: { paths: [...paths] },
    },
  );
}
