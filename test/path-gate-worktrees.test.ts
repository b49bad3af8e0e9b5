/**
 * The path gate on the routes that write a draft's tree into a directory
 * of its own: `worktree add` (materialize), `worktree sync` and the exec
 * worktree (`git worktree add` / `git reset --hard` of the tip). A draft
 * rolled back onto a crafted commit is UNSAFE_PATH on each, with nothing
 * written in the worktree, in `.git` or beside the repository.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { snapshotTree } from './helpers/dir-snapshot.js';
import { craftOn, moveDraftByHand } from './helpers/crafted-trees.js';

const BATCH = 'crafted\n\nShadow-Draft: d\nShadow-Batch: 2\nShadow-Actor: someone\n';
const OWN = [
  'repo/.git/shadow',
  'repo/.git/objects',
  'repo/.git/refs',
  'repo/.git/logs',
  'repo/.git/index',
  'repo/.git/worktrees',
  'repo/.git/info',
  'home',
];

/** The crafted entries, each on its own: a hook, a file two levels up, shadow's marker. */
const CRAFTED = [
  { path: '.git/hooks/post-checkout', mode: '100755', content: '#!/bin/sh\necho pwned\n' },
  { path: '../../gate-wt-escape', mode: '100644', content: 'escaped\n' },
  {
    path: '.shadow-worktree',
    mode: '100644',
    content: '{"version":1,"repository":"/elsewhere","id":"x","draft":"d"}\n',
  },
];

async function draftOn(repo: DiskRepo): Promise<string> {
  await withShadow(repo, (sh) =>
    sh.batch(
      { intent: 'seed', operations: [{ operation: 'write', path: 'seed.txt', content: 'seed\n' }] },
      { draft: 'd' },
    ),
  );
  return repo.ref('refs/shadow/drafts/d')!;
}

async function codeAndData(
  f: () => Promise<unknown>,
): Promise<{ code: string; data: Record<string, unknown> } | undefined> {
  try {
    await f();
  } catch (e) {
    return e as { code: string; data: Record<string, unknown> };
  }
  return undefined;
}

const Worktrees = suite('path gate: worktrees');

for (const c of CRAFTED) {
  Worktrees(
    `${JSON.stringify(c.path)}: worktree add, worktree sync and exec refuse the crafted draft, writing nothing`,
    async () => {
      const repo = new DiskRepo({ 'README.md': 'Hello\n' });
      const escaped = join(repo.root, '..', 'gate-wt-escape');
      try {
        const seed = await draftOn(repo);
        const synced = join(repo.root, 'synced');
        await withShadow(repo, (sh) => sh.worktrees.add(synced, { draft: 'd' }));
        const crafted = craftOn(repo, seed, [c], BATCH);
        const before = snapshotTree(repo.root, [...OWN, 'synced/.shadow-worktree']);
        await withShadow(repo, async (sh) => {
          moveDraftByHand(repo, 'd', crafted);
          const fresh = join(repo.root, 'fresh');
          for (const [route, run] of [
            ['add', () => sh.worktrees.add(fresh, { draft: 'd' })],
            ['sync', () => sh.worktrees.sync(synced)],
            ['exec', () => sh.worktrees.exec({ draft: 'd' })],
          ] as const) {
            const e = await codeAndData(run);
            assert.is(e?.code, 'UNSAFE_PATH', `${route}: ${JSON.stringify(e)}`);
            assert.equal([e!.data.path, e!.data.commit], [c.path, crafted], route);
          }
          assert.ok(!existsSync(fresh) || readdirSync(fresh).length === 0, 'the new worktree holds nothing');
        });
        assert.equal(snapshotTree(repo.root, [...OWN, 'synced/.shadow-worktree']), before, 'nothing written');
        assert.not.ok(existsSync(escaped), 'nothing beside the repository');
        assert.not.ok(
          existsSync(`${repo.dir}.shadow-exec`) && readdirSync(`${repo.dir}.shadow-exec`).length > 0,
          'no exec worktree made',
        );
      } finally {
        repo.cleanup();
        if (existsSync(escaped)) (await import('node:fs')).rmSync(escaped);
      }
    },
  );
}

Worktrees.run();
