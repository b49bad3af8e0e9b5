import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { missingEvents } from '../src/drafts/ledger-join.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { bareRemote, REMOTE_KINDS, remoteGit, type TestRemote } from './helpers/remotes.js';
import { cloneRepo, withRemote } from './helpers/remote-repos.js';

/**
 * `shadow pull`: a draft approved or denied on one machine is approved or
 * denied on the other after a push and a pull; the remote's tip is
 * fast-forwarded into the local draft; two ledgers that both grew are
 * joined (one `ledger/join`, the other side's events brought once), and
 * both verify; diverged drafts and bad input are refused with nothing
 * changed.
 */

const LEDGER = '.git/shadow/drafts';

/** A review with the proposal's directory (`workspace_root`, which never leaves its machine) as null. */
function unrooted(review: string, repo: DiskRepo): string {
  return review.replaceAll(`"workspace_root": ${JSON.stringify(repo.dir)}`, '"workspace_root": null');
}

function ok(r: { status: number; stdout: string; stderr: string }): string {
  assert.is(r.status, 0, r.stderr + r.stdout);
  return r.stdout;
}

function events(repo: DiskRepo, draft: string): any[] {
  return ok(repo.shadow(['events', '--draft', draft, '--json']))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

function verify(repo: DiskRepo, draft: string): any {
  return JSON.parse(ok(repo.shadow(['events', '--verify', '--draft', draft, '--json'])));
}

/** A's refactor (a protected path: apply needs an approval) and deploy, pushed; B fetched both and continued them. */
async function shared(a: DiskRepo, b: DiskRepo): Promise<void> {
  await withShadow(a, async (sh) => {
    await sh.batch(
      {
        intent: 'app',
        operations: [{ operation: 'edit', path: 'src/app.ts', old_content: 'x = 1', content: 'x = 2' }],
      },
      { draft: 'refactor' },
    );
    await sh.batch(
      { intent: 'ci', operations: [{ operation: 'write', path: '.github/workflows/ci.yml', content: 'on: push\n' }] },
      { draft: 'refactor' },
    );
    await sh.propose({ draft: 'refactor', message: 'refactor the app' });
    await sh.batch(
      {
        intent: 'deploy',
        operations: [{ operation: 'write', path: '.github/workflows/deploy.yml', content: 'on: tag\n' }],
      },
      { draft: 'deploy' },
    );
  });
  ok(a.shadow(['push', 'origin', 'refactor', 'deploy']));
  ok(b.shadow(['fetch', 'origin']));
}

/** B, another clone, with a git identity of its own (its approvals say whose they are). */
function clone(remote: TestRemote): DiskRepo {
  const b = cloneRepo(remote);
  b.git('config', 'user.name', 'Bea Builder');
  b.git('config', 'user.email', 'bea@example.com');
  return b;
}

/** B signs with an ssh key of its own, which A's allowed signers list for bea@example.com. */
function trustBea(a: DiskRepo, b: DiskRepo): void {
  const key = join(b.home, 'id_bea');
  const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'bea', '-f', key], { encoding: 'utf8' });
  assert.is(made.status, 0, made.stderr);
  b.git('config', 'gpg.format', 'ssh');
  b.git('config', 'user.signingKey', key);
  writeFileSync(join(a.home, 'allowed_signers'), `bea@example.com ${readFileSync(`${key}.pub`, 'utf8')}`);
  a.git('config', 'gpg.ssh.allowedSignersFile', join(a.home, 'allowed_signers'));
}

const RoundTrip = suite('pull: the round trip, over a smart HTTP remote');

