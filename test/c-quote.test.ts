/**
 * Paths quoted as git quotes them (src/git/format/c-quote.ts): `git
 * ls-files` on real files with every kind of name is the oracle, with
 * core.quotePath on and off; what is quoted reads back to the same path,
 * and a malformed quoted string is refused rather than misread.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cQuote, cQuotePrefixed, cUnquote, readCQuoted } from '../src/git/format/c-quote.js';

const NAMES = [
  'plain.txt',
  'with space.txt',
  'tab\there',
  'new\nline',
  'bell\x07\x08\x0b\x0c\r',
  'ctrl\x01\x1f\x7f',
  'q"uote',
  'back\\slash',
  'café',
  '日本語',
  'emoji 🙂',
  '-dash',
];

const Quote = suite('c-quote');

Quote('every name as git ls-files writes it, core.quotePath on and off', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shadow-cquote-'));
  try {
    spawnSync('git', ['init', '-q', dir]);
    for (const n of NAMES) writeFileSync(join(dir, n), 'x');
    for (const fully of [true, false]) {
      const r = spawnSync('git', ['-c', `core.quotePath=${fully}`, 'ls-files', '-o'], { cwd: dir, encoding: 'utf8' });
      assert.is(r.status, 0, r.stderr);
      const ours = [...NAMES]
        .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
        .map((n) => cQuote(n, fully))
        .join('\n');
      assert.is(`${ours}\n`, r.stdout, `core.quotePath=${fully}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Quote('a prefix goes inside the quotes; a name that needs none is left as it is', () => {
  assert.is(cQuotePrefixed('a/', 'café.txt'), '"a/caf\\303\\251.txt"');
  assert.is(cQuotePrefixed('a/', 'café.txt', false), 'a/café.txt');
  assert.is(cQuotePrefixed('b/', 'with space.txt'), 'b/with space.txt');
  assert.is(cQuote('q"uote'), '"q\\"uote"');
});

Quote('what is quoted reads back to the same path', () => {
  const chars = ['a', ' ', '"', '\\', '\t', '\n', '\x00', '\x7f', 'é', '語', '🙂', '/', '3'];
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  for (let i = 0; i < 500; i++) {
    let p = '';
    for (let n = 1 + (next() % 12); n > 0; n--) p += chars[next() % chars.length];
    for (const fully of [true, false]) {
      const q = cQuote(p, fully);
      assert.is(cUnquote(q), p, JSON.stringify(p));
      assert.ok(!q.includes('\t') && !q.includes('\n'), 'no tab or newline left in a quoted name');
    }
  }
});

Quote('a malformed quoted string is refused: no closing quote, a bad escape, an octal over \\377, text after', () => {
  for (const bad of ['"abc', '"a\\q"', '"\\400"', '"\\38"', '"a\\', '"ab"c']) {
    assert.is(cUnquote(bad), undefined, bad);
  }
  assert.equal(readCQuoted('"a b" rest'), { value: 'a b', end: 5 });
  assert.is(cUnquote('not quoted'), 'not quoted');
});

Quote.run();
