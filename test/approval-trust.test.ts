import { createHmac } from 'node:crypto';
import { hostname } from 'node:os';
import { statSync } from 'node:fs';
import { Volume, createFsFromVolume } from 'memfs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LedgerEvent } from '../src/state/ledger.js';
import { approvalStates } from '../src/review/approvals.js';
import { decisionMac, ensureApprovalKey, readApprovalKey, type DecisionFields } from '../src/review/approval-key.js';
import type { FileSystem } from '../src/context.js';
import type { Workspace } from '../src/drafts/workspace.js';
import { withShadow } from './helpers/disk-repo.js';
import { approveAll, assertPending, ok, rewriteLedger, riskyDraft } from './helpers/approval-ledgers.js';
import { bareRemote } from './helpers/remotes.js';
import { allObjectBytes, withRemote } from './helpers/remote-repos.js';

/**
 * An approval counts when it was made in this repository (its MAC verifies
 * under the repository's own key) and nowhere else: one that came with a
 * fetched or pulled draft, or was written into the ledger by hand and
 * re-chained, is shown as what it claims to be and leaves apply pending.
 * The person's own git name and host on it change nothing. A deny counts
 * from anywhere.
 */

const Here = suite('approvals count where they were made');

Here(
  "a fetched draft whose ledger was re-chained with approvals under the person's own name and host: pending, shown as not verified, apply writes nothing",
  () =>
    withRemote(bareRemote, async ({ a, clone }) => {
      const b = clone();
      await riskyDraft(a, 'ci');
      const ids = approveAll(a, 'ci');
      // A's git identity and host are B's own (the same name and email, the same machine). A also
      // gives its protected-path approval a MAC under a key of its own, and re-chains the ledger.
      rewriteLedger(a, 'ci', (e) => {
        if (e.type === 'approval/decision' && e.data.kind === 'protected_path') {
          e.data.identity = 'Test User <test@example.com>';
          e.data.host = hostname();
          e.data.mac = createHmac('sha256', Buffer.alloc(32, 7)).update(JSON.stringify(e.data)).digest('hex');
        }
        return [e];
      });
      ok(a.shadow(['push', 'origin', 'ci']));
      ok(b.shadow(['fetch', 'origin']));
      // The chain holds: verifying it says nothing of who decided.
      assert.is(JSON.parse(ok(b.shadow(['events', '--verify', '--draft', 'origin/ci', '--json']))).ok, true);
      const review = JSON.parse(ok(b.shadow(['review', 'origin/ci', '--json'])));
      assert.equal(
        review.approvals.map((x: any) => x.status),
        ['pending', 'pending'],
      );
      for (const x of review.approvals) {
        assert.equal(
          x.unverified.map((u: any) => [u.decided_identity, u.decided_host, u.why]),
          [['Test User <test@example.com>', hostname(), 'not made in this repository, and not signed']],
        );
      }
      assert.match(
        ok(b.shadow(['review', 'origin/ci', '--stat'])),
        `approved by Test User (Test User <test@example.com> on ${hostname()}) at`,
      );
      assert.match(
        ok(b.shadow(['review', 'origin/ci', '--stat'])),
        ': not verified here, not made in this repository, and not signed',
      );
      // apply --draft origin/ci continues it here (its ledger copied) and stops at the approvals.
      assertPending(b, ['--draft', 'origin/ci'], ids);
      assert.equal(b.git('status', '--porcelain'), '');
      // The person decides here: then it applies.
      approveAll(b, 'ci');
      ok(b.shadow(['apply', '--draft', 'ci']));
      assert.is(b.read('.github/workflows/ci.yml'), 'on: push\n');
    }),
);

