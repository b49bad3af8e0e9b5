/**
 * Drafts whose approvals are the question: one that changes CI config and
 * adds a token (two approvals to apply it), its ledger rewritten as someone
 * who can write its JSON would, and the ssh keys and allowed signers of
 * signed approvals, made with the real ssh-keygen.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { DiskRepo, withShadow } from './disk-repo.js';

export const TOKEN = 'ghp_' + 'k7Q2mZ9xR4tB8wN1vC6yL3pH5sD0fJ2gA9eU'; // made up, shaped like a classic GitHub token

export function ok(r: { status: number; stdout: string; stderr: string }): string {
  assert.is(r.status, 0, r.stderr + r.stdout);
  return r.stdout;
}

/** The ledger file of `draft`, relative to the repository. */
export function ledgerOf(draft: string): string {
  return `.git/shadow/drafts/${draft}/events.jsonl`;
}

/**
 * Rewrite a ledger as someone who can write its JSON would: each event
 * through `edit` (which may drop it or add others), then every line
 * re-numbered and re-chained so that `events --verify` still passes.
 */
export function rewriteLedger(repo: DiskRepo, draft: string, edit: (e: any) => any[]): void {
  const lines = repo.read(ledgerOf(draft)).trim().split('\n');
  const out: string[] = [];
  let prev: string | null = null;
  for (const line of lines) {
    for (const e of edit(JSON.parse(line))) {
      e.seq = out.length + 1;
      e.prev = prev;
      const text = JSON.stringify(e);
      prev = createHash('sha256').update(text).digest('hex');
      out.push(text);
    }
  }
  repo.write(ledgerOf(draft), `${out.join('\n')}\n`);
}

/** A draft changing CI config (a protected path) and adding a GitHub token: two approvals to apply it. */
export async function riskyDraft(repo: DiskRepo, draft: string, ci = 'on: push\n'): Promise<void> {
  await withShadow(repo, async (sh) => {
    await sh.batch(
      {
        intent: 'ci and a token',
        operations: [
          { operation: 'write', path: '.github/workflows/ci.yml', content: ci },
          { operation: 'write', path: 'config/token.ts', content: `export const token = '${TOKEN}';\n` },
        ],
      },
      { draft },
    );
  });
}

/** Approve every approval `draft` needs in `repo` (those of `apply --commit` too, which a push needs); the ids a plain apply needs. */
export function approveAll(repo: DiskRepo, draft: string, extra: string[] = []): string[] {
  const review = JSON.parse(ok(repo.shadow(['review', draft, '--json'])));
  for (const a of [...review.approvals, ...review.branch_approvals])
    ok(repo.shadow(['approve', a.id, '--draft', draft, '--reason', 'looks fine', ...extra]));
  return review.approvals.map((a: any) => a.id);
}

/** An apply that stopped at pending approvals: exit 3, those ids, and neither file written. */
export function assertPending(repo: DiskRepo, args: string[], ids: string[]): void {
  const r = repo.shadow(['apply', ...args, '--json']);
  assert.is(r.status, 3, r.stdout + r.stderr);
  assert.equal(
    r
      .json()
      .pendingApprovals.map((p: any) => p.id)
      .sort(),
    [...ids].sort(),
  );
  assert.is(repo.exists('.github/workflows/ci.yml'), false);
  assert.is(repo.exists('config/token.ts'), false);
}

/** A new ed25519 key in `repo`'s home (no passphrase): the private key's path and the public key's line. */
export function sshKey(repo: DiskRepo, name: string): { key: string; pub: string } {
  const key = join(repo.home, name);
  const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
  return { key, pub: readFileSync(`${key}.pub`, 'utf8').trim() };
}

/** `repo` signs with `key`, as for signing commits with ssh. */
export function signWith(repo: DiskRepo, key: string): void {
  repo.git('config', 'gpg.format', 'ssh');
  repo.git('config', 'user.signingKey', key);
}

/** `repo`'s gpg.ssh.allowedSignersFile, holding `lines`. */
export function allowSigners(repo: DiskRepo, lines: string[]): void {
  const file = join(repo.home, 'allowed_signers');
  writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
  repo.git('config', 'gpg.ssh.allowedSignersFile', file);
}

/**
 * Each variant's set-up makes `approve --sign` fail: SIGNING_FAILED with its
 * message and a hint, the draft's ledger as it was, no approval key made.
 */
export function assertSigningFails(
  repo: DiskRepo,
  draft: string,
  id: string,
  variants: ReadonlyArray<readonly [string, () => unknown, RegExp | string]>,
): void {
  const ledger = repo.read(ledgerOf(draft));
  for (const [name, setUp, message] of variants) {
    setUp();
    const r = repo.shadow(['approve', id, '--draft', draft, '--sign', '--json']);
    assert.is(r.status, 1, name);
    assert.is(r.json().error.code, 'SIGNING_FAILED', name);
    assert.match(r.json().error.message, message, name);
    assert.ok(r.json().error.hint, name);
    assert.is(repo.read(ledgerOf(draft)), ledger, name);
    assert.is(repo.exists('.git/shadow/approval.key'), false, name);
  }
}
