/** bench/apply's floor: the changed contents written durably with plain fs calls, the least a durable write of those files can cost. */
import { join } from 'node:path';
import type { FileSystem } from '../../src/index.js';
import type { Change } from './changes.js';

/**
 * The floor: the same contents written in place with plain fs calls: open,
 * write, fsync, close each file; then open and fsync each directory touched.
 */
export function floorWrite(fs: FileSystem, root: string, changes: readonly Change[], dirs: readonly string[]): void {
  for (const c of changes) {
    const fd = fs.openSync(join(root, c.path), 'w');
    try {
      let off = 0;
      while (off < c.new.length) off += fs.writeSync(fd, c.new, off, c.new.length - off);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
  for (const d of dirs) {
    const fd = fs.openSync(d, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
}
