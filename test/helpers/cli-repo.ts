import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { DiskRepo, withShadow, type CliResult } from './disk-repo.js';

/*
 * The CLI commands' tests on a real repository: a fresh one per test,
 * batches committed as fixtures, what a command that succeeds or fails
 * prints, and the blob id native git gives.
 */

export const DRAFT = 'refs/shadow/drafts/default';
export const OID = /^[0-9a-f]{40}$/;

export type Ctx = { repo: DiskRepo };

export function fresh(ctx: Ctx): void {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n', 'src/app.ts': 'export const app = 1\n', 'old.txt': 'old\n' });
}

/** Commit one batch as a fixture; its commit. */
export async function seed(
  repo: DiskRepo,
  operations: unknown[],
  options: { draft?: string; intent?: string } = {},
): Promise<string> {
  return withShadow(repo, async (sh) => {
    const r = await sh.batch({ intent: options.intent, operations }, { draft: options.draft });
    if (!r.success || !r.commit) throw new Error(`fixture batch failed: ${JSON.stringify(r.error)}`);
    return r.commit;
  });
}

export function batchText(operations: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...extra, operations });
}

/** A successful command: exit 0, nothing on stderr; its parsed JSON document. */
export function ok(r: CliResult, what: string): any {
  assert.is(r.status, 0, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  assert.is(r.stderr, '', `${what}: stderr should be empty`);
  return r.stdout.trimStart().startsWith('{') ? r.json() : undefined;
}

/** A failed --json command: exit 1 and exactly one {"error": {...}} document with `code`. */
export function failsJson(r: CliResult, code: string, what: string): any {
  assert.is(r.status, 1, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  const doc = r.json();
  const error = doc.error;
  assert.ok(error, `${what}: no error document in ${r.stdout}`);
  assert.is(error.code, code, `${what}: ${error.message}`);
  assert.type(error.message, 'string');
  assert.type(error.hint, 'string', `${what}: every error carries a hint`);
  return error;
}

/** A failed text-mode command: exit 1, the error and a `hint:` line on stderr. */
export function failsText(r: CliResult, message: RegExp, what: string): void {
  assert.is(r.status, 1, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  assert.match(r.stderr, message, what);
  assert.match(r.stderr, /^hint: /m, `${what}: a hint says what to do`);
}

export function hashOf(repo: DiskRepo, bytes: Buffer): string {
  const r = spawnGit(repo, ['hash-object', '--stdin'], bytes);
  return r.trim();
}

function spawnGit(repo: DiskRepo, args: string[], input: Buffer): string {
  const r = spawnSync('git', args, { cwd: repo.dir, env: repo.env, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