Here(
  "approvals a pull joins from another clone's ledger are pending here; a deny joined the same way still stops apply",
  () =>
    withRemote(bareRemote, async ({ a, clone }) => {
      const b = clone();
      await riskyDraft(a, 'ci');
      await withShadow(a, async (sh) => {
        await sh.batch(
          { operations: [{ operation: 'write', path: '.github/workflows/deploy.yml', content: 'on: tag\n' }] },
          { draft: 'deploy' },
        );
      });
      const asked: any[] = JSON.parse(ok(a.shadow(['review', 'ci', '--json']))).approvals;
      const ciIds = asked.map((x) => x.id);
      const protectedId = asked.find((x) => x.kind === 'protected_path').id;
      const secretId = asked.find((x) => x.kind === 'secrets_override').id;
      // A's secret approvals let the draft leave A; B continues both drafts before A decides the rest.
      ok(a.shadow(['approve', secretId, '--draft', 'ci']));
      for (const x of JSON.parse(ok(a.shadow(['review', 'ci', '--json']))).branch_approvals)
        ok(a.shadow(['approve', x.id, '--draft', 'ci']));
      ok(a.shadow(['push', 'origin', 'ci', 'deploy']));
      ok(b.shadow(['fetch', 'origin']));
      ok(b.shadow(['draft', 'new', 'ci', '--from', 'origin/ci']));
      ok(b.shadow(['draft', 'new', 'deploy', '--from', 'origin/deploy']));
      ok(a.shadow(['approve', protectedId, '--draft', 'ci']));
      const deployId = JSON.parse(ok(a.shadow(['review', 'deploy', '--json']))).approvals[0].id;
      ok(a.shadow(['deny', deployId, '--draft', 'deploy', '--reason', 'no deploys this week']));
      ok(a.shadow(['push', 'origin', 'ci', 'deploy']));
      ok(b.shadow(['pull', 'origin']));
      const states = JSON.parse(ok(b.shadow(['review', 'ci', '--json']))).approvals;
      const byId = (id: string): any => states.find((x: any) => x.id === id);
      assert.equal(
        [protectedId, secretId].map((id) => [
          byId(id).status,
          byId(id).unverified.map((u: any) => [u.decided_via, u.why]),
        ]),
        [
          ['pending', [['origin', 'made in another repository (joined from origin) and not signed']]],
          ['pending', [[undefined, 'not made in this repository, and not signed']]],
        ],
      );
      assertPending(b, ['--draft', 'ci'], ciIds);
      const denied = b.shadow(['apply', '--draft', 'deploy', '--json']);
      assert.is(denied.status, 1, denied.stdout + denied.stderr);
      assert.is(denied.json().error.code, 'DENIED');
      assert.is(b.exists('.github/workflows/deploy.yml'), false);
      assert.match(ok(b.shadow(['review', 'deploy', '--stat'])), 'via origin) at');
      assert.match(ok(b.shadow(['review', 'deploy', '--stat'])), ': no deploys this week [not verified here]');
    }),
);

Here(
  "a decision written into this repository's own ledger by hand does not count: a MAC copied from another decision, or a decision whose time was changed",
  () =>
    withRemote(bareRemote, async ({ a }) => {
      await riskyDraft(a, 'ci');
      const approvals = JSON.parse(ok(a.shadow(['review', 'ci', '--json']))).approvals;
      const [first, second] = approvals;
      ok(a.shadow(['approve', first.id, '--draft', 'ci']));
      assert.equal(
        JSON.parse(ok(a.shadow(['review', 'ci', '--json']))).approvals.map((x: any) => [x.status, x.verified]),
        [
          ['approved', 'here'],
          ['pending', undefined],
        ],
      );
      // A copy of the real decision, made to approve the other approval, MAC and all.
      rewriteLedger(a, 'ci', (e) =>
        e.type === 'approval/decision'
          ? [e, { ...e, data: { ...e.data, id: second.id, kind: second.kind, fingerprint: second.fingerprint } }]
          : [e],
      );
      assert.is(JSON.parse(ok(a.shadow(['events', '--verify', '--draft', 'ci', '--json']))).ok, true);
      assert.equal(
        JSON.parse(ok(a.shadow(['review', 'ci', '--json']))).approvals.map((x: any) => x.status),
        ['approved', 'pending'],
      );
      assertPending(a, ['--draft', 'ci'], [second.id]);
      // The real decision, a second later: its MAC no longer covers it.
      rewriteLedger(a, 'ci', (e) =>
        e.type === 'approval/decision' && e.data.id === first.id
          ? [{ ...e, ts: new Date(Date.parse(e.ts) + 1000).toISOString() }]
          : [e],
      );
      assert.equal(
        JSON.parse(ok(a.shadow(['review', 'ci', '--json']))).approvals.map((x: any) => x.status),
        ['pending', 'pending'],
      );
      assertPending(a, ['--draft', 'ci'], [first.id, second.id]);
    }),
);

Here(
  'the approval key is made by the first decision, readable by its owner only, and never leaves the repository',
  () =>
    withRemote(bareRemote, async ({ remote, a }) => {
      await riskyDraft(a, 'ci');
      assert.is(a.exists('.git/shadow/approval.key'), false);
      approveAll(a, 'ci');
      const key = a.read('.git/shadow/approval.key').trim();
      assert.match(key, /^[0-9a-f]{64}$/);
      assert.is(statSync(a.path('.git/shadow/approval.key')).mode & 0o777, 0o600);
      ok(a.shadow(['push', 'origin', 'ci']));
      assert.is(allObjectBytes(remote.dir).includes(key), false);
      assert.is(allObjectBytes(remote.dir).includes(Buffer.from(key, 'hex')), false);
    }),
);

const Pure = suite('approval states (pure)');

function decision(
  fields: Partial<DecisionFields> & { id: string; fingerprint: string; decision: string },
  extra: Partial<LedgerEvent> = {},
): LedgerEvent {
  return {
    seq: 1,
    ts: '2026-11-28T09:00:00.000Z',
    type: 'approval/decision',
    draft: 'd',
    actor: 'ann',
    data: { kind: 'protected_path', ...fields },
    prev: null,
    ...extra,
  };
}

