import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';

/* A directory on disk, path by path: what tells whether anything in it was written. */

/**
 * Every path under `dir` (without `skip`) with what makes it what it is: type,
 * mode, inode, mtime and a content hash. Equal snapshots: nothing was written.
 */
export function snapshotTree(dir: string, skip: readonly string[] = ['.git']): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const name of fs.readdirSync(rel === '' ? dir : join(dir, rel)).sort()) {
      const p = rel === '' ? name : `${rel}/${name}`;
      if (skip.includes(p)) continue;
      const st = fs.lstatSync(join(dir, p));
      if (st.isDirectory()) {
        out[`${p}/`] = 'dir';
        walk(p);
      } else if (st.isSymbolicLink()) {
        out[p] = `link ${fs.readlinkSync(join(dir, p))} ino=${st.ino} mtime=${st.mtimeMs}`;
      } else {
        const sha = createHash('sha256')
          .update(fs.readFileSync(join(dir, p)))
          .digest('hex');
        out[p] = `file ${(st.mode & 0o777).toString(8)} ${sha} ino=${st.ino} mtime=${st.mtimeMs}`;
      }
    }
  };
  walk('');
  return out;
}

/** One hash over a snapshot: the working tree byte for byte (and stat for stat). */
export function treeHash(dir: string): string {
  return createHash('sha256')
    .update(JSON.stringify(snapshotTree(dir)))
    .digest('hex');
}

export function read(dir: string, p: string): string {
  return fs.readFileSync(join(dir, p), 'utf8');
}
