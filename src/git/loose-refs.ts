/** Loose refs: one ref's file read (an id or a symbolic target), and the walk of a directory of them. */

import type { FileSystem } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';
import { isOid, type Oid } from './format/git-objects.js';
import { listDir, readTextIfExists } from '../durable/durable-file.js';

/** What a loose ref's file holds. */
export type LooseRef = { oid: Oid } | { target: string };

/** The raw content of the loose ref `ref` stored at `path`: an id, a symbolic target, or undefined. */
export function readLooseRef(fs: FileSystem, path: string, ref: string): LooseRef | undefined {
  let text: string | undefined;
  try {
    text = readTextIfExists(fs, path);
  } catch (e) {
    if (errnoCode(e) === 'EISDIR') return undefined;
    throw e;
  }
  if (text === undefined) return undefined;
  const v = text.trim();
  if (v.startsWith('ref:')) return { target: v.slice(4).trim() };
  if (!isOid(v)) {
    throw new ShadowError('CORRUPT_REF', `ref ${ref} holds "${v.slice(0, 60)}", not an object id`, {
      hint: `inspect ${path}; \`git update-ref\` can repair it`,
      data: { ref },
    });
  }
  return { oid: v };
}

/**
 * Every direct ref under `dir` (whose refs are named `<ref><name>`), read
 * through `read`, put in `found`; locks and temporary files skipped.
 */
export function collectLooseRefs(
  fs: FileSystem,
  dir: string,
  ref: string,
  read: (ref: string) => LooseRef | undefined,
  found: Map<string, Oid>,
): void {
  for (const name of listDir(fs, dir)) {
    if (name.endsWith('.lock') || name.includes('.tmp-')) continue;
    const path = `${dir}/${name}`;
    const child = `${ref}${name}`;
    let isDir = false;
    try {
      isDir = fs.statSync(path).isDirectory();
    } catch {
      continue;
    }
    if (isDir) collectLooseRefs(fs, path, `${child}/`, read, found);
    else {
      const loose = read(child);
      if (loose && 'oid' in loose) found.set(child, loose.oid);
    }
  }
}
