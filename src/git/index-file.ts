import type { FileSystem } from '../context.js';
import { errnoCode } from '../errors.js';

/**
 * Just enough of git's index format to refuse what shadow does not support:
 * the header's version, and whether the index is split (its `link`
 * extension). Reading the whole index costs O(files), so the full scan runs
 * only when a `sharedindex.*` file says a split index may be in use.
 */

/** The version in the index header, or undefined when there is no index. */
export function readIndexVersion(fs: FileSystem, path: string): { signature: string; version: number } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const head = Buffer.alloc(12);
    const n = fs.readSync(fd, head, 0, 12, 0);
    if (n < 12) return { signature: '', version: 0 };
    return { signature: head.toString('latin1', 0, 4), version: head.readUInt32BE(4) };
  } finally {
    fs.closeSync(fd);
  }
}

/** True when the index (version 2 or 3) carries the `link` extension of a split index. */
export function hasLinkExtension(index: Buffer): boolean {
  const version = index.readUInt32BE(4);
  const count = index.readUInt32BE(8);
  let p = 12;
  for (let i = 0; i < count; i++) {
    if (p + 62 > index.length) return false;
    const flags = index.readUInt16BE(p + 60);
    const extended = version >= 3 && (flags & 0x4000) !== 0;
    const fixed = 62 + (extended ? 2 : 0);
    let nameLength = flags & 0xfff;
    if (nameLength === 0xfff) nameLength = index.indexOf(0, p + fixed) - (p + fixed);
    // Entries are NUL-padded to a multiple of eight bytes (at least one NUL).
    p += (fixed + nameLength + 8) & ~7;
  }
  const end = index.length - 20;
  while (p + 8 <= end) {
    const signature = index.toString('latin1', p, p + 4);
    if (signature === 'link') return true;
    p += 8 + index.readUInt32BE(p + 4);
  }
  return false;
}
