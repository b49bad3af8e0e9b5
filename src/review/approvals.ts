import { ShadowError } from '../errors.js';
import { appendEvent, type LedgerEvent } from '../state/ledger.js';
import { requireDraft } from '../drafts/drafts.js';
import { draftEvents, ledgerPath, logEvent } from '../drafts/ledger-events.js';
import { guardBranchCommits } from './commit-guard.js';
import { readPolicy, reviewDraft, type RequiredApproval, type Review } from './review.js';
import { decisionMac, decisionText, ensureApprovalKey, type DecisionFields } from './approval-key.js';
import { signDecisionText, type DecisionSignature } from './approval-signatures.js';
import { decisionTrust, signatureOf, type TrustOf } from './approval-trust.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * Approvals, kept as events of the draft's ledger. An approval is bound to
 * its fingerprint (the draft's diff): any change to the draft asks again.
 * An approve counts only when it was made here or is signed by a key the
 * person trusts (approval-trust.ts); any other is listed as `unverified`
 * and the approval stays pending. A deny counts wherever it was made, and
 * sticks: while the fingerprint is unchanged apply fails fast, and an
 * approve after a deny is refused. A secret's deny also sticks to the
 * commits that added it: removing the secret in a later batch changes the
 * final diff, but those commits still hold it, so `apply --commit` (which
 * would publish them) stays denied.
 */

/** Who and where, as a decision records them. */
export interface DecisionOrigin {
  /** The git identity of whoever decided, `user.name <user.email>` of that repository. */
  decided_identity?: string;
  /** The machine it was decided on (its host name). */
  decided_host?: string;
  /** The remote the decision came from, when a pull joined it from another machine's ledger. */
  decided_via?: string;
}

/** A decision in the ledger that does not count here, and why. */
export interface UnverifiedDecision extends DecisionOrigin {
  decision: 'approve';
  decided_by: string;
  decided_at: string;
  decision_reason?: string;
  /** Why it does not count: not made here, and unsigned or its signature does not verify. */
  why: string;
}

export interface ApprovalState extends RequiredApproval, DecisionOrigin {
  status: 'pending' | 'approved' | 'denied';
  /** The actor that decided (`--actor`). */
  decided_by?: string;
  decided_at?: string;
  decision_reason?: string;
  /**
   * How the decision that counts was established: `here` (made in this
   * repository) or `signed` (by a key of gpg.ssh.allowedSignersFile, or of
   * gpg's keyring for an openpgp signature). Absent
   * on a deny from elsewhere, which counts unverified.
   */
  verified?: 'here' | 'signed';
  /** For a `signed` decision: the principal allowed signers name for the key, or the uid of gpg's GOODSIG. */
  verified_by?: string;
  /** The decision carries a signature (ssh or openpgp). */
  signed?: boolean;
  /** Approves the ledger holds that do not count here (made elsewhere, unsigned or not verified). */
  unverified?: UnverifiedDecision[];
}

function decisionsOf(events: readonly LedgerEvent[], r: RequiredApproval): LedgerEvent[] {
  return events.filter(
    (e) =>
      e.type === 'approval/decision' &&
      (e.data.id === r.id ||
        // A deny of the secrets in a draft's diff names the commits that added them.
        (r.commit !== undefined &&
          e.data.decision === 'deny' &&
          e.data.kind === r.kind &&
          Array.isArray(e.data.commits) &&
          e.data.commits.includes(r.commit))),
  );
}

/** The state one decision gives an approval. */
function decidedState(
  r: RequiredApproval,
  e: LedgerEvent,
  status: 'approved' | 'denied',
  trust: TrustOf,
): ApprovalState {
  const state: ApprovalState = { ...r, status, decided_by: e.actor, decided_at: e.ts };
  if (typeof e.data.reason === 'string') state.decision_reason = e.data.reason;
  Object.assign(state, identityOf(e));
  const t = trust(e);
  if (t.counts) state.verified = t.verified;
  if (t.counts && t.principal !== undefined) state.verified_by = t.principal;
  if (signatureOf(e)) state.signed = true;
  return state;
}

/**
 * The state of each approval a review requires, from the ledger's
 * decisions: a deny from anywhere, else an approve `trust` vouches for
 * (over this very fingerprint), else pending with the others listed.
 */
export function approvalStates(
  events: readonly LedgerEvent[],
  required: readonly RequiredApproval[],
  trust: TrustOf,
): ApprovalState[] {
  return required.map((r) => {
    const decisions = decisionsOf(events, r);
    const deny = decisions.find((d) => d.data.decision === 'deny');
    if (deny) return decidedState(r, deny, 'denied', trust);
    const unverified: UnverifiedDecision[] = [];
    for (const d of decisions) {
      if (d.data.decision !== 'approve') continue;
      const t = trust(d);
      if (t.counts && d.data.fingerprint === r.fingerprint && d.data.kind === r.kind)
        return decidedState(r, d, 'approved', trust);
      const why = t.counts ? 'it names another fingerprint or kind than this approval' : t.why;
      const u: UnverifiedDecision = {
        decision: 'approve',
        decided_by: d.actor,
        decided_at: d.ts,
        ...identityOf(d),
        why,
      };
      if (typeof d.data.reason === 'string') u.decision_reason = d.data.reason;
      unverified.push(u);
    }
    return unverified.length > 0 ? { ...r, status: 'pending', unverified } : { ...r, status: 'pending' };
  });
}

/** The approval states of a draft's ledger, judged by what this repository can verify. */
export function draftApprovalStates(
  ws: Workspace,
  events: readonly LedgerEvent[],
  required: readonly RequiredApproval[],
): ApprovalState[] {
  return approvalStates(events, required, decisionTrust(ws));
}

/** Who and where, as a decision records them. */
function identityOf(e: Pick<LedgerEvent, 'data' | 'origin'>): DecisionOrigin {
  const out: DecisionOrigin = {};
  if (typeof e.data.identity === 'string') out.decided_identity = e.data.identity;
  if (typeof e.data.host === 'string') out.decided_host = e.data.host;
  if (e.origin) out.decided_via = e.origin.remote;
  return out;
}

/** DENIED for the first denied approval: who, when, why. */
export function deniedError(denied: ApprovalState): ShadowError {
  const whom = [denied.decided_identity, denied.decided_host ? `on ${denied.decided_host}` : undefined]
    .filter((x) => x !== undefined)
    .join(' ');
  const by = `by ${denied.decided_by}${whom ? ` (${whom})` : ''} at ${denied.decided_at}${denied.decision_reason ? `: ${denied.decision_reason}` : ''}`;
  if (denied.commit !== undefined) {
    return new ShadowError(
      'DENIED',
      `${denied.kind} for commit ${denied.commit.slice(0, 12)} (${denied.id}) was denied ${by}; that commit adds a secret, and \`apply --commit\` would put it on the branch`,
      {
        hint: '`shadow apply --squash -m <message>` publishes only the final diff as one commit; or roll the draft back to before that commit',
        data: { ...denied },
      },
    );
  }
  return new ShadowError(
    'DENIED',
    `${denied.kind} (${denied.id}) was denied ${by}; the deny stands until the draft changes`,
    {
      hint: 'change the draft (a new batch, or a rollback) to ask again; no retry gets past a deny',
      data: { ...denied },
    },
  );
}

/**
 * Check the approvals apply needs. Throws DENIED when one is denied; returns
 * the pending ones (after logging an approval/request for each that was not
 * requested yet).
 */
export async function gateApply(ws: Workspace, review: Review, actor: string, log: boolean): Promise<ApprovalState[]> {
  // Nothing to approve: the ledger (which grows with the draft's life) need not be read.
  if (review.required.length === 0) return [];
  const events = draftEvents(ws, review.draft);
  const states = draftApprovalStates(ws, events, review.required);
  const denied = states.find((s) => s.status === 'denied');
  if (denied) throw deniedError(denied);
  const pending = states.filter((s) => s.status === 'pending');
  if (log) {
    for (const p of pending) {
      if (events.some((e) => e.type === 'approval/request' && e.data.id === p.id)) continue;
      await logEvent(ws, review.draft, 'approval/request', actor, {
        id: p.id,
        kind: p.kind,
        fingerprint: p.fingerprint,
        reason: p.reason,
        paths: p.paths,
      });
    }
  }
  return pending;
}

/** How a decision is recorded: `sign` (default `shadow.signApprovals`) signs it with the person's key, as git signs commits (`gpg.format`). */
export interface DecideOptions {
  sign?: boolean;
}

/**
 * Record an approve or deny for approval `id` of the draft's current
 * version, with this repository's MAC and, when asked, the person's
 * signature (SIGNING_FAILED before anything is written when it cannot be made).
 */
export async function decide(
  ws: Workspace,
  draftName: string,
  id: string,
  decision: 'approve' | 'deny',
  actor: string,
  reason: string | undefined,
  options: DecideOptions = {},
): Promise<ApprovalState> {
  const draft = requireDraft(ws, draftName);
  const review = await reviewDraft(ws, draft, readPolicy(ws));
  const branch = guardBranchCommits(ws, draft, review.entries, 'any');
  const required = [...review.required, ...branch.required];
  const events = draftEvents(ws, draftName);
  const trust = decisionTrust(ws);
  const current = approvalStates(events, required, trust).find((s) => s.id === id);
  if (!current) {
    const earlier = events.find(
      (e) => (e.type === 'approval/request' || e.type === 'approval/decision') && e.data.id === id,
    );
    if (earlier) {
      throw new ShadowError(
        'STALE_APPROVAL',
        `${id} was asked for an earlier version of draft "${draftName}" (${String(earlier.data.fingerprint ?? '').slice(0, 20)}…); the draft has changed since`,
        {
          hint: 'look at `shadow review` for the approvals the draft needs now',
          data: { id, fingerprint: earlier.data.fingerprint, current: review.fingerprint },
        },
      );
    }
    throw new ShadowError('APPROVAL_NOT_FOUND', `draft "${draftName}" needs no approval ${id}`, {
      hint:
        required.length > 0
          ? `it needs: ${required.map((r) => `${r.id} (${r.kind})`).join(', ')}`
          : 'the draft needs no approval now',
      data: { id },
    });
  }
  if (current.status === 'denied') {
    if (decision === 'approve') throw deniedError(current);
    throw new ShadowError(
      'ALREADY_DECIDED',
      `${id} is already denied (by ${current.decided_by} at ${current.decided_at})`,
      { data: { ...current } },
    );
  }
  if (current.status === 'approved') {
    throw new ShadowError(
      'ALREADY_DECIDED',
      `${id} is already approved (by ${current.decided_by} at ${current.decided_at})`,
      {
        hint:
          decision === 'deny'
            ? 'an approval given stands for this version of the draft; change the draft to ask again'
            : undefined,
        data: { ...current },
      },
    );
  }
  const data: Record<string, unknown> = { id, kind: current.kind, fingerprint: current.fingerprint, decision };
  if (reason !== undefined) data.reason = reason;
  // Who and where: the actor is whatever --actor said; these travel with the ledger to every machine.
  const me = ws.repo.committer();
  data.identity = `${me.name} <${me.email}>`;
  if (ws.ctx.processes?.host !== undefined) data.host = ws.ctx.processes.host;
  if (decision === 'deny' && current.kind === 'secrets_override' && current.fingerprint.startsWith('patchset:')) {
    // The commits that added the secrets denied here: they keep the deny after a later batch removes them.
    const same = (a: { path: string; rule: string; redacted: string }, b: typeof a): boolean =>
      a.path === b.path && a.rule === b.rule && a.redacted === b.redacted;
    const commits = branch.commits
      .filter((c) => c.commit !== null && c.secrets.some((s) => review.secrets.some((f) => same(s, f))))
      .map((c) => c.commit);
    if (commits.length > 0) data.commits = commits;
  }
  // Made here: the MAC under this repository's key. Signed when asked: the person's key, checked wherever the ledger goes.
  const ts = new Date(ws.ctx.clock.now()).toISOString();
  const fields: DecisionFields = {
    id,
    kind: current.kind,
    fingerprint: current.fingerprint,
    decision,
    actor,
    identity: data.identity as string,
    ts,
  };
  if (options.sign ?? ws.repo.config.getBool('shadow.signapprovals') ?? false) {
    const { format, signature } = signDecisionText(ws, decisionText({ ...fields, draft: draftName }));
    data.signature = { format, draft: draftName, signature } satisfies DecisionSignature;
  }
  data.mac = decisionMac(ensureApprovalKey(ws), fields);
  const decided = { type: 'approval/decision', draft: draftName, actor, data, ts };
  const event = await appendEvent(ws.ctx, ledgerPath(ws, draftName), decided, ws.repo.lockTimeoutMs);
  const { status: _status, unverified: _unverified, ...asked } = current;
  return decidedState(asked, event, decision === 'approve' ? 'approved' : 'denied', () => ({
    counts: true,
    verified: 'here',
  }));
}
