import { ShadowError } from '../errors.js';
import { actionOf, type PublishAction, type PublishEntry } from '../drafts/publish-set/publish-set.js';
import { lockedError } from '../durable/lock-file.js';
import { lockOwner } from '../durable/lock-holders.js';
import { hasJournals, readJournals, type Journal } from '../state/journal.js';
import { readDraftMeta } from '../state/draft-meta.js';
import type { Outcome } from './publish.js';
import type { PathConflict } from './path-conflict.js';
import type { MergeStatus, PathMerge } from './merge-paths.js';
import type { ConflictHunk } from '../git/format/merge-file.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * What apply, unapply and recover share: how a publish is described, the
 * errors that stop one before it writes, and the checks that keep two of
 * them (or git and shadow) from writing the same files at once.
 */

/** A path a publish changes, for people and machines. */
export interface PublishedPath {
  path: string;
  action: PublishAction;
  old: string | null;
  new: string | null;
  /**
   * For an apply: `clean` when the working tree held the base, `merged`
   * when the person's change and the draft's were merged, `conflict` when
   * they could not be (see `conflicts`; with `conflict: 'markers'` an
   * overlap is written with git's markers and the apply goes on).
   */
  merge?: MergeStatus;
  /** The blob written when it is not `new`: the merge (with markers, for a conflict written so). */
  merged?: string | null;
  /** Where both changed the same lines: each side's lines (an `overlap`). */
  hunks?: ConflictHunk[];
}

export function lockPath(ws: Workspace): string {
  return `${ws.repo.shadowDir}/apply.lock`;
}

export function describePaths(entries: readonly PublishEntry[]): PublishedPath[] {
  return entries.map((e) => ({ path: e.path, action: actionOf(e), old: e.old?.oid ?? null, new: e.new?.oid ?? null }));
}

/** An apply's paths, each with how it stands with the working tree. */
export function describeApply(entries: readonly PublishEntry[], merges: readonly PathMerge[]): PublishedPath[] {
  const byPath = new Map(merges.map((m) => [m.path, m]));
  return describePaths(entries).map((p) => {
    const m = byPath.get(p.path);
    if (!m) return { ...p, merge: 'clean' };
    const merged = m.result === undefined || m.result?.oid === p.new ? {} : { merged: m.result?.oid ?? null };
    return { ...p, merge: m.status, ...merged, ...(m.hunks ? { hunks: m.hunks } : {}) };
  });
}

/** What to do after STALE_BASE, by the command that stopped. */
const STALE_HINTS: Record<string, string> = {
  apply:
    'the working tree changed under the draft: look with `shadow status`, keep or revert your change, then apply again',
  unapply:
    'you changed these paths since the apply in ways no merge undoes (see `shadow unapply --dry-run`): put them back by hand, or keep the apply',
};

export function staleBase(conflicts: PathConflict[], verb: string): ShadowError {
  const list = conflicts
    .slice(0, 10)
    .map(
      (c) =>
        `${c.path} (${c.found}${c.detail ? `: ${c.detail}` : ''}${c.reason && c.reason !== 'type' ? `, not merged: ${c.reason}` : ''})`,
    )
    .join(', ');
  const more = conflicts.length > 10 ? `, and ${conflicts.length - 10} more` : '';
  const noun = conflicts.length === 1 ? 'path no longer holds' : 'paths no longer hold';
  return new ShadowError(
    'STALE_BASE',
    `${verb} stopped before writing anything: ${conflicts.length} ${noun} what the draft was based on: ${list}${more}`,
    {
      hint: STALE_HINTS[verb] ?? STALE_HINTS.apply!,
      data: { conflicts },
    },
  );
}

export function outcomeError(outcome: Outcome, verb: string): ShadowError {
  const list = outcome.failures.map((f) => `${f.path}: ${f.message}`).join('; ');
  return new ShadowError(
    'APPLY_FAILED',
    `${verb} could not write ${outcome.failures.length} path${outcome.failures.length === 1 ? '' : 's'} (${outcome.written.length} written, none torn): ${list}`,
    {
      hint: 'fix the cause (disk space, permissions), then run `shadow recover` to finish; every path is either old or new meanwhile',
      data: { failures: outcome.failures, written: outcome.written },
    },
  );
}

/** The git dir naming this worktree in journals and draft metadata (null when bare). */
export function thisWorktree(ws: Workspace): string | null {
  return ws.repo.layout.worktree === null ? null : ws.repo.layout.gitdir;
}

/**
 * The worktree a journal writes into: its own field, or for a journal of an
 * older version its draft's worktree. Undefined when neither says (such a
 * journal is replayed where it is found, as it always was).
 */
export function journalWorktree(ws: Workspace, j: Journal): string | null | undefined {
  if (j.worktree !== undefined) return j.worktree;
  return readDraftMeta(ws.ctx, ws.repo.shadowDir, j.draft)?.worktree;
}

export function isMine(ws: Workspace, j: Journal): boolean {
  const owner = journalWorktree(ws, j);
  return owner === undefined || owner === null || owner === thisWorktree(ws);
}

export function refuseWhilePending(ws: Workspace): void {
  if (
    hasJournals(ws.ctx, ws.repo.shadowDir) &&
    readJournals(ws.ctx, ws.repo.shadowDir).journals.some((j) => isMine(ws, j))
  ) {
    throw new ShadowError('APPLY_PENDING', 'an interrupted apply is waiting to be finished', {
      hint: 'run `shadow recover` first',
    });
  }
}

/**
 * Refuse before any write while git (or a live shadow) holds the index. A
 * lock a dead shadow process left is no obstacle: writing the index takes
 * it over.
 */
export function checkIndexLock(ws: Workspace): void {
  const lock = `${ws.repo.layout.gitdir}/index.lock`;
  const owner = lockOwner(ws.ctx, ws.repo.lockHolders, lock);
  if (owner === undefined || (owner.kind === 'shadow' ? owner.stale : owner.beforeBoot)) return;
  throw lockedError(lock, owner);
}
