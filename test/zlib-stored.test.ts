import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import { buildPack } from '../src/git/format/pack-writer.js';
import { adler32, storedZlib, unstoredZlib } from '../src/git/format/zlib-stored.js';
import { hashObject, MODE, serializeTree } from '../src/git/format/git-objects.js';

const Stored = suite('storedZlib');

function bytes(n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) out[i] = (i * 131 + (i >> 7)) & 0xff;
  return out;
}

Stored('adler-32 is the checksum zlib itself writes, across the 5,552-byte reduction runs', () => {
  for (const n of [0, 1, 5551, 5552, 5553, 70_000]) {
    const data = n === 70_000 ? Buffer.alloc(n, 0xff) : bytes(n); // all 0xff: the sums at their largest
    assert.is(adler32(data), deflateSync(data).readUInt32BE(deflateSync(data).length - 4), `length ${n}`);
  }
});

Stored('any inflater reads it back, at every block boundary', () => {
  for (const n of [0, 1, 100, 65534, 65535, 65536, 131070, 131071, 200_000]) {
    const data = bytes(n);
    const stream = Buffer.concat(storedZlib(data));
    assert.ok(inflateSync(stream).equals(data), `length ${n}`);
    // Framing only: 2 header bytes, 5 per block of at most 65,535 bytes, 4 of checksum.
    assert.is(stream.length, n + 2 + 5 * Math.max(1, Math.ceil(n / 65535)) + 4, `size for ${n}`);
    assert.is(stream.readUInt16BE(0) % 31, 0, 'a valid zlib header');
  }
});

Stored('a view into a larger buffer is framed from its own bytes only', () => {
  const big = bytes(1000);
  const view = big.subarray(100, 300);
  assert.ok(inflateSync(Buffer.concat(storedZlib(view))).equals(view));
});

Stored('buildPack stores trees as they are and deflates blobs', () => {
  const blob = Buffer.from('export const a = 1;\n'.repeat(200));
  const blobOid = hashObject('blob', blob);
  const tree = serializeTree([{ mode: MODE.file, name: 'a.ts', oid: blobOid }]);
  const built = buildPack([
    { oid: blobOid, type: 'blob', content: blob },
    { oid: hashObject('tree', tree), type: 'tree', content: tree },
  ]);
  const pack = Buffer.concat(built.pack);
  // The tree's bytes appear verbatim in the pack; the blob's do not (compressed).
  assert.ok(pack.includes(tree));
  assert.not.ok(pack.includes(blob));
  assert.ok(pack.length < blob.length / 4);
  assert.is(createHash('sha1').update(pack.subarray(0, -20)).digest('hex'), built.checksum);
});

const Unstored = suite('unstoredZlib: stored streams read without zlib, anything else left to it');

Unstored('what zlib inflates from a stored stream, at every block boundary, trailing bytes ignored', () => {
  for (const n of [0, 1, 100, 65534, 65535, 65536, 131071, 200_000]) {
    const data = bytes(n);
    for (const stream of [Buffer.concat(storedZlib(data)), deflateSync(data, { level: 0 })]) {
      const read = unstoredZlib(Buffer.concat([stream, Buffer.from('trailing')]), n);
      assert.ok(read !== undefined, `length ${n}: read`);
      assert.ok(read.equals(inflateSync(stream)), `length ${n}: the bytes zlib inflates`);
    }
  }
});

Unstored('a compressed stream, a wrong size, a cut, a bad length, checksum or header: undefined (zlib decides)', () => {
  const data = bytes(1000);
  const good = Buffer.concat(storedZlib(data));
  const flip = (at: number): Buffer => {
    const b = Buffer.from(good);
    b[at] = b[at]! ^ 0x01;
    return b;
  };
  const cases: Array<[string, Buffer, number]> = [
    ['compressed', deflateSync(data), 1000],
    ['a size too small', good, 999],
    ['a size too large', good, 1001],
    ['cut inside the data', good.subarray(0, 500), 1000],
    ['cut before the checksum', good.subarray(0, good.length - 2), 1000],
    ['LEN and NLEN disagree', flip(5), 1000],
    ['a byte of data changed', flip(100), 1000],
    ['the checksum changed', flip(good.length - 1), 1000],
    ['a header that is not deflate', flip(0), 1000],
    [
      'a preset dictionary',
      (() => {
        const b = Buffer.from(good);
        b[1] = 0x20 | b[1]!;
        return b;
      })(),
      1000,
    ],
    ['empty', Buffer.alloc(0), 0],
  ];
  for (const [what, stream, size] of cases) assert.is(unstoredZlib(stream, size), undefined, what);
  assert.ok(unstoredZlib(good, 1000)!.equals(data));
});

Stored.run();
Unstored.run();
