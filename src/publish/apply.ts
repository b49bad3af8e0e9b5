import { ShadowError } from '../errors.js';
import { worktreeOfGitDir } from '../git/repository.js';
export type { PublishedPath } from './publish-guards.js';
import { createJournal, hasJournals, readJournals, removeJournal, type Journal } from '../state/journal.js';
import { takeProcessLock } from '../durable/process-lock.js';
import { planCommit, type CommitMode, type CommitPlan } from './commit-modes.js';
import type { SecretFinding } from '../core/secret-scan.js';
import { gateApply, type ApprovalState } from '../review/approvals.js';
import { guardBranchCommits, type CommitSecrets } from '../review/commit-guard.js';
import { checkWorktree, draftStatusWord, requireDraft } from '../drafts/drafts.js';
import { unresolvedError } from '../drafts/draft-conflicts.js';
import { checkPathspecs, partialPaths } from './partial-apply.js';
import { hunkPart } from './hunk-part.js';
import { logEvent } from '../drafts/ledger-events.js';
import { sparsePathError, sparsePaths } from '../drafts/view/sparse-paths.js';
import { readPolicy, reviewDraft, type Policy } from '../review/review.js';
import { checkExpected, reviewFingerprint } from '../review/review-binding.js';
import { guardPaths, runJournal, unwritableDirs, type Progress } from './publish.js';
import {
  checkIndexLock,
  describeApply,
  isMine,
  journalWorktree,
  lockPath,
  outcomeError,
  refuseWhilePending,
  staleBase,
  thisWorktree,
  type PublishedPath,
} from './publish-guards.js';
import type { PathConflict } from './path-conflict.js';
import { mergePaths } from './merge-paths.js';
import { gateDraftWrite } from '../drafts/path-gate.js';
import type { NotesResult } from './trace-notes.js';
import { journalEntries, keepMergeBlobs, overlapError } from './merge-record.js';
import { SubmoduleProbe, submoduleInPublish } from '../drafts/view/submodules.js';
import type { Workspace } from '../drafts/workspace.js';

export interface ApplyResult {
  /** False when approvals are pending (then nothing was written). */
  ok: boolean;
  draft: string;
  /** False for a dry run, and when approvals are pending. */
  applied: boolean;
  dry_run: boolean;
  /** The apply's id (its record), when something was written. */
  id?: string;
  tip: string;
  paths: PublishedPath[];
  conflicts: PathConflict[];
  /** Directories that could not be written, found before any write. */
  unwritable: string[];
  /** Submodule entries, which shadow does not check out. */
  skipped: string[];
  branch?: { ref: string; old: string | null; new: string; how: CommitPlan['how'] };
  /** The Agent Trace notes written for the commits --commit/--squash put on the branch (absent when shadow.traceNotes is none). */
  notes?: NotesResult;
  /** The fingerprint approvals are bound to: `patchset:<sha256 of the diff>`. */
  fingerprint: string;
  /** The draft's review fingerprint (`review:<sha256>`, review-binding.ts): what `expect` is checked against. */
  review_fingerprint: string;
  /** Paths in conflict since the draft's rebase (apply refuses them with UNRESOLVED_CONFLICT until a batch resolves them). */
  unresolved: Array<{ path: string; reason: string }>;
  /** A hunk apply: the paths taken in part, with how many of their hunks were chosen (the rest stays in the draft). */
  partial?: Array<{ path: string; chosen: number; hunks: number; from?: string }>;
  /** Approvals the policy requires and that nobody gave yet (apply writes nothing while there are any). */
  pendingApprovals: ApprovalState[];
  /** What the review found (secret values redacted). */
  findings: {
    secrets: SecretFinding[];
    protected: string[];
    deletions: number;
    unscanned: string[];
    commits?: CommitSecrets[];
  };
}

export interface ApplyOptions {
  dryRun?: boolean;
  mode?: CommitMode;
  actor: string;
  /** Policy overrides (flags): sandbox, protected globs, deletion limit. */
  policy?: Partial<Policy>;
  /** Called as paths are written: `done` of `total`, and bytes so far. */
  onProgress?: Progress;
  /** Where the person and the draft changed the same lines: stop (`refuse`, the default), or write git's conflict markers (`markers`). */
  conflict?: 'refuse' | 'markers';
  /** Publish only the paths these pathspecs match (repository-relative); the draft keeps the rest. */
  paths?: readonly string[];
  /** The review fingerprint the person saw: anything else is STALE_REVIEW, before any write. */
  expect?: string;
  /** Publish only these hunks (`--hunks` specs, hunk-spec.ts); the draft keeps the rest. */
  hunks?: readonly string[];
  /** Publish this patch against the draft's bases, a part or an edit of the draft's own diff; the draft keeps the rest. */
  patch?: string;
}

/**
 * Publish a draft into the working tree: only where every path still holds
 * its base (else STALE_BASE, nothing written); a redo journal, fsynced,
 * before the first write; each file temp-fsync-rename; then the branch and
 * the index for --commit/--squash; then the journal becomes the apply's
 * record. A dry run stops after the checks.
 */
