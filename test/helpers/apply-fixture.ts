import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import * as git from 'isomorphic-git';
import { openShadow, type FileOperation, type FileSystem, type Processes, type Shadow } from '../../src/index.js';
import { memRepo as plainMemRepo, type MemRepo } from './mem-repo.js';
import { FsSeam } from './fs-seam.js';
import { file, ROOT, type Node } from './working-tree.js';

/*
 * The apply tests' repository on memfs, opened as a process of a process
 * table, and their standard fixture: a draft over a working tree that holds
 * the user's own untracked, ignored and dirty files.
 */

export const HOST = 'memhost';

/**
 * A memfs repository that trusts the executable bit, as git does on Linux
 * (isomorphic-git's init writes core.filemode = false).
 */
export async function memRepo(files: Record<string, string>): Promise<MemRepo> {
  const repo = await plainMemRepo(files);
  await git.setConfig({ fs: repo.fs, dir: ROOT, path: 'core.filemode', value: true });
  return repo;
}

export function blobOid(content: string | Buffer): string {
  const body = typeof content === 'string' ? Buffer.from(content) : content;
  return createHash('sha1').update(`blob ${body.length}\0`).update(body).digest('hex');
}

/** A process table in which only `self` (and `alsoAlive`) is alive. */
export function processes(self: number, alsoAlive: number[] = []): Processes {
  return { self, host: HOST, isAlive: (pid) => pid === self || alsoAlive.includes(pid) };
}

/** Open shadow on `fs` (default the repository's own) as process `pid`. */
export function openAs(repo: MemRepo, fs: FileSystem = repo.fs, pid = 100): Promise<Shadow> {
  const { clock, ids, env } = repo.ctx;
  return openShadow({ dir: ROOT, fs, clock, ids, env, processes: processes(pid) });
}

export async function codeOf(f: () => Promise<unknown>): Promise<{ code: string; data: any; message: string }> {
  try {
    await f();
  } catch (e) {
    const err = e as { code?: string; data?: unknown; message: string };
    return { code: err.code ?? 'NO_CODE', data: err.data, message: err.message };
  }
  assert.unreachable('expected an error');
  throw new Error('unreachable');
}

export async function batch(sh: Shadow, operations: FileOperation[], intent = 'change'): Promise<void> {
  const r = await sh.batch({ intent, operations });
  assert.ok(r.success, JSON.stringify(r.error));
}

export const FILES: Record<string, string> = {
  '.gitignore': '.env\nbuild/\n',
  'README.md': 'Hello\n',
  'a.txt': 'a\n',
  'src/app.ts': 'export {}\n',
  'src/lib/util.ts': 'export const u = 1\n',
  'old/gone.txt': 'gone\n',
  'run.sh': '#!/bin/sh\n',
  'docs/guide.md': 'guide\n',
  'move/me.txt': 'moving\n',
};

/** The user's own state: untracked, ignored and dirty files, none of them in the publish set. */
export const USER_FILES: Record<string, string> = {
  'notes.txt': 'my notes\n',
  '.env': 'TOKEN=secret\n',
  'build/out.js': 'built\n',
  'docs/guide.md': 'guide\nmy edit\n',
};

/** The draft: a captured dirty edit, a modify, a create in a new directory, a delete that empties a directory, a rename, a mode change. */
export const DRAFT_OPS: FileOperation[] = [
  { operation: 'edit', path: 'a.txt', old_content: 'local', content: 'LOCAL' },
  { operation: 'write', path: 'src/app.ts', content: 'export const app = 1\n' },
  { operation: 'write', path: 'src/new/feature.ts', content: 'export const f = 1\n' },
  { operation: 'delete', path: 'old/gone.txt' },
  { operation: 'rename', path: 'move/me.txt', to: 'moved/me.txt' },
  { operation: 'chmod', path: 'run.sh', mode: '100755' },
];

export const EXPECTED_SET = [
  { path: 'a.txt', action: 'modify' },
  { path: 'move/me.txt', action: 'delete' },
  { path: 'moved/me.txt', action: 'create' },
  { path: 'old/gone.txt', action: 'delete' },
  { path: 'run.sh', action: 'mode' },
  { path: 'src/app.ts', action: 'modify' },
  { path: 'src/new/feature.ts', action: 'create' },
];

/** Each path of the set: before and after the publish. */
export const BEFORE: Record<string, Node> = {
  'a.txt': file('a\nlocal\n'),
  'move/me.txt': file('moving\n'),
  'moved/me.txt': null,
  'old/gone.txt': file('gone\n'),
  'run.sh': file('#!/bin/sh\n'),
  'src/app.ts': file('export {}\n'),
  'src/new/feature.ts': null,
};
export const AFTER: Record<string, Node> = {
  'a.txt': file('a\nLOCAL\n'),
  'move/me.txt': null,
  'moved/me.txt': file('moving\n'),
  'old/gone.txt': null,
  'run.sh': file('#!/bin/sh\n', true),
  'src/app.ts': file('export const app = 1\n'),
  'src/new/feature.ts': file('export const f = 1\n'),
};

export interface Fixture {
  repo: MemRepo;
  /** A handle on the plain fs. */
  sh: Shadow;
  /** A second handle (another process) whose fs calls go through `seam`. */
  seam: FsSeam;
  viaSeam: Shadow;
}

export async function standardFixture(ctx: Fixture): Promise<void> {
  ctx.repo = await memRepo(FILES);
  for (const [p, c] of Object.entries(USER_FILES)) ctx.repo.write(p, c);
  ctx.repo.write('a.txt', 'a\nlocal\n'); // a dirty file the draft then edits: its base is this content
  ctx.sh = await openAs(ctx.repo);
  await batch(ctx.sh, DRAFT_OPS, 'the agent works');
  ctx.seam = new FsSeam(ctx.repo.fs);
  ctx.viaSeam = await openAs(ctx.repo, ctx.seam.fs, 101);
  ctx.seam.record = true;
}
