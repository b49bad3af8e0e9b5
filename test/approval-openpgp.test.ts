import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  approveAll,
  assertPending,
  assertSigningFails,
  ledgerOf,
  ok,
  rewriteLedger,
  riskyDraft,
} from './helpers/approval-ledgers.js';
import { deleteKey, gpgAt, gpgHome, gpgKey, importKey, importRevocation, stopAgents } from './helpers/gpg-keys.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { bareRemote } from './helpers/remotes.js';
import { withRemote } from './helpers/remote-repos.js';
import { gpgVerdict, type TrustLevel } from '../src/review/gpg-status.js';
import { signOpenpgp, verifyOpenpgp } from '../src/review/approval-openpgp.js';
import { Volume, createFsFromVolume } from 'memfs';
import type { FileSystem, ProgramRunner } from '../src/context.js';
import type { Workspace } from '../src/drafts/workspace.js';

/**
 * Approvals signed with openpgp keys: with `gpg.format` openpgp (or
 * unset), `shadow approve --sign` signs the decision with gpg as git signs
 * a commit, and another clone counts it exactly when `git verify-commit`
 * accepts a commit signed with the same key there. The real gpg signs and
 * verifies, in keyrings of the test's own.
 */

/** A commit of `a` signed as git signs with `a`'s configuration, fetched into `b`: its id. */
function signedCommit(a: DiskRepo, b: DiskRepo): string {
  const oid = a.git('commit-tree', '-S', '-p', 'HEAD', '-m', 'signed', 'HEAD^{tree}').trim();
  a.git('push', '-q', 'origin', `${oid}:refs/heads/signed`);
  b.git('fetch', '-q', 'origin', 'signed');
  return oid;
}

const ANN = 'Ann <ann@example.com>';

const Counts = suite('openpgp-signed approvals in another clone');

Counts(
  'an approval signed with gpg counts in another clone exactly when git verify-commit accepts the same key there: unknown key, imported, gpg.minTrustLevel, revoked',
  () =>
    withRemote(bareRemote, async ({ a, clone }) => {
      const b = clone();
      try {
        gpgHome(a);
        gpgHome(b);
        const ann = gpgKey(a, ANN);
        a.git('config', 'user.signingKey', ann);
        await riskyDraft(a, 'ci');
        const ids = approveAll(a, 'ci', ['--sign']);
        ok(a.shadow(['push', 'origin', 'ci']));
        ok(b.shadow(['fetch', 'origin']));
        const commit = signedCommit(a, b);
        const cases: Array<[string, () => void, string | undefined]> = [
          ['an unknown key', () => {}, 'gpg cannot check the signature of key'],
          ['the key imported', () => importKey(a, b, ann), undefined],
          [
            'gpg.minTrustLevel fully',
            () => b.git('config', 'gpg.minTrustLevel', 'fully'),
            `signed by ${ANN}, whose key's trust (undefined) is below gpg.minTrustLevel (fully)`,
          ],
          ['gpg.minTrustLevel undefined', () => b.git('config', 'gpg.minTrustLevel', 'Undefined'), undefined],
          ['the key revoked', () => importRevocation(a, b, ann), `signed by ${ANN}, whose key is revoked`],
          ['imported again, unrevoked', () => (deleteKey(b, ann), importKey(a, b, ann)), undefined],
        ];
        for (const [name, setUp, why] of cases) {
          setUp();
          // The oracle: git judges a commit signed with the same key, with the same keyring and configuration.
          assert.is(b.gitResult('verify-commit', commit).status === 0, why === undefined, name);
          const review = JSON.parse(ok(b.shadow(['review', 'origin/ci', '--json'])));
          if (why === undefined) {
            const approved = ['approved', 'signed', ANN, true];
            assert.equal(
              review.approvals.map((x: any) => [x.status, x.verified, x.verified_by, x.signed]),
              [approved, approved],
              name,
            );
          } else {
            assert.equal(
              review.approvals.map((x: any) => x.status),
              ['pending', 'pending'],
              name,
            );
            for (const x of review.approvals) assert.match(x.unverified[0].why, why, name);
            assertPending(b, ['--draft', 'origin/ci'], ids);
          }
        }
        assert.match(ok(b.shadow(['review', 'origin/ci', '--stat'])), `[signed, verified by ${ANN}]`);
        const decisions = a
          .read(ledgerOf('ci'))
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
          .filter((e) => e.type === 'approval/decision');
        for (const e of decisions) {
          assert.equal([e.data.signature.format, e.data.signature.draft], ['openpgp', 'ci']);
          assert.match(e.data.signature.signature, /^-----BEGIN PGP SIGNATURE-----/);
        }
        const applied = b.shadow(['apply', '--draft', 'origin/ci', '--json']);
        assert.is(applied.status, 0, applied.stdout + applied.stderr);
        assert.is(b.read('.github/workflows/ci.yml'), 'on: push\n');
      } finally {
        stopAgents([a, b]);
      }
    }),
);

