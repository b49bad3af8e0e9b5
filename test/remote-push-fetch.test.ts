import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { DiskRepo, SHADOW_BIN, withShadow, type CliResult } from './helpers/disk-repo.js';
import { REMOTE_KINDS, bareRemote, gitDaemon, remoteGit } from './helpers/remotes.js';
import { noteBatches, withRemote } from './helpers/remote-repos.js';

/**
 * `shadow push` and `shadow fetch` against the three kinds of remote: a
 * draft's refs travel whole and atomically, leased against the last fetch;
 * git (`for-each-ref`, `ls-remote`, `fsck --strict`) is the oracle.
 */

const Push = suite('shadow push / shadow fetch');

const batches = noteBatches;

/** `git for-each-ref` of refs under `prefix`, as `<oid> <ref>` lines. */
function refsOf(git: (...args: string[]) => string, prefix: string): string {
  return git('for-each-ref', '--format=%(objectname) %(refname)', prefix);
}

function errorOf(r: CliResult): { code: string; message: string; hint?: string; data?: any } {
  return r.json().error;
}

for (const { kind, start } of REMOTE_KINDS) {
  Push(
    `${kind}: push sends the draft, its checkpoints and its snapshot; fetch on another clone brings them to refs/shadow/remotes/origin/, local drafts untouched`,
    () =>
      withRemote(start, async ({ remote, a, clone }) => {
        const b = clone();
        await batches(a, 'refactor', 2);
        assert.is(a.shadow(['checkpoint', 'half', '--draft', 'refactor']).status, 0);
        const pushed = a.shadow(['push', 'origin', 'refactor', '--json']);
        assert.is(pushed.status, 0, pushed.stderr + pushed.stdout);
        const tip = a.ref('refs/shadow/drafts/refactor')!;
        assert.equal(
          pushed.json().drafts.map((d: any) => [d.draft, d.tip]),
          [['refactor', tip]],
        );
        // The remote holds exactly the draft's refs, and this repository's tracking refs say so.
        const there = refsOf((...args) => remoteGit(remote, ...args), 'refs/shadow/');
        const local =
          ['refs/shadow/checkpoints/refactor/half', 'refs/shadow/drafts/refactor', 'refs/shadow/meta/refactor']
            .map((r) => `${a.ref(r)} ${r}`)
            .join('\n') + '\n';
        assert.is(there, local);
        assert.is(
          refsOf((...args) => a.git(...args), 'refs/shadow/remotes/').replaceAll(
            'refs/shadow/remotes/origin/',
            'refs/shadow/',
          ),
          there,
        );
        assert.match(a.git('ls-remote', 'origin', 'refs/shadow/drafts/refactor'), tip);
        // A plain fetch brings none of it.
        b.git('fetch', '-q', 'origin');
        assert.is(
          refsOf((...args) => b.git(...args), 'refs/shadow/'),
          '',
        );
        await batches(b, 'mine', 1, 'b');
        const mine = b.ref('refs/shadow/drafts/mine');
        const fetched = b.shadow(['fetch', 'origin', '--json']);
        assert.is(fetched.status, 0, fetched.stderr + fetched.stdout);
        assert.equal(fetched.json().drafts, [{ draft: 'origin/refactor', tip, was: null }]);
        assert.is(
          refsOf((...args) => b.git(...args), 'refs/shadow/remotes/'),
          refsOf((...args) => a.git(...args), 'refs/shadow/remotes/'),
        );
        assert.is(b.ref('refs/shadow/drafts/mine'), mine);
        assert.is(b.ref('refs/shadow/drafts/refactor'), undefined);
        for (const repo of [a, b]) assert.is(repo.gitResult('fsck', '--strict', '--no-progress').status, 0);
        remoteGit(remote, 'fsck', '--strict', '--no-progress');
        // More batches: a fast-forward, leased against what the push left.
        await batches(a, 'refactor', 1, 'c');
        const again = a.shadow(['push', 'origin', 'refactor', '--json']);
        assert.is(again.status, 0, again.stderr + again.stdout);
        const draftRef = again.json().drafts[0].refs.find((r: any) => r.ref === 'refs/shadow/drafts/refactor');
        assert.equal(
          [draftRef.status, draftRef.was, draftRef.oid],
          ['updated', tip, a.ref('refs/shadow/drafts/refactor')],
        );
        const second = b.shadow(['fetch', '--json']);
        assert.equal(second.json().drafts, [
          { draft: 'origin/refactor', tip: a.ref('refs/shadow/drafts/refactor'), was: tip },
        ]);
      }),
  );
}

