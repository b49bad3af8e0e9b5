import * as z from 'zod/mini';
import { ShadowError } from '../errors.js';
import { proposalRef } from '../drafts/ref-names.js';
import { draftDir, writeDraftMeta } from '../state/draft-meta.js';
import { SecretFindingSchema } from '../state/secret-finding-schema.js';
import { writeFileAtomic } from '../durable/durable-file.js';
import type { SecretFinding } from '../core/secret-scan.js';
import { draftStatusWord, requireDraft } from '../drafts/drafts.js';
import { logEvent } from '../drafts/ledger-events.js';
import { readPolicy, reviewDraft, type Policy } from './review.js';
import type { Workspace } from '../drafts/workspace.js';
import { readJsonFile } from '../durable/json-file.js';

/**
 * A proposal freezes a draft's diff for review: `shadow/drafts/<d>/proposal.json`
 * (durable), the ref `refs/shadow/proposals/<draft>` (which keeps the
 * proposed commit reachable whatever the draft does next), a `proposal`
 * event in the ledger, and a mirror in draft.json's `pointers.proposal`.
 */

const ProposalSchema = z.object({
  message: z.string(),
  created_at: z.string(),
  actor: z.string(),
  workspace_root: z.nullable(z.string()),
  target_files: z.array(z.string()),
  base_blob_by_path: z.record(z.string(), z.nullable(z.string())),
  base_sha256_by_path: z.record(z.string(), z.nullable(z.string())),
  patch_id: z.string(),
  patch_fingerprint: z.string(),
  contains_secret_introductions: z.boolean(),
  commit: z.string(),
  findings: z.object({
    secrets: z.array(SecretFindingSchema),
    protected: z.array(z.string()),
    deletions: z.number(),
    unscanned: z.array(z.string()),
  }),
});

export type Proposal = z.infer<typeof ProposalSchema>;

function proposalPath(ws: Workspace, draft: string): string {
  return `${draftDir(ws.repo.shadowDir, draft)}/proposal.json`;
}

/** The draft's last proposal, if any. */
export function readProposal(ws: Workspace, draft: string): Proposal | undefined {
  return readJsonFile(ws.ctx.fs, proposalPath(ws, draft), ProposalSchema);
}

/**
 * Freeze the draft's diff as a proposal: its fingerprint, findings and the
 * commit. Writes nothing to the working tree.
 */
export async function proposeDraft(
  ws: Workspace,
  draftName: string,
  options: { message?: string; actor: string; policy?: Partial<Policy> },
): Promise<Proposal> {
  const draft = requireDraft(ws, draftName);
  const review = await reviewDraft(ws, draft, readPolicy(ws, options.policy));
  if (review.entries.length === 0) {
    throw new ShadowError('NOTHING_TO_PROPOSE', `draft "${draftName}" changes nothing against its bases`, {
      hint: 'write a batch first; `shadow diff` shows what a draft changes',
      data: { draft: draftName },
    });
  }
  const before = draftStatusWord(ws, draft);
  const proposal: Proposal = {
    message: options.message ?? '',
    created_at: new Date(ws.ctx.clock.now()).toISOString(),
    actor: options.actor,
    workspace_root: ws.repo.layout.worktree,
    target_files: review.entries.map((e) => e.path),
    base_blob_by_path: Object.fromEntries(review.entries.map((e) => [e.path, e.old?.oid ?? null])),
    base_sha256_by_path: review.base_sha256_by_path,
    patch_id: review.patch_id,
    patch_fingerprint: review.fingerprint,
    contains_secret_introductions: review.secrets.length > 0,
    commit: draft.tip,
    findings: {
      secrets: review.secrets.map((s: SecretFinding) => ({ ...s })),
      protected: review.protected,
      deletions: review.deletions,
      unscanned: review.unscanned,
    },
  };
  writeFileAtomic(ws.ctx.fs, proposalPath(ws, draftName), `${JSON.stringify(proposal, null, 1)}\n`, {
    token: ws.ctx.ids.token(),
    durable: true,
  });
  await ws.repo.refs.update({
    ref: proposalRef(draftName),
    expected: undefined,
    next: draft.tip,
    message: `shadow: propose ${draftName}`,
    who: ws.repo.committer(),
  });
  writeDraftMeta(
    ws.ctx,
    ws.repo.shadowDir,
    { ...draft.meta, status: 'proposed', pointers: { ...draft.meta.pointers, proposal } },
    false,
  );
  await logEvent(ws, draftName, 'proposal', options.actor, {
    message: proposal.message,
    commit: proposal.commit,
    patch_id: proposal.patch_id,
    patch_fingerprint: proposal.patch_fingerprint,
    target_files: proposal.target_files,
    contains_secret_introductions: proposal.contains_secret_introductions,
    findings: proposal.findings,
    approvals: review.required.map((r) => ({ id: r.id, kind: r.kind })),
  });
  if (before !== 'proposed')
    await logEvent(ws, draftName, 'tx/status', options.actor, { from: before, to: 'proposed' });
  return proposal;
}
