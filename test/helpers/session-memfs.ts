import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import { isShadowError, openShadow, type FileSystem, type Processes, type Shadow } from '../../src/index.js';
import { memRepo, type MemRepo } from './mem-repo.js';
import { withReplacingRename } from './memfs-rename.js';

/*
 * Write sessions through the library, on memfs with a clock that moves only
 * when told: a repository with git config set, a handle as a process, the
 * session's files on disk, the draft's tip, and a session fed to the end.
 */

export const ROOT = '/repo';
export const SESSIONS = `${ROOT}/.git/shadow/sessions`;
const HOST = 'memhost';
const DRAFT_REF = 'refs/shadow/drafts/default';

const BASE_FILES = { 'README.md': 'Hello\n', 'notes.txt': 'one\n', 'conf/app.json': '{"a": 1}\n' };

/** A process table in which only `self` (and `alsoAlive`) is alive. */
function processes(self: number, alsoAlive: number[] = []): Processes {
  return { self, host: HOST, isAlive: (pid) => pid === self || alsoAlive.includes(pid) };
}

/** A fresh repository with `config` (git config keys, e.g. shadow.sessionSaveLines) set. */
export async function repoWith(config: Record<string, string | number> = {}): Promise<MemRepo> {
  const repo = await memRepo(BASE_FILES);
  for (const [path, value] of Object.entries(config))
    await git.setConfig({ fs: repo.fs, dir: ROOT, path, value: String(value) });
  return repo;
}

/** Open shadow as process `pid` (on `fs`, default the repository's own). */
export function openAs(repo: MemRepo, pid = 100, options: { fs?: FileSystem; alive?: number[] } = {}): Promise<Shadow> {
  const { clock, ids, env } = repo.ctx;
  return openShadow({
    dir: ROOT,
    fs: withReplacingRename(options.fs ?? repo.fs),
    clock,
    ids,
    env,
    processes: processes(pid, options.alive),
  });
}

/** `n` numbered lines, each ending in a newline. */
export function lines(n: number, from = 1, tag = 'line'): string {
  let s = '';
  for (let i = from; i < from + n; i++) s += `${tag} ${String(i).padStart(4, '0')}\n`;
  return s;
}

/** The files of a session on disk (undefined when gone). */
export function files(repo: MemRepo, id: string): { content: Buffer; state: any; meta: any } | undefined {
  const dir = `${SESSIONS}/${id}`;
  if (!repo.fs.existsSync(dir)) return undefined;
  return {
    content: repo.fs.readFileSync(`${dir}/content.txt`) as Buffer,
    state: JSON.parse(String(repo.fs.readFileSync(`${dir}/state.json`, 'utf8'))),
    meta: JSON.parse(String(repo.fs.readFileSync(`${dir}/metadata.json`, 'utf8'))),
  };
}

export async function draftTip(repo: MemRepo, ref = DRAFT_REF): Promise<string | undefined> {
  try {
    return await git.resolveRef({ fs: repo.fs, dir: ROOT, ref });
  } catch {
    return undefined;
  }
}

/** A file of the draft's tip commit, read with isomorphic-git (undefined when absent). */
export async function committed(repo: MemRepo, path: string, ref = DRAFT_REF): Promise<Buffer | undefined> {
  const oid = await draftTip(repo, ref);
  if (!oid) return undefined;
  try {
    const { blob } = await git.readBlob({ fs: repo.fs, dir: ROOT, oid, filepath: path });
    return Buffer.from(blob);
  } catch {
    return undefined;
  }
}

/** The error code and message a call throws (fails when it does not throw a ShadowError). */
export async function thrown(fn: () => unknown): Promise<{ code: string; message: string }> {
  try {
    await fn();
  } catch (e) {
    assert.ok(isShadowError(e), `a ShadowError, not ${String(e)}`);
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
  assert.unreachable('it should have thrown');
  throw new Error('unreachable');
}

export const NOT_FOUND = { code: 'SESSION_NOT_FOUND', message: 'Session not found or expired' };

/** Begin a session on `target`, feed `parts`, end the stream and finalize. */
export async function writeThrough(
  sh: Shadow,
  target: string,
  op: 'create' | 'overwrite' | 'append',
  parts: Array<string | Buffer>,
  binary = false,
) {
  const { session_id } = await sh.sessions.begin({
    intent: `write ${target}`,
    target_file: target,
    operation: op,
    binary,
  });
  let done = false;
  for (const p of parts) done = sh.sessions.push(session_id, typeof p === 'string' ? Buffer.from(p) : p);
  if (!done) sh.sessions.end(session_id);
  return { id: session_id, result: await sh.sessions.finalize(session_id) };
}

/** What a DONE marker not alone on its line says. */
export const STRAY = (line: number): string =>
  `a stray "DONE" marker ends the content (line ${line}); send DONE alone on its own line to end a session`;
