import type { FileSystem } from '../../src/index.js';
import { FS_OPS } from './fs-seam.js';

/**
 * memfs (4.80) counts a directory's children wrong when `renameSync`
 * replaces an existing file: the count goes up although the name was already
 * there, so a later `rmdirSync` of the emptied directory fails with
 * ENOTEMPTY. A write session renames state.json over itself at every save
 * and removes its directory at the end. This wrapper removes the target
 * first, which on a single-threaded in-memory volume is the same as an
 * atomic replace.
 */
export function withReplacingRename(inner: FileSystem): FileSystem {
  const out: Record<string, unknown> = {};
  for (const op of FS_OPS) out[op] = (inner[op] as (...a: unknown[]) => unknown).bind(inner);
  out.renameSync = (from: string, to: string) => {
    try {
      if (!inner.lstatSync(to).isDirectory()) inner.unlinkSync(to);
    } catch {
      /* no target */
    }
    inner.renameSync(from, to);
  };
  return out as unknown as FileSystem;
}
