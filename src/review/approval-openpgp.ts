/**
 * Approvals signed with openpgp keys through gpg, as git signs and
 * verifies a commit when `gpg.format` is openpgp (or unset):
 *
 * - signing runs `<gpg.program> --status-fd=2 -bsau <user.signingKey>` over
 *   the decision's text (git's `sign_buffer_gpg`), the key being the
 *   committer's `Name <email>` when user.signingKey is unset, and succeeds
 *   only when gpg exits 0 and writes a `[GNUPG:] SIG_CREATED` line;
 * - verifying runs `<gpg.program> --keyid-format=long --status-fd=1 --verify
 *   <signature file> -` with the text on stdin (git's
 *   `verify_gpg_signed_buffer`), and counts as `git verify-commit` counts
 *   (gpg-status.ts): any key of the person's keyring whose trust is at
 *   least `gpg.minTrustLevel`.
 *
 * The program is `gpg.openpgp.program`, else `gpg.program`, else gpg.
 */
import type { Workspace } from '../drafts/workspace.js';
import { gpgVerdict, TRUST_LEVELS, trustLevel } from './gpg-status.js';
import { lastWords, runProgram, signingFailed, withTempFile, type SignatureVerdict } from './signing-programs.js';

function gpgProgram(ws: Workspace): string {
  return ws.repo.config.get('gpg.openpgp.program') ?? ws.repo.config.get('gpg.program') ?? 'gpg';
}

/** Sign `text` with the person's openpgp key; the armored detached signature. SIGNING_FAILED when it cannot. */
export function signOpenpgp(ws: Workspace, text: string): string {
  const program = gpgProgram(ws);
  if (!ws.ctx.programs) {
    throw signingFailed(`${program} cannot be run here`, `run shadow where ${program} is on the PATH`);
  }
  const configured = ws.repo.config.get('user.signingkey');
  const me = ws.repo.committer();
  const key = configured !== undefined && configured.trim() !== '' ? configured : `${me.name} <${me.email}>`;
  const r = runProgram(ws, program, ['--status-fd=2', '-bsau', key], Buffer.from(text, 'utf8'))!;
  if (r.status !== 0 || !/(^|\n)\[GNUPG:\] SIG_CREATED /.test(r.stderr)) {
    const says = lastWords(
      r.stderr
        .split('\n')
        .filter((l) => !l.startsWith('[GNUPG:] '))
        .join('\n'),
    );
    throw signingFailed(
      `${program} could not sign the approval with ${key}${says ? `: ${says}` : ''}`,
      'check user.signingKey (a secret key: gpg --list-secret-keys) and gpg.program; or use gpg.format ssh',
      { key, status: r.status },
    );
  }
  return r.stdout.toString('utf8');
}

/** Check an armored openpgp `signature` over `text` with the person's gpg keyring. */
export function verifyOpenpgp(ws: Workspace, text: string, signature: string): SignatureVerdict {
  const program = gpgProgram(ws);
  const configured = ws.repo.config.get('gpg.mintrustlevel');
  const min = configured === undefined ? 'undefined' : trustLevel(configured);
  if (min === undefined) {
    const levels = TRUST_LEVELS.join(', ');
    return { ok: false, why: `signed, but gpg.minTrustLevel is "${configured}", not one of ${levels}` };
  }
  if (!ws.ctx.programs) return { ok: false, why: `signed, but ${program} cannot be run here to check it` };
  return withTempFile(ws, '.asc', signature, (sig) => {
    const args = ['--keyid-format=long', '--status-fd=1', '--verify', sig, '-'];
    const r = runProgram(ws, program, args, Buffer.from(text, 'utf8'))!;
    return gpgVerdict(r.status, r.stdout.toString('utf8'), min);
  });
}
