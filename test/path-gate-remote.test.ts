/**
 * The path gate on what comes from a remote: a draft pushed there with a
 * path git refuses to check out (crafted with git's plumbing, pushed by a
 * plain `shadow push`) is refused by `shadow fetch` and `shadow pull`
 * (UNSAFE_PATH, the remote-tracking refs where they were), and, fetched
 * by plain git around shadow, refused by `shadow apply --draft origin/<d>`
 * with nothing written.
 */
import { existsSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type DiskRepo, withShadow } from './helpers/disk-repo.js';
import { bareRemote, REMOTE_KINDS, type TestRemote } from './helpers/remotes.js';
import { refsAt, withRemote } from './helpers/remote-repos.js';
import { craftOn } from './helpers/crafted-trees.js';
import { snapshotTree } from './helpers/dir-snapshot.js';

const Remote = suite('path gate: drafts from a remote');

/**
 * Draft `name` on `repo` with one real batch pushed by shadow (its snapshot
 * too), then a crafted commit holding `path` on it pushed over it by plain
 * git (shadow's push refuses to send it): the crafted commit.
 */
async function pushCrafted(
  repo: DiskRepo,
  name: string,
  path: string,
  mode = '100755',
): Promise<{ safe: string; crafted: string }> {
  await withShadow(repo, (sh) =>
    sh.batch(
      { intent: 'safe', operations: [{ operation: 'write', path: `${name}.txt`, content: 'safe\n' }] },
      { draft: name },
    ),
  );
  const pushed = repo.shadow(['push', 'origin', name, '--json']);
  assert.is(pushed.status, 0, pushed.stdout + pushed.stderr);
  const safe = repo.ref(`refs/shadow/drafts/${name}`)!;
  const crafted = craftOn(
    repo,
    safe,
    [{ path, mode, content: '#!/bin/sh\necho pwned > /tmp/pwned\n' }],
    `crafted\n\nShadow-Draft: ${name}\nShadow-Batch: 2\nShadow-Actor: someone\n`,
  );
  repo.git('push', '-q', 'origin', `${crafted}:refs/shadow/drafts/${name}`);
  return { safe, crafted };
}

function errorOf(r: { status: number; stdout: string; stderr: string; json(): any }): {
  code: string;
  message: string;
  data: Record<string, unknown>;
} {
  assert.is(r.status, 1, r.stdout + r.stderr);
  return r.json().error;
}

/** `shadow fetch` from a remote `start` starts, after a draft holding `path` was pushed there: UNSAFE_PATH, no ref moved. */
function fetchRefuses(start: () => Promise<TestRemote>, path: string, check: string | undefined): Promise<void> {
  return withRemote(start, async ({ a, clone }) => {
    const b = clone();
    await withShadow(a, (sh) =>
      sh.batch(
        { intent: 'fine', operations: [{ operation: 'write', path: 'fine.txt', content: 'fine\n' }] },
        { draft: 'fine' },
      ),
    );
    assert.is(a.shadow(['push', 'origin', 'fine']).status, 0);
    assert.is(b.shadow(['fetch', 'origin']).status, 0);
    const before = refsAt(`${b.dir}/.git`, 'refs/shadow/');
    const { crafted } = await pushCrafted(a, 'evil', path);
    const e = errorOf(b.shadow(['fetch', 'origin', '--json']));
    assert.is(e.code, 'UNSAFE_PATH', e.message);
    assert.is(e.data.remote, 'origin');
    assert.equal([e.data.draft, e.data.path, e.data.commit], ['evil', path, crafted]);
    // Where git's fsck refused the pack, its finding comes too.
    assert.is((e.data.fsck as { check?: string } | undefined)?.check, check);
    assert.is(refsAt(`${b.dir}/.git`, 'refs/shadow/'), before, 'no ref moved (none left in quarantine either)');
    assert.is(b.ref('refs/shadow/remotes/origin/drafts/evil'), undefined);
  });
}

for (const [what, path, check] of [
  ['a hook in .git (git fsck refuses it as it arrives)', '.git/hooks/post-checkout', 'hasDotgit'],
  ['a path two levels up', '../../pwned', 'hasDotdot'],
  ["shadow's worktree marker (git accepts it; shadow's walk does not)", '.shadow-worktree', undefined],
] as const) {
  Remote(`fetch refuses a remote draft holding ${what}: UNSAFE_PATH, the tracking refs where they were`, () =>
    fetchRefuses(bareRemote, path, check),
  );
}

