/** bench/apply's workload: the k files a draft changes (old and new contents), the directories they are in, and whether the tree holds either side. */
import * as nodeFs from 'node:fs';
import { dirname, join } from 'node:path';
import type { CachedRepo } from '../helpers/repo.js';
import { content, prng } from '../helpers/workload.js';

export interface Change {
  path: string;
  old: Buffer;
  new: Buffer;
}

/**
 * k tracked files drawn at random over the whole tree (a seeded shuffle, so
 * every run changes the same files), each rewritten to 1-4 KB: a header
 * line, the file as it was, lines added up to a size drawn in 1,024..4,096.
 */
export function makeChanges(repo: CachedRepo, dir: string, k: number): Change[] {
  const rand = prng(repo.n * 7919 + k);
  const order = [...repo.layout.paths];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order.slice(0, k).map((path) => {
    const old = nodeFs.readFileSync(join(dir, path));
    const target = 1024 + Math.floor(rand() * 3073);
    let text = `// ${path}: edited for the apply benchmark (k=${k})\n${old.toString('utf8')}`;
    while (Buffer.byteLength(text) < target) text += content(rand, '// added');
    const buf = Buffer.from(text, 'utf8');
    return { path, old, new: buf.length > 4096 ? Buffer.from(cutAtLine(buf, 4096)) : buf };
  });
}

/** The longest prefix of `buf` of at most `max` bytes that ends with a newline (ASCII text). */
function cutAtLine(buf: Buffer, max: number): Buffer {
  const nl = buf.lastIndexOf(0x0a, max - 1);
  return buf.subarray(0, nl === -1 ? max : nl + 1);
}

export function directoriesOf(root: string, changes: readonly Change[]): string[] {
  return [...new Set(changes.map((c) => dirname(join(root, c.path))))];
}

/** True when every changed path holds `which` side of its change. */
export function treeHolds(root: string, changes: readonly Change[], which: 'old' | 'new'): boolean {
  return changes.every((c) => nodeFs.readFileSync(join(root, c.path)).equals(c[which]));
}
