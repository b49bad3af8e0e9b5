import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { openShadow, type Shadow, type ShadowError } from '../../src/index.js';
import { DiskRepo, SHADOW_BIN } from './disk-repo.js';

/*
 * The worktree tests' repository on disk (committed files, an executable,
 * the user's own uncommitted edit, untracked and ignored files), a suite
 * that gives each test its own, and the library and the CLI on it.
 */

export const REF = (draft = 'default'): string => `refs/shadow/drafts/${draft}`;

export function open(repo: DiskRepo): Promise<Shadow> {
  return openShadow({ dir: repo.dir, env: repo.env });
}

/** A directory beside the repository (never inside its working tree). */
export function beside(repo: DiskRepo, name = 'wt'): string {
  return join(repo.root, name);
}

export async function expectError(code: string, f: () => Promise<unknown>): Promise<ShadowError> {
  try {
    await f();
  } catch (e) {
    assert.is((e as ShadowError).code, code, (e as Error).message);
    return e as ShadowError;
  }
  assert.unreachable(`expected ${code}`);
  throw new Error('unreachable');
}

export interface Cli {
  status: number;
  stdout: string;
  stderr: string;
  json: any;
}

/** The CLI, with a time limit; `json` parsed when stdout is one JSON document. */
export function cli(repo: DiskRepo, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Cli {
  const r = spawnSync(process.execPath, [SHADOW_BIN, ...args], {
    cwd: options.cwd ?? repo.dir,
    env: { ...repo.env, ...options.env },
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 << 20,
  });
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { status: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '', json };
}

export const FILES = {
  'README.md': 'Hello\n',
  '.gitignore': 'node_modules/\n*.log\n.env\n',
  'a.txt': 'alpha\n',
  'c.txt': 'charlie\n',
  'src/x.js': 'export const x = "x";\n',
  'src/deep/y.js': 'export const y = "y";\n',
  'bin/run.sh': '#!/bin/sh\necho run\n',
};

/** The usual repository: committed files, an executable, the user's own uncommitted edit, untracked and ignored files. */
export function makeRepo(): DiskRepo {
  const repo = new DiskRepo(FILES);
  fs.chmodSync(repo.path('bin/run.sh'), 0o755);
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'exec bit');
  repo.write('README.md', 'Hello, my uncommitted edit\n');
  repo.write('notes.txt', 'untracked, not ignored\n');
  repo.write('debug.log', 'ignored\n');
  repo.write('.env', 'SECRET=1\n');
  repo.write('node_modules/pkg/index.js', 'ignored too\n');
  return repo;
}

/** A suite whose every test gets a repository of its own (`make`, the usual one by default), cleaned up after. */
export function repoSuite(name: string, make: () => DiskRepo = makeRepo) {
  const s = suite<{ repo: DiskRepo }>(name);
  s.before.each((ctx) => {
    ctx.repo = make();
  });
  s.after.each((ctx) => ctx.repo.cleanup());
  return s;
}
