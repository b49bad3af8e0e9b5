import * as assert from 'uvu/assert';
import {
  nodeContext,
  openShadow,
  startServer,
  type RunningServer,
  type ServerOptions,
  type Shadow,
} from '../../src/index.js';
import { DiskRepo } from './disk-repo.js';
import { Api, type Reply } from './session-http.js';

/*
 * The local HTTP API served in-process (startServer) on a random loopback
 * port for a fresh repository, with a clock that can be moved forward; the
 * shapes its errors take; and what native git sees of the draft.
 */

export const BASE_FILES = { 'README.md': 'Hello\n', 'notes.txt': 'one\n' };

export interface Ctx {
  repo: DiskRepo;
  sh: Shadow;
  server: RunningServer;
  api: Api;
  log: string[];
  skew: { ms: number };
}

/** A fresh repository and an in-process server whose clock can be moved forward (`server`: more of its options, e.g. allowApply). */
export async function setUp(
  c: Ctx,
  config: Record<string, string> = {},
  server: Pick<ServerOptions, 'allowApply'> = {},
): Promise<void> {
  c.repo = new DiskRepo(BASE_FILES);
  for (const [k, v] of Object.entries(config)) c.repo.git('config', k, v);
  const base = nodeContext({ env: c.repo.env });
  c.skew = { ms: 0 };
  const skew = c.skew;
  c.sh = await openShadow({
    dir: c.repo.dir,
    fs: base.fs,
    ids: base.ids,
    env: c.repo.env,
    processes: base.processes,
    clock: { ...base.clock, now: () => Date.now() + skew.ms },
  });
  c.log = [];
  c.server = await startServer(c.sh, { ...server, log: (l) => c.log.push(l) });
  c.api = new Api(c.server.url, c.server.token);
}

export async function tearDown(c: Ctx): Promise<void> {
  await c.server.close();
  c.sh.close();
  c.repo.cleanup();
}

/** `n` numbered lines. */
export function lines(n: number, from = 1): string {
  let s = '';
  for (let i = from; i < from + n; i++) s += `line ${String(i).padStart(5, '0')} of the guide\n`;
  return s;
}

/** A file of the draft, as native git reads it (undefined when absent). */
export function gitShow(repo: DiskRepo, path: string, draft = 'default'): string | undefined {
  const r = repo.gitResult('show', `refs/shadow/drafts/${draft}:${path}`);
  return r.status === 0 ? r.stdout : undefined;
}

export function assertError(r: Reply, status: number, code: string, message?: string | RegExp): void {
  assert.is(r.status, status, JSON.stringify(r.body));
  assert.equal(Object.keys(r.body), ['error'], 'errors are {error: {...}}');
  assert.is(r.body.error.code, code);
  assert.type(r.body.error.message, 'string');
  if (typeof message === 'string') assert.is(r.body.error.message, message);
  else if (message) assert.match(r.body.error.message, message);
}

/** A failed result that carries its own fields beside `error` (finalize, batch). */
export function assertFailure(r: Reply, status: number, code: string, message?: string): void {
  assert.is(r.status, status, JSON.stringify(r.body));
  assert.is(r.body.success, false);
  assert.is(r.body.error.code, code);
  if (message !== undefined) assert.is(r.body.error.message, message);
}

export async function begin(
  api: Api,
  target: string,
  operation = 'create',
  extra: Record<string, unknown> = {},
): Promise<string> {
  const r = await api.begin({ intent: `write ${target}`, target_file: target, operation, ...extra });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.session_id as string;
}
