/**
 * Signed approvals, through git's own signing configuration: a decision's
 * text (approval-key.ts `decisionText`, the draft's name included) is
 * signed as git signs a commit with `gpg.format ssh`, and verified as `git
 * verify-commit` verifies one (approval-ssh.ts).
 *
 * Only ssh signatures: `gpg.format` openpgp or x509 cannot sign an approval
 * (SIGNING_FAILED), and a decision signed otherwise does not verify here.
 */
import type { Workspace } from '../drafts/workspace.js';
import { signSsh, verifySsh } from './approval-ssh.js';
import { signingFailed, type SignatureVerdict } from './signing-programs.js';

/** A decision's signature, as the ledger keeps it (`data.signature`). */
export interface DecisionSignature {
  format: 'ssh';
  /** The draft's name where it was signed (part of the signed text). */
  draft: string;
  /** The armored `-----BEGIN SSH SIGNATURE-----` block. */
  signature: string;
}

/** Sign `text` with the person's ssh key; SIGNING_FAILED when it cannot. */
export function signDecisionText(ws: Workspace, text: string): string {
  const format = ws.repo.config.get('gpg.format') ?? 'openpgp';
  if (format !== 'ssh') {
    throw signingFailed(
      `approvals are signed with ssh keys, and gpg.format is ${format}`,
      'git config gpg.format ssh, and git config user.signingKey <your ssh key> (as for signing commits with ssh)',
      { format },
    );
  }
  return signSsh(ws, text);
}

/** Check `signature` over `text` against the person's `gpg.ssh.allowedSignersFile`. */
export function verifyDecisionSignature(ws: Workspace, text: string, signature: string): SignatureVerdict {
  return verifySsh(ws, text, signature);
}
