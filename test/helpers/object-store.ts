import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PackObject } from '../../src/git/format/pack-writer.js';
import { hashObject, type ObjectType } from '../../src/git/format/git-objects.js';
import { DiskRepo } from './disk-repo.js';

/*
 * A repository's object store as native git sees it (its packs, its loose
 * files, verify-pack's view of a pack) and the objects the ObjectDatabase
 * tests make.
 */

/** Deterministic pseudo-random bytes (incompressible content). */
export function noise(seed: string, length: number): Buffer {
  const parts: Buffer[] = [];
  let block = createHash('sha256').update(seed).digest();
  let n = 0;
  while (n < length) {
    parts.push(block);
    n += block.length;
    block = createHash('sha256').update(block).digest();
  }
  return Buffer.concat(parts).subarray(0, length);
}

export function objectsDir(repo: DiskRepo): string {
  return join(repo.dir, '.git', 'objects');
}

export function packs(repo: DiskRepo): string[] {
  const dir = join(objectsDir(repo), 'pack');
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => n.endsWith('.idx'))
        .map((n) => join(dir, n))
    : [];
}

export function looseCount(repo: DiskRepo): number {
  return readdirSync(objectsDir(repo))
    .filter((d) => /^[0-9a-f]{2}$/.test(d))
    .reduce((n, d) => n + readdirSync(join(objectsDir(repo), d)).length, 0);
}

export interface VerifyEntry {
  oid: string;
  type: string;
  offset: number;
  depth: number;
}

/** `git verify-pack -v`, parsed; throws when git finds the pack bad. */
export function verifyPack(repo: DiskRepo, idx: string): VerifyEntry[] {
  const out = repo.git('verify-pack', '-v', idx);
  assert.match(out, /: ok\n$/);
  const entries: VerifyEntry[] = [];
  for (const line of out.split('\n')) {
    const m = /^([0-9a-f]{40}) (\w+)\s+\d+ \d+ (\d+)(?: (\d+) [0-9a-f]{40})?$/.exec(line);
    if (m) entries.push({ oid: m[1]!, type: m[2]!, offset: Number(m[3]), depth: m[4] ? Number(m[4]) : 0 });
  }
  return entries;
}

export function obj(type: ObjectType, content: Buffer | string): PackObject {
  const c = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return { oid: hashObject(type, c), type, content: c };
}