// A pull is a fetch (each kind of remote's transport is tested by remote-push-fetch and
// remote-review) and a ledger join, which no transport changes: the round trip runs over
// git http-backend, the remote most like a real one, and the suite keeps its four minutes.
for (const { kind, start } of REMOTE_KINDS.filter((r) => r.kind === 'http')) {
  RoundTrip(
    `${kind}: B approves (signed) and denies what A pushed; after A pulls, A applies the approved draft, the denied one stays denied, and both ledgers verify`,
    () =>
      withRemote(
        start,
        async ({ remote, a, clone }) => {
          const b = clone();
          trustBea(a, b);
          await shared(a, b);
          // The proposal's directory is this machine's: it travels as null.
          const reviewA = unrooted(ok(a.shadow(['review', 'refactor', '--json'])), a);
          assert.is(
            ok(b.shadow(['review', 'origin/refactor', '--json'])),
            reviewA.replace('"draft": "refactor"', '"draft": "origin/refactor"'),
          );
          ok(b.shadow(['draft', 'new', 'refactor', '--from', 'origin/refactor']));
          ok(b.shadow(['draft', 'new', 'deploy', '--from', 'origin/deploy']));
          assert.is(ok(b.shadow(['review', 'refactor', '--json'])), reviewA);
          const id = JSON.parse(reviewA).approvals[0].id;
          assert.is(JSON.parse(reviewA).approvals[0].kind, 'protected_path');
          const denyId = JSON.parse(ok(a.shadow(['review', 'deploy', '--json']))).approvals[0].id;
          // Who and where travel with the decision.
          const approved = JSON.parse(
            ok(
              b.shadow([
                'approve',
                id,
                '--draft',
                'refactor',
                '--reason',
                'CI reviewed',
                '--actor',
                'bea',
                '--sign',
                '--json',
              ]),
            ),
          );
          assert.equal(
            [approved.decided_by, approved.decided_identity, approved.decided_host],
            ['bea', 'Bea Builder <bea@example.com>', hostname()],
          );
          ok(b.shadow(['deny', denyId, '--draft', 'deploy', '--reason', 'no deploys this week', '--actor', 'bea']));
          ok(b.shadow(['push', 'origin', 'refactor', 'deploy']));

          // Before the pull, A still waits for the approval (and its apply asks for it: A's ledger grows too).
          const pending = a.shadow(['apply', '--draft', 'refactor', '--json']);
          assert.is(pending.status, 3, pending.stdout + pending.stderr);
          assert.equal(
            pending.json().pendingApprovals.map((p: any) => p.id),
            [id],
          );
          const tipA = a.ref('refs/shadow/drafts/refactor');

          const pulled = JSON.parse(ok(a.shadow(['pull', 'origin', '--json'])));
          assert.equal(
            pulled.drafts.map((d: any) => [d.draft, d.status, d.joined]),
            [
              ['deploy', 'up-to-date', 2],
              ['refactor', 'up-to-date', 2],
            ],
          );
          assert.is(a.ref('refs/shadow/drafts/refactor'), tipA);
          const joined = events(a, 'refactor');
          assert.equal(joined.filter((e) => e.type === 'ledger/join').length, 1);
          const join = joined.find((e) => e.type === 'ledger/join');
          assert.is(join.data.snapshot, b.ref('refs/shadow/meta/refactor'));
          assert.equal(
            joined.slice(-2).map((e) => [e.type, e.actor, e.origin.remote]),
            [
              ['draft/import', 'Bea Builder', 'origin'],
              ['approval/decision', 'bea', 'origin'],
            ],
          );
          // The approval B signed lets A apply, since A trusts B's key; the deny made on B stops A.
          const review = ok(a.shadow(['review', 'refactor']));
          assert.match(review, ` by bea (Bea Builder <bea@example.com> on ${hostname()} via origin)`);
          assert.match(review, '[signed, verified by bea@example.com]');
          ok(a.shadow(['apply', '--draft', 'refactor']));
          assert.is(a.read('.github/workflows/ci.yml'), 'on: push\n');
          const denied = a.shadow(['apply', '--draft', 'deploy', '--json']);
          assert.is(denied.status, 1);
          assert.is(denied.json().error.code, 'DENIED');
          assert.match(denied.json().error.message, 'Bea Builder <bea@example.com>');
          assert.not.ok(a.exists('.github/workflows/deploy.yml'));
          for (const [repo, draft] of [
            [a, 'refactor'],
            [a, 'deploy'],
            [b, 'refactor'],
          ] as const) {
            const v = verify(repo, draft);
            assert.is(v.ok, true, JSON.stringify(v));
          }
          assert.equal([verify(a, 'refactor').joins, verify(a, 'refactor').joined], [1, 2]);

          // Both ledgers grew (A's apply, B's approval): A pushes a fast-forward of B's snapshot, B pulls A's events once.
          const back = JSON.parse(ok(a.shadow(['push', 'origin', 'refactor', '--json'])));
          assert.is(back.drafts[0].refs.find((r: any) => r.ref === 'refs/shadow/meta/refactor').status, 'updated');
          assert.is(
            a.gitResult('merge-base', '--is-ancestor', join.data.snapshot, 'refs/shadow/meta/refactor').status,
            0,
          );
          const ownB = events(b, 'refactor');
          const prefix = ownB.findIndex((e) => e.type === 'draft/import');
          // What B lacks: A's own events after the prefix both share (A's copies of B's come back to nobody).
          const fromA = events(a, 'refactor')
            .slice(prefix)
            .filter((e) => e.origin === undefined);
          const pulledB = JSON.parse(ok(b.shadow(['pull', '--json'])));
          const onB = events(b, 'refactor');
          assert.is(pulledB.drafts.find((d: any) => d.draft === 'refactor').joined, fromA.length);
          assert.equal(
            onB.slice(ownB.length).map((e) => e.type),
            ['ledger/join', ...fromA.map((e) => e.type)],
          );
          assert.ok(fromA.some((e) => e.type === 'ledger/join') && fromA.some((e) => e.type === 'approval/request'));
          assert.equal(onB.filter((e) => e.type === 'approval/decision' && e.data.id === id).length, 1);
          assert.is(verify(b, 'refactor').ok, true);
          assert.is(verify(b, 'refactor').joins, 1);
          // Again: nothing new, nothing written.
          const bytes = b.read(`${LEDGER}/refactor/events.jsonl`);
          assert.equal(
            JSON.parse(ok(b.shadow(['pull', '--json']))).drafts.map((d: any) => d.joined),
            [0, 0],
          );
          assert.is(b.read(`${LEDGER}/refactor/events.jsonl`), bytes);
          for (const repo of [a, b]) assert.is(repo.gitResult('fsck', '--strict', '--no-progress').status, 0);
          remoteGit(remote, 'fsck', '--strict', '--no-progress');
        },
        { clone },
      ),
  );
}

