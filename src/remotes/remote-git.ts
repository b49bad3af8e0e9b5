/**
 * The remote side of sharing drafts is git's own: `git push` and `git
 * fetch` are spawned (through the context's git runner) with explicit
 * refspecs under `refs/shadow/`, so every transport git speaks (a path,
 * ssh, git://, http(s), a credential helper) works as it does for
 * branches. This module names the remote and its refs, runs git, and reads
 * what `git push --porcelain` reports.
 */
import { ShadowError } from '../errors.js';
import { refComponentProblem } from '../core/ref-component.js';
import type { GitRun } from '../context.js';
import { REMOTES_PREFIX } from '../drafts/ref-names.js';
import type { Workspace } from '../drafts/workspace.js';

/** The remote `name` as configured (`remote.<name>.url`): REMOTE_NOT_FOUND otherwise. */
export function checkRemote(ws: Workspace, name: string): { name: string; url: string } {
  const problem = refComponentProblem(name);
  if (problem) {
    throw new ShadowError('INVALID_ARGUMENT', `"${name}" cannot name a remote here: ${problem}`, {
      hint: 'name a remote of `git remote -v` (its drafts are tracked under refs/shadow/remotes/<remote>/, one ref component)',
      data: { remote: name },
    });
  }
  const url = ws.repo.config.get(`remote.${name}.url`);
  if (url === undefined) {
    throw new ShadowError('REMOTE_NOT_FOUND', `there is no remote "${name}"`, {
      hint: `add it with \`git remote add ${name} <url>\` (\`git remote -v\` lists the remotes)`,
      data: { remote: name },
    });
  }
  return { name, url };
}

/** Where fetch keeps the remote's ref `ref` (`refs/shadow/drafts/x` → `refs/shadow/remotes/<remote>/drafts/x`). */
export function trackingRef(remote: string, ref: string): string {
  return `${REMOTES_PREFIX}${remote}/${ref.slice('refs/shadow/'.length)}`;
}

/** Run git in the repository; REMOTE_FAILED when git cannot be run at all. */
export function runGit(ws: Workspace, args: readonly string[]): GitRun {
  const runner = ws.ctx.git;
  if (!runner)
    throw new ShadowError('REMOTE_FAILED', 'sharing drafts needs git, and git cannot be run here', {
      hint: 'run shadow where git is on the PATH',
    });
  const cwd = ws.repo.layout.worktree ?? ws.repo.layout.gitdir;
  // git reads the repository from cwd; a GIT_DIR of the caller's would be the same one (open() found it through it).
  const r = runner.run(args, {
    cwd,
    env: { ...ws.ctx.env, GIT_TERMINAL_PROMPT: ws.ctx.env.GIT_TERMINAL_PROMPT ?? '0' },
  });
  if (r.status === null) {
    throw new ShadowError('REMOTE_FAILED', `git ${args[0]} could not run: ${r.stderr.trim()}`, {
      hint: 'check that git is installed and on the PATH',
      data: { stderr: r.stderr },
    });
  }
  return r;
}

/** The last lines git wrote on stderr that say something (for an error's message). */
export function gitSays(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('hint:'));
  return lines.slice(-3).join(' / ');
}

/** One ref of `git push --porcelain`'s report. */
export interface PushedRef {
  /** ' ' fast-forward, '+' forced, '-' deleted, '*' new, '!' rejected, '=' up to date. */
  flag: string;
  to: string;
  summary: string;
  /** The reason in parentheses, for a rejected ref: `stale info`, `fetch first`, `atomic push failed`, a hook's words. */
  reason?: string;
}

/** The refs of a `git push --porcelain` report (the `To` and `Done` lines left out). */
export function parsePushPorcelain(stdout: string): PushedRef[] {
  const out: PushedRef[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^([ +\-*!=])\t([^\t]*)\t(.*)$/.exec(line);
    if (!m) continue;
    const colon = m[2]!.lastIndexOf(':');
    const summary = m[3]!;
    const reason = /\(([^)]*)\)\s*$/.exec(summary)?.[1];
    out.push({
      flag: m[1]!,
      to: m[2]!.slice(colon + 1),
      summary,
      ...(reason !== undefined && m[1] === '!' ? { reason } : {}),
    });
  }
  return out;
}

/** The value of each ref the remote advertises under `refs/shadow/` (`git ls-remote`), or undefined when it cannot be asked. */
export function lsRemote(ws: Workspace, remote: string, refs: readonly string[]): Map<string, string> | undefined {
  const r = runGit(ws, ['ls-remote', '--', remote, ...refs]);
  if (r.status !== 0) return undefined;
  const out = new Map<string, string>();
  for (const line of r.stdout.toString('utf8').split('\n')) {
    const [oid, ref] = line.split('\t');
    if (oid && ref) out.set(ref, oid);
  }
  return out;
}
