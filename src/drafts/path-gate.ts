/**
 * The one path gate before the disk. Every set of entries that is about to
 * be written into a working tree (apply, unapply, recover, worktrees) or
 * brought in from elsewhere (fetch) passes here first, whole, before the
 * first write: a path git would refuse to check out (`treePathProblem`:
 * verify_path with the NTFS and HFS+ classes on, symlinked dotfiles, the
 * worktree marker), or a write beyond a symlink that the same set puts on
 * the path, is refused as UNSAFE_PATH with the path and the commit that
 * brought it. No route is exempt: the commits may have
 * come from a remote, a rollback target or a hand-made `git commit-tree`.
 */
import { ShadowError } from '../errors.js';
import { parentDirs } from '../core/path-rules.js';
import { treePathProblem } from '../core/tree-path-rules.js';
import { isTreeMode, MODE, type Oid } from '../git/format/git-objects.js';
import { lookupPath, type FileEntry, type TreeReader } from '../git/format/tree-lookup.js';
import type { Repository } from '../git/repository.js';
import type { Workspace } from './workspace.js';

/** One path a write would touch: what it holds now (`old`) and after (`new`); null is absent. */
export interface GatedEntry {
  path: string;
  old: FileEntry | null;
  new: FileEntry | null;
}

/** Where a refused path came from, for the error: the commit that brought it, and any more to say. */
type PathOrigin = (path: string) => { commit: Oid | null } & Record<string, unknown>;

/** The refusal of `path`: UNSAFE_PATH naming the path, the commit it came from and why; `act` says what was refused. */
export function unsafePath(
  path: string,
  reason: string,
  origin: { commit: Oid | null } & Record<string, unknown>,
  act: { verb: string; outcome: string; hint?: string } = { verb: 'write', outcome: 'nothing was written' },
): ShadowError {
  const from = origin.commit ? ` (from commit ${origin.commit.slice(0, 12)})` : '';
  return new ShadowError(
    'UNSAFE_PATH',
    `refusing to ${act.verb} ${JSON.stringify(path)}${from}: ${reason}; ${act.outcome}`,
    {
      hint:
        act.hint ??
        'shadow never writes a path git refuses to check out, nor its own worktree marker; drop the draft, or roll it back past that commit (`shadow rollback`)',
      data: { ...origin, path, reason },
    },
  );
}

/**
 * Why the entries, taken together, would write somewhere git would not:
 * each path by git's rules (both sides: a delete of `.git/config` is a
 * write into `.git` too), then no entry under a path the same set makes a
 * symlink. `undefined` when every entry may be written.
 */
export function entriesProblem(entries: readonly GatedEntry[]): { path: string; reason: string } | undefined {
  const links = new Set<string>();
  for (const e of entries) {
    for (const side of [e.new, e.old]) {
      if (side === null) continue;
      const reason = treePathProblem(e.path, side.mode);
      if (reason) return { path: e.path, reason };
    }
    if (e.new?.mode === MODE.symlink) links.add(e.path);
  }
  if (links.size === 0) return undefined;
  for (const e of entries) {
    if (e.new === null) continue;
    const link = parentDirs(e.path).find((d) => links.has(d));
    if (link !== undefined)
      return { path: e.path, reason: `it lies beyond the symbolic link ${link} the same tree puts on its path` };
  }
  return undefined;
}

/**
 * The gate: throw UNSAFE_PATH unless every entry may be written. (A symlink
 * already in the working tree on a path is the publish guard's to report:
 * the path no longer holds its base.)
 */
function gateEntries(entries: readonly GatedEntry[], origin: PathOrigin): void {
  const problem = entriesProblem(entries);
  if (problem) throw unsafePath(problem.path, problem.reason, origin(problem.path));
}

/**
 * The commit on `tip`'s first-parent history that gave `path` the entry it
 * has at `tip`: the oldest commit in the run of commits ending at `tip`
 * whose trees all hold that same entry. Read only when a path is refused.
 */
function commitThatBrought(repo: Repository, tip: Oid, path: string): Oid {
  const entryAt = (commit: Oid): string => {
    const k = lookupPath(repo.objects, repo.objects.readCommit(commit).tree, path);
    return k.kind === 'file' ? `${k.mode} ${k.oid}` : k.kind;
  };
  const want = entryAt(tip);
  let at = tip;
  for (;;) {
    const parent = repo.objects.readCommit(at).parents[0];
    if (parent === undefined || !repo.objects.has(parent) || entryAt(parent) !== want) return at;
    at = parent;
  }
}

/**
 * Why the tree `root` cannot be read at `path` as git would check it out:
 * a tree on the way holds two entries of the same name (a symlink `a`
 * beside a directory `a`: `git fsck`'s duplicateEntries), so a reader and
 * a checkout may each take another. `dups` caches each tree's doubled names.
 */
export function doubledOnPath(
  reader: TreeReader,
  root: Oid,
  path: string,
  dups = new Map<Oid, Set<string>>(),
): { path: string; reason: string } | undefined {
  let tree: Oid | undefined = root;
  const parts = path.split('/');
  for (let i = 0; i < parts.length && tree !== undefined; i++) {
    const entries = reader.readTree(tree);
    let doubled = dups.get(tree);
    if (doubled === undefined) {
      const names = new Set<string>();
      doubled = new Set();
      for (const e of entries) (names.has(e.name) ? doubled : names).add(e.name);
      dups.set(tree, doubled);
    }
    const name = parts[i]!;
    const at = parts.slice(0, i + 1).join('/');
    if (doubled.has(name))
      return {
        path: at,
        reason: `the tree holds two entries named ${JSON.stringify(name)} (git fsck: duplicateEntries)`,
      };
    tree = entries.find((e) => e.name === name && isTreeMode(e.mode))?.oid;
  }
  return undefined;
}

/**
 * The gate on what a draft at `tip` is about to write: `entries` (a publish
 * set, a journal) by the rules, and each `touched` path read from the tip's
 * tree (as a worktree writes it) by the rules and for a doubled name on the
 * way. UNSAFE_PATH names the path, the commit of the tip's history that
 * brought it, and the draft.
 */
export function gateDraftWrite(
  ws: Workspace,
  tip: Oid,
  draft: string,
  entries: readonly GatedEntry[],
  touched: readonly string[] = [],
): void {
  const origin = (path: string): { commit: Oid | null; draft: string } => ({
    commit: broughtBy(ws.repo, tip, path),
    draft,
  });
  gateEntries(entries, origin);
  if (touched.length === 0) return;
  const objects = ws.repo.objects;
  const tree = objects.readCommit(tip).tree;
  const dups = new Map<Oid, Set<string>>();
  const atTip: GatedEntry[] = [];
  for (const path of touched) {
    const doubled = doubledOnPath(objects, tree, path, dups);
    if (doubled) throw unsafePath(doubled.path, doubled.reason, origin(doubled.path));
    const k = lookupPath(objects, tree, path);
    if (k.kind === 'file') atTip.push({ path, old: null, new: { mode: k.mode, oid: k.oid } });
  }
  gateEntries(atTip, origin);
}

function broughtBy(repo: Repository, tip: Oid, path: string): Oid | null {
  try {
    return commitThatBrought(repo, tip, path);
  } catch {
    // The refusal stands even when the history cannot be read (a missing object).
    return repo.objects.has(tip) ? tip : null;
  }
}