Counts(
  'an approval signed with a key that has expired since is pending, as git verify-commit refuses a commit signed with it',
  () =>
    withRemote(bareRemote, async ({ a, clone }) => {
      const b = clone();
      try {
        gpgHome(a);
        gpgHome(b);
        // Made in 2020 to last a year; gpg.program signs as if it were mid-2020.
        const old = gpgKey(a, 'Old <old@example.com>', { at: '20200101T000000', expires: '1y' });
        a.git('config', 'user.signingKey', old);
        a.git('config', 'gpg.program', gpgAt(a, '20200601T000000'));
        await riskyDraft(a, 'ci');
        const ids = approveAll(a, 'ci', ['--sign']);
        ok(a.shadow(['push', 'origin', 'ci']));
        ok(b.shadow(['fetch', 'origin']));
        importKey(a, b, old);
        const commit = signedCommit(a, b);
        assert.is.not(b.gitResult('verify-commit', commit).status, 0);
        const review = JSON.parse(ok(b.shadow(['review', 'origin/ci', '--json'])));
        assert.equal(
          review.approvals.map((x: any) => x.status),
          ['pending', 'pending'],
        );
        for (const x of review.approvals)
          assert.match(x.unverified[0].why, 'signed by Old <old@example.com>, whose key has expired');
        assertPending(b, ['--draft', 'origin/ci'], ids);
      } finally {
        stopAgents([a, b]);
      }
    }),
);

Counts(
  "a valid gpg signature copied onto an approval of another fingerprint does not count, nor a whole message the person signed; without user.signingKey the committer's key signs, as git signs",
  () =>
    withRemote(bareRemote, async ({ a, clone }) => {
      const b = clone();
      try {
        gpgHome(a);
        gpgHome(b);
        const me = gpgKey(a, 'Test User <test@example.com>');
        await riskyDraft(a, 'one');
        await riskyDraft(a, 'two', 'on: [push, pull_request]\n');
        approveAll(a, 'one', ['--sign']);
        const asked: any[] = JSON.parse(ok(a.shadow(['review', 'two', '--json']))).approvals;
        const target = asked.find((x) => x.kind === 'protected_path');
        for (const x of [...asked, ...JSON.parse(ok(a.shadow(['review', 'two', '--json']))).branch_approvals]) {
          if (x.id !== target.id) ok(a.shadow(['approve', x.id, '--draft', 'two', '--sign']));
        }
        const events = a
          .read(ledgerOf('one'))
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        const signedOne = events.find((e) => e.type === 'approval/decision' && e.data.kind === 'protected_path');
        // Anything else the person signed, as a whole message rather than a detached signature: gpg checks no data against it.
        const clearsigned = spawnSync('gpg', ['--batch', '--clearsign'], {
          env: a.env,
          input: 'I approve everything\n',
          encoding: 'utf8',
        });
        assert.is(clearsigned.status, 0, clearsigned.stderr);
        rewriteLedger(a, 'two', (e) => {
          if (e.seq !== 1) return [e];
          const data = {
            ...signedOne.data,
            id: target.id,
            fingerprint: target.fingerprint,
            signature: { ...signedOne.data.signature, draft: 'two' },
          };
          const whole = { ...data, signature: { format: 'openpgp', draft: 'two', signature: clearsigned.stdout } };
          return [e, { ...signedOne, draft: 'two', data }, { ...signedOne, draft: 'two', data: whole }];
        });
        ok(a.shadow(['push', 'origin', 'one', 'two']));
        ok(b.shadow(['fetch', 'origin']));
        importKey(a, b, me);
        const one = JSON.parse(ok(b.shadow(['review', 'origin/one', '--json']))).approvals;
        assert.equal(
          one.map((x: any) => [x.status, x.verified_by]),
          [
            ['approved', 'Test User <test@example.com>'],
            ['approved', 'Test User <test@example.com>'],
          ],
        );
        const copied = JSON.parse(ok(b.shadow(['review', 'origin/two', '--json']))).approvals.find(
          (x: any) => x.id === target.id,
        );
        assert.equal([copied.status, copied.unverified.length], ['pending', 2]);
        assert.match(
          copied.unverified[0].why,
          'the signature of Test User <test@example.com> does not verify over this decision',
        );
        assert.match(copied.unverified[1].why, 'gpg found no signature it could check');
        assertPending(b, ['--draft', 'origin/two'], [target.id]);
      } finally {
        stopAgents([a, b]);
      }
    }),
);

