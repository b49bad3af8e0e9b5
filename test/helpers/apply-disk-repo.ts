import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { openShadow, type FileOperation, type Shadow } from '../../src/index.js';
import { DiskRepo, SHADOW_BIN } from './disk-repo.js';

/*
 * `shadow apply` on real directories: a draft made through the library, the
 * CLI with a time limit, a scan of a tree (content and identity), what an
 * apply leaves in .git/shadow, and native git's view.
 */

function open(repo: DiskRepo): Promise<Shadow> {
  return openShadow({ dir: repo.dir, env: repo.env });
}

export async function draft(repo: DiskRepo, batches: FileOperation[][]): Promise<void> {
  const sh = await open(repo);
  try {
    for (const [i, operations] of batches.entries()) {
      const r = await sh.batch({ intent: `batch ${i + 1}`, operations });
      assert.ok(r.success, JSON.stringify(r.error));
    }
  } finally {
    sh.close();
  }
}

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
  json: any;
}

/** Run the CLI with --json, with a time limit (a FIFO read by mistake would hang it). */
export function cli(repo: DiskRepo, args: string[]): Run {
  const r = spawnSync(process.execPath, [SHADOW_BIN, ...args, '--json'], {
    cwd: repo.dir,
    env: repo.env,
    encoding: 'utf8',
    timeout: 30_000,
    maxBuffer: 64 << 20,
  });
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

/** Content of every entry of a tree (kind, bytes, permission bits), and its identity (inode, mtime). */
export interface Scan {
  content: Record<string, string>;
  identity: Record<string, string>;
}

export function scan(root: string, skipGit = true): Scan {
  const out: Scan = { content: {}, identity: {} };
  const walk = (dir: string, rel: string): void => {
    for (const name of fs.readdirSync(dir).sort()) {
      if (skipGit && rel === '' && name === '.git') continue;
      const full = join(dir, name);
      const path = rel === '' ? name : `${rel}/${name}`;
      const st = fs.lstatSync(full, { bigint: true });
      const mode = (Number(st.mode) & 0o7777).toString(8);
      out.identity[path] = `${st.ino}:${st.mtimeNs}`;
      if (st.isDirectory()) {
        out.content[path] = `dir ${mode}`;
        walk(full, path);
      } else if (st.isSymbolicLink()) out.content[path] = `link ${fs.readlinkSync(full)}`;
      else if (st.isFile())
        out.content[path] = `file ${mode} ${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}`;
      else out.content[path] = `special ${Number(st.mode).toString(8)}`;
    }
  };
  walk(root, '');
  return out;
}

export function journals(repo: DiskRepo): string[] {
  try {
    return fs.readdirSync(repo.path('.git/shadow/journal')).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
}

export function records(repo: DiskRepo, name = 'default'): string[] {
  try {
    return fs.readdirSync(repo.path(`.git/shadow/drafts/${name}/applies`)).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
}

export function fsckClean(repo: DiskRepo): void {
  const r = repo.gitResult('fsck', '--no-progress', '--no-dangling');
  assert.is(r.status, 0, `git fsck: ${r.stdout}${r.stderr}`);
  assert.not.match(`${r.stdout}${r.stderr}`, /error|missing|broken|corrupt/i);
}

/** `git status --porcelain` lines, by path. */
export function status(repo: DiskRepo): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of repo.git('status', '--porcelain', '--untracked-files=all').split('\n')) {
    if (line) out[line.slice(3)] = line.slice(0, 2);
  }
  return out;
}

export const BASE_FILES: Record<string, string> = {
  'README.md': 'Hello\n',
  'a.txt': 'a\n',
  'src/app.ts': 'export {}\n',
  'src/lib/util.ts': 'export const u = 1\n',
  'old/gone.txt': 'gone\n',
};

export const BASE_DRAFT: FileOperation[] = [
  { operation: 'write', path: 'a.txt', content: 'A\n' },
  { operation: 'write', path: 'src/app.ts', content: 'export const app = 1\n' },
  { operation: 'write', path: 'src/new/feature.ts', content: 'export const f = 1\n' },
  { operation: 'write', path: 'newdir/x.txt', content: 'x\n' },
  { operation: 'delete', path: 'old/gone.txt' },
];
