import { ShadowError } from '../errors.js';
import type { PublishEntry } from '../drafts/publish-set/publish-set.js';
import { resetReflogMessage } from '../git/format/reflog-message.js';
import { createJournal, type Journal } from '../state/journal.js';
import { takeProcessLock } from '../durable/process-lock.js';
import { checkWorktree, requireDraft } from '../drafts/drafts.js';
import { sparsePathError, sparsePaths } from '../drafts/view/sparse-paths.js';
import { readPolicy, type Policy } from '../review/review.js';
import { guardPaths, runJournal } from './publish.js';
import type { PathConflict } from './path-conflict.js';
import { mergePaths } from './merge-paths.js';
import { gateDraftWrite } from '../drafts/path-gate.js';
import { journalEntries, keepMergeBlobs, overlapError } from './merge-record.js';
import {
  checkIndexLock,
  describeApply,
  lockPath,
  outcomeError,
  refuseWhilePending,
  staleBase,
  thisWorktree,
  type PublishedPath,
} from './publish-guards.js';
import type { Workspace } from '../drafts/workspace.js';

/** The label of the side unapply puts back, in conflict markers (`>>>>>>> before the apply`). */
export const UNAPPLY_LABEL = 'before the apply';

export interface UnapplyOptions {
  actor: string;
  policy?: Partial<Policy>;
  /** Say what would be put back, path by path, writing nothing. */
  dryRun?: boolean;
  /** Where you changed the lines the apply wrote: stop (`refuse`, the default), or write git's conflict markers (`markers`). */
  conflict?: 'refuse' | 'markers';
}

export interface UnapplyResult {
  draft: string;
  /** The apply that was (or, for a dry run, would be) reversed. */
  reverted: string;
  dry_run: boolean;
  /** Each path put back: `clean` where it still held what the apply wrote, `merged` where your later edits were kept. */
  paths: PublishedPath[];
  /** Paths you deleted or created since the apply: left as they are. */
  kept: string[];
  /** Where the reverse merge could not settle a path (an overlap carries its hunks); a dry run reports them, an unapply stops. */
  conflicts: PathConflict[];
  branch?: { ref: string; old: string | null; new: string };
}

type BranchMove = { ref: string; old: string | null; new: string };

/**
 * After `apply --commit`/`--squash`, the branch must still be where the
 * apply left it: moving it back would drop the commits made on it since,
 * and putting the files back under them would leave the apply's commits in
 * the branch with the index staging their undoing (the person's own later
 * change to those paths with it). So unapply refuses, dry run too, before
 * anything is read or written; git undoes the apply's commits under later
 * ones (`git revert`).
 */