const Signing = suite('shadow approve --sign with gpg');

Signing(
  'an approval gpg cannot sign is SIGNING_FAILED with nothing recorded: no secret key, no gpg, no SIG_CREATED line, x509',
  () =>
    withRemote(bareRemote, async ({ a }) => {
      try {
        gpgHome(a);
        await riskyDraft(a, 'ci');
        const id = JSON.parse(ok(a.shadow(['review', 'ci', '--json']))).approvals[0].id;
        const silent = join(a.home, 'gpg-silent');
        // Exits 0 with a "signature", but gpg's SIG_CREATED status line is missing: git refuses that too.
        writeFileSync(silent, '#!/bin/sh\ncat >/dev/null\necho "-----BEGIN PGP SIGNATURE-----"\nexit 0\n', {
          mode: 0o755,
        });
        const variants: Array<[string, () => void, string]> = [
          ['no secret key', () => {}, 'gpg could not sign the approval with Test User <test@example.com>'],
          [
            'no gpg',
            () => a.git('config', 'gpg.program', join(a.home, 'absent-gpg')),
            'absent-gpg could not sign the approval',
          ],
          ['no SIG_CREATED', () => a.git('config', 'gpg.program', silent), 'gpg-silent could not sign the approval'],
          ['x509', () => a.git('config', 'gpg.format', 'x509'), 'gpg.format is x509'],
        ];
        assertSigningFails(a, 'ci', id, variants);
      } finally {
        stopAgents([a]);
      }
    }),
);

const Status = suite('gpg status lines, judged as git verify-commit judges them');

/** Status lines as gpg writes them for a signature of Ann's key, with `result` and `trust` lines. */
function status(lines: string[]): string {
  const fpr = '714833E5898301E976BAD5217503E90310120545';
  return ['[GNUPG:] NEWSIG ann@example.com', `[GNUPG:] KEY_CONSIDERED ${fpr} 0`, ...lines, ''].join('\n');
}
const GOOD = '[GNUPG:] GOODSIG 7503E90310120545 Ann <ann@example.com>';
const VALID =
  '[GNUPG:] VALIDSIG 714833E5898301E976BAD5217503E90310120545 2026-11-28 1795860752 0 4 0 22 8 00 714833E5898301E976BAD5217503E90310120545';