// The same over the network transports, started on 127.0.0.1 by the test: git's fsck runs where the pack arrives.
for (const { kind, start } of REMOTE_KINDS.filter((k) => k.kind !== 'bare')) {
  Remote(`over ${kind}: fetch refuses a remote draft holding a hook in .git`, () =>
    fetchRefuses(start, '.git/hooks/post-checkout', 'hasDotgit'),
  );
}

Remote('pull of a draft continued here refuses the crafted tip: the local draft and its tracking ref stay', () =>
  withRemote(bareRemote, async ({ a, clone }) => {
    const b = clone();
    await withShadow(a, (sh) =>
      sh.batch(
        { intent: 'one', operations: [{ operation: 'write', path: 'one.txt', content: '1\n' }] },
        { draft: 'work' },
      ),
    );
    assert.is(a.shadow(['push', 'origin', 'work']).status, 0);
    assert.is(b.shadow(['fetch', 'origin']).status, 0);
    assert.is(b.shadow(['draft', 'new', 'work', '--from', 'origin/work']).status, 0);
    const local = b.ref('refs/shadow/drafts/work');
    const tracking = b.ref('refs/shadow/remotes/origin/drafts/work');
    // The author's next commit carries a shadow marker for the root.
    const tip = a.ref('refs/shadow/drafts/work')!;
    const crafted = craftOn(
      a,
      tip,
      [{ path: '.shadow-worktree', content: '{"version":1,"repository":"/elsewhere","id":"x","draft":"work"}\n' }],
      'crafted\n\nShadow-Draft: work\nShadow-Batch: 2\n',
    );
    a.git('push', '-q', 'origin', `${crafted}:refs/shadow/drafts/work`);
    const e = errorOf(b.shadow(['pull', 'origin', 'work', '--json']));
    assert.is(e.code, 'UNSAFE_PATH');
    assert.equal([e.data.draft, e.data.path, e.data.commit], ['work', '.shadow-worktree', crafted]);
    assert.is(b.ref('refs/shadow/drafts/work'), local);
    assert.is(b.ref('refs/shadow/remotes/origin/drafts/work'), tracking);
  }),
);

Remote(
  'a crafted draft fetched by plain git around shadow is refused at apply --draft origin/<d>: nothing written',
  () =>
    withRemote(bareRemote, async ({ a, clone }) => {
      const b = clone();
      const { crafted } = await pushCrafted(a, 'evil', '.git/hooks/post-checkout');
      b.git(
        'fetch',
        '-q',
        'origin',
        '+refs/shadow/drafts/*:refs/shadow/remotes/origin/drafts/*',
        '+refs/shadow/meta/*:refs/shadow/remotes/origin/meta/*',
      );
      const before = snapshotTree(b.root, [
        'repo/.git/shadow',
        'repo/.git/objects',
        'repo/.git/refs',
        'repo/.git/logs',
        'home',
      ]);
      const e = errorOf(b.shadow(['apply', '--draft', 'origin/evil', '--json']));
      assert.is(e.code, 'UNSAFE_PATH');
      assert.equal([e.data.path, e.data.commit], ['.git/hooks/post-checkout', crafted]);
      assert.equal(
        snapshotTree(b.root, ['repo/.git/shadow', 'repo/.git/objects', 'repo/.git/refs', 'repo/.git/logs', 'home']),
        before,
      );
      assert.not.ok(existsSync(`${b.dir}/.git/hooks/post-checkout`));
    }),
);

Remote('push refuses to send a draft holding a path git refuses to check out: UNSAFE_PATH, nothing pushed', () =>
  withRemote(bareRemote, async ({ remote, a }) => {
    await withShadow(a, (sh) =>
      sh.batch(
        { intent: 'one', operations: [{ operation: 'write', path: 'one.txt', content: '1\n' }] },
        { draft: 'out' },
      ),
    );
    const tip = a.ref('refs/shadow/drafts/out')!;
    for (const path of ['../../pwned', '.git/hooks/post-checkout', '.shadow-worktree']) {
      const crafted = craftOn(a, tip, [{ path }], 'crafted\n\nShadow-Draft: out\nShadow-Batch: 2\n');
      a.git('update-ref', 'refs/shadow/drafts/out', crafted);
      const e = errorOf(a.shadow(['push', 'origin', 'out', '--json']));
      assert.is(e.code, 'UNSAFE_PATH', `${path}: ${e.message}`);
      assert.equal([e.data.path, e.data.commit], [path, crafted]);
      assert.is(refsAt(remote.dir, 'refs/shadow/'), '');
    }
  }),
);

Remote.run();
