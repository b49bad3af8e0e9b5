import { ShadowError } from '../../errors.js';
import { hashObject, serializeCommit, type Oid } from '../../git/format/git-objects.js';
import { takeProcessLock, type HeldLock } from '../../durable/process-lock.js';
import { planLockPath } from '../../state/draft-meta.js';
import { hasJournals, readJournals } from '../../state/journal.js';
import { readAppliedState, recordName } from '../../state/applied-state.js';
import { oneLine, trailerBlock } from '../commit-message.js';
import { conflictLines } from '../conflict-lines.js';
import { unresolvedError } from '../draft-conflicts.js';
import { checkWorktree, draftStatusWord, keepDraftMeta, requireDraft, type Draft } from '../drafts.js';
import { keepTip } from '../history/checkpoints.js';
import { logEvent } from '../ledger-events.js';
import { landOnDraft, nextBatchNumber } from './draft-commit.js';
import { related } from './ancestry.js';
import { gateDraftWrite } from '../path-gate.js';
import { diffTrees } from '../../git/format/tree-diff.js';
import { resolveCommitish } from '../rev-parse.js';
import { planRebase, type RebasedPath, type RebasePlan, type RebaseTarget } from './rebase-plan.js';
import type { ConflictReason } from './entry-merge.js';
import type { Workspace } from '../workspace.js';

/**
 * `shadow rebase [--onto <commit-ish>]`: move a draft onto the working tree
 * as it is now, or onto a commit, the way jj moves a change: every path the
 * draft touched is merged three-way (rebase-plan.ts) and the result is one
 * new commit on the draft, whose second parent is the new base. It is a ref
 * move like a batch (compare-and-swap, a reflog line, `shadow undo`), and
 * the tip it leaves is kept by an automatic checkpoint. Paths that could not
 * be merged become part of the draft: listed in the commit
 * (conflict-lines.ts), shown by status, diff and review, resolved by a
 * batch on them, and apply refuses them meanwhile (UNRESOLVED_CONFLICT).
 *
 * Crash safety is the batch's: the objects are durable before the ref
 * moves, so a rebase killed at any point leaves the draft on its old tip or
 * on the complete new one.
 */

export interface RebaseOptions {
  /** A commit-ish to move onto; the working tree when absent (HEAD in a bare repository). */
  onto?: string;
  actor: string;
}

export interface RebaseResult {
  draft: string;
  /** The tip before, and after (the same when nothing changed). */
  from: Oid;
  tip: Oid;
  /** What the draft stands on now: `working tree` or the commit-ish given. */
  base: string;
  /** The commit moved onto (HEAD for the working tree; null when the repository has none). */
  onto: Oid | null;
  /** True when the draft already stood on this base: no commit was made. */
  unchanged: boolean;
  /** The draft's changes, each with how it came through. */
  paths: RebasedPath[];
  /** The paths left in conflict. */
  conflicts: Array<{ path: string; reason: ConflictReason }>;
  /** The automatic checkpoint that keeps the tip the draft left. */
  kept?: string;
  /** The rebase's batch number. */
  batch: number | null;
}

function takePlanLock(ws: Workspace, draft: string): HeldLock {
  try {
    return takeProcessLock(ws.ctx, planLockPath(ws.repo.shadowDir, draft), 'shadow rebase');
  } catch (e) {
    if (!(e instanceof ShadowError && e.code === 'LOCKED')) throw e;
    throw new ShadowError('BUSY', `draft "${draft}" is busy: ${e.message}`, {
      hint: 'a plan (or another rebase) runs on it: wait for it, or stop it with `shadow stop`, then rebase',
      data: { draft, ...(e.data ?? {}) },
    });
  }
}

function resolveTargetOf(ws: Workspace, draft: Draft, onto: string | undefined): RebaseTarget {
  const bare = ws.repo.layout.worktree === null;
  if (onto === undefined && !bare) return { kind: 'worktree' };
  const spec = onto ?? 'HEAD';
  const oid = resolveCommitish(ws.repo, spec);
  // A draft made in an empty repository stands on shadow's own root: any commit will do.
  if (draft.meta.from !== 'empty' && !related(ws.repo, oid, draft.meta.root)) {
    throw new ShadowError(
      'DIVERGED',
      `${spec} (${oid.slice(0, 12)}) shares no history with draft "${draft.name}"'s root ${draft.meta.root.slice(0, 12)}`,
      {
        hint: 'rebase onto a commit of this history; for another history, start a new draft there with `shadow draft new <name> --from <commit>`',
        data: { draft: draft.name, onto: oid, root: draft.meta.root },
      },
    );
  }
  return { kind: 'commit', oid, label: spec };
}

/**
 * A commit to rebase onto becomes the draft's base, what its apply
 * compares with and --commit builds on: every path where its tree differs
 * from the draft's root passes the path gate (UNSAFE_PATH, nothing moved).
 */