function refuseMovedBranch(ws: Workspace, draftName: string, branch: BranchMove | undefined): void {
  if (!branch) return;
  const now = ws.repo.refs.resolve(branch.ref) ?? null;
  if (now === branch.new) return;
  const name = branch.ref.replace(/^refs\/heads\//, '');
  const moved = now === null ? 'is gone' : `is at ${now.slice(0, 12)}`;
  const applied = branch.new.slice(0, 12);
  const commits = branch.old === null ? applied : `${branch.old.slice(0, 12)}..${applied}`;
  const message = `unapply refused: draft "${draftName}"'s last apply moved ${name} to ${applied}; it ${moved} now`;
  throw new ShadowError('BRANCH_MOVED', message, {
    hint: `undo the apply's commits as new commits on top of yours: git revert --no-edit ${commits}`,
    data: { draft: draftName, ref: branch.ref, applied: branch.new, now, before: branch.old },
  });
}

/**
 * Put back what the draft's last apply replaced, by a three-way merge in
 * reverse: for each path the apply wrote, base = what it wrote, ours = the
 * working tree now, theirs = what it replaced. A path that still holds what
 * the apply wrote gets its old content back; a path you edited since keeps
 * your edits where they do not touch the apply's lines (as `git revert`
 * keeps later commits); where they do, nothing is written (`CONFLICT`,
 * or git's markers with `conflict: 'markers'`). A path you deleted or
 * created since is yours: left as it is. The draft's bases return to what
 * they were, so applying again publishes the same changes.
 */
export async function unapplyDraft(ws: Workspace, draftName: string, options: UnapplyOptions): Promise<UnapplyResult> {
  const draft = requireDraft(ws, draftName);
  checkWorktree(ws, draft, options.dryRun ? 'shadow unapply --dry-run' : 'shadow unapply');
  if (readPolicy(ws, options.policy).sandbox === 'read-only' && !options.dryRun) {
    throw new ShadowError('READ_ONLY', 'the sandbox is read-only: unapply writes the working tree and is refused', {
      hint: 'git config shadow.sandbox workspace-write, or --sandbox workspace-write',
    });
  }
  if (!options.dryRun) refuseWhilePending(ws);
  const last = draft.lastApply;
  if (!last) {
    throw new ShadowError('NOTHING_TO_UNDO', `draft "${draftName}" has no apply to reverse`, {
      hint: 'nothing was published from it',
      data: { draft: draftName },
    });
  }
  refuseMovedBranch(ws, draftName, last.branch);
  const reversed: PublishEntry[] = last.entries.map((e) => ({ path: e.path, old: e.new, new: e.old }));
  // The record is a file in .git: what it names is checked as any tree is.
  gateDraftWrite(ws, last.tip, draftName, reversed);
  const sparse = sparsePaths(ws, reversed);
  if (sparse.length > 0) throw sparsePathError(ws, sparse, 'unapply');
  const moved = guardPaths(ws, reversed, 'old');
  // A file you deleted since the apply (or made where it deleted one) is yours now: not brought back, not removed.
  const kept = new Set(moved.filter((c) => c.found === 'deleted' || c.found === 'created').map((c) => c.path));
  const entries = reversed.filter((e) => !kept.has(e.path));
  const blobs = new Map<string, Buffer>();
  const { merges, conflicts } = mergePaths(
    ws,
    entries,
    moved.filter((c) => !kept.has(c.path)),
    {
      draft: draftName,
      markers: options.conflict === 'markers',
      blobs,
      labels: { ours: 'working tree', theirs: UNAPPLY_LABEL },
    },
  );
  const result: UnapplyResult = {
    draft: draftName,
    reverted: last.id,
    dry_run: options.dryRun === true,
    paths: describeApply(entries, merges),
    kept: [...kept].sort(),
    conflicts,
  };
  if (options.dryRun) return result;
  if (conflicts.length > 0)
    throw conflicts.every((c) => c.reason === 'overlap')
      ? overlapError(conflicts, draftName, 'unapply')
      : staleBase(conflicts, 'unapply');
  const lock = takeProcessLock(ws.ctx, lockPath(ws), 'shadow unapply');
  try {
    const id = ws.ctx.ids.uuid();
    // The merges' blobs are durable (and kept from git gc) before the journal names them.
    for (const [oid, content] of await keepMergeBlobs(ws, draftName, id, merges)) blobs.set(oid, content);
    const journal: Journal = {
      status_before: 'completed',
      version: 1,
      id,
      kind: 'unapply',
      reverts: last.id,
      draft: draftName,
      worktree: thisWorktree(ws),
      tip: last.tip,
      created_at: new Date(ws.ctx.clock.now()).toISOString(),
      actor: options.actor,
      entries: journalEntries(entries, merges),
    };
    if (last.branch && ws.repo.refs.resolve(last.branch.ref) === last.branch.new && last.branch.old !== null) {
      journal.branch = {
        ref: last.branch.ref,
        old: last.branch.new,
        new: last.branch.old,
        reflog: resetReflogMessage(last.branch.old),
      };
    }
    if (last.index) {
      checkIndexLock(ws);
      journal.index = { set: last.index.before, before: last.index.set };
    }
    await createJournal(ws.ctx, ws.repo.shadowDir, journal);
    const outcome = await runJournal(ws, journal, false, undefined, blobs);
    if (outcome.failures.length > 0) throw outcomeError(outcome, 'unapply');
    if (journal.branch) result.branch = { ref: journal.branch.ref, old: journal.branch.old, new: journal.branch.new };
    return result;
  } finally {
    lock.release();
  }
}
