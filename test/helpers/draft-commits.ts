import type { DiskRepo } from './disk-repo.js';
import { REF } from './worktree-repo.js';

/* A draft's commits as native git sees them. */

/** Batch commits of a draft, newest first (capture commits left out). */
export function batches(
  repo: DiskRepo,
  draft = 'default',
): Array<{ commit: string; subject: string; author: string; batch: number }> {
  if (!repo.ref(REF(draft))) return [];
  const out = repo.git(
    'log',
    '--format=%H%x00%s%x00%an%x00%(trailers:key=Shadow-Batch,valueonly,separator=)%x00%(trailers:key=Shadow-Capture,valueonly,separator=)%x01',
    REF(draft),
  );
  return out
    .split('\x01')
    .map((r) => r.replace(/^\n/, ''))
    .filter((r) => r.length > 0)
    .map((r) => r.split('\x00'))
    .filter((f) => f[3]!.trim() !== '' && f[4]!.trim() === '')
    .map((f) => ({ commit: f[0]!, subject: f[1]!, author: f[2]!, batch: Number(f[3]!.trim()) }));
}

/** Paths a commit changed against its first parent: `M\tpath`, `R100\ta\tb`, … */
export function nameStatus(repo: DiskRepo, commit: string): string[] {
  return repo
    .git('diff-tree', '-r', '-M', '--no-commit-id', '--name-status', `${commit}^`, commit)
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}

/** `git ls-tree` of one path in a commit: `[mode, type, oid]`, or undefined. */
export function lsTree(repo: DiskRepo, commit: string, path: string): [string, string, string] | undefined {
  const line = repo.git('ls-tree', commit, '--', path).trim();
  if (line === '') return undefined;
  const [meta] = line.split('\t');
  return meta!.split(' ') as [string, string, string];
}

export function fsck(repo: DiskRepo): void {
  repo.git('fsck', '--strict', '--no-progress', '--no-dangling');
}
