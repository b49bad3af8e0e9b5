import { isTreeMode, MODE, type Oid } from '../../git/format/git-objects.js';
import type { PublishEntry } from '../publish-set/publish-set.js';
import { submoduleOf, submodulePathError } from '../../git/format/submodules.js';
import { findEntry } from '../../git/format/tree-lookup.js';
import { ShadowError } from '../../errors.js';
import { statIfExists } from '../../durable/durable-file.js';
import type { IndexView } from '../../git/index-view.js';
import { isNestedRepository } from '../../git/nested-repo.js';
import type { Workspace } from '../workspace.js';

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
  /** Entries of the trees by tree and path (entryIn). */
  private readonly entries = new Map<string, { mode: string; oid: Oid } | undefined>();
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
    for (let i = 0; i < this.trees.length; i++) {
      const e = this.entryIn(i, path);
      if (e?.mode === MODE.gitlink) return e.oid;
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

  /**
   * The entry `path` names in tree `i`, or undefined. Found from its parent
   * directory's entry, which the probe keeps: `holding` asks a path's
   * prefixes outermost first, so each level of each tree is searched once
   * per probe, where a lookup from the top for each prefix searched the
   * levels above it again (about a third of a batch's probe in a new
   * process). The same answers as lookupPath's.
   */
  private entryIn(i: number, path: string): { mode: string; oid: Oid } | undefined {
    const key = `${i}\0${path}`;
    if (this.entries.has(key)) return this.entries.get(key);
    const slash = path.lastIndexOf('/');
    let dir: Oid | undefined;
    if (slash === -1) dir = this.trees[i];
    else {
      const parent = this.entryIn(i, path.slice(0, slash));
      dir = parent && isTreeMode(parent.mode) ? parent.oid : undefined;
    }
    let found: { mode: string; oid: Oid } | undefined;
    if (dir !== undefined) {
      const list = this.ws.repo.objects.readTree(dir);
      const at = findEntry(list, path.slice(slash + 1));
      if (at !== -1) found = { mode: list[at]!.mode, oid: list[at]!.oid };
    }
    this.entries.set(key, found);
    return found;
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

/**
 * SUBMODULE_PATH when a publish set holds a submodule: a gitlink entry, or
 * a path at or below a submodule (a draft made before shadow refused them).
 * Every such path is listed.
 */
export function submoduleInPublish(probe: SubmoduleProbe, entries: readonly PublishEntry[]): ShadowError | undefined {
  const found: ShadowError[] = [];
  for (const e of entries) {
    const link = e.old?.mode === MODE.gitlink ? e.old : e.new?.mode === MODE.gitlink ? e.new : undefined;
    const p =
      probe.problem(e.path, 'publish into') ?? (link && submodulePathError(e.path, e.path, link.oid, 'publish into'));
    if (p) found.push(p);
  }
  if (found.length <= 1) return found[0];
  const first = found[0]!;
  const paths = found.map((f) => f.data!.path as string);
  return new ShadowError(
    'SUBMODULE_PATH',
    `${first.message}; and ${found.length - 1} more path${found.length === 2 ? '' : 's'} in submodules: ${paths.slice(1, 11).join(', ')}${paths.length > 11 ? ', …' : ''}`,
    {
      hint: first.hint,
      data: { ...first.data, paths },
    },
  );
}
