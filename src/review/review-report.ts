import type { Oid } from '../git/format/git-objects.js';
import { approvalStates, type ApprovalState } from './approvals.js';
import { decisionTrust } from './approval-trust.js';
import { guardBranchCommits, type CommitSecrets } from './commit-guard.js';
import { draftStatusWord, requireDraft } from '../drafts/drafts.js';
import { draftEvents } from '../drafts/ledger-events.js';
import { reviewFingerprint } from './review-binding.js';
import { placementNotes, type PlacementNote } from './placement-notes.js';
import { readProposal, type Proposal } from './proposal.js';
import { readPolicy, reviewDraftWithDiff, type ReviewWithDiff } from './review.js';
import type { Workspace } from '../drafts/workspace.js';
import { partlyApplied, type HunkCounts } from '../drafts/history/hunk-counts.js';

/** What `shadow review` shows. */
export interface ReviewReport extends Omit<ReviewWithDiff, 'entries' | 'required'> {
  status: string;
  /** What binds a decision to this state of the draft (review-binding.ts): `apply`, `approve` and `deny` take it as `expect`. */
  review_fingerprint: string;
  files: Array<{ path: string; old: Oid | null; new: Oid | null }>;
  /** Every approval apply needs. */
  approvals: ApprovalState[];
  /** The approvals `apply --commit` or `--squash` needs besides (`when` says which): for commits that add secrets. */
  branch_approvals: ApprovalState[];
  /** The commits `apply --commit` (or `--squash`) would put on the branch that add secrets. */
  commit_secrets: CommitSecrets[];
  proposal: Proposal | null;
  /** Paths in conflict since the draft's rebase: apply refuses them until a batch resolves them. */
  conflicts: Array<{ path: string; reason: string }>;
  /** How batches placed changes the reviewer should look at (the first of several places, indentation ignored, a file replaced). */
  placements: PlacementNote[];
  /** Paths a hunk apply took part of: the hunks applied there and those not yet applied. */
  hunks?: HunkCounts;
}

/** A draft as a reviewer sees it: the diff, the findings, and every approval apply needs with its state. */
export async function reviewReport(ws: Workspace, name: string): Promise<ReviewReport> {
  const draft = requireDraft(ws, name);
  const { entries, required, ...rest } = await reviewDraftWithDiff(ws, draft, readPolicy(ws));
  const branch = guardBranchCommits(ws, draft, entries, 'any');
  const events = required.length + branch.required.length > 0 ? draftEvents(ws, name) : [];
  // One judge for both lists: a signed decision is checked (ssh-keygen) once.
  const trust = decisionTrust(ws);
  const hunks = partlyApplied(
    ws,
    draft,
    entries.map((e) => ({ ...e, status: 'M' })),
  );
  return {
    ...rest,
    status: draftStatusWord(ws, draft),
    review_fingerprint: reviewFingerprint(ws, draft),
    files: entries.map((e) => ({ path: e.path, old: e.old?.oid ?? null, new: e.new?.oid ?? null })),
    approvals: approvalStates(events, required, trust),
    branch_approvals: approvalStates(events, branch.required, trust),
    commit_secrets: branch.commits,
    proposal: readProposal(ws, name) ?? null,
    placements: placementNotes(ws, draft, new Set(entries.map((e) => e.path))),
    conflicts: Object.entries(draft.meta.conflicts ?? {})
      .map(([path, reason]) => ({ path, reason }))
      .sort((a, b) => (a.path < b.path ? -1 : 1)),
    ...(hunks ? { hunks } : {}),
  };
}
