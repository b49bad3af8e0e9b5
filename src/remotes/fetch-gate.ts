/**
 * What `shadow fetch` lets in: the objects pass git's own fsck as they
 * arrive (`fetch.fsckObjects`, which refuses `.git`, `..`, symlinked
 * `.gitmodules` and more, promoting its warnings), and every commit the
 * fetched drafts bring passes shadow's path gate (drafts/path-gate.ts) on
 * each path it changes. A refused draft never lands: its refs stay where
 * they were (git refuses the whole fetch; after shadow's walk, every ref
 * the fetch moved is put back).
 */
import { ShadowError } from '../errors.js';
import type { Oid } from '../git/format/git-objects.js';
import { diffTrees } from '../git/format/tree-diff.js';
import { treePathProblem } from '../core/tree-path-rules.js';
import { doubledOnPath, unsafePath } from '../drafts/path-gate.js';
import type { Workspace } from '../drafts/workspace.js';
import { runGit } from './remote-git.js';

/** git's config for the fetch: received objects checked as `transfer.fsckObjects` checks them. */
export const FSCK_FETCH = ['-c', 'fetch.fsckObjects=true'];

/** fsck's checks that are about a tree's paths (fsck.h): a fetch they stop is UNSAFE_PATH, not a failed remote. */
const PATH_CHECKS = new Set([
  'hasDot',
  'hasDotdot',
  'hasDotgit',
  'fullPathname',
  'emptyName',
  'duplicateEntries',
  'treeNotSorted',
  'gitmodulesSymlink',
  'gitattributesSymlink',
  'gitignoreSymlink',
  'mailmapSymlink',
]);

/** The path check git's fsck stopped a fetch on, read from its stderr (`error: object <oid>: hasDotgit: contains '.git'`). */
export function fsckRefusal(stderr: string): { object: Oid; check: string; says: string } | undefined {
  for (const m of stderr.matchAll(/object ([0-9a-f]{40,64}): (\w+): ([^\n]*)/g)) {
    if (PATH_CHECKS.has(m[2]!)) return { object: m[1]!, check: m[2]!, says: m[3]!.trim() };
  }
  return undefined;
}

/** UNSAFE_PATH for a fetch git's fsck stopped: nothing was fetched. */
export function fsckRefusalError(remote: string, found: { object: Oid; check: string; says: string }): ShadowError {
  return new ShadowError('UNSAFE_PATH', `git refused what ${remote} sent: tree ${found.object.slice(0, 12)} fails fsck's ${found.check} (${found.says}); nothing was fetched`, {
    hint: `a draft on ${remote} holds a path git refuses to check out; ask its author to drop or roll it back, then fetch again`,
    data: { remote, object: found.object, check: found.check, reason: found.says },
  });
}

/**
 * The first path that the commits reachable from `tips` and not from
 * `known` (nor from any branch, tag or remote-tracking branch here) change
 * and that the gate refuses: each commit's tree diffed against each parent
 * (the whole tree for a root commit), so a path is checked in the commit
 * that brought it.
 */
export function fetchedPathProblem(ws: Workspace, tips: readonly Oid[], known: readonly Oid[]): { commit: Oid; path: string; reason: string } | undefined {
  if (tips.length === 0) return undefined;
  const list = runGit(ws, ['rev-list', ...tips, '--not', ...known, '--branches', '--tags', '--remotes']);
  if (list.status !== 0) {
    throw new ShadowError('REMOTE_FAILED', `git rev-list of the fetched drafts failed: ${list.stderr.trim()}`, { data: { stderr: list.stderr } });
  }
  const objects = ws.repo.objects;
  for (const commit of list.stdout.toString('utf8').split('\n').filter((l) => l !== '')) {
    const c = objects.readCommit(commit);
    const dups = new Map<Oid, Set<string>>();
    for (const parent of c.parents.length === 0 ? [null] : c.parents) {
      const from = parent === null ? null : objects.readCommit(parent).tree;
      for (const change of diffTrees(objects, from, c.tree)) {
        if (change.new === null) continue;
        const reason = treePathProblem(change.path, change.new.mode);
        if (reason) return { commit, path: change.path, reason };
        const doubled = doubledOnPath(objects, c.tree, change.path, dups);
        if (doubled) return { commit, ...doubled };
      }
    }
  }
  return undefined;
}

/** UNSAFE_PATH for a fetched draft the gate refused (its refs were put back). */
export function fetchedDraftError(remote: string, draft: string, found: { commit: Oid; path: string; reason: string }): ShadowError {
  const e = unsafePath(found.path, found.reason, { commit: found.commit, remote, draft });
  return new ShadowError('UNSAFE_PATH', `${remote}/${draft}: ${e.message.replace('; nothing was written', '')}; nothing was fetched`, {
    hint: `ask the author of ${draft} on ${remote} to drop or roll it back, then fetch again`,
    data: { ...e.data },
  });
}