const CASES: Array<[string, number, string, TrustLevel]> = [
  ['good, ultimate trust', 0, status([GOOD, VALID, '[GNUPG:] TRUST_ULTIMATE 0 pgp']), 'undefined'],
  ['good, exit status 1', 1, status([GOOD, VALID, '[GNUPG:] TRUST_ULTIMATE 0 pgp']), 'undefined'],
  [
    'good and bad: two signatures',
    0,
    status([GOOD, '[GNUPG:] BADSIG 7503E90310120545 Ann <ann@example.com>', '[GNUPG:] TRUST_ULTIMATE 0 pgp']),
    'undefined',
  ],
  [
    'bad and good: two signatures',
    0,
    status(['[GNUPG:] BADSIG 7503E90310120545 Ann <ann@example.com>', GOOD, '[GNUPG:] TRUST_ULTIMATE 0 pgp']),
    'undefined',
  ],
  ['good, no trust line', 0, status([GOOD, VALID]), 'undefined'],
  ['good, an unknown trust', 0, status([GOOD, VALID, '[GNUPG:] TRUST_SOMEWHAT 0 pgp']), 'undefined'],
  ['good, trust never, minimum undefined', 0, status([GOOD, VALID, '[GNUPG:] TRUST_NEVER 0 pgp']), 'undefined'],
  ['good, trust undefined, minimum never', 0, status([GOOD, VALID, '[GNUPG:] TRUST_UNDEFINED 0 pgp']), 'never'],
  ['good, trust marginal, minimum marginal', 0, status([GOOD, VALID, '[GNUPG:] TRUST_MARGINAL 0 pgp']), 'marginal'],
  ['bad', 1, status(['[GNUPG:] BADSIG 7503E90310120545 Ann <ann@example.com>']), 'undefined'],
  [
    'expired key, exit status 0',
    0,
    status(['[GNUPG:] EXPKEYSIG 7503E90310120545 Ann <ann@example.com>', VALID, '[GNUPG:] TRUST_ULTIMATE 0 pgp']),
    'undefined',
  ],
  [
    'expired signature',
    0,
    status(['[GNUPG:] EXPSIG 7503E90310120545 Ann <ann@example.com>', VALID, '[GNUPG:] TRUST_ULTIMATE 0 pgp']),
    'undefined',
  ],
  [
    'revoked key',
    0,
    status(['[GNUPG:] REVKEYSIG 7503E90310120545 Ann <ann@example.com>', VALID, '[GNUPG:] TRUST_ULTIMATE 0 pgp']),
    'undefined',
  ],
  [
    'no public key',
    2,
    status(['[GNUPG:] ERRSIG 7503E90310120545 22 8 00 1795860752 9 -', '[GNUPG:] NO_PUBKEY 7503E90310120545']),
    'undefined',
  ],
  ['nothing', 2, '', 'undefined'],
];

Status(
  'each status gpg may write counts exactly when git verify-commit, handed the same lines by its gpg.program, accepts the commit',
  () => {
    const repo = new DiskRepo({ 'README.md': 'Hello\n' });
    try {
      // A commit carrying an openpgp signature header; the gpg that git runs says what each case says.
      const tree = repo.git('rev-parse', 'HEAD^{tree}').trim();
      const sig = [
        '-----BEGIN PGP SIGNATURE-----',
        '',
        'iHUEABYKAB0WIQRxSDPliYMB6Xa61SF1A+kDEBIFRQ==',
        '-----END PGP SIGNATURE-----',
      ];
      const body = `tree ${tree}\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\ngpgsig ${sig.join('\n ')}\n\nsigned\n`;
      writeFileSync(join(repo.home, 'commit'), body);
      const commit = repo.git('hash-object', '-t', 'commit', '-w', join(repo.home, 'commit')).trim();
      const fake = join(repo.home, 'gpg-says');
      for (const [name, exit, out, min] of CASES) {
        writeFileSync(join(repo.home, 'status'), out);
        writeFileSync(fake, `#!/bin/sh\ncat >/dev/null\ncat '${join(repo.home, 'status')}'\nexit ${exit}\n`, {
          mode: 0o755,
        });
        const git = repo.gitResult(
          '-c',
          `gpg.program=${fake}`,
          '-c',
          `gpg.minTrustLevel=${min}`,
          'verify-commit',
          commit,
        );
        const verdict = gpgVerdict(exit, out, min);
        assert.is(verdict.ok, git.status === 0, `${name}: git says ${git.status}, ${git.stderr}`);
        if (verdict.ok) assert.is(verdict.principal, 'Ann <ann@example.com>', name);
      }
      // Not all agree by accident: git accepts some and refuses others.
      assert.equal(
        CASES.map(([, exit, out, min]) => gpgVerdict(exit, out, min).ok),
        [true, false, false, false, true, false, true, false, true, false, false, false, false, false, false],
      );
    } finally {
      repo.cleanup();
    }
  },
);

Status(
  'a good signature without a TRUST_ line has trust undefined, below a gpg.minTrustLevel of marginal (as git reads it since it stopped storing -1 in the enum)',
  () => {
    const out = status([GOOD, VALID]);
    assert.equal(gpgVerdict(0, out, 'marginal'), {
      ok: false,
      why: "signed by Ann <ann@example.com>, whose key's trust (undefined) is below gpg.minTrustLevel (marginal)",
    });
    assert.equal(gpgVerdict(0, out, 'undefined'), { ok: true, principal: 'Ann <ann@example.com>' });
  },
);

