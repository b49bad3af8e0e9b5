/**
 * `shadow fetch`: every draft of a remote, with its checkpoints, proposal
 * and the snapshot of its files, brought to `refs/shadow/remotes/<remote>/`
 * by one `git fetch --atomic --prune` (all of them move, or none; a draft
 * gone there goes here). Local drafts are never written: a remote draft is
 * read as `<remote>/<draft>` and continued with `shadow draft new`.
 * What arrives passes git's fsck and shadow's path gate first
 * (fetch-gate.ts): a draft that holds a path git refuses to check out is
 * UNSAFE_PATH, and every ref stays where it was.
 */
import { ShadowError } from '../errors.js';
import type { Oid } from '../git/format/git-objects.js';
import { listRemoteDrafts, refreshRemoteDraft } from '../drafts/drafts.js';
import { REMOTES_PREFIX } from '../drafts/ref-names.js';
import type { Workspace } from '../drafts/workspace.js';
import { pruneMirrors } from '../state/remote-mirror.js';
import { checkRemote, gitSays, runGit } from './remote-git.js';
import { mergeFetchedNotes, remoteNotesPrefix, type NotesTransfer } from './notes-transfer.js';
import { fetchedDraftError, fetchedPathProblem, fsckRefusal, fsckRefusalError, FSCK_FETCH } from './fetch-gate.js';

/** The kinds of a draft's refs that travel. */
export const SHARED_KINDS = ['drafts', 'checkpoints', 'proposals', 'meta'] as const;

export interface FetchResult {
  remote: string;
  /** Each remote draft after the fetch, with the tip it had here before (null: new). */
  drafts: Array<{ draft: string; tip: Oid; was: Oid | null }>;
  /** Remote drafts gone from the remote, so gone here. */
  pruned: string[];
  /** The remote's Agent Trace notes, merged into the local ones (notes-transfer.ts); absent when turned off. */
  notes?: NotesTransfer;
}

/** Fetch every draft of `remote`. */
export function fetchDrafts(ws: Workspace, remoteName: string): FetchResult {
  const remote = checkRemote(ws, remoteName);
  const repo = ws.repo;
  const tips = (): Map<string, Oid> => new Map(listRemoteDrafts(ws, remote.name).map((d) => [d.name, d.tip]));
  const before = new Map(repo.refs.list(`${REMOTES_PREFIX}${remote.name}/drafts/`).map((r) => [`${remote.name}/${r.ref.slice(`${REMOTES_PREFIX}${remote.name}/drafts/`.length)}`, r.oid]));
  // The notes refs come in the same fetch, to refs/notes/remotes/<remote>/ (notes-transfer.ts merges shadow's).
  const refspecs = [...SHARED_KINDS.map((k) => `+refs/shadow/${k}/*:${REMOTES_PREFIX}${remote.name}/${k}/*`), `+refs/notes/*:${remoteNotesPrefix(remote.name)}*`];
  const tracked = [`${REMOTES_PREFIX}${remote.name}/`, remoteNotesPrefix(remote.name)];
  const kept = new Map(tracked.flatMap((prefix) => repo.refs.list(prefix).map((r) => [r.ref, r.oid] as const)));
  const run = runGit(ws, [...FSCK_FETCH, 'fetch', '--atomic', '--prune', '--no-tags', '--no-write-fetch-head', '--quiet', remote.name, ...refspecs]);
  if (run.status !== 0) {
    const refused = fsckRefusal(run.stderr.toString());
    if (refused) throw fsckRefusalError(remote.name, refused);
    throw new ShadowError('REMOTE_FAILED', `git fetch from ${remote.name} failed: ${gitSays(run.stderr) || `exit ${run.status}`}; nothing changed here`, {
      hint: `check that ${remote.url} is reachable (\`git ls-remote ${remote.name}\`)`,
      data: { remote: remote.name, status: run.status, stderr: run.stderr },
    });
  }
  // git wrote packs this handle has not seen yet.
  repo.objects.rescan();
  refuseUnsafeDrafts(ws, remote.name, kept, tracked);
  const after = tips();
  for (const name of after.keys()) refreshRemoteDraft(ws, name);
  pruneMirrors(ws.ctx, repo.shadowDir, remote.name, new Set([...after.keys()].map((d) => d.slice(remote.name.length + 1))));
  const notes = mergeFetchedNotes(ws, remote.name);
  return {
    remote: remote.name,
    drafts: [...after].map(([draft, tip]) => ({ draft, tip, was: before.get(draft) ?? null })),
    pruned: [...before.keys()].filter((d) => !after.has(d)),
    ...(notes ? { notes } : {}),
  };
}

/**
 * Every draft whose refs the fetch moved, walked through the path gate from
 * what was here before; on a refusal every ref the fetch moved is put back
 * (one `git update-ref --stdin` transaction) before UNSAFE_PATH is thrown.
 */
function refuseUnsafeDrafts(ws: Workspace, remote: string, kept: ReadonlyMap<string, Oid>, tracked: readonly string[]): void {
  const now = new Map(tracked.flatMap((prefix) => ws.repo.refs.list(prefix).map((r) => [r.ref, r.oid] as const)));
  const moved = new Map<string, Oid[]>();
  for (const kind of ['drafts', 'checkpoints', 'proposals'] as const) {
    const prefix = `${REMOTES_PREFIX}${remote}/${kind}/`;
    for (const [ref, oid] of now) {
      if (!ref.startsWith(prefix) || kept.get(ref) === oid) continue;
      const rest = ref.slice(prefix.length);
      // A checkpoint's ref is <draft>/<name>: the draft is all but the last component.
      const draft = kind === 'checkpoints' ? rest.slice(0, rest.lastIndexOf('/')) : rest;
      moved.set(draft, [...(moved.get(draft) ?? []), oid]);
    }
  }
  const known = [...new Set(kept.values())];
  for (const [draft, tips] of [...moved].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const found = fetchedPathProblem(ws, tips, known);
    if (!found) continue;
    putBack(ws, kept, now);
    throw fetchedDraftError(remote, draft, found);
  }
}

function putBack(ws: Workspace, kept: ReadonlyMap<string, Oid>, now: ReadonlyMap<string, Oid>): void {
  const lines: string[] = [];
  for (const [ref, oid] of now) if (kept.get(ref) !== oid) lines.push(kept.has(ref) ? `update ${ref} ${kept.get(ref)} ${oid}` : `delete ${ref} ${oid}`);
  for (const [ref, oid] of kept) if (!now.has(ref)) lines.push(`create ${ref} ${oid}`);
  if (lines.length === 0) return;
  const r = ws.ctx.git!.run(['update-ref', '--stdin'], { cwd: ws.repo.layout.worktree ?? ws.repo.layout.gitdir, env: ws.ctx.env, input: Buffer.from(`${lines.join('\n')}\n`) });
  if (r.status !== 0) {
    throw new ShadowError('REMOTE_FAILED', `the refs of a refused fetch could not be put back: ${gitSays(r.stderr)}`, {
      hint: '`git for-each-ref refs/shadow/remotes/` shows them; `shadow fetch` again once the remote is fixed',
      data: { stderr: r.stderr },
    });
  }
}