const Moves = suite('pull: fast-forward, diverged, bad input');

Moves(
  'a draft the remote took further is fast-forwarded here, with a reflog line, and its metadata rebuilt from the new tip',
  () =>
    withRemote(
      bareRemote,
      async ({ a, clone }) => {
        const b = clone();
        await shared(a, b);
        ok(b.shadow(['draft', 'new', 'refactor', '--from', 'origin/refactor']));
        await withShadow(b, async (sh) => {
          await sh.batch(
            { intent: 'docs', operations: [{ operation: 'write', path: 'docs/guide.md', content: 'guide\n' }] },
            { draft: 'refactor' },
          );
          await sh.checkpoint('docs', { draft: 'refactor' });
        });
        ok(b.shadow(['push', 'origin', 'refactor']));
        const tipA = a.ref('refs/shadow/drafts/refactor')!;
        const tipB = b.ref('refs/shadow/drafts/refactor')!;
        const pulled = JSON.parse(ok(a.shadow(['pull', 'origin', 'refactor', '--json'])));
        assert.equal(
          pulled.drafts.map((d: any) => [d.draft, d.status, d.was, d.tip]),
          [['refactor', 'fast-forward', tipA, tipB]],
        );
        assert.is(a.ref('refs/shadow/drafts/refactor'), tipB);
        assert.is(a.ref('refs/shadow/checkpoints/refactor/docs'), b.ref('refs/shadow/checkpoints/refactor/docs'));
        const reflog = a.git('reflog', 'show', '--format=%H %gs', 'refs/shadow/drafts/refactor').trim().split('\n');
        assert.is(reflog[0], `${tipB} shadow: pull origin: fast-forward to origin/refactor`);
        const meta = JSON.parse(a.read(`${LEDGER}/refactor/draft.json`));
        assert.is(meta.bases_tip, tipB);
        assert.equal(meta.bases['docs/guide.md'], null);
        assert.is(meta.high_batch, 3);
        assert.is(
          unrooted(ok(a.shadow(['review', 'refactor', '--json'])), a),
          unrooted(ok(b.shadow(['review', 'refactor', '--json'])), b),
        );
        assert.is(verify(a, 'refactor').ok, true);
        // A goes on from B's tip: its next batch is number 4, and its push is a fast-forward.
        await withShadow(a, async (sh) => {
          const r = await sh.batch(
            { intent: 'more', operations: [{ operation: 'write', path: 'docs/more.md', content: 'more\n' }] },
            { draft: 'refactor' },
          );
          assert.is(r.batch, 4);
        });
        const pushed = JSON.parse(ok(a.shadow(['push', 'origin', 'refactor', '--json'])));
        assert.equal(
          pushed.drafts[0].refs
            .filter((r: any) => r.ref.includes('/drafts/') || r.ref.includes('/meta/'))
            .map((r: any) => r.status),
          ['updated', 'updated'],
        );
        assert.is(a.gitResult('fsck', '--strict', '--no-progress').status, 0);
      },
      { clone },
    ),
);