export async function applyDraft(ws: Workspace, draftName: string, options: ApplyOptions): Promise<ApplyResult> {
  const draft = requireDraft(ws, draftName);
  checkWorktree(ws, draft, options.dryRun ? 'shadow apply --dry-run' : 'shadow apply');
  // The draft loaded here is the one applied below: checked before anything is read or written.
  const seen = reviewFingerprint(ws, draft);
  checkExpected(draft, options.expect, seen, options.dryRun ? 'apply --dry-run' : 'apply');
  const policy = readPolicy(ws, options.policy);
  if (policy.sandbox === 'read-only' && !options.dryRun) {
    throw new ShadowError('READ_ONLY', 'the sandbox is read-only: apply is refused (drafts are still allowed)', {
      hint: 'apply from a workspace-write sandbox: git config shadow.sandbox workspace-write, or --sandbox workspace-write',
      data: { sandbox: policy.sandbox },
    });
  }
  if (!options.dryRun) refuseWhilePending(ws);
  const blobs = new Map<string, Buffer>();
  // A hunk apply publishes base + the chosen hunks: reviewed, guarded, merged and journaled as any entry.
  const part = await hunkPart(ws, draft, options);
  const chosen = part ? new Set(part.entries.map((e) => e.path)) : undefined;
  const only = chosen ? (p: string): boolean => chosen.has(p) : partialPaths(options);
  // A path left in conflict by a rebase holds no settled content yet; a dry run lists them.
  const unresolved = Object.keys(draft.meta.conflicts ?? {})
    .filter((p) => !only || only(p))
    .sort();
  if (unresolved.length > 0 && !options.dryRun) throw unresolvedError(draft, unresolved, 'apply');
  const review = await reviewDraft(ws, draft, policy, options.dryRun ? undefined : blobs, only, part);
  if (part) for (const [oid, content] of part.contents) blobs.set(oid, content);
  const entries = review.entries;
  checkPathspecs(only && options.paths, entries);
  // Before anything reads or writes the working tree at these paths: they may have come from anywhere.
  gateDraftWrite(ws, draft.tip, draftName, entries, draft.bases.paths());
  // A draft made before shadow refused submodule paths may still hold one: it is refused whole, dry run included.
  // No tree is looked in: a gitlink the draft replaced is an entry of the set itself (its old side), and
  // nothing lies below a gitlink in a tree; the index and the working tree say where submodules are now.
  const inSubmodule = submoduleInPublish(new SubmoduleProbe(ws, []), entries);
  if (inSubmodule) throw inSubmodule;
  // Before the guard: an absent sparse path would read as a deletion there.
  const sparse = sparsePaths(ws, entries);
  if (sparse.length > 0) throw sparsePathError(ws, sparse, 'apply', options.dryRun === true);
  // Where the working tree moved from a base, the person's change and the draft's are merged.
  const moved = guardPaths(ws, entries, 'old');
  const { merges, conflicts } = mergePaths(ws, entries, moved, {
    draft: draftName,
    markers: options.conflict === 'markers',
    blobs,
  });
  const unwritable = conflicts.length === 0 ? unwritableDirs(ws, entries) : [];
  // The commits --commit or --squash puts on the branch pass the secret guard too, not only the final diff.
  const squash = options.mode?.kind === 'squash' ? { message: options.mode.message, actor: options.actor } : undefined;
  const branch = options.mode ? guardBranchCommits(ws, draft, entries, options.mode.kind, squash) : undefined;
  const gated = branch ? { ...review, required: [...review.required, ...branch.required] } : review;
  // A deny sticks: it fails fast, before anything else is looked at.
  const pending = await gateApply(ws, gated, options.actor, !options.dryRun && conflicts.length === 0);
  const result: ApplyResult = {
    ok: pending.length === 0 && unresolved.length === 0,
    draft: draftName,
    applied: false,
    dry_run: options.dryRun === true,
    tip: draft.tip,
    paths: describeApply(entries, merges),
    conflicts,
    unwritable,
    skipped: [],
    fingerprint: review.fingerprint,
    review_fingerprint: seen,
    pendingApprovals: pending,
    unresolved: unresolved.map((path) => ({ path, reason: draft.meta.conflicts![path]! })),
    ...(part ? { partial: part.partial } : {}),
    findings: {
      secrets: review.secrets,
      protected: review.protected,
      deletions: review.deletions,
      unscanned: review.unscanned,
    },
  };
  if (branch) result.findings.commits = branch.commits;
  if (options.dryRun) return result;
  if (conflicts.length > 0)
    throw conflicts.every((c) => c.reason === 'overlap')
      ? overlapError(conflicts, draftName)
      : staleBase(conflicts, 'apply');
  if (pending.length > 0) return result;
  if (unwritable.length > 0) {
    throw new ShadowError(
      'NOT_WRITABLE',
      `apply stopped before writing anything: cannot write in ${unwritable.join(', ')}`,
      {
        hint: 'give yourself write permission on those directories, then apply again',
        data: { directories: unwritable },
      },
    );
  }
  if (entries.length === 0 && !options.mode) return result;

  const lock = takeProcessLock(ws.ctx, lockPath(ws), 'shadow apply');
  try {
    let plan: CommitPlan | undefined;
    if (options.mode) {
      checkIndexLock(ws);
      const planned = planCommit(ws, draft, entries, options.mode, options.actor);
      ws.repo.objects.write(planned.objects);
      plan = planned.plan;
    }
    const id = ws.ctx.ids.uuid();
    // The merges' blobs, and a hunk apply's partial ones, are durable (and kept from git gc) before the journal names them.
    for (const [oid, content] of await keepMergeBlobs(ws, draftName, id, merges, part?.contents))
      blobs.set(oid, content);
    const journal: Journal = {
      version: 1,
      id,
      kind: 'apply',
      draft: draftName,
      worktree: thisWorktree(ws),
      tip: draft.tip,
      created_at: new Date(ws.ctx.clock.now()).toISOString(),
      actor: options.actor,
      entries: journalEntries(entries, merges),
      status_before: draftStatusWord(ws, draft),
    };
    if (plan) {
      journal.branch = { ...plan.branch, reflog: plan.reflog, how: plan.how };
      journal.index = plan.index;
    }
    // The journal's fsyncs run on the pool while apply/start is appended.
    // That line is not fsynced: the journal is the durable record that the
    // apply began (recovery logs what it finishes), and the completion's
    // fsync takes the line to disk with it.
    const journaled = createJournal(ws.ctx, ws.repo.shadowDir, journal);
    journaled.catch(() => undefined); // awaited below
    try {
      await logEvent(
        ws,
        draftName,
        'apply/start',
        options.actor,
        {
          id: journal.id,
          tip: draft.tip,
          fingerprint: review.fingerprint,
          paths: entries.map((e) => e.path),
          mode: options.mode?.kind ?? 'files',
          ...(part ? { partial: part.partial } : {}),
        },
        { durable: false },
      );
    } catch (e) {
      // Nothing written yet: the journal must not outlive the failed apply.
      await journaled.then(
        () => removeJournal(ws.ctx, ws.repo.shadowDir, journal.id, true),
        () => undefined,
      );
      throw e;
    }
    await journaled;
    const outcome = await runJournal(ws, journal, false, options.onProgress, blobs);
    if (outcome.failures.length > 0) throw outcomeError(outcome, 'apply');
    result.applied = true;
    result.id = journal.id;
    result.skipped = outcome.skipped;
    if (plan) {
      result.branch = { ...plan.branch, how: plan.how };
      if (outcome.notes) result.notes = outcome.notes;
    }
    return result;
  } finally {
    lock.release();
  }
}