Push(
  'a push onto a remote draft that moved since the last fetch is STALE_REMOTE with both tips, and nothing is pushed',
  () =>
    withRemote(bareRemote, async ({ remote, a, clone }) => {
      const c = clone();
      await batches(a, 'x', 1, 'a');
      await batches(c, 'x', 2, 'c');
      assert.is(a.shadow(['push', 'origin', 'x']).status, 0);
      const before = refsOf((...args) => remoteGit(remote, ...args), 'refs/shadow/');
      const r = c.shadow(['push', 'origin', 'x', '--json']);
      assert.is(r.status, 1);
      const e = errorOf(r);
      assert.is(e.code, 'STALE_REMOTE');
      assert.equal(
        [e.data.ref, e.data.expected, e.data.found, e.data.local],
        ['refs/shadow/drafts/x', null, a.ref('refs/shadow/drafts/x'), c.ref('refs/shadow/drafts/x')],
      );
      assert.match(e.hint!, 'shadow fetch origin');
      assert.is(
        refsOf((...args) => remoteGit(remote, ...args), 'refs/shadow/'),
        before,
      );
      assert.is(c.ref('refs/shadow/remotes/origin/drafts/x'), undefined);
      // After a fetch the lease holds what was seen: the push goes through, knowingly.
      assert.is(c.shadow(['fetch']).status, 0);
      assert.is(c.shadow(['push', 'origin', 'x']).status, 0);
      assert.is(remoteGit(remote, 'rev-parse', 'refs/shadow/drafts/x').trim(), c.ref('refs/shadow/drafts/x'));
    }),
);

/** Run the CLI without blocking, to race two. */
function shadowAsync(repo: DiskRepo, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [SHADOW_BIN, ...args], { cwd: repo.dir, env: repo.env });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (status) => resolve({ status: status ?? -1, stdout, stderr, json: () => JSON.parse(stdout) }));
  });
}

Push(
  "two clones pushing the same draft at once over git://: one wins, the other gets STALE_REMOTE, and the winner's work is all there",
  () =>
    withRemote(gitDaemon, async ({ remote, a, clone }) => {
      const c = clone();
      await batches(a, 'x', 1, 'base');
      assert.is(a.shadow(['push', 'origin', 'x']).status, 0);
      // c continues from the same tip it fetched; both add a batch.
      assert.is(c.shadow(['fetch']).status, 0);
      c.git('update-ref', 'refs/shadow/drafts/x', c.ref('refs/shadow/remotes/origin/drafts/x')!);
      await batches(a, 'x', 1, 'a');
      await batches(c, 'x', 1, 'c');
      const [ra, rc] = await Promise.all([
        shadowAsync(a, ['push', 'origin', 'x', '--json']),
        shadowAsync(c, ['push', 'origin', 'x', '--json']),
      ]);
      const results = [ra, rc];
      const winners = results.filter((r) => r.status === 0);
      const losers = results.filter((r) => r.status !== 0);
      assert.is(winners.length, 1, ra.stdout + rc.stdout);
      assert.is(errorOf(losers[0]!).code, 'STALE_REMOTE', losers[0]!.stdout);
      const winner = winners[0] === ra ? a : c;
      assert.is(remoteGit(remote, 'rev-parse', 'refs/shadow/drafts/x').trim(), winner.ref('refs/shadow/drafts/x'));
      assert.is(remoteGit(remote, 'rev-parse', 'refs/shadow/meta/x').trim(), winner.ref('refs/shadow/meta/x'));
      remoteGit(remote, 'fsck', '--strict', '--no-progress');
    }),
);

