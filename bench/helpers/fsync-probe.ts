import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { median, p90 } from './stats.js';

/**
 * What one fsync costs on this disk right now: a new 4 KB file written and
 * fsynced `runs` times in `dir`. Printed next to the results, because the
 * on-disk numbers of shadow (5 fsyncs a batch) move with it.
 */
export function fsyncProbe(dir: string, runs = 30): { median: number; p90: number } {
  const times: number[] = [];
  const data = Buffer.alloc(4096, 0x61);
  for (let i = 0; i < runs; i++) {
    const path = join(dir, `fsync-probe-${process.pid}-${i}`);
    const fd = nodeFs.openSync(path, 'wx');
    try {
      nodeFs.writeSync(fd, data);
      const t0 = performance.now();
      nodeFs.fsyncSync(fd);
      times.push(performance.now() - t0);
    } finally {
      nodeFs.closeSync(fd);
      nodeFs.unlinkSync(path);
    }
  }
  return { median: median(times), p90: p90(times) };
}