const Runs = suite('what shadow runs of gpg (memfs, a recording runner)');

/** A workspace on memfs with `config`, and `programs` when given. */
function gpgWorkspace(config: Record<string, string>, programs?: ProgramRunner): { ws: Workspace; fs: FileSystem } {
  const fs = createFsFromVolume(new Volume()) as unknown as FileSystem;
  let n = 0;
  const repo = {
    shadowDir: '/repo/.git/shadow',
    layout: { worktree: '/repo', gitdir: '/repo/.git' },
    config: { get: (k: string) => config[k] },
    committer: () => ({ name: 'Ann', email: 'ann@example.com' }),
  };
  return {
    ws: {
      ctx: { fs, ids: { token: () => `t${++n}` }, env: { GNUPGHOME: '/g' }, programs },
      repo,
    } as unknown as Workspace,
    fs,
  };
}

Runs(
  "git's invocations, by gpg.openpgp.program before gpg.program: -bsau with the committer's Name <email> when user.signingKey is unset; --verify of a temporary file, removed after",
  () => {
    const calls: Array<{ program: string; args: readonly string[]; input?: string; file?: string }> = [];
    const { ws, fs } = gpgWorkspace(
      { 'gpg.program': 'other-gpg', 'gpg.openpgp.program': 'my-gpg' },
      {
        run: (program, args, { input }) => {
          const file = args.includes('--verify')
            ? fs.readFileSync(args[args.length - 2]!, 'utf8').toString()
            : undefined;
          calls.push({ program, args, input: input?.toString('utf8'), file });
          return args.includes('--verify')
            ? { status: 0, stdout: Buffer.from(status([GOOD, VALID, '[GNUPG:] TRUST_UNDEFINED 0 pgp'])), stderr: '' }
            : {
                status: 0,
                stdout: Buffer.from('-----BEGIN PGP SIGNATURE-----\n'),
                stderr: '[GNUPG:] SIG_CREATED D 22 8 00 1 F\n',
              };
        },
      },
    );
    assert.is(signOpenpgp(ws, 'text\n'), '-----BEGIN PGP SIGNATURE-----\n');
    assert.equal(verifyOpenpgp(ws, 'text\n', 'SIG'), { ok: true, principal: ANN });
    assert.equal(
      calls.map((c) => [c.program, [...c.args], c.input]),
      [
        ['my-gpg', ['--status-fd=2', '-bsau', 'Ann <ann@example.com>'], 'text\n'],
        ['my-gpg', ['--keyid-format=long', '--status-fd=1', '--verify', calls[1]!.args[3], '-'], 'text\n'],
      ],
    );
    assert.is(calls[1]!.file, 'SIG');
    assert.equal(fs.readdirSync('/repo/.git/shadow/tmp'), []);
  },
);

Runs(
  'no program runner: SIGNING_FAILED, and a signature that cannot be checked; an unknown gpg.minTrustLevel counts nothing',
  () => {
    const { ws } = gpgWorkspace({});
    try {
      signOpenpgp(ws, 'text\n');
      assert.unreachable();
    } catch (e) {
      assert.is((e as { code?: string }).code, 'SIGNING_FAILED');
    }
    assert.equal(verifyOpenpgp(ws, 'text\n', 'SIG'), {
      ok: false,
      why: 'signed, but gpg cannot be run here to check it',
    });
    const good: ProgramRunner = {
      run: () => ({
        status: 0,
        stdout: Buffer.from(status([GOOD, VALID, '[GNUPG:] TRUST_ULTIMATE 0 pgp'])),
        stderr: '',
      }),
    };
    const { ws: strict } = gpgWorkspace({ 'gpg.mintrustlevel': 'sometimes' }, good);
    assert.equal(verifyOpenpgp(strict, 'text\n', 'SIG'), {
      ok: false,
      why: 'signed, but gpg.minTrustLevel is "sometimes", not one of undefined, never, marginal, fully, ultimate',
    });
    assert.equal(verifyOpenpgp(gpgWorkspace({ 'gpg.mintrustlevel': 'Fully' }, good).ws, 'text\n', 'SIG'), {
      ok: true,
      principal: ANN,
    });
  },
);

Counts.run();
Signing.run();
Status.run();
Runs.run();
