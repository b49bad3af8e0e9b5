/**
 * Repositories around a test remote, for the tests of sharing drafts that
 * look at what crossed: a repository whose origin is the remote, another
 * clone of it, its refs, and every object the remote holds (as git prints
 * them, inflated), to grep for what must not have left.
 */
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { DiskRepo, withShadow } from './disk-repo.js';
import { isolatedEnv } from './disk-repo.js';
import type { TestRemote } from './remotes.js';

/** A repository with `main` on `remote` as its origin. */
export function originRepo(
  remote: TestRemote,
  files: Record<string, string> = { 'README.md': 'Hello\n', 'src/app.ts': 'export const x = 1;\n' },
): DiskRepo {
  const a = new DiskRepo(files);
  a.git('remote', 'add', 'origin', remote.url);
  a.git('push', '-q', 'origin', 'main');
  return a;
}

/** Another clone of the same repository, as `git clone` makes it. */
export function cloneRepo(remote: TestRemote): DiskRepo {
  const b = new DiskRepo(null);
  b.git('remote', 'add', 'origin', remote.url);
  b.git('fetch', '-q', 'origin');
  b.git('checkout', '-q', '-B', 'main', 'origin/main');
  return b;
}

/** `n` batches on `draft`, each writing notes/<tag><i>.txt. */
export async function noteBatches(repo: DiskRepo, draft: string, n: number, tag = 'a'): Promise<void> {
  await withShadow(repo, async (sh) => {
    for (let i = 1; i <= n; i++)
      await sh.batch(
        {
          intent: `step ${tag}${i}`,
          operations: [{ operation: 'write', path: `notes/${tag}${i}.txt`, content: `${tag} ${i}\n` }],
        },
        { draft },
      );
  });
}

/** `git for-each-ref` of refs under `prefix` of the repository `gitDir`, as `<oid> <ref>` lines. */
export function refsAt(gitDir: string, prefix: string): string {
  const r = spawnSync('git', [`--git-dir=${gitDir}`, 'for-each-ref', '--format=%(objectname) %(refname)', prefix], {
    env: isolatedEnv(tmpdir()),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`git for-each-ref failed: ${r.stderr}`);
  return r.stdout;
}

/** Every object of the repository `gitDir`, inflated (`git cat-file --batch-all-objects --batch`): what it holds, byte for byte. */
export function allObjectBytes(gitDir: string): Buffer {
  const r = spawnSync('git', [`--git-dir=${gitDir}`, 'cat-file', '--batch-all-objects', '--batch'], {
    env: isolatedEnv(tmpdir()),
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`git cat-file failed: ${r.stderr}`);
  return r.stdout;
}

/** What `withRemote` hands a test: the remote, the repository whose origin it is, and more clones on demand. */
export interface RemoteSetup {
  remote: TestRemote;
  a: DiskRepo;
  /** Another clone of the repository (made now, removed with the rest). */
  clone(): DiskRepo;
}

/**
 * Run `body` on a remote `start` starts and a repository (`origin`, by
 * default `originRepo`) whose origin it is; clones `body` asks for are made
 * by `clone` (by default `cloneRepo`). The remote is stopped and every
 * repository removed afterwards, whatever `body` did.
 */
export async function withRemote(
  start: () => Promise<TestRemote>,
  body: (s: RemoteSetup) => Promise<void>,
  makers: { origin?: (remote: TestRemote) => DiskRepo; clone?: (remote: TestRemote) => DiskRepo } = {},
): Promise<void> {
  const remote = await start();
  const made: DiskRepo[] = [];
  const keep = (repo: DiskRepo): DiskRepo => {
    made.push(repo);
    return repo;
  };
  try {
    const a = keep((makers.origin ?? originRepo)(remote));
    await body({ remote, a, clone: () => keep((makers.clone ?? cloneRepo)(remote)) });
  } finally {
    await remote.stop();
    for (const repo of made) repo.cleanup();
  }
}
