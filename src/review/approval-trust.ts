/**
 * Whether a decision in a draft's ledger counts here. The ledger says who
 * decided, but anyone who can write its JSON (a remote a draft was fetched
 * from, a collaborator with push access, a process on the machine) can
 * write any of it and re-chain the hashes. So an approve counts only when
 *
 * - it was made in this repository: its MAC verifies under this
 *   repository's approval key, which never leaves it (approval-key.ts); or
 * - it is signed by a key the person trusts, as git would verify a commit
 *   signed with it: an ssh signature against `gpg.ssh.allowedSignersFile`,
 *   an openpgp one with gpg's keyring (approval-signatures.ts).
 *
 * Anything else (an approval made on another machine and joined by a pull,
 * a ledger copied by `draft new --from` or `apply --draft origin/<d>`, a
 * decision forged under the person's own name) is shown for what it is and
 * leaves the approval pending. A deny counts from anywhere: blocking is
 * safe, and a deny from a collaborator is worth stopping for.
 */
import type { LedgerEvent } from '../state/ledger.js';
import type { Workspace } from '../drafts/workspace.js';
import { decisionText, macMatches, readApprovalKey, type DecisionFields } from './approval-key.js';
import { verifyDecisionSignature, type DecisionSignature } from './approval-signatures.js';

/** What this repository can say of one decision. */
export type DecisionTrust =
  { counts: true; verified: 'here' | 'signed'; principal?: string } | { counts: false; why: string };

/** The trust of each decision event (the caller asks only of `approval/decision` events). */
export type TrustOf = (e: LedgerEvent) => DecisionTrust;

/** The fields of a decision event its MAC and signature cover (pure). */
export function fieldsOf(e: LedgerEvent): DecisionFields {
  const s = (v: unknown): string => (typeof v === 'string' ? v : '');
  const d = e.data;
  return {
    id: s(d.id),
    kind: s(d.kind),
    fingerprint: s(d.fingerprint),
    decision: s(d.decision),
    actor: e.actor,
    identity: s(d.identity),
    ts: e.ts,
  };
}

/** The signature a decision carries, when it is well formed (pure). */
export function signatureOf(e: LedgerEvent): DecisionSignature | undefined {
  const sig = e.data.signature as Partial<DecisionSignature> | undefined;
  if (sig === null || typeof sig !== 'object') return undefined;
  if (sig.format !== 'ssh' && sig.format !== 'openpgp') return undefined;
  if (typeof sig.draft !== 'string' || typeof sig.signature !== 'string') return undefined;
  return { format: sig.format, draft: sig.draft, signature: sig.signature };
}

/** Why an unsigned decision without a valid MAC does not count (pure). */
function unverifiedWhy(e: LedgerEvent): string {
  if (e.origin) return `made in another repository (joined from ${e.origin.remote}) and not signed`;
  return 'not made in this repository, and not signed';
}

/**
 * The trust of decisions in `ws`: the key is read once, and each signature
 * checked once (a review asks of the same event for several approvals).
 */
export function decisionTrust(ws: Workspace): TrustOf {
  let key: Buffer | undefined | null = null;
  const seen = new Map<LedgerEvent, DecisionTrust>();
  return (e) => {
    const known = seen.get(e);
    if (known) return known;
    if (key === null) key = readApprovalKey(ws);
    const fields = fieldsOf(e);
    let trust: DecisionTrust;
    if (key && macMatches(key, fields, e.data.mac)) {
      trust = { counts: true, verified: 'here' };
    } else {
      const sig = signatureOf(e);
      if (sig) {
        const v = verifyDecisionSignature(ws, decisionText({ ...fields, draft: sig.draft }), sig);
        trust = v.ok ? { counts: true, verified: 'signed', principal: v.principal } : { counts: false, why: v.why };
      } else {
        trust = { counts: false, why: unverifiedWhy(e) };
      }
    }
    seen.set(e, trust);
    return trust;
  };
}
