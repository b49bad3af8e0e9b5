/**
 * Names of shadow's refs, and the rules a draft or checkpoint name follows:
 * exactly one component that `git check-ref-format` accepts.
 */

import { refComponentProblem } from '../core/ref-component.js';
import { splitRemoteDraft } from '../core/remote-draft-name.js';

export const DRAFTS_PREFIX = 'refs/shadow/drafts/';
export const CHECKPOINTS_PREFIX = 'refs/shadow/checkpoints/';
export const ARCHIVE_PREFIX = 'refs/shadow/archive/';
export const PROPOSALS_PREFIX = 'refs/shadow/proposals/';
/** What an apply's merges wrote and replaced, kept reachable for unapply (publish/merge-record.ts). */
export const MERGES_PREFIX = 'refs/shadow/merges/';

export const AUTO_CHECKPOINT_PREFIX = 'auto-';

/** A draft's metadata and ledger as git objects, for sharing it (remotes/meta-snapshot.ts). */
export const META_PREFIX = 'refs/shadow/meta/';
/** What `shadow fetch` brought from each remote: `refs/shadow/remotes/<remote>/` + the remote's own names under `refs/shadow/`. */
export const REMOTES_PREFIX = 'refs/shadow/remotes/';

/**
 * The ref `prefix` + `draft` names, for a local draft (`refactor`) or a
 * remote one (`origin/refactor`: the remote's ref of that kind, under
 * `refs/shadow/remotes/origin/`).
 */
function refOf(prefix: string, draft: string): string {
  const remote = splitRemoteDraft(draft);
  return remote
    ? `${REMOTES_PREFIX}${remote.remote}/${prefix.slice('refs/shadow/'.length)}${remote.draft}`
    : `${prefix}${draft}`;
}

export const draftRef = (draft: string): string => refOf(DRAFTS_PREFIX, draft);
export const checkpointRef = (draft: string, name: string): string => `${refOf(CHECKPOINTS_PREFIX, draft)}/${name}`;
export const checkpointsPrefix = (draft: string): string => `${refOf(CHECKPOINTS_PREFIX, draft)}/`;
export const proposalRef = (draft: string): string => refOf(PROPOSALS_PREFIX, draft);
export const mergesRef = (draft: string): string => refOf(MERGES_PREFIX, draft);
export const metaRef = (draft: string): string => refOf(META_PREFIX, draft);

/** Why `name` may not be a checkpoint name, or undefined. */
export function checkpointNameProblem(name: string): string | undefined {
  const problem = refComponentProblem(name);
  if (problem) return problem;
  if (/^\d+$/.test(name)) return 'it is a plain number, which `shadow rollback` reads as a batch number';
  return undefined;
}
