/**
 * What signing and checking an approval share, whichever program does it
 * (ssh-keygen for `gpg.format ssh`, gpg for openpgp): the program run
 * through the context's runner in the repository's directory, the
 * temporary files it reads, the SIGNING_FAILED it ends in, and the verdict
 * a check returns.
 */
import { ShadowError } from '../errors.js';
import type { GitRun } from '../context.js';
import { ensureDir, tryUnlink, writeFileAtomic } from '../durable/durable-file.js';
import type { Workspace } from '../drafts/workspace.js';

/** What checking a signature found: who signed (as the person's configuration names them), or why it does not count. */
export type SignatureVerdict = { ok: true; principal: string } | { ok: false; why: string };

/** `path` with a leading `~/` made the home directory, as git expands paths in its configuration. */
export function homePath(ws: Workspace, path: string): string {
  const home = ws.ctx.env.HOME;
  return path.startsWith('~/') && home ? `${home}${path.slice(1)}` : path;
}

/** Run `program` in the repository's directory; undefined when no program can be run here. */
export function runProgram(
  ws: Workspace,
  program: string,
  args: readonly string[],
  input?: Buffer,
): GitRun | undefined {
  const runner = ws.ctx.programs;
  if (!runner) return undefined;
  const cwd = ws.repo.layout.worktree ?? ws.repo.layout.gitdir;
  return runner.run(program, args, { cwd, env: ws.ctx.env, input });
}

/** A temporary file under shadow's directory holding `text`, removed by `use`'s end. */
export function withTempFile<T>(ws: Workspace, suffix: string, text: string, use: (path: string) => T): T {
  const dir = `${ws.repo.shadowDir}/tmp`;
  ensureDir(ws.ctx.fs, dir, false);
  const path = `${dir}/approval-${ws.ctx.ids.token()}${suffix}`;
  writeFileAtomic(ws.ctx.fs, path, text, { token: ws.ctx.ids.token(), durable: false, mode: 0o600 });
  try {
    return use(path);
  } finally {
    tryUnlink(ws.ctx.fs, path);
  }
}

/** SIGNING_FAILED: the decision was not recorded. */
export function signingFailed(message: string, hint: string, data: Record<string, unknown> = {}): ShadowError {
  return new ShadowError('SIGNING_FAILED', `${message}: nothing was recorded`, { hint, data });
}

/** The last lines a program wrote to stderr, for a message. */
export function lastWords(stderr: string): string {
  return stderr.trim().split('\n').slice(-2).join(' / ');
}
