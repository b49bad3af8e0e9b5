import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { withShadow, type DiskRepo } from './helpers/disk-repo.js';
import { REMOTE_KINDS, remoteGit } from './helpers/remotes.js';
import { refsAt, withRemote } from './helpers/remote-repos.js';

/**
 * A draft pushed from one clone and fetched on another reads the same there
 * (review, log, ledger) as `origin/<draft>`, read-only; `draft new --from
 * origin/<draft>` continues it with its ledger; an approval given there comes
 * back with the next push and fetch, shown as the other clone's, not counted.
 *
 * Every transport carries the draft both ways (push, fetch, draft list, draft
 * new --from, the approval's way back). What B reads of a fetched draft
 * (review, log, ledger, read-only) reads B's own tracking refs, whatever
 * brought them: it is checked byte for byte on the first transport; on the
 * others, that B tracks exactly the refs the push left on the remote.
 */

const Shared = suite('remote drafts: review, draft new --from, approvals');

function ok(r: { status: number; stdout: string; stderr: string }): string {
  assert.is(r.status, 0, r.stderr + r.stdout);
  return r.stdout;
}

/** What B reads of origin/refactor is what A reads of refactor: review, log, ledger; and B cannot write it. */
function readsOnB(a: DiskRepo, b: DiskRepo, reviewA: string, unrooted: string): void {
  // The same review, byte for byte but for the draft's name and the directory the proposal was made in (which stays on A's machine).
  const reviewB = ok(b.shadow(['review', 'origin/refactor', '--json']));
  assert.is(reviewB, unrooted.replace('"draft": "refactor"', '"draft": "origin/refactor"'));
  assert.is(
    ok(b.shadow(['review', 'origin/refactor'])),
    ok(a.shadow(['review', '--draft', 'refactor'])).replace('draft refactor ', 'draft origin/refactor '),
  );
  assert.is(
    ok(b.shadow(['log', '--draft', 'origin/refactor', '--json'])),
    ok(a.shadow(['log', '--draft', 'refactor', '--json'])).replace('"draft": "refactor"', '"draft": "origin/refactor"'),
  );
  assert.is(
    ok(b.shadow(['events', '--draft', 'origin/refactor', '--json'])),
    ok(a.shadow(['events', '--draft', 'refactor', '--json'])),
  );
  assert.is(JSON.parse(ok(b.shadow(['events', '--verify', '--draft', 'origin/refactor', '--json']))).ok, true);
  // Read-only: nothing writes a remote draft.
  for (const args of [
    ['write', 'x.txt', '--draft', 'origin/refactor'],
    ['approve', JSON.parse(reviewA).approvals[0].id, '--draft', 'origin/refactor'],
    ['draft', 'drop', 'origin/refactor'],
  ]) {
    const r = b.shadow([...args, '--json'], { input: 'x\n' });
    assert.is(r.status, 1, args.join(' '));
    assert.is(r.json().error.code, 'READ_ONLY');
    assert.match(r.json().error.hint, 'shadow draft new refactor --from origin/refactor');
  }
}

/** The draft B continued from origin/refactor reviews as A's, and its ledger is A's and the import. */
function continuedOnB(a: DiskRepo, b: DiskRepo, unrooted: string): void {
  assert.is(ok(b.shadow(['review', 'refactor', '--json'])), unrooted);
  const events = (repo: DiskRepo): any[] =>
    JSON.parse(
      `[${ok(repo.shadow(['events', '--draft', 'refactor', '--json']))
        .trim()
        .split('\n')
        .join(',')}]`,
    );
  const eventsB = events(b);
  const eventsA = events(a);
  assert.equal(eventsB.slice(0, eventsA.length), eventsA);
  assert.equal(
    eventsB.slice(eventsA.length).map((e: any) => e.type),
    ['draft/import'],
  );
  assert.is(JSON.parse(ok(b.shadow(['events', '--verify', '--draft', 'refactor', '--json']))).ok, true);
}

