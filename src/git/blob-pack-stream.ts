import { createHash } from 'node:crypto';
import { createDeflate, crc32 } from 'node:zlib';
import type { FileSystem } from '../context.js';
import { writeAll } from '../durable/durable-file.js';
import { buildIndex, entryHeader, packHeader } from './format/pack-writer.js';

/**
 * A one-blob pack streamed from a file: the blob's content is `prefix`
 * (what an append adds to) followed by the file's first `length` bytes,
 * read a megabyte at a time into one reused buffer, hashed and deflated as
 * it goes, and written to `tmpPack`. Memory stays a few megabytes whatever
 * the size: a write session's 10 MB content is never held whole (the
 * in-memory pack writer would hold it, its deflated copy and the pack).
 *
 * Hand-written over node's zlib and crypto streams: isomorphic-git has no
 * streaming object writer.
 */

const READ_SIZE = 1 << 20;

export interface StreamedPack {
  /** The blob's id. */
  oid: string;
  /** The blob's size. */
  size: number;
  /** The pack's checksum (hex): it is installed as `pack-<checksum>.pack`. */
  checksum: string;
  /** Its version-2 index. */
  idx: Buffer;
}

export async function streamBlobPack(
  fs: FileSystem,
  source: string,
  length: number,
  prefix: Buffer,
  tmpPack: string,
): Promise<StreamedPack> {
  const size = prefix.length + length;
  const blobHash = createHash('sha1').update(`blob ${size}\0`);
  const packHash = createHash('sha1');
  // The source first: when it cannot be opened, nothing is left open.
  const src = fs.openSync(source, 'r');
  let out: number | undefined;
  const deflate = createDeflate({ level: 1, chunkSize: READ_SIZE });
  try {
    out = fs.openSync(tmpPack, 'wx', 0o644);
    const fd = out;
    const put = (b: Buffer): void => {
      packHash.update(b);
      writeAll(fs, fd, b);
    };
    put(packHeader(1));
    const head = entryHeader('blob', size);
    put(head);
    let crc = crc32(head);
    // zlib's output is collected in its callback and written here, between
    // awaits: a write that fails (a full disk) then rejects this function
    // instead of throwing inside a zlib callback.
    let produced: Buffer[] = [];
    deflate.on('data', (d: Buffer) => produced.push(d));
    const drain = (): void => {
      for (const d of produced) {
        crc = crc32(d, crc);
        put(d);
      }
      produced = [];
    };
    const ended = new Promise<void>((resolve, reject) => {
      deflate.once('end', resolve);
      deflate.once('error', reject);
    });
    ended.catch(() => undefined); // awaited below; an error that comes while a write is awaited is thrown from there
    // The callback of write comes once zlib has taken the chunk in: the buffer may be refilled then.
    const feed = async (b: Buffer): Promise<void> => {
      await new Promise<void>((resolve, reject) => deflate.write(b, (e) => (e ? reject(e) : resolve())));
      drain();
    };
    if (prefix.length > 0) {
      blobHash.update(prefix);
      await feed(prefix);
    }
    const buf = Buffer.allocUnsafe(Math.min(READ_SIZE, Math.max(1, length)));
    for (let at = 0; at < length;) {
      const n = fs.readSync(src, buf, 0, Math.min(buf.length, length - at), at);
      if (n === 0) throw new Error(`${source} ended at byte ${at} of ${length}`);
      const piece = buf.subarray(0, n);
      blobHash.update(piece);
      await feed(piece);
      at += n;
    }
    deflate.end();
    await ended;
    drain();
    const packSum = packHash.digest();
    writeAll(fs, fd, packSum);
    fs.fsyncSync(fd);
    const oid = blobHash.digest('hex');
    return {
      oid,
      size,
      checksum: packSum.toString('hex'),
      idx: buildIndex([{ id: Buffer.from(oid, 'hex'), offset: 12, crc }], packSum),
    };
  } finally {
    deflate.destroy();
    fs.closeSync(src);
    if (out !== undefined) fs.closeSync(out);
  }
}
