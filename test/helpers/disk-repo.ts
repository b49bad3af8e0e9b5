import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  mkdtempSync,
  mkdirSync,
  rmSync,
  writeFileSync,
  readFileSync,
  existsSync,
  readdirSync,
  lstatSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openShadow, type Shadow } from '../../src/index.js';
import { runInThread, threadCanRun } from './cli-thread.js';

/** The bundled CLI, as users run it. */
export const SHADOW_BIN = fileURLToPath(new URL('../../bin/shadow.cjs', import.meta.url));

/** An environment that isolates git and shadow from the machine's own config. */
export function isolatedEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'TMPDIR', 'LANG', 'SYSTEMROOT']) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  return { ...env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', XDG_CONFIG_HOME: join(home, '.config'), TZ: 'UTC', ...extra };
}

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
  json(): any;
}

/** A real repository in a temporary directory, with helpers to run git and shadow in it. */
export class DiskRepo {
  readonly root: string;
  readonly dir: string;
  readonly home: string;
  env: Record<string, string>;

  constructor(files: Record<string, string> | null = { 'README.md': 'Hello\n' }, options: { bare?: boolean } = {}) {
    this.root = mkdtempSync(join(tmpdir(), 'shadow-test-'));
    this.home = join(this.root, 'home');
    this.dir = join(this.root, 'repo');
    mkdirSync(this.home);
    mkdirSync(this.dir);
    this.env = isolatedEnv(this.home);
    this.git('init', '-q', '-b', 'main', ...(options.bare ? ['--bare'] : []));
    // What `git config user.name …` and `git config user.email …` write, without two more git processes a repository.
    appendFileSync(
      join(this.dir, ...(options.bare ? [] : ['.git']), 'config'),
      '[user]\n\tname = Test User\n\temail = test@example.com\n',
    );
    if (files && !options.bare) {
      for (const [path, content] of Object.entries(files)) this.write(path, content);
      this.git('add', '-A');
      this.git('commit', '-q', '-m', 'initial commit');
    }
  }

  path(p: string): string {
    return join(this.dir, p);
  }

  write(p: string, content: string | Buffer): void {
    mkdirSync(dirname(this.path(p)), { recursive: true });
    writeFileSync(this.path(p), content);
  }

  read(p: string): string {
    return readFileSync(this.path(p), 'utf8');
  }

  exists(p: string): boolean {
    return existsSync(this.path(p));
  }

  /** Run native git; throws on a non-zero exit unless `allowFail`. */
  git(...args: string[]): string {
    const r = spawnSync('git', args, { cwd: this.dir, env: this.env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return r.stdout;
  }

  gitResult(...args: string[]): SpawnSyncReturns<string> {
    return spawnSync('git', args, { cwd: this.dir, env: this.env, encoding: 'utf8' });
  }

  /**
   * Run the shadow CLI: in the test process's CLI thread (helpers/cli-thread.ts), or as a process of its own with
   * `process: true` (or SHADOW_TEST_CLI=process, for every call), for what only a process has.
   */
  shadow(
    args: string[],
    options: { input?: string | Buffer; env?: Record<string, string>; cwd?: string; process?: boolean } = {},
  ): CliResult {
    const env = { ...this.env, ...options.env };
    if (options.process !== true && process.env.SHADOW_TEST_CLI !== 'process' && threadCanRun(env)) {
      const r = runInThread({ args, cwd: options.cwd ?? this.dir, env, input: options.input });
      const stdout = r.stdout.toString('utf8');
      return { status: r.status, stdout, stderr: r.stderr, json: () => JSON.parse(stdout) };
    }
    const r = spawnSync(process.execPath, [SHADOW_BIN, ...args], {
      cwd: options.cwd ?? this.dir,
      env,
      input: options.input,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const stdout = r.stdout ?? '';
    return {
      status: r.status ?? -1,
      stdout,
      stderr: r.stderr ?? '',
      json: () => JSON.parse(stdout),
    };
  }

  /** The value of a ref, or undefined. */
  ref(name: string): string | undefined {
    const r = this.gitResult('rev-parse', '-q', '--verify', name);
    return r.status === 0 ? r.stdout.trim() : undefined;
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** Every file under `root` but `.git`, with a sha256 of its bytes: a working tree's state, to compare before and after. */
export function treeHashes(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (rel === '' && name === '.git') continue;
      const full = join(dir, name);
      const path = rel === '' ? name : `${rel}/${name}`;
      if (lstatSync(full).isDirectory()) walk(full, path);
      else out[path] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(root, '');
  return out;
}

/** Run `f` on a new repository, removed afterwards. */
export function withRepo(f: (repo: DiskRepo) => void): void {
  const repo = new DiskRepo();
  try {
    f(repo);
  } finally {
    repo.cleanup();
  }
}

/** Run `f` with a library handle on `repo` (as its own environment sees it), closed after. */
export async function withShadow<T>(repo: DiskRepo, f: (sh: Shadow) => Promise<T>): Promise<T> {
  const sh = await openShadow({ dir: repo.dir, env: repo.env });
  try {
    return await f(sh);
  } finally {
    sh.close();
  }
}
