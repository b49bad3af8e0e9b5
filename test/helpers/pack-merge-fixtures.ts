import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { blobOid } from '../../src/git/format/git-objects.js';
import type { DiskRepo } from './disk-repo.js';

/** What the pack merge tests write and check (pack-merge-steps, pack-merge-thread). */

/** Blob `i`: a different size each, so that the packs they make differ in size. */
export const mergeBlob = (i: number) => {
  const content = Buffer.from(`blob ${i}\n${'x'.repeat(i * 100)}\n`);
  return { oid: blobOid(content), type: 'blob' as const, content };
};

/** Run git in `repo`; its stdout (the test fails when git does). */
export function gitIn(repo: DiskRepo, args: string[], input?: string): string {
  const r = spawnSync('git', args, { cwd: repo.dir, env: repo.env, encoding: 'utf8', input });
  assert.is(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The pack indexes in `repo`. */
export const packsIn = (repo: DiskRepo): string[] =>
  readdirSync(`${repo.dir}/.git/objects/pack`).filter((f) => f.endsWith('.idx'));
