/**
 * Which start-up path a shadow process took, the fact beside its
 * milliseconds: `code cache` (the compiled code kept for its command was
 * there and used), `none` (no cache: this run compiled the bundle and wrote
 * one), `snapshot` (started from a V8 start-up snapshot, snapshot-trial.ts),
 * `handed off` (a running server ran the command: no bundle loaded).
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';

export type StartPath = 'code cache' | 'none' | 'snapshot' | 'handed off';

/** The cache files of command `key` beside the bundle in `binDir`, with their inode and mtime. */
function cacheStamps(binDir: string, key: string): Map<string, string> {
  const dir = join(binDir, '.code-cache');
  const out = new Map<string, string>();
  let names: string[];
  try {
    names = nodeFs.readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    if (!name.endsWith(`-${key}.bin`)) continue;
    const s = nodeFs.statSync(join(dir, name));
    out.set(name, `${s.ino}:${s.mtimeMs}`);
  }
  return out;
}

/**
 * Run a shadow command by the caller once (`runOnce`) and say whether it
 * used the code cache of `key`: a cache file there before, and not written
 * again (a used cache is never rewritten; code-cache.ts).
 */
export function cachePathOf(binDir: string, key: string, runOnce: () => void): StartPath {
  const before = cacheStamps(binDir, key);
  runOnce();
  const after = cacheStamps(binDir, key);
  const used = [...after].some(([name, stamp]) => before.get(name) === stamp);
  return used ? 'code cache' : 'none';
}
