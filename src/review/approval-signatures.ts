/**
 * Signed approvals, through git's own signing configuration: a decision's
 * text (approval-key.ts `decisionText`, the draft's name included) is
 * signed as git signs a commit under `gpg.format`, and verified as `git
 * verify-commit` verifies one:
 *
 * - `ssh`: ssh-keygen, against `gpg.ssh.allowedSignersFile` (approval-ssh.ts);
 * - `openpgp` (git's default): gpg, against the person's keyring and
 *   `gpg.minTrustLevel` (approval-openpgp.ts);
 * - `x509` (gpgsm) cannot sign an approval (SIGNING_FAILED), and a decision
 *   signed so does not verify here.
 */
import type { Workspace } from '../drafts/workspace.js';
import { signOpenpgp, verifyOpenpgp } from './approval-openpgp.js';
import { signSsh, verifySsh } from './approval-ssh.js';
import { signingFailed, type SignatureVerdict } from './signing-programs.js';

/** The formats an approval can be signed in. */
export type SignatureFormat = 'ssh' | 'openpgp';

/** A decision's signature, as the ledger keeps it (`data.signature`). */
export interface DecisionSignature {
  format: SignatureFormat;
  /** The draft's name where it was signed (part of the signed text). */
  draft: string;
  /** The armored `-----BEGIN SSH SIGNATURE-----` or `-----BEGIN PGP SIGNATURE-----` block. */
  signature: string;
}

/** Sign `text` as git would sign a commit here (`gpg.format`); SIGNING_FAILED when it cannot. */
export function signDecisionText(ws: Workspace, text: string): Pick<DecisionSignature, 'format' | 'signature'> {
  const format = ws.repo.config.get('gpg.format') ?? 'openpgp';
  if (format === 'ssh') return { format, signature: signSsh(ws, text) };
  if (format === 'openpgp') return { format, signature: signOpenpgp(ws, text) };
  throw signingFailed(
    `approvals are signed with ssh or openpgp keys, and gpg.format is ${format}`,
    'git config gpg.format openpgp (a gpg key), or gpg.format ssh with user.signingKey <your ssh key>',
    { format },
  );
}

/** Check `signature` over `text` with what this repository's person trusts for its format. */
export function verifyDecisionSignature(
  ws: Workspace,
  text: string,
  { format, signature }: Pick<DecisionSignature, 'format' | 'signature'>,
): SignatureVerdict {
  return format === 'openpgp' ? verifyOpenpgp(ws, text, signature) : verifySsh(ws, text, signature);
}
