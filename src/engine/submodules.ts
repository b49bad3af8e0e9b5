import { MODE, type Oid } from '../core/git-objects.js';
import { submoduleOf, submodulePathError } from '../core/submodules.js';
import { lookupPath } from '../core/tree-lookup.js';
import type { ShadowError } from '../errors.js';
import { statIfExists } from '../store/durable-file.js';
import type { IndexView } from '../store/index-view.js';
import { isNestedRepository } from '../store/nested-repo.js';
import type { Workspace } from './workspace.js';

/**
 * Where the submodules of a workspace are, as git knows them: gitlink
 * entries (mode 160000) of the given trees (a draft's tip and root), of
 * git's index, and directories of the working tree that are nested
 * repositories. The index is read only when the working tree has a
 * `.gitmodules` (every `git submodule add` writes one), so a repository
 * without submodules never pays for reading it; a gitlink staged by hand,
 * with no `.gitmodules` and no checkout, is the one kind this misses.
 * Each path is looked at once per probe.
 */
export class SubmoduleProbe {
  private readonly known = new Map<string, Oid | null | undefined>();
  private index: IndexView | undefined | null = null;

  private readonly trees: readonly Oid[];

  constructor(
    private readonly ws: Workspace,
    trees: readonly Oid[],
  ) {
    this.trees = [...new Set(trees)];
  }

  /**
   * The commit recorded for a submodule at `path` (null: a nested repository
   * git does not track), or undefined when `path` is no submodule. `isDir`,
   * when the caller knows, saves an lstat.
   */
  at(path: string, isDir?: boolean): Oid | null | undefined {
    if (this.known.has(path)) return this.known.get(path);
    const found = this.find(path, isDir);
    this.known.set(path, found);
    return found;
  }

  /** The outermost submodule at `path` or above it, with its commit. */
  holding(path: string): { submodule: string; commit: Oid | null } | undefined {
    const submodule = submoduleOf(path, (p) => this.at(p) !== undefined);
    return submodule === undefined ? undefined : { submodule, commit: this.at(submodule)! };
  }

  /** SUBMODULE_PATH for `path` when it is a submodule or inside one. */
  problem(path: string, verb?: string): ShadowError | undefined {
    const s = this.holding(path);
    return s && submodulePathError(path, s.submodule, s.commit, verb);
  }

  private find(path: string, isDir: boolean | undefined): Oid | null | undefined {
    const staged = this.gitIndex()?.modeOf(path);
    if (staged === MODE.gitlink) return this.gitIndex()!.idOf(path) ?? null;
    for (const tree of this.trees) {
      const k = lookupPath(this.ws.repo.objects, tree, path);
      if (k.kind === 'file' && k.mode === MODE.gitlink) return k.oid;
    }
    const wt = this.ws.repo.layout.worktree;
    if (wt === null) return undefined;
    const full = `${wt}/${path}`;
    if (isDir === false) return undefined;
    if (isDir === undefined) {
      let st;
      try {
        st = statIfExists(this.ws.ctx.fs, full);
      } catch {
        return undefined;
      }
      // Never through a symlink: the lower layer refuses those paths on its own.
      if (!st?.isDirectory()) return undefined;
    }
    return isNestedRepository(this.ws.ctx.fs, full) ? null : undefined;
  }

  private gitIndex(): IndexView | undefined {
    if (this.index !== null) return this.index;
    const wt = this.ws.repo.layout.worktree;
    let hasModules = false;
    try {
      hasModules = wt !== null && statIfExists(this.ws.ctx.fs, `${wt}/.gitmodules`) !== undefined;
    } catch {
      hasModules = false;
    }
    this.index = hasModules ? this.ws.gitIndex() : undefined;
    return this.index;
  }
}