for (const { kind, start } of REMOTE_KINDS) {
  const reads = kind === REMOTE_KINDS[0]!.kind;
  Shared(
    `${kind}: ${reads ? "review on B of origin/refactor is A's review" : 'B tracks the refs the push left'}; B continues it, approves, pushes; A fetches the approval, which does not count on A`,
    () =>
      withRemote(start, async ({ remote, a, clone }) => {
        const b = clone();
        await withShadow(a, async (sh) => {
          await sh.batch(
            {
              intent: 'app',
              operations: [{ operation: 'edit', path: 'src/app.ts', old_content: 'x = 1', content: 'x = 2' }],
            },
            { draft: 'refactor' },
          );
          await sh.batch(
            {
              intent: 'ci',
              operations: [{ operation: 'write', path: '.github/workflows/ci.yml', content: 'on: push\n' }],
            },
            { draft: 'refactor' },
          );
          await sh.checkpoint('green', { draft: 'refactor' });
          await sh.propose({ draft: 'refactor', message: 'refactor the app' });
        });
        ok(a.shadow(['push', 'origin', 'refactor']));
        ok(b.shadow(['fetch', 'origin']));
        assert.equal(
          JSON.parse(ok(b.shadow(['draft', 'list', '--remote', '--json']))).drafts.map((d: any) => [
            d.name,
            d.tip,
            d.batches,
            d.status,
          ]),
          [['origin/refactor', a.ref('refs/shadow/drafts/refactor'), 2, 'proposed']],
        );
        assert.is(
          refsAt(join(b.dir, '.git'), 'refs/shadow/remotes/origin/').replaceAll(
            'refs/shadow/remotes/origin/',
            'refs/shadow/',
          ),
          refsAt(remote.dir, 'refs/shadow/'),
          'B tracks every ref the push left on the remote, at its value there',
        );
        const reviewA = ok(a.shadow(['review', 'refactor', '--json']));
        const unrooted = reviewA.replaceAll(`"workspace_root": ${JSON.stringify(a.dir)}`, '"workspace_root": null');
        assert.is(JSON.parse(reviewA).approvals[0].kind, 'protected_path');
        if (reads) readsOnB(a, b, reviewA, unrooted);
        assert.is(b.ref('refs/shadow/remotes/origin/drafts/refactor'), a.ref('refs/shadow/drafts/refactor'));
        // Continued here: the same draft, its checkpoints, its proposal and its ledger (plus the import).
        ok(b.shadow(['draft', 'new', 'refactor', '--from', 'origin/refactor']));
        assert.is(b.ref('refs/shadow/drafts/refactor'), a.ref('refs/shadow/drafts/refactor'));
        assert.is(b.ref('refs/shadow/checkpoints/refactor/green'), a.ref('refs/shadow/checkpoints/refactor/green'));
        if (reads) continuedOnB(a, b, unrooted);
        // An approval on B travels back to A.
        const id = JSON.parse(reviewA).approvals[0].id;
        ok(b.shadow(['approve', id, '--draft', 'refactor', '--reason', 'CI change reviewed', '--actor', 'bea']));
        const pushed = JSON.parse(ok(b.shadow(['push', 'origin', 'refactor', '--json'])));
        assert.equal(
          pushed.drafts[0].refs.find((r: any) => r.ref === 'refs/shadow/drafts/refactor').status,
          'up-to-date',
        );
        assert.equal(pushed.drafts[0].refs.find((r: any) => r.ref === 'refs/shadow/meta/refactor').status, 'updated');
        ok(a.shadow(['fetch']));
        // It comes back as B's, unsigned: shown, and not counted here.
        const approval = JSON.parse(ok(a.shadow(['review', 'origin/refactor', '--json']))).approvals[0];
        assert.equal([approval.id, approval.status, approval.decided_by], [id, 'pending', undefined]);
        assert.equal(
          approval.unverified.map((u: any) => [u.decision, u.decided_by, u.decision_reason, u.why]),
          [['approve', 'bea', 'CI change reviewed', 'not made in this repository, and not signed']],
        );
        assert.is(JSON.parse(ok(a.shadow(['events', '--verify', '--draft', 'origin/refactor', '--json']))).ok, true);
        for (const repo of [a, b]) assert.is(repo.gitResult('fsck', '--strict', '--no-progress').status, 0);
        remoteGit(remote, 'fsck', '--strict', '--no-progress');
      }),
  );
}

Shared.run();
