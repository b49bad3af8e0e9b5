/**
 * Three kinds of git remote, each made and served by the test that uses it:
 * a bare repository on disk, `git daemon` on 127.0.0.1 and `git
 * http-backend` behind a node HTTP server on 127.0.0.1. Each is ready when
 * returned (readiness is `git ls-remote` answering, polled, never a fixed
 * sleep), bounded in time, and `stop()` ends what it started (by process
 * id) and removes its directories.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isolatedEnv } from './disk-repo.js';

export interface TestRemote {
  /** What `git remote add` and `git push` take. */
  url: string;
  /** The bare repository behind it, for `git --git-dir=<dir> …` as the oracle. */
  dir: string;
  /** The kind, for test names. */
  kind: 'bare' | 'daemon' | 'http';
  stop(): Promise<void>;
}

/** How long a server may take to answer its first `git ls-remote`. */
const READY_MS = 15_000;
const HTTP_SERVER = fileURLToPath(new URL('./http-backend-server.js', import.meta.url));

function makeBare(): { root: string; dir: string; env: Record<string, string> } {
  const root = mkdtempSync(join(tmpdir(), 'shadow-remote-'));
  const dir = join(root, 'repo.git');
  const env = isolatedEnv(root);
  const r = spawnSync('git', ['init', '-q', '--bare', '-b', 'main', dir], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git init --bare failed: ${r.stderr}`);
  return { root, dir, env };
}

/** The git of a bare remote, as an oracle: `remoteGit(r, 'for-each-ref', …)`. */
export function remoteGit(remote: TestRemote, ...args: string[]): string {
  const r = spawnSync('git', [`--git-dir=${remote.dir}`, ...args], { env: isolatedEnv(tmpdir()), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** A bare repository on disk, reached by its path. */
export async function bareRemote(): Promise<TestRemote> {
  const { root, dir } = makeBare();
  return { url: dir, dir, kind: 'bare', stop: async () => rmSync(root, { recursive: true, force: true }) };
}

/** A port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Ask `git ls-remote` until it answers (or the server died, or time ran out). */
async function untilReady(url: string, env: Record<string, string>, child: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + READY_MS;
  let last = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) before it answered: ${last}`);
    const r = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const p = spawn('git', ['ls-remote', url], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      p.stderr.on('data', (d) => (stderr += d));
      p.on('close', (status) => resolve({ status, stderr }));
    });
    if (r.status === 0) return;
    last = r.stderr.trim();
    // Give the server's start a turn of the event loop (and the CPU) before asking again.
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`${what} did not answer git ls-remote ${url} within ${READY_MS} ms: ${last}`);
}

/** End a process group we started, and wait for its leader to be gone. */
async function endGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    child.kill('SIGTERM');
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 5_000);
  await gone;
  clearTimeout(timer);
}

/** `git daemon` serving a bare repository over git:// on 127.0.0.1, receive-pack enabled. */
export async function gitDaemon(): Promise<TestRemote> {
  const { root, dir, env } = makeBare();
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child = spawn(
      'git',
      [
        'daemon',
        '--export-all',
        '--enable=receive-pack',
        `--base-path=${root}`,
        '--reuseaddr',
        '--listen=127.0.0.1',
        `--port=${port}`,
        '--informative-errors',
        root,
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true },
    );
    child.stderr!.resume();
    const url = `git://127.0.0.1:${port}/repo.git`;
    try {
      await untilReady(url, env, child, 'git daemon');
    } catch (e) {
      await endGroup(child);
      // Another process took the port between our probe and the daemon's bind: once more, on another.
      if (attempt < 2) continue;
      rmSync(root, { recursive: true, force: true });
      throw e;
    }
    return {
      url,
      dir,
      kind: 'daemon',
      stop: async () => {
        await endGroup(child);
        rmSync(root, { recursive: true, force: true });
      },
    };
  }
}

/**
 * `git http-backend` behind a node HTTP server (its own process) on
 * 127.0.0.1: smart HTTP, push allowed. `hold`: each POST leaves a file in
 * `hold.markDir` when it arrives and waits `hold.ms` before git sees it.
 */
export async function httpBackend(hold?: { markDir: string; ms: number }): Promise<TestRemote> {
  const { root, dir, env } = makeBare();
  spawnSync('git', [`--git-dir=${dir}`, 'config', 'http.receivepack', 'true'], { env });
  const serverEnv = hold ? { ...env, HTTP_BACKEND_MARK_DIR: hold.markDir, HTTP_BACKEND_HOLD_MS: String(hold.ms) } : env;
  const child = spawn(process.execPath, [HTTP_SERVER, root], {
    env: serverEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stderr!.resume();
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`the HTTP server did not start within ${READY_MS} ms`)),
        READY_MS,
      );
      child.stdout!.on('data', (d) => {
        out += d;
        const nl = out.indexOf('\n');
        if (nl === -1) return;
        clearTimeout(timer);
        resolve((JSON.parse(out.slice(0, nl)) as { port: number }).port);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the HTTP server exited (${code}) before it listened`));
      });
    });
    await untilReady(`http://127.0.0.1:${port}/repo.git`, env, child, 'git http-backend');
  } catch (e) {
    await endGroup(child);
    rmSync(root, { recursive: true, force: true });
    throw e;
  }
  return {
    url: `http://127.0.0.1:${port}/repo.git`,
    dir,
    kind: 'http',
    stop: async () => {
      await endGroup(child);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Every kind, for loops over variants. */
export const REMOTE_KINDS: ReadonlyArray<{ kind: TestRemote['kind']; start: () => Promise<TestRemote> }> = [
  { kind: 'bare', start: bareRemote },
  { kind: 'daemon', start: gitDaemon },
  { kind: 'http', start: () => httpBackend() },
];
