import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import { buildPack } from '../src/git/format/pack-writer.js';
import { adler32, storedZlib } from '../src/git/format/zlib-stored.js';
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

Stored.run();
