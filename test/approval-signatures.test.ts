import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  allowSigners,
  approveAll,
  assertPending,
  assertSigningFails,
  ledgerOf,
  ok,
  rewriteLedger,
  riskyDraft,
  signWith,
  sshKey,
} from './helpers/approval-ledgers.js';
import { decisionText } from '../src/review/approval-key.js';
import { bareRemote } from './helpers/remotes.js';
import { waitFor } from './helpers/wait-for.js';
import { setUp, tearDown, type Ctx } from './helpers/http-server.js';
import { pageSession } from './helpers/page-client.js';
import { withRemote } from './helpers/remote-repos.js';

/**
 * Approvals that travel: `shadow approve --sign` signs the decision with
 * the person's ssh key (git's gpg.format ssh and user.signingKey), and
 * another clone counts it only when `ssh-keygen -Y verify` accepts it
 * against that clone's gpg.ssh.allowedSignersFile, now. The real ssh-keygen
 * signs and verifies.
 */

const Signed = suite('signed approvals');

Signed(
  'an approval signed with a key the allowed signers list counts in another clone: review says by whom, apply writes',
  () =>
    withRemote(bareRemote, async ({ a, clone }) => {
      const b = clone();
      const alice = sshKey(a, 'id_alice');
      // Paths under ~, as git expands them for user.signingKey and gpg.ssh.allowedSignersFile.
      signWith(a, '~/id_alice');
      await riskyDraft(a, 'ci');
      approveAll(a, 'ci', ['--sign']);
      ok(a.shadow(['push', 'origin', 'ci']));
      ok(b.shadow(['fetch', 'origin']));
      allowSigners(b, [`alice@example.com ${alice.pub}`]);
      b.git('config', 'gpg.ssh.allowedSignersFile', '~/allowed_signers');
      const review = JSON.parse(ok(b.shadow(['review', 'origin/ci', '--json'])));
      assert.equal(
        review.approvals.map((x: any) => [x.status, x.verified, x.verified_by, x.signed]),
        [
          ['approved', 'signed', 'alice@example.com', true],
          ['approved', 'signed', 'alice@example.com', true],
        ],
      );
      assert.match(ok(b.shadow(['review', 'origin/ci', '--stat'])), '[signed, verified by alice@example.com]');
      // On A they were made here.
      assert.equal(
        JSON.parse(ok(a.shadow(['review', 'ci', '--json']))).approvals.map((x: any) => [x.verified, x.signed]),
        [
          ['here', true],
          ['here', true],
        ],
      );
      const applied = b.shadow(['apply', '--draft', 'origin/ci', '--json']);
      assert.is(applied.status, 0, applied.stdout + applied.stderr);
      assert.is(b.read('.github/workflows/ci.yml'), 'on: push\n');
    }),
);

Signed(
  'a signed approval is pending where its key is not allowed (another key listed, the key expired, no allowed signers file), as git verify-commit refuses a commit signed with it',
  () =>
    withRemote(bareRemote, async ({ a, clone }) => {
      const b = clone();
      const alice = sshKey(a, 'id_alice');
      const other = sshKey(b, 'id_other');
      signWith(a, alice.key);
      await riskyDraft(a, 'ci');
      const ids = approveAll(a, 'ci', ['--sign']);
      ok(a.shadow(['push', 'origin', 'ci']));
      ok(b.shadow(['fetch', 'origin']));
      // The oracle: a commit signed with the same key, which git verifies against the same allowed signers.
      b.git(
        '-c',
        'gpg.format=ssh',
        '-c',
        `user.signingKey=${alice.key}`,
        'commit',
        '-q',
        '-S',
        '--allow-empty',
        '-m',
        'signed by alice',
      );
      const variants: Array<[string, () => void, string]> = [
        ['another key', () => allowSigners(b, [`alice@example.com ${other.pub}`]), 'signed by a key that'],
        [
          'expired',
          () => allowSigners(b, [`alice@example.com valid-before="20200101" ${alice.pub}`]),
          'signed by a key that',
        ],
        [
          'none',
          () => b.git('config', '--unset', 'gpg.ssh.allowedSignersFile'),
          'no gpg.ssh.allowedSignersFile is configured here',
        ],
      ];
      for (const [name, setUp, why] of variants) {
        setUp();
        const review = JSON.parse(ok(b.shadow(['review', 'origin/ci', '--json'])));
        assert.equal(
          review.approvals.map((x: any) => x.status),
          ['pending', 'pending'],
          name,
        );
        for (const x of review.approvals) assert.match(x.unverified[0].why, why, name);
        assert.is.not(b.gitResult('verify-commit', 'HEAD').status, 0, name);
        assertPending(b, ['--draft', 'origin/ci'], ids);
      }
      // The same key, allowed now: it counts, and git verifies the commit.
      allowSigners(b, [`alice@example.com ${alice.pub}`]);
      assert.is(b.gitResult('verify-commit', 'HEAD').status, 0);
      ok(b.shadow(['apply', '--draft', 'origin/ci']));
      assert.is(b.read('config/token.ts').includes('ghp_'), true);
    }),
);

