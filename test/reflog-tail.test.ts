import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Volume, createFsFromVolume } from 'memfs';
import type { FileSystem } from '../src/context.js';
import { readReflog, type ReflogEntry } from '../src/git/reflog.js';

/**
 * readReflog(from) finds the last move to `from` from the log's end: a
 * draft's log grows a line a batch, and every load of a draft asks for the
 * last move to its tip. It must give what a search of the whole text gives,
 * whatever the log holds (ids named in messages, characters of several
 * bytes, lines that straddle the pieces it reads), and read little of a
 * long log whose last line is the move.
 */

const LOG = '/logs/refs/shadow/drafts/feature';

/** A memfs file system, and the bytes its reads returned. */
function countingFs(): { fs: FileSystem; read: () => number } {
  const fs = createFsFromVolume(new Volume()) as unknown as FileSystem;
  let bytes = 0;
  const readSync = fs.readSync.bind(fs) as (...a: unknown[]) => number;
  (fs as unknown as { readSync: (...a: unknown[]) => number }).readSync = (...a: unknown[]) => {
    const n = readSync(...a);
    bytes += n;
    return n;
  };
  const readFileSync = fs.readFileSync.bind(fs) as (...a: unknown[]) => string | Buffer;
  (fs as unknown as { readFileSync: (...a: unknown[]) => string | Buffer }).readFileSync = (...a: unknown[]) => {
    const out = readFileSync(...a);
    bytes += Buffer.byteLength(out);
    return out;
  };
  fs.mkdirSync('/logs/refs/shadow/drafts', { recursive: true });
  return { fs, read: () => bytes };
}

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const id = (n: number): string => n.toString(16).padStart(40, '0');

/** What a search of the whole text gives: the entries from the last line whose new value is `from`. */
function expected(text: string, from: string): ReflogEntry[] {
  const lines = text.split('\n');
  let start = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i]!.slice(41, 81) === from && lines[i]![40] === ' ' && lines[i]![81] === ' ') {
      start = i;
      break;
    }
  }
  const out: ReflogEntry[] = [];
  for (const line of lines.slice(start)) {
    const m = /^([0-9a-f]{40}) ([0-9a-f]{40}) (.*?) (\d+) [+-]\d{4}\t?(.*)$/.exec(line);
    if (m) out.push({ old: m[1]!, new: m[2]!, who: m[3]!, timestamp: Number(m[4]), message: m[5]! });
  }
  return out;
}

const R = suite('readReflog(from): the last move, searched from the end');

R('a long log whose last line is the move: one small piece is read, and its entry comes back', () => {
  const { fs, read } = countingFs();
  const lines: string[] = [];
  for (let i = 1; i <= 20_000; i++)
    lines.push(`${id(i - 1)} ${id(i)} Agent <a@x> ${1795000000 + i} +0000\tshadow: batch ${i}`);
  const text = `${lines.join('\n')}\n`;
  fs.writeFileSync(LOG, text);
  assert.ok(text.length > 1_500_000, 'a log of more than a megabyte and a half');
  const got = readReflog(fs, LOG, id(20_000));
  assert.equal(got, expected(text, id(20_000)));
  assert.is(got.length, 1);
  assert.ok(read() <= 8 * 1024, `read ${read()} bytes`);
  // A move 100 lines back: a few pieces, still a small part of the log.
  const before = read();
  assert.equal(readReflog(fs, LOG, id(19_900)), expected(text, id(19_900)));
  assert.ok(read() - before <= 64 * 1024, `read ${read() - before} bytes`);
  // Never moved there: the whole log, as before.
  assert.is(readReflog(fs, LOG, id(99_999)).length, 20_000);
});

R('any log: the same entries as a search of the whole text (ids in messages, characters of several bytes)', () => {
  const next = random(41);
  const words = ['batch', 'é', '漢字', '🙂', 'naïve', 'x'.repeat(300)];
  for (let round = 0; round < 150; round++) {
    const { fs } = countingFs();
    const ids = Array.from({ length: 6 }, (_, i) => id(round * 10 + i + 1));
    const pick = (): string => ids[Math.floor(next() * ids.length)]!;
    const lines: string[] = [];
    const count = 20 + Math.floor(next() * 400);
    for (let i = 0; i < count; i++) {
      // Messages name ids too, with spaces around them, as a line's new value has.
      const message = Array.from({ length: 1 + Math.floor(next() * 6) }, () =>
        next() < 0.4 ? ` ${pick()} ` : words[Math.floor(next() * words.length)]!,
      ).join(' ');
      lines.push(`${pick()} ${pick()} Agent <a@x> ${1795000000 + i} +0000\t${message}`);
    }
    const text = `${lines.join('\n')}\n`;
    fs.writeFileSync(LOG, text);
    for (const from of [...ids, id(999_999)])
      assert.equal(readReflog(fs, LOG, from), expected(text, from), `round ${round}, from ${from.slice(-4)}`);
  }
});

R('no log: no entries', () => {
  const { fs } = countingFs();
  assert.equal(readReflog(fs, LOG, id(1)), []);
  assert.equal(readReflog(fs, LOG), []);
});

R.run();