Pure(
  'a decision the trust vouches for counts only over its own fingerprint; one it does not is listed, pending; a deny counts either way',
  () => {
    const r = {
      id: 'ap-1',
      kind: 'protected_path',
      fingerprint: 'patchset:aa',
      reason: 'protected path',
      paths: ['ci.yml'],
    } as any;
    const trusted = () => ({ counts: true as const, verified: 'here' as const });
    const untrusted = () => ({ counts: false as const, why: 'not made in this repository, and not signed' });
    assert.equal(
      approvalStates([decision({ id: 'ap-1', fingerprint: 'patchset:aa', decision: 'approve' })], [r], trusted).map(
        (s) => [s.status, s.verified],
      ),
      [['approved', 'here']],
    );
    const other = approvalStates(
      [decision({ id: 'ap-1', fingerprint: 'patchset:bb', decision: 'approve' })],
      [r],
      trusted,
    )[0]!;
    assert.equal(
      [other.status, other.unverified?.[0]?.why],
      ['pending', 'it names another fingerprint or kind than this approval'],
    );
    const theirs = approvalStates(
      [decision({ id: 'ap-1', fingerprint: 'patchset:aa', decision: 'approve' })],
      [r],
      untrusted,
    )[0]!;
    assert.equal(
      [theirs.status, theirs.decided_by, theirs.unverified?.map((u) => u.decided_by)],
      ['pending', undefined, ['ann']],
    );
    const deny = approvalStates(
      [decision({ id: 'ap-1', fingerprint: 'patchset:aa', decision: 'deny' })],
      [r],
      untrusted,
    )[0]!;
    assert.equal([deny.status, deny.verified], ['denied', undefined]);
  },
);

Pure('the MAC covers every field of the decision', () => {
  const key = Buffer.alloc(32, 1);
  const base: DecisionFields = {
    id: 'ap-1',
    kind: 'protected_path',
    fingerprint: 'patchset:aa',
    decision: 'approve',
    actor: 'ann',
    identity: 'Ann <ann@example.com>',
    ts: '2026-11-28T09:00:00.000Z',
  };
  const mac = decisionMac(key, base);
  for (const field of Object.keys(base) as Array<keyof DecisionFields>) {
    assert.is.not(decisionMac(key, { ...base, [field]: `${base[field]}x` }), mac, field);
  }
  assert.is.not(decisionMac(Buffer.alloc(32, 2), base), mac);
});

const Key = suite('the approval key (memfs)');

/** What the key's functions use of a workspace: its fs, ids and shadow directory. */
function keyWorkspace(fs: FileSystem): Workspace {
  let n = 0;
  return {
    ctx: { fs, ids: { token: () => `t${++n}` } },
    repo: { shadowDir: '/repo/.git/shadow' },
  } as unknown as Workspace;
}

const KEY_FILE = '/repo/.git/shadow/approval.key';

Key('made once, mode 0600, 32 bytes; read back the same; no temporary file left', () => {
  const fs = createFsFromVolume(new Volume()) as unknown as FileSystem;
  const ws = keyWorkspace(fs);
  assert.is(readApprovalKey(ws), undefined);
  const key = ensureApprovalKey(ws);
  assert.is(key.length, 32);
  assert.is(fs.statSync(KEY_FILE).mode & 0o777, 0o600);
  assert.equal(ensureApprovalKey(ws), key);
  assert.equal(readApprovalKey(ws), key);
  assert.equal(fs.readdirSync('/repo/.git/shadow'), ['approval.key']);
});

Key('a key another process made between the read and the link is the one both use', () => {
  const vol = createFsFromVolume(new Volume()) as unknown as FileSystem;
  const theirs = 'ab'.repeat(32);
  const fs = new Proxy(vol, {
    get(target, prop) {
      if (prop === 'linkSync') {
        return (from: string, to: string) => {
          target.writeFileSync(to, `${theirs}\n`);
          return target.linkSync(from, to);
        };
      }
      return (target as any)[prop];
    },
  });
  const key = ensureApprovalKey(keyWorkspace(fs));
  assert.is(key.toString('hex'), theirs);
  assert.equal(vol.readdirSync('/repo/.git/shadow'), ['approval.key']);
});

Key('a key file that holds no key is CORRUPT_STATE for a new decision, and verifies nothing', () => {
  const fs = createFsFromVolume(new Volume()) as unknown as FileSystem;
  fs.mkdirSync('/repo/.git/shadow', { recursive: true });
  fs.writeFileSync(KEY_FILE, 'not a key\n');
  const ws = keyWorkspace(fs);
  assert.is(readApprovalKey(ws), undefined);
  try {
    ensureApprovalKey(ws);
    assert.unreachable();
  } catch (e: any) {
    assert.is(e.code, 'CORRUPT_STATE');
    assert.match(e.hint, `remove ${KEY_FILE}`);
  }
  assert.is(fs.readFileSync(KEY_FILE, 'utf8'), 'not a key\n');
});

Here.run();
Pure.run();
Key.run();
