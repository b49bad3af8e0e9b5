/**
 * gpg keyrings for the tests of openpgp-signed approvals: a GNUPGHOME of
 * the test's own in a repository's home (its environment then points gpg,
 * git and shadow there), keys made with the real gpg, exported, imported,
 * revoked, and the keyring's agent stopped at the end.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiskRepo } from './disk-repo.js';

function gpg(repo: DiskRepo, args: string[], input?: string): string {
  const r = spawnSync('gpg', ['--batch', ...args], { env: repo.env, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gpg ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** Give `repo` an empty gpg keyring of its own (GNUPGHOME in its environment). */
export function gpgHome(repo: DiskRepo): string {
  const home = join(repo.home, 'gnupg');
  mkdirSync(home, { recursive: true });
  chmodSync(home, 0o700);
  repo.env.GNUPGHOME = home;
  return home;
}

/**
 * A new ed25519 signing key for `uid` in `repo`'s keyring (no passphrase);
 * its fingerprint. `at` makes it at that time (gpg's --faked-system-time),
 * `expires` as gpg's quick-gen-key takes it.
 */
export function gpgKey(repo: DiskRepo, uid: string, options: { at?: string; expires?: string } = {}): string {
  const faked = options.at ? ['--faked-system-time', options.at] : [];
  gpg(repo, [...faked, '--passphrase', '', '--quick-gen-key', uid, 'ed25519', 'sign', options.expires ?? 'never']);
  const listed = gpg(repo, ['--with-colons', '--list-secret-keys', uid]);
  const fpr = listed.split('\n').find((l) => l.startsWith('fpr:'));
  if (!fpr) throw new Error(`no fingerprint for ${uid}`);
  return fpr.split(':')[9]!;
}

/** The armored public key `fpr` of `from`'s keyring, imported into `to`'s. */
export function importKey(from: DiskRepo, to: DiskRepo, fpr: string): void {
  gpg(to, ['--import'], gpg(from, ['--armor', '--export', fpr]));
}

/** Remove the public key `fpr` from `repo`'s keyring (which holds no secret half of it). */
export function deleteKey(repo: DiskRepo, fpr: string): void {
  gpg(repo, ['--yes', '--delete-keys', fpr]);
}

/** Import into `to` the revocation certificate gpg made with `fpr` in `from`'s keyring. */
export function importRevocation(from: DiskRepo, to: DiskRepo, fpr: string): void {
  const cert = readFileSync(join(from.env.GNUPGHOME!, 'openpgp-revocs.d', `${fpr}.rev`), 'utf8');
  // gpg guards the stored certificate against an import by mistake with a leading colon.
  gpg(to, ['--import'], cert.replace(/^:-----BEGIN/m, '-----BEGIN'));
}

/** A `gpg.program` for `repo` that runs gpg as if it were `at`: it signs with a key that has expired since. */
export function gpgAt(repo: DiskRepo, at: string): string {
  const path = join(repo.home, 'gpg-at');
  writeFileSync(path, `#!/bin/sh\nexec gpg --faked-system-time ${at} "$@"\n`, { mode: 0o755 });
  return path;
}

/** Stop the gpg-agent of each repository's keyring (gpg started it there). */
export function stopAgents(repos: DiskRepo[]): void {
  for (const repo of repos) if (repo.env.GNUPGHOME) spawnSync('gpgconf', ['--kill', 'gpg-agent'], { env: repo.env });
}