export interface RecoveryReport {
  /** Journals finished. */
  finished: Array<{
    id: string;
    kind: string;
    draft: string;
    written: string[];
    conflicts: PathConflict[];
    notes?: NotesResult;
  }>;
  /** Journals that still could not be finished (the error says why). */
  failed: Array<{ id: string; draft: string; error: string }>;
  unreadable: string[];
  /** Journals of other worktrees, left for recovery there. */
  elsewhere: Array<{ id: string; draft: string; worktree: string }>;
}

/**
 * Finish every interrupted apply or unapply from its journal: each path ends
 * exactly at its new content, a path someone changed meanwhile is reported
 * and left alone, leftover temporary files are removed. Safe to run any time;
 * a no-op when nothing was interrupted. Only this worktree's journals: those
 * of other worktrees (journals live in the common git dir) are reported as
 * `elsewhere` and left for recovery there.
 */
export async function recover(ws: Workspace): Promise<RecoveryReport> {
  const report: RecoveryReport = { finished: [], failed: [], unreadable: [], elsewhere: [] };
  if (!hasJournals(ws.ctx, ws.repo.shadowDir)) return report;
  const lock = takeProcessLock(ws.ctx, lockPath(ws), 'shadow recover');
  try {
    const { journals, unreadable } = readJournals(ws.ctx, ws.repo.shadowDir, { dropTorn: true });
    report.unreadable = unreadable;
    for (const j of journals) {
      if (!isMine(ws, j)) {
        report.elsewhere.push({
          id: j.id,
          draft: j.draft,
          worktree: worktreeOfGitDir(ws.ctx, journalWorktree(ws, j)!),
        });
        continue;
      }
      try {
        const outcome = await runJournal(ws, j, true);
        if (outcome.failures.length > 0) throw outcomeError(outcome, 'recovery');
        report.finished.push({
          id: j.id,
          kind: j.kind,
          draft: j.draft,
          written: outcome.written,
          conflicts: outcome.conflicts,
          ...(outcome.notes ? { notes: outcome.notes } : {}),
        });
      } catch (e) {
        report.failed.push({ id: j.id, draft: j.draft, error: (e as Error).message });
      }
    }
  } finally {
    lock.release();
  }
  return report;
}
