/**
 * The library's review: proposals, the review report, approvals, and the
 * draft's hash-chained ledger (src/review/, src/state/ledger.ts). The review
 * code loads only when it is called.
 */
import type { ApprovalState } from '../review/approvals.js';
import type { Proposal } from '../review/proposal.js';
import type { ReviewReport } from '../review/review-report.js';
import { draftEvents, ledgerPath } from '../drafts/ledger-events.js';
import { requireDraft } from '../drafts/drafts.js';
import type { LedgerEvent } from '../state/ledger.js';
import type { DraftLedgerVerdict } from '../drafts/ledger-join.js';
import type { DraftOption, ShadowCore } from './shadow-core.js';

/** The options of `approve` and `deny`. */
export type DecisionOptions = DraftOption & { reason?: string; actor?: string; expect?: string; sign?: boolean };

/** Refuse a decision on a draft that is no longer in the state the person saw. */
async function checkSeen(core: ShadowCore, draftName: string, expect: string | undefined, what: string): Promise<void> {
  if (expect === undefined) return;
  const { checkExpected, reviewFingerprint } = await import('../review/review-binding.js');
  const draft = requireDraft(core.ws, draftName);
  checkExpected(draft, expect, reviewFingerprint(core.ws, draft), what);
}

export interface ReviewCalls {
  /**
   * Freeze the draft's diff as a proposal (its fingerprint and findings).
   *
   * @example const p = await sh.propose({ message: 'refactor parser' }); p.patch_fingerprint
   */
  propose(options?: DraftOption & { message?: string; actor?: string }): Promise<Proposal>;

  /**
   * What a reviewer sees: the diff, the findings (secrets redacted,
   * protected paths, deletions) and the state of every approval apply needs.
   *
   * @example const r = await sh.review(); r.approvals.filter((a) => a.status === 'pending')
   */
  review(options?: DraftOption): Promise<ReviewReport>;

  /**
   * Approve. `sign` (default `shadow.signApprovals`) signs the decision as
   * git signs a commit (`gpg.format` ssh or openpgp, `user.signingKey`), so
   * that it counts in other clones where `git verify-commit` would accept
   * the key (`gpg.ssh.allowedSignersFile`; gpg's keyring); unsigned,
   * it counts in this repository only. `expect`: the review fingerprint the
   * person saw (`review_fingerprint`); when the draft is no longer in that
   * state, STALE_REVIEW and nothing is recorded.
   *
   * @example
   * const r = await sh.review();
   * await sh.approve('ap-1a2b3c4d5e', { reason: 'fixture key, not real', sign: true, expect: r.review_fingerprint });
   */
  approve(id: string, options?: DecisionOptions): Promise<ApprovalState>;

  /** @example await sh.deny('ap-1a2b3c4d5e', { reason: 'no keys in the repo' }) */
  deny(id: string, options?: DecisionOptions): Promise<ApprovalState>;

  /** @example for (const e of await sh.events()) console.log(e.seq, e.type) */
  events(options?: DraftOption): Promise<LedgerEvent[]>;

  /** Check the ledger's hash chain; reports the first broken line. */
  verifyEvents(options?: DraftOption): Promise<DraftLedgerVerdict>;

  /** The ledger's file (for followers). */
  eventsPath(options?: DraftOption): string;
}

export const reviewCalls: ReviewCalls & ThisType<ShadowCore & ReviewCalls> = {
  async propose(options = {}) {
    const { proposeDraft } = await import('../review/proposal.js');
    return proposeDraft(this.ws, this.draftName(options), {
      message: options.message,
      actor: this.actor(options.actor),
    });
  },

  async review(options = {}) {
    const { reviewReport } = await import('../review/review-report.js');
    return reviewReport(this.ws, this.readDraftName(options));
  },

  async approve(id, options = {}) {
    const { decide } = await import('../review/approvals.js');
    await checkSeen(this, this.draftName(options), options.expect, `approve ${id}`);
    return decide(this.ws, this.draftName(options), id, 'approve', this.actor(options.actor), options.reason, {
      sign: options.sign,
    });
  },

  async deny(id, options = {}) {
    const { decide } = await import('../review/approvals.js');
    await checkSeen(this, this.draftName(options), options.expect, `deny ${id}`);
    return decide(this.ws, this.draftName(options), id, 'deny', this.actor(options.actor), options.reason, {
      sign: options.sign,
    });
  },

  async events(options = {}) {
    return draftEvents(this.ws, this.readDraftName(options));
  },

  async verifyEvents(options = {}) {
    const { verifyDraftLedger } = await import('../drafts/ledger-join.js');
    return verifyDraftLedger(this.ws, this.readDraftName(options));
  },

  eventsPath(options = {}) {
    return ledgerPath(this.ws, this.readDraftName(options));
  },
};