Moves('diverged drafts are refused with DIVERGED and a hint, and nothing here changes', () =>
  withRemote(
    bareRemote,
    async ({ a, clone }) => {
      const b = clone();
      await shared(a, b);
      ok(b.shadow(['draft', 'new', 'refactor', '--from', 'origin/refactor']));
      for (const [repo, path] of [
        [a, 'a.txt'],
        [b, 'b.txt'],
      ] as const) {
        await withShadow(repo, async (sh) => {
          await sh.batch(
            { intent: path, operations: [{ operation: 'write', path, content: `${path}\n` }] },
            { draft: 'refactor' },
          );
        });
      }
      ok(b.shadow(['push', 'origin', 'refactor']));
      const refs = a.git(
        'for-each-ref',
        'refs/shadow/drafts',
        'refs/shadow/meta',
        'refs/shadow/checkpoints',
        'refs/shadow/proposals',
      );
      const files = ['events.jsonl', 'draft.json'].map((f) => a.read(`${LEDGER}/refactor/${f}`));
      const r = a.shadow(['pull', 'origin', '--json']);
      assert.is(r.status, 1);
      assert.is(r.json().error.code, 'DIVERGED');
      assert.match(r.json().error.hint, 'shadow draft new <name> --from origin/refactor');
      assert.is(r.json().error.data.found, b.ref('refs/shadow/drafts/refactor'));
      assert.is(
        a.git(
          'for-each-ref',
          'refs/shadow/drafts',
          'refs/shadow/meta',
          'refs/shadow/checkpoints',
          'refs/shadow/proposals',
        ),
        refs,
      );
      assert.equal(
        ['events.jsonl', 'draft.json'].map((f) => a.read(`${LEDGER}/refactor/${f}`)),
        files,
      );
    },
    { clone },
  ),
);

Moves(
  'an unknown remote, a draft the remote lacks, a missing draft and a fetched name are refused with stable codes, nothing changed',
  () =>
    withRemote(bareRemote, async ({ remote, a }) => {
      await withShadow(a, async (sh) => {
        await sh.batch(
          { intent: 'x', operations: [{ operation: 'write', path: 'x.txt', content: 'x\n' }] },
          { draft: 'solo' },
        );
        await sh.batch(
          { intent: 'y', operations: [{ operation: 'write', path: 'y.txt', content: 'y\n' }] },
          { draft: 'shared' },
        );
      });
      ok(a.shadow(['push', 'origin', 'shared']));
      const refs = a.git('for-each-ref', 'refs/shadow/drafts', 'refs/shadow/meta');
      const ledger = a.read(`${LEDGER}/solo/events.jsonl`);
      for (const [args, code, data] of [
        [['pull', 'nowhere'], 'REMOTE_NOT_FOUND', { remote: 'nowhere' }],
        [['pull', 'origin', 'solo'], 'DRAFT_NOT_FOUND', { draft: 'solo', remote: 'origin' }],
        [['pull', 'origin', 'nosuch'], 'DRAFT_NOT_FOUND', { draft: 'nosuch' }],
        [['pull', 'origin', 'origin/shared'], 'INVALID_ARGUMENT', { draft: 'origin/shared' }],
      ] as const) {
        const r = a.shadow([...args, '--json']);
        assert.is(r.status, 1, args.join(' '));
        assert.is(r.json().error.code, code, args.join(' '));
        assert.ok(r.json().error.hint, args.join(' '));
        assert.equal(r.json().error.data, data, args.join(' '));
      }
      // With no draft named, only those the remote has too: `solo` is left alone.
      assert.equal(
        JSON.parse(ok(a.shadow(['pull', '--json']))).drafts.map((d: any) => [d.draft, d.status, d.joined]),
        [['shared', 'up-to-date', 0]],
      );
      assert.is(a.git('for-each-ref', 'refs/shadow/drafts', 'refs/shadow/meta'), refs);
      assert.is(a.read(`${LEDGER}/solo/events.jsonl`), ledger);
    }),
);

