/** Loose objects (`objects/xx/yyyy…`): one read and inflated, and the ids stored under a prefix. */

import { inflateSync } from 'node:zlib';
import type { FileSystem } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';
import type { ObjectType, Oid } from './format/git-objects.js';
import { listDir } from '../durable/durable-file.js';
import type { RawObject } from './pack-reader.js';

/** The loose object `oid` in the objects directory `dir`, or undefined when it has none. */
export function readLooseObject(fs: FileSystem, dir: string, oid: Oid): RawObject | undefined {
  let compressed: Buffer;
  try {
    compressed = fs.readFileSync(`${dir}/${oid.slice(0, 2)}/${oid.slice(2)}`) as Buffer;
  } catch (e) {
    if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return undefined;
    throw e;
  }
  let raw: Buffer;
  try {
    raw = inflateSync(compressed);
  } catch {
    throw new ShadowError('CORRUPT_OBJECT', `loose object ${oid} is not valid zlib data`, {
      hint: 'run `git fsck`',
      data: { oid },
    });
  }
  const nul = raw.indexOf(0);
  const m = /^(blob|tree|commit|tag) (\d+)$/.exec(raw.toString('latin1', 0, nul));
  if (nul === -1 || !m || Number(m[2]) !== raw.length - nul - 1) {
    throw new ShadowError('CORRUPT_OBJECT', `loose object ${oid} has a bad header`, {
      hint: 'run `git fsck`',
      data: { oid },
    });
  }
  return { type: m[1] as ObjectType, content: raw.subarray(nul + 1) };
}

/** Every loose object id in `dir` that starts with `prefix`. */
export function looseIdsWithPrefix(fs: FileSystem, dir: string, prefix: string): Oid[] {
  const found: Oid[] = [];
  const dirs =
    prefix.length >= 2 ? [prefix.slice(0, 2)] : Array.from({ length: 16 }, (_, i) => prefix + i.toString(16));
  for (const d of dirs) {
    for (const name of listDir(fs, `${dir}/${d}`)) {
      const id = d + name;
      if (id.length === 40 && id.startsWith(prefix)) found.push(id);
    }
  }
  return found;
}
