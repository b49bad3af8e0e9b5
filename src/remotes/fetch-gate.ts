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
import { gitSays, runGit } from './remote-git.js';
import { REMOTES_PREFIX } from '../drafts/ref-names.js';

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

/**
 * UNSAFE_PATH for a fetch git's fsck stopped: nothing was fetched. To name
 * the draft, the path and the commit, the drafts are fetched once more
 * without fsck into `refs/shadow/quarantine/<remote>/`, walked through the
 * path gate and the quarantine refs deleted (the objects are left
 * unreachable, for git gc); when that finds nothing, git's own finding is
 * named (the tree and fsck's check).
 */
export function fsckRefusalError(
  ws: Workspace,
  remote: string,
  found: { object: Oid; check: string; says: string },
  kept: ReadonlyMap<string, Oid>,
): ShadowError {
  const fsck = { object: found.object, check: found.check };
  const named = diagnose(ws, remote, kept);
  if (named) return fetchedDraftError(remote, named.draft, named, fsck);
  return new ShadowError(
    'UNSAFE_PATH',
    `git refused what ${remote} sent: tree ${found.object.slice(0, 12)} fails fsck's ${found.check} (${found.says}); nothing was fetched`,
    {
      hint: `a draft on ${remote} holds a path git refuses to check out; ask its author to drop or roll it back, then fetch again`,
      data: { remote, ...fsck, reason: found.says },
    },
  );
}

const QUARANTINE = 'refs/shadow/quarantine/';

function diagnose(
  ws: Workspace,
  remote: string,
  kept: ReadonlyMap<string, Oid>,
): ({ draft: string } & Found) | undefined {
  const base = `${QUARANTINE}${remote}/`;
  const specs = ['drafts', 'checkpoints', 'proposals'].map((k) => `+refs/shadow/${k}/*:${base}${k}/*`);
  const run = runGit(ws, [
    '-c',
    'fetch.fsckObjects=false',
    '-c',
    'transfer.fsckObjects=false',
    'fetch',
    '--no-tags',
    '--no-write-fetch-head',
    '--quiet',
    remote,
    ...specs,
  ]);
  try {
    if (run.status !== 0) return undefined;
    ws.repo.objects.rescan();
    const now = refsUnder(ws, [base]);
    const tracked = new Map([...kept].map(([ref, oid]) => [ref.replace(`${REMOTES_PREFIX}${remote}/`, base), oid]));
    return firstUnsafe(ws, base, tracked, now, [...new Set(kept.values())]);
  } finally {
    restore(ws, new Map(), refsUnder(ws, [base]));
  }
}

type Found = { commit: Oid; path: string; reason: string };

function refsUnder(ws: Workspace, prefixes: readonly string[]): Map<string, Oid> {
  return new Map(prefixes.flatMap((prefix) => ws.repo.refs.list(prefix).map((r) => [r.ref, r.oid] as const)));
}

/** The first draft (by name) under `base` whose moved refs bring a refused path. */
function firstUnsafe(
  ws: Workspace,
  base: string,
  kept: ReadonlyMap<string, Oid>,
  now: ReadonlyMap<string, Oid>,
  known: readonly Oid[],
): ({ draft: string } & Found) | undefined {
  const moved = new Map<string, Oid[]>();
  for (const kind of ['drafts', 'checkpoints', 'proposals'] as const) {
    const prefix = `${base}${kind}/`;
    for (const [ref, oid] of now) {
      if (!ref.startsWith(prefix) || kept.get(ref) === oid) continue;
      const rest = ref.slice(prefix.length);
      // A checkpoint's ref is <draft>/<name>: the draft is all but the last component.
      const draft = kind === 'checkpoints' ? rest.slice(0, rest.lastIndexOf('/')) : rest;
      moved.set(draft, [...(moved.get(draft) ?? []), oid]);
    }
  }
  for (const [draft, tips] of [...moved].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const found = fetchedPathProblem(ws, tips, known);
    if (found) return { draft, ...found };
  }
  return undefined;
}

/**
 * After a fetch: every draft whose refs under `base` moved is walked through
 * the path gate from what was here before (`kept`); on a refusal every ref
 * under `tracked` the fetch moved is put back (one `git update-ref --stdin`
 * transaction) and UNSAFE_PATH is thrown.
 */
export function refuseUnsafeDrafts(
  ws: Workspace,
  remote: string,
  base: string,
  kept: ReadonlyMap<string, Oid>,
  tracked: readonly string[],
): void {
  const now = refsUnder(ws, tracked);
  const found = firstUnsafe(ws, base, kept, now, [...new Set(kept.values())]);
  if (!found) return;
  restore(ws, kept, now);
  throw fetchedDraftError(remote, found.draft, found);
}

/** Refs back to `kept` from `now` (a ref absent from `kept` is deleted), in one transaction. */
function restore(ws: Workspace, kept: ReadonlyMap<string, Oid>, now: ReadonlyMap<string, Oid>): void {
  const lines: string[] = [];
  for (const [ref, oid] of now)
    if (kept.get(ref) !== oid)
      lines.push(kept.has(ref) ? `update ${ref} ${kept.get(ref)} ${oid}` : `delete ${ref} ${oid}`);
  for (const [ref, oid] of kept) if (!now.has(ref)) lines.push(`create ${ref} ${oid}`);
  if (lines.length === 0) return;
  const r = ws.ctx.git!.run(['update-ref', '--stdin'], {
    cwd: ws.repo.layout.worktree ?? ws.repo.layout.gitdir,
    env: ws.ctx.env,
    input: Buffer.from(`${lines.join('\n')}\n`),
  });
  if (r.status !== 0) {
    throw new ShadowError('REMOTE_FAILED', `the refs of a refused fetch could not be put back: ${gitSays(r.stderr)}`, {
      hint: '`git for-each-ref refs/shadow/` shows them; `shadow fetch` again once the remote is fixed',
      data: { stderr: r.stderr },
    });
  }
}

/**
 * The first path that the commits reachable from `tips` and not from
 * `known` (nor from any branch, tag or remote-tracking branch here) change
 * and that the gate refuses: each commit's tree diffed against each parent
 * (the whole tree for a root commit), so a path is checked in the commit
 * that brought it.
 */
function fetchedPathProblem(
  ws: Workspace,
  tips: readonly Oid[],
  known: readonly Oid[],
): { commit: Oid; path: string; reason: string } | undefined {
  if (tips.length === 0) return undefined;
  const list = runGit(ws, ['rev-list', ...tips, '--not', ...known, '--branches', '--tags', '--remotes']);
  if (list.status !== 0) {
    throw new ShadowError('REMOTE_FAILED', `git rev-list of the fetched drafts failed: ${list.stderr.trim()}`, {
      data: { stderr: list.stderr },
    });
  }
  const objects = ws.repo.objects;
  for (const commit of list.stdout
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')) {
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
function fetchedDraftError(
  remote: string,
  draft: string,
  found: Found,
  fsck?: { object: Oid; check: string },
): ShadowError {
  return unsafePath(
    found.path,
    found.reason,
    { commit: found.commit, remote, draft, ...(fsck ? { fsck } : {}) },
    {
      verb: `fetch ${remote}/${draft}, which holds`,
      outcome: 'nothing was fetched',
      hint: `ask the author of ${draft} on ${remote} to drop or roll it back, then fetch again`,
    },
  );
}
