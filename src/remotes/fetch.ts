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
import { fsckRefusal, fsckRefusalError, FSCK_FETCH, refuseUnsafeDrafts } from './fetch-gate.js';

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
  const before = new Map(
    repo.refs
      .list(`${REMOTES_PREFIX}${remote.name}/drafts/`)
      .map((r) => [`${remote.name}/${r.ref.slice(`${REMOTES_PREFIX}${remote.name}/drafts/`.length)}`, r.oid]),
  );
  // The notes refs come in the same fetch, to refs/notes/remotes/<remote>/ (notes-transfer.ts merges shadow's).
  const refspecs = [
    ...SHARED_KINDS.map((k) => `+refs/shadow/${k}/*:${REMOTES_PREFIX}${remote.name}/${k}/*`),
    `+refs/notes/*:${remoteNotesPrefix(remote.name)}*`,
  ];
  const tracked = [`${REMOTES_PREFIX}${remote.name}/`, remoteNotesPrefix(remote.name)];
  const kept = new Map(tracked.flatMap((prefix) => repo.refs.list(prefix).map((r) => [r.ref, r.oid] as const)));
  const run = runGit(ws, [
    ...FSCK_FETCH,
    'fetch',
    '--atomic',
    '--prune',
    '--no-tags',
    '--no-write-fetch-head',
    '--quiet',
    remote.name,
    ...refspecs,
  ]);
  if (run.status !== 0) {
    const refused = fsckRefusal(run.stderr);
    if (refused) throw fsckRefusalError(ws, remote.name, refused, kept);
    throw new ShadowError(
      'REMOTE_FAILED',
      `git fetch from ${remote.name} failed: ${gitSays(run.stderr) || `exit ${run.status}`}; nothing changed here`,
      {
        hint: `check that ${remote.url} is reachable (\`git ls-remote ${remote.name}\`)`,
        data: { remote: remote.name, status: run.status, stderr: run.stderr },
      },
    );
  }
  // git wrote packs this handle has not seen yet.
  repo.objects.rescan();
  refuseUnsafeDrafts(ws, remote.name, `${REMOTES_PREFIX}${remote.name}/`, kept, tracked);
  const after = tips();
  for (const name of after.keys()) refreshRemoteDraft(ws, name);
  pruneMirrors(
    ws.ctx,
    repo.shadowDir,
    remote.name,
    new Set([...after.keys()].map((d) => d.slice(remote.name.length + 1))),
  );
  const notes = mergeFetchedNotes(ws, remote.name);
  return {
    remote: remote.name,
    drafts: [...after].map(([draft, tip]) => ({ draft, tip, was: before.get(draft) ?? null })),
    pruned: [...before.keys()].filter((d) => !after.has(d)),
    ...(notes ? { notes } : {}),
  };
}