const Verify = suite('pull: the joined ledger verifies against the snapshot it names');

Verify('a joined event rewritten with its chain re-hashed is caught by the snapshot the join names', () =>
  withRemote(
    bareRemote,
    async ({ a, clone }) => {
      const b = clone();
      await shared(a, b);
      ok(b.shadow(['draft', 'new', 'refactor', '--from', 'origin/refactor']));
      const id = JSON.parse(ok(b.shadow(['review', 'refactor', '--json']))).approvals[0].id;
      ok(b.shadow(['deny', id, '--draft', 'refactor', '--reason', 'no CI changes']));
      ok(b.shadow(['push', 'origin', 'refactor']));
      ok(a.shadow(['pull']));
      assert.is(verify(a, 'refactor').ok, true);
      // Turn B's deny into an approve, re-hashing every line after it: the chain holds, the join does not.
      const path = `${LEDGER}/refactor/events.jsonl`;
      const lines = a.read(path).trim().split('\n');
      let prev: string | null = null;
      const forged = lines.map((line, i) => {
        const e = JSON.parse(line);
        if (e.type === 'approval/decision' && e.origin) e.data.decision = 'approve';
        if (i > 0) e.prev = prev;
        const out = JSON.stringify(e);
        prev = createHash('sha256').update(out).digest('hex');
        return out;
      });
      a.write(path, `${forged.join('\n')}\n`);
      const r = a.shadow(['events', '--verify', '--draft', 'refactor', '--json']);
      assert.is(r.status, 1);
      assert.is(r.json().ok, false);
      assert.is(r.json().broken.line, lines.length);
      assert.match(r.json().broken.reason, 'differs from the event it copies');
    },
    { clone },
  ),
);

Verify(
  'missingEvents brings what the other ledger lacks once: shared lines, events that came from here and events joined before are skipped',
  () => {
    const line = (o: object): string => JSON.stringify(o);
    const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
    const e = (seq: number, type: string, extra: object = {}): string =>
      line({ seq, ts: 't', type, draft: 'd', actor: 'x', data: {}, ...extra, prev: null });
    const shared = [e(1, 'draft/create'), e(2, 'batch/commit')];
    const mineOnly = e(3, 'approval/request');
    const theirsOnly = [e(3, 'draft/import'), e(4, 'approval/decision')];
    const local = [...shared, mineOnly].join('\n');
    // Their copy of my event (joined there), and my event seen again: neither comes back.
    const remote = [
      ...shared,
      ...theirsOnly,
      e(5, 'approval/request', { origin: { remote: 'o', seq: 3, sha256: sha(mineOnly) } }),
    ].join('\n');
    const missing = missingEvents(local, remote);
    assert.equal(
      missing.map((m) => [m.event.seq, m.event.type, m.sha256]),
      theirsOnly.map((l) => [JSON.parse(l).seq, JSON.parse(l).type, sha(l)]),
    );
    // Once joined (their events here with origins), joining again brings nothing.
    const joined = [
      local,
      ...missing.map((m) => line({ ...m.event, origin: { remote: 'o', seq: m.event.seq, sha256: m.sha256 } })),
    ].join('\n');
    assert.equal(missingEvents(joined, remote), []);
  },
);

RoundTrip.run();
Moves.run();
Verify.run();