Push(
  'bad input: an unknown remote, a draft that does not exist, a remote that refuses, one that cannot be reached: a code, a hint, nothing half-written',
  () =>
    withRemote(bareRemote, async ({ remote, a }) => {
      await batches(a, 'x', 1);
      const unknown = a.shadow(['push', 'nowhere', 'x', '--json']);
      assert.is(unknown.status, 1);
      assert.is(errorOf(unknown).code, 'REMOTE_NOT_FOUND');
      assert.match(errorOf(unknown).hint!, 'git remote add nowhere');
      assert.is(errorOf(a.shadow(['fetch', 'nowhere', '--json'])).code, 'REMOTE_NOT_FOUND');
      const missing = a.shadow(['push', 'origin', 'nope', '--json']);
      assert.is(errorOf(missing).code, 'DRAFT_NOT_FOUND');
      assert.is(
        refsOf((...args) => remoteGit(remote, ...args), 'refs/shadow/'),
        '',
      );
      // A remote whose hook refuses every push.
      const hook = join(remote.dir, 'hooks', 'pre-receive');
      writeFileSync(hook, '#!/bin/sh\necho "no drafts here" >&2\nexit 1\n');
      chmodSync(hook, 0o755);
      const refused = a.shadow(['push', 'origin', 'x', '--json']);
      assert.is(refused.status, 1);
      assert.is(errorOf(refused).code, 'REMOTE_FAILED');
      assert.not.match(refused.stderr, /at .*\.js/);
      assert.is(
        refsOf((...args) => remoteGit(remote, ...args), 'refs/shadow/'),
        '',
      );
      assert.is(
        refsOf((...args) => a.git(...args), 'refs/shadow/remotes/'),
        '',
      );
      a.git('remote', 'set-url', 'origin', join(a.root, 'gone.git'));
      const unreachable = a.shadow(['fetch', '--json']);
      assert.is(errorOf(unreachable).code, 'REMOTE_FAILED');
      assert.match(errorOf(unreachable).hint!, 'git ls-remote origin');
      const text = a.shadow(['push', 'origin', 'x']);
      assert.is(text.status, 1);
      assert.match(text.stderr + text.stdout, /failed/, text.stderr + text.stdout);
    }),
);

Push(
  'a draft that adds a secret is not pushed until its secrets_override approvals are given, even once a later batch took the secret out; a deny refuses it',
  () =>
    withRemote(bareRemote, async ({ remote, a }) => {
      const key = ['AKIA', 'Z7Q3LMXW4TRB2KQP'].join('');
      await withShadow(a, async (sh) => {
        await sh.batch(
          { operations: [{ operation: 'write', path: 'config.ts', content: `export const key = '${key}';\n` }] },
          { draft: 'leak' },
        );
        await sh.batch(
          { operations: [{ operation: 'write', path: 'config.ts', content: 'export const key = process.env.KEY;\n' }] },
          { draft: 'leak' },
        );
        await sh.batch(
          { operations: [{ operation: 'write', path: 'config.ts', content: `export const key = '${key}';\n` }] },
          { draft: 'deny' },
        );
      });
      const refused = a.shadow(['push', 'origin', 'leak', '--json']);
      assert.is(refused.status, 1);
      const e = errorOf(refused);
      assert.is(e.code, 'APPROVALS_PENDING');
      assert.is(e.data.pendingApprovals.length, 1);
      assert.ok(e.data.pendingApprovals[0].commit, 'the commit that added it, though the diff no longer does');
      assert.not.match(refused.stdout, key);
      assert.is(
        refsOf((...args) => remoteGit(remote, ...args), 'refs/shadow/'),
        '',
      );
      assert.is(
        a.shadow(['approve', e.data.pendingApprovals[0].id, '--draft', 'leak', '--reason', 'a test key']).status,
        0,
      );
      assert.is(a.shadow(['push', 'origin', 'leak']).status, 0);
      assert.is(remoteGit(remote, 'rev-parse', 'refs/shadow/drafts/leak').trim(), a.ref('refs/shadow/drafts/leak'));
      const pending = errorOf(a.shadow(['push', 'origin', 'deny', '--json'])).data.pendingApprovals;
      assert.is(a.shadow(['deny', pending[0].id, '--draft', 'deny', '--reason', 'no keys']).status, 0);
      assert.is(errorOf(a.shadow(['push', 'origin', 'deny', '--json'])).code, 'DENIED');
      assert.is(remoteGit(remote, 'for-each-ref', 'refs/shadow/drafts/deny'), '');
    }),
);

Push.run();