Signed('a valid signature copied onto an approval of another fingerprint does not count', () =>
  withRemote(bareRemote, async ({ a, clone }) => {
    const b = clone();
    const alice = sshKey(a, 'id_alice');
    signWith(a, alice.key);
    await riskyDraft(a, 'one');
    await riskyDraft(a, 'two', 'on: [push, pull_request]\n');
    approveAll(a, 'one', ['--sign']);
    const asked: any[] = JSON.parse(ok(a.shadow(['review', 'two', '--json']))).approvals;
    const target = asked.find((x) => x.kind === 'protected_path');
    // Two's secrets are approved (signed), so that it may be pushed; its protected path gets one's decision, re-targeted.
    for (const x of [...asked, ...JSON.parse(ok(a.shadow(['review', 'two', '--json']))).branch_approvals]) {
      if (x.id !== target.id) ok(a.shadow(['approve', x.id, '--draft', 'two', '--sign']));
    }
    const signedOne = a
      .read(ledgerOf('one'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((e) => e.type === 'approval/decision' && e.data.kind === 'protected_path');
    rewriteLedger(a, 'two', (e) => {
      if (e.seq !== 1) return [e];
      const copy = {
        ...signedOne,
        draft: 'two',
        data: {
          ...signedOne.data,
          id: target.id,
          fingerprint: target.fingerprint,
          signature: { ...signedOne.data.signature, draft: 'two' },
        },
      };
      return [e, copy];
    });
    ok(a.shadow(['push', 'origin', 'one', 'two']));
    ok(b.shadow(['fetch', 'origin']));
    allowSigners(b, [`alice@example.com ${alice.pub}`]);
    assert.equal(
      JSON.parse(ok(b.shadow(['review', 'origin/one', '--json']))).approvals.map((x: any) => x.status),
      ['approved', 'approved'],
    );
    const two = JSON.parse(ok(b.shadow(['review', 'origin/two', '--json']))).approvals;
    const copied = two.find((x: any) => x.id === target.id);
    assert.equal([copied.status, copied.unverified.length], ['pending', 1]);
    assert.match(copied.unverified[0].why, 'does not verify over this decision');
    assertPending(b, ['--draft', 'origin/two'], [target.id]);
  }),
);

const Signing = suite('shadow approve --sign');

Signing(
  'an approval that cannot be signed is refused with SIGNING_FAILED and nothing recorded: x509, no key, a key that is not there',
  () =>
    withRemote(bareRemote, async ({ a }) => {
      await riskyDraft(a, 'ci');
      const id = JSON.parse(ok(a.shadow(['review', 'ci', '--json']))).approvals[0].id;
      const variants: Array<[string, () => void, string]> = [
        ['x509', () => a.git('config', 'gpg.format', 'x509'), 'gpg.format is x509'],
        ['no key', () => a.git('config', 'gpg.format', 'ssh'), 'no user.signingKey'],
        [
          'missing key',
          () => a.git('config', 'user.signingKey', `${a.home}/absent_key`),
          'ssh-keygen could not sign the approval',
        ],
      ];
      assertSigningFails(a, 'ci', id, variants);
      // shadow.signApprovals asks for a signature without the flag; --no-sign goes without.
      a.git('config', 'shadow.signApprovals', 'true');
      assert.is(a.shadow(['approve', id, '--draft', 'ci', '--json']).json().error.code, 'SIGNING_FAILED');
      signWith(a, sshKey(a, 'id_a').key);
      const signed = JSON.parse(ok(a.shadow(['approve', id, '--draft', 'ci', '--json'])));
      assert.equal([signed.status, signed.verified, signed.signed], ['approved', 'here', true]);
      const second = JSON.parse(ok(a.shadow(['review', 'ci', '--json']))).approvals.find((x: any) => x.id !== id);
      const unsigned = JSON.parse(ok(a.shadow(['approve', second.id, '--draft', 'ci', '--no-sign', '--json'])));
      assert.equal([unsigned.status, unsigned.verified, unsigned.signed], ['approved', 'here', undefined]);
      const decisions = a
        .read(ledgerOf('ci'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((e) => e.type === 'approval/decision');
      assert.equal(
        decisions.map((e) => [e.data.id, e.data.signature?.format, e.data.signature?.draft]),
        [
          [id, 'ssh', 'ci'],
          [second.id, undefined, undefined],
        ],
      );
      assert.match(decisions[0].data.signature.signature, /^-----BEGIN SSH SIGNATURE-----/);
    }),
);

Signing(
  "a key:: public key signs through ssh-agent, as git takes it; the signature is ssh-keygen's over the documented text, and no temporary file stays",
  () =>
    withRemote(bareRemote, async ({ a }) => {
      const alice = sshKey(a, 'id_alice');
      const sock = join(a.home, 'agent.sock');
      const agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
      try {
        await waitFor('the ssh agent', () => existsSync(sock));
        const added = spawnSync('ssh-add', [alice.key], { env: { ...a.env, SSH_AUTH_SOCK: sock }, encoding: 'utf8' });
        assert.is(added.status, 0, added.stderr);
        a.git('config', 'gpg.format', 'ssh');
        a.git('config', 'user.signingKey', `key::${alice.pub}`);
        await riskyDraft(a, 'ci');
        const id = JSON.parse(ok(a.shadow(['review', 'ci', '--json']))).approvals[0].id;
        // Without the agent there is no private key to sign with.
        const refused = a.shadow(['approve', id, '--draft', 'ci', '--sign', '--json'], {
          env: { SSH_AUTH_SOCK: join(a.home, 'none.sock') },
        });
        assert.is(refused.json().error.code, 'SIGNING_FAILED');
        ok(a.shadow(['approve', id, '--draft', 'ci', '--sign', '--actor', 'ann'], { env: { SSH_AUTH_SOCK: sock } }));
        const e = a
          .read(ledgerOf('ci'))
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
          .find((x) => x.type === 'approval/decision');
        const text = decisionText({
          draft: 'ci',
          id,
          kind: e.data.kind,
          fingerprint: e.data.fingerprint,
          decision: 'approve',
          actor: 'ann',
          identity: 'Test User <test@example.com>',
          ts: e.ts,
        });
        writeFileSync(join(a.home, 'allowed'), `alice@example.com ${alice.pub}\n`);
        writeFileSync(join(a.home, 'decision.sig'), e.data.signature.signature);
        const args = [
          '-Y',
          'verify',
          '-f',
          join(a.home, 'allowed'),
          '-I',
          'alice@example.com',
          '-n',
          'shadow-approval',
          '-s',
          join(a.home, 'decision.sig'),
        ];
        const verified = spawnSync('ssh-keygen', args, { input: text, encoding: 'utf8' });
        assert.is(verified.status, 0, verified.stderr);
        assert.equal(readdirSync(a.path('.git/shadow/tmp')), []);
      } finally {
        agent.kill();
      }
    }),
);

const Page = suite<Ctx>('the review page signs as shadow.signApprovals says');
Page.before.each((c) => setUp(c, { 'shadow.signApprovals': 'true', 'gpg.format': 'ssh' }));
Page.after.each((c) => tearDown(c));

Page(
  'with shadow.signApprovals and no signing key, a decision on the page is SIGNING_FAILED (422) and nothing is recorded',
  async (c) => {
    const page = await pageSession(c);
    const r = await c.api.call('POST', '/api/batch', {
      json: {
        intent: 'ci',
        operations: [{ operation: 'write', path: '.github/workflows/ci.yml', content: 'on: push\n' }],
      },
    });
    assert.is(r.status, 200, JSON.stringify(r.body));
    const [approval] = (await c.sh.review()).approvals;
    const refused = await page.post(`/ui/api/drafts/default/approvals/${approval!.id}`, { decision: 'approve' });
    assert.is(refused.status, 422, JSON.stringify(refused.body));
    assert.is(refused.body.error.code, 'SIGNING_FAILED');
    assert.equal(
      (await c.sh.events()).filter((e) => e.type === 'approval/decision'),
      [],
    );
    assert.is(c.repo.exists('.git/shadow/approval.key'), false);
  },
);

Signed.run();
Signing.run();
Page.run();
