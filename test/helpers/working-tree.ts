import * as assert from 'uvu/assert';
import type { FileSystem } from '../../src/index.js';

/*
 * What a memfs working tree holds, path by path, in a form tests compare:
 * `-:content` or `x:content` (the executable bit), `link:target`, `dir`,
 * or null for nothing there.
 */

/** The directory of a memfs repository (mem-repo.ts). */
export const ROOT = '/repo';

/** What the working tree holds at a path, in a comparable form. */
export type Node = string | null;

export function nodeAt(fs: FileSystem, path: string, root = ROOT): Node {
  let st;
  try {
    st = fs.lstatSync(`${root}/${path}`);
  } catch {
    return null;
  }
  if (st.isDirectory()) return 'dir';
  if (st.isSymbolicLink()) return `link:${String(fs.readlinkSync(`${root}/${path}`))}`;
  const content = String(fs.readFileSync(`${root}/${path}`, 'utf8'));
  return `${(Number(st.mode) & 0o100) !== 0 ? 'x' : '-'}:${content}`;
}

export const file = (content: string, exec = false): Node => `${exec ? 'x' : '-'}:${content}`;

/** Every entry of the working tree outside .git (or of any tree `root`): path -> node. */
export function worktree(fs: FileSystem, root = ROOT, dir = ''): Record<string, Node> {
  const out: Record<string, Node> = {};
  for (const name of listNames(fs, dir === '' ? root : `${root}/${dir}`)) {
    if (dir === '' && name === '.git') continue;
    const path = dir === '' ? name : `${dir}/${name}`;
    const n = nodeAt(fs, path, root);
    out[path] = n;
    if (n === 'dir') Object.assign(out, worktree(fs, root, path));
  }
  return out;
}

export function listNames(fs: FileSystem, dir: string): string[] {
  try {
    return (fs.readdirSync(dir) as string[]).map(String).sort();
  } catch {
    return [];
  }
}

export function assertPaths(fs: FileSystem, want: Record<string, Node>, label = ''): void {
  for (const [p, n] of Object.entries(want)) assert.is(nodeAt(fs, p), n, `${label}${p}`);
}

/** Every path is exactly its old or its new state: never torn, never anything else. */
export function oldOrNew(fs: FileSystem, before: Record<string, Node>, after: Record<string, Node>): string[] {
  const bad: string[] = [];
  for (const p of Object.keys(after)) {
    const n = nodeAt(fs, p);
    if (n !== before[p] && n !== after[p]) bad.push(`${p}=${JSON.stringify(n)}`);
  }
  return bad;
}
