/**
 * `shadow diff` against `git diff` on the same repository: the draft
 * `default` against HEAD, in the same environment.
 */
import { spawnSync } from 'node:child_process';
import * as assert from 'uvu/assert';
import type { DiskRepo } from './disk-repo.js';

export const DRAFT = 'refs/shadow/drafts/default';

/**
 * `shadow diff <args>` and `git diff <args> HEAD <draft>`, in the same
 * environment. Renames are paired only with `-M` (shadow does not read
 * `diff.renames`: docs/reading.md), so git is given `--no-renames` without it.
 */
export function both(repo: DiskRepo, args: string[], env: Record<string, string> = {}): { ours: string; git: string } {
  const ours = repo.shadow(['diff', ...args], { env });
  assert.is(ours.status, 0, ours.stderr);
  const renames = args.includes('-M') ? [] : ['--no-renames'];
  const git = spawnSync('git', ['diff', ...renames, ...withRange(args)], {
    cwd: repo.dir,
    env: { ...repo.env, ...env },
    encoding: 'utf8',
  });
  assert.is(git.status, 0, git.stderr);
  return { ours: ours.stdout, git: git.stdout };
}

/** Each of `cases` as `shadow diff` and `git diff` print it, byte for byte. */
export function sameAsGit(repo: DiskRepo, cases: readonly string[][], env: Record<string, string> = {}): void {
  for (const args of cases) {
    const { ours, git } = both(repo, args, env);
    assert.is(ours, git, args.join(' '));
  }
}

/** `args` with `HEAD <draft>` before any `--`, as git diff takes them. */
export function withRange(args: readonly string[]): string[] {
  const at = args.indexOf('--');
  return at === -1 ? [...args, 'HEAD', DRAFT] : [...args.slice(0, at), 'HEAD', DRAFT, ...args.slice(at)];
}
