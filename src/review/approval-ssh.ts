/**
 * Approvals signed with ssh keys, as git signs a commit with
 * `gpg.format ssh`: `ssh-keygen -Y sign -n shadow-approval -f
 * <user.signingKey>` over the decision's text, verified as `git
 * verify-commit` verifies one: the principals `gpg.ssh.allowedSignersFile`
 * lists for the key (`ssh-keygen -Y find-principals`), then `ssh-keygen -Y
 * verify` for each, at the current time, so an allowed-signers line whose
 * `valid-before` has passed no longer vouches for anything. The namespace
 * keeps a commit's or a file's signature from passing for an approval's.
 */
import type { GitRun } from '../context.js';
import type { Workspace } from '../drafts/workspace.js';
import {
  homePath,
  lastWords,
  runProgram,
  signingFailed,
  withTempFile,
  type SignatureVerdict,
} from './signing-programs.js';

/** The ssh signature namespace of an approval. */
export const APPROVAL_NAMESPACE = 'shadow-approval';

/** Run `gpg.ssh.program` (default ssh-keygen). */
function runSsh(ws: Workspace, args: readonly string[], input?: Buffer): GitRun | undefined {
  return runProgram(ws, ws.repo.config.get('gpg.ssh.program') ?? 'ssh-keygen', args, input);
}

/**
 * Sign `text` with the person's ssh key (`user.signingKey`: a key file, or
 * `key::<public key>` / a literal `ssh-…` public key whose private half is
 * in the ssh agent, as git takes it). SIGNING_FAILED when it cannot.
 */
export function signSsh(ws: Workspace, text: string): string {
  const key = ws.repo.config.get('user.signingkey');
  if (key === undefined || key.trim() === '') {
    throw signingFailed(
      'no user.signingKey is configured to sign the approval with',
      'git config user.signingKey ~/.ssh/id_ed25519.pub (a key whose private half is on this machine or in ssh-agent)',
    );
  }
  if (!ws.ctx.programs)
    throw signingFailed('ssh-keygen cannot be run here', 'run shadow where ssh-keygen is on the PATH');
  const literal = key.startsWith('key::') ? key.slice('key::'.length) : key.startsWith('ssh-') ? key : undefined;
  const sign = (file: string): GitRun =>
    runSsh(ws, ['-Y', 'sign', '-n', APPROVAL_NAMESPACE, '-f', file], Buffer.from(text, 'utf8'))!;
  const r = literal !== undefined ? withTempFile(ws, '.pub', `${literal}\n`, sign) : sign(homePath(ws, key));
  const signature = r.stdout.toString('utf8');
  if (r.status !== 0 || !signature.includes('-----BEGIN SSH SIGNATURE-----')) {
    const says = lastWords(r.stderr);
    throw signingFailed(
      `ssh-keygen could not sign the approval with ${key}${says ? `: ${says}` : ''}`,
      'check user.signingKey (the key file, or ssh-agent holding its private half) and gpg.ssh.program',
      { key, status: r.status },
    );
  }
  return signature;
}

/** Check an ssh `signature` over `text` against the person's `gpg.ssh.allowedSignersFile`. */
export function verifySsh(ws: Workspace, text: string, signature: string): SignatureVerdict {
  const configured = ws.repo.config.get('gpg.ssh.allowedsignersfile');
  if (configured === undefined || configured === '') {
    return { ok: false, why: 'signed, but no gpg.ssh.allowedSignersFile is configured here to check it against' };
  }
  if (!ws.ctx.programs) return { ok: false, why: 'signed, but ssh-keygen cannot be run here to check it' };
  const allowed = homePath(ws, configured);
  return withTempFile(ws, '.sig', signature, (sig) => {
    const found = runSsh(ws, ['-Y', 'find-principals', '-s', sig, '-f', allowed])!;
    const listed = found.status === 0 ? found.stdout.toString('utf8').split('\n') : [];
    const principals = listed.map((l) => l.trim()).filter((l) => l !== '');
    if (principals.length === 0) {
      return { ok: false, why: `signed by a key that ${configured} does not list (or no longer allows)` };
    }
    for (const principal of principals) {
      const args = ['-Y', 'verify', '-f', allowed, '-I', principal, '-n', APPROVAL_NAMESPACE, '-s', sig];
      const r = runSsh(ws, args, Buffer.from(text, 'utf8'))!;
      if (r.status === 0) return { ok: true, principal };
    }
    const who = principals.join(', ');
    return {
      ok: false,
      why: `the signature of ${who} does not verify over this decision (it was made over another, or that key is no longer allowed)`,
    };
  });
}
