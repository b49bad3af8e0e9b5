import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FileSystem } from '../src/index.js';
import { statStamp } from '../src/durable/durable-file.js';

/**
 * statStamp's racy rule, which decides when a cached index, packed-refs or
 * ignore file may be trusted by its stat alone: two seconds where the file
 * system keeps whole-second times, a tenth of a second where its times
 * carry a fraction.
 */

const S = suite('stat stamp');

/** A file system that answers stat with the given times. */
function statOnly(mtimeMs: number, ctimeMs: number): FileSystem {
  const st = { ino: 7, size: 42, mtimeMs, ctimeMs };
  return { statSync: () => st, lstatSync: () => st } as unknown as FileSystem;
}

S('fine times: racy for a tenth of a second after the change, then trusted', () => {
  const t = 1_790_000_000_123.456;
  const fs = statOnly(t - 5, t);
  assert.is(statStamp(fs, '/f', t).racy, true, 'just changed');
  assert.is(statStamp(fs, '/f', t + 60).racy, true, 'within a clock tick and the lag of the file times');
  assert.is(statStamp(fs, '/f', t + 100).racy, false);
  assert.is(statStamp(fs, '/f', t + 1500).racy, false);
});

S('whole-second times (FAT, HFS+, ext3): racy for two seconds', () => {
  const t = 1_790_000_000_000;
  const fs = statOnly(t - 1000, t);
  assert.is(statStamp(fs, '/f', t + 100).racy, true);
  assert.is(statStamp(fs, '/f', t + 1500).racy, true, 'a second change in the same second keeps the stamp');
  assert.is(statStamp(fs, '/f', t + 1999).racy, true);
  assert.is(statStamp(fs, '/f', t + 2000).racy, false);
});

S('the newer of mtime and ctime counts; a clock behind the file is racy', () => {
  const t = 1_790_000_000_500.25;
  assert.is(statStamp(statOnly(t - 10_000, t), '/f', t + 50).racy, true, 'ctime: a rename or chmod is a change');
  assert.is(statStamp(statOnly(t, t - 10_000), '/f', t + 50).racy, true, 'mtime');
  assert.is(statStamp(statOnly(t, t), '/f', t - 5000).racy, true, 'now before the change');
});

S('the stamp holds inode, size and both times; a missing file is "-"', () => {
  const t = 1_790_000_000_500.25;
  const r = statStamp(statOnly(t - 1, t), '/f', t + 10_000);
  assert.equal(r, { stamp: `7:42:${t - 1}:${t}`, racy: false, size: 42 });
  const missing = { statSync: () => undefined, lstatSync: () => undefined } as unknown as FileSystem;
  assert.equal(statStamp(missing, '/f', t), { stamp: '-', racy: false, size: 0 });
});

S.run();