function gateOnto(ws: Workspace, draft: Draft, onto: Oid): void {
  const objects = ws.repo.objects;
  const changed = diffTrees(objects, objects.readCommit(draft.meta.root).tree, objects.readCommit(onto).tree);
  gateDraftWrite(
    ws,
    onto,
    draft.name,
    [],
    changed.filter((c) => c.new !== null).map((c) => c.path),
  );
}

function rebaseMessage(
  draft: Draft,
  target: RebaseTarget,
  plan: RebasePlan,
  batch: number,
  actor: string,
  applies: string | null,
): string {
  const where =
    target.kind === 'commit'
      ? `${oneLine(target.label, 80)} (${target.oid.slice(0, 12)})`
      : `the working tree${plan.onto ? ` at ${plan.onto.slice(0, 12)}` : ''}`;
  const merged = plan.paths.filter((p) => p.status === 'merged').length;
  const summary = `rebase onto ${where}: ${merged} merged, ${plan.conflicts.size} in conflict`;
  const listed = plan.paths
    .filter((p) => p.status !== 'conflict')
    .slice(0, 1000)
    .map((p) => `${p.status}\t${p.path.replace(/[\t\n]/g, ' ')}`);
  const body = [listed.join('\n'), conflictLines(plan.conflicts).join('\n')].filter((s) => s.length > 0).join('\n\n');
  const trailers = trailerBlock({
    draft: draft.name,
    batch,
    actor,
    rebase: plan.onto ?? 'none',
    applies: applies ?? 'none',
  });
  return `${summary}\n\n${body ? `${body}\n\n` : ''}${trailers}\n`;
}

/** Rebase a draft (see the top of this file). */
export async function rebaseDraft(ws: Workspace, draftName: string, options: RebaseOptions): Promise<RebaseResult> {
  const repo = ws.repo;
  let draft = requireDraft(ws, draftName);
  checkWorktree(ws, draft, 'shadow rebase');
  const lock = takePlanLock(ws, draftName);
  try {
    if (
      hasJournals(ws.ctx, repo.shadowDir) &&
      readJournals(ws.ctx, repo.shadowDir).journals.some((j) => j.draft === draftName)
    ) {
      throw new ShadowError('APPLY_PENDING', `an interrupted apply of draft "${draftName}" is waiting to be finished`, {
        hint: 'run `shadow recover` first',
      });
    }
    const target = resolveTargetOf(ws, draft, options.onto);
    if (target.kind === 'commit') gateOnto(ws, draft, target.oid);
    for (let attempt = 1; ; attempt++) {
      const left = Object.keys(draft.meta.conflicts ?? {});
      if (left.length > 0) throw unresolvedError(draft, left, 'rebase');
      const plan = planRebase(ws, draft, target);
      const result: RebaseResult = {
        draft: draftName,
        from: draft.tip,
        tip: draft.tip,
        base: target.kind === 'commit' ? target.label : 'working tree',
        onto: plan.onto,
        unchanged: plan.unchanged,
        paths: plan.paths,
        conflicts: [...plan.conflicts].map(([path, reason]) => ({ path, reason })),
        batch: null,
      };
      if (plan.unchanged) return result;
      const last = readAppliedState(ws.ctx, repo.shadowDir, draftName, ws.appliedMemo).last;
      const batch = nextBatchNumber(ws, draft);
      const content = serializeCommit({
        tree: plan.tree,
        parents: [draft.tip, plan.baseCommit],
        author: repo.actorSignature(options.actor),
        committer: repo.committer(),
        message: rebaseMessage(draft, target, plan, batch, options.actor, last ? recordName(last) : null),
      });
      const oid = hashObject('commit', content);
      // A batch that lands meanwhile makes the rebase go again, on the draft as it is then.
      if (
        !(await landOnDraft(
          ws,
          draft,
          [...plan.objects, { oid, type: 'commit', content }],
          oid,
          `rebase onto ${result.base}`,
          'rebase',
          attempt,
        ))
      ) {
        draft = requireDraft(ws, draftName);
        continue;
      }
      result.tip = oid;
      result.batch = batch;
      result.kept = await keepTip(
        ws,
        draft,
        `automatic checkpoint: draft ${draftName} before its rebase onto ${result.base}`,
      );
      const moved = requireDraft(ws, draftName);
      // The bases were all replaced: written now, not rebuilt by every reader.
      keepDraftMeta(ws, moved.meta, Infinity);
      await logEvent(ws, draftName, 'rebase', options.actor, {
        from: draft.tip,
        to: oid,
        batch,
        base: result.base,
        onto: plan.onto,
        kept: result.kept,
        paths: plan.paths.map((p) => ({ path: p.path, status: p.status, ...(p.reason ? { reason: p.reason } : {}) })),
      });
      const before = draftStatusWord(ws, draft);
      if (before !== 'open') await logEvent(ws, draftName, 'tx/status', options.actor, { from: before, to: 'open' });
      return result;
    }
  } finally {
    lock.release();
  }
}
