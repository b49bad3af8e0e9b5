import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import type { ObjectType } from './git-objects.js';
import { storedZlib } from './zlib-stored.js';

/**
 * Builds a packfile and its version-2 index in memory from whole objects (no
 * deltas). shadow writes every batch as one small pack: two fsyncs for the
 * whole batch, where loose objects would cost one per object (about 0.3 ms
 * each on disk).
 */

export interface PackObject {
  oid: string;
  type: ObjectType;
  content: Uint8Array;
}

export interface BuiltPack {
  /** The pack's checksum in hex; the file is `pack-<checksum>.pack`. */
  checksum: string;
  /** Number of objects. */
  count: number;
  /**
   * The pack's bytes, in pieces to write one after the other: never joined
   * into one buffer, so a 10 MB blob is not held twice more while it is
   * written.
   */
  pack: readonly Buffer[];
  idx: Buffer;
}

const TYPE_CODES: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };

/**
 * Most objects of a batch are small (a commit, trees, edited files): zlib's
 * set-up of its default 32 KB window then costs more than the compression.
 * A 4 KB window for them halves the time; any inflater reads the result.
 */
const SMALL_OBJECT = 4096;
const SMALL_DEFLATE = { level: 1, windowBits: 12, memLevel: 4 } as const;

/** An entry's header: its type and inflated size. */
export function entryHeader(type: ObjectType, size: number): Buffer {
  const bytes: number[] = [];
  let c = (TYPE_CODES[type] << 4) | (size & 15);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(c | 0x80);
    c = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(c);
  return Buffer.from(bytes);
}

/** An entry copied byte for byte from another pack (never a delta). */
export interface RawEntry {
  oid: string;
  crc: number;
  /** The entry's bytes (header and deflated body), in pieces. */
  parts: readonly Buffer[];
}

/**
 * Pack `objects` (duplicates by id are dropped). Blobs get level-1 deflate,
 * git's own default for freshly written objects. Trees, commits and tags are
 * stored as they are (see zlib-stored.ts): trees are mostly object ids, which
 * do not compress, and framing them costs a tenth of deflating them.
 */
export function buildPack(objects: readonly PackObject[]): BuiltPack {
  return buildPackFromRaw(uniqueObjects(objects).map(encodeEntry));
}

/**
 * Pack `objects` as buildPack does, handing each piece of the pack to
 * `write` as soon as it is made: a batch's deflated blobs are never all held
 * at once. Returns what buildPack returns, but the pack's bytes.
 */
export function streamPack(objects: readonly PackObject[], write: (part: Buffer) => void): Omit<BuiltPack, 'pack'> {
  const unique = uniqueObjects(objects);
  const hash = createHash('sha1');
  const emit = (p: Buffer): void => {
    hash.update(p);
    write(p);
  };
  emit(packHeader(unique.length));
  const meta: Array<{ id: Buffer; offset: number; crc: number }> = [];
  let offset = 12;
  for (const o of unique) {
    const e = encodeEntry(o);
    meta.push({ id: Buffer.from(e.oid, 'hex'), offset, crc: e.crc });
    for (const p of e.parts) {
      emit(p);
      offset += p.length;
    }
  }
  const packSum = hash.digest();
  write(packSum);
  return { checksum: packSum.toString('hex'), count: unique.length, idx: buildIndex(meta, packSum) };
}

function uniqueObjects(objects: readonly PackObject[]): PackObject[] {
  const unique = new Map<string, PackObject>();
  for (const o of objects) if (!unique.has(o.oid)) unique.set(o.oid, o);
  return [...unique.values()];
}

function encodeEntry(o: PackObject): RawEntry {
  const parts = [entryHeader(o.type, o.content.length)];
  if (o.type === 'blob')
    parts.push(deflateSync(o.content, o.content.length <= SMALL_OBJECT ? SMALL_DEFLATE : { level: 1 }));
  else parts.push(...storedZlib(o.content));
  let crc = 0;
  for (const p of parts) crc = crc32(p, crc);
  return { oid: o.oid, crc, parts };
}

/** Pack entries that are already encoded (a merge of packs copies them as they are). */
export function buildPackFromRaw(input: readonly RawEntry[]): BuiltPack {
  const seen = new Set<string>();
  const list = input.filter((e) => !seen.has(e.oid) && seen.add(e.oid));
  const parts: Buffer[] = [packHeader(list.length)];
  const meta: Array<{ id: Buffer; offset: number; crc: number }> = [];
  let offset = 12;
  for (const e of list) {
    meta.push({ id: Buffer.from(e.oid, 'hex'), offset, crc: e.crc });
    for (const p of e.parts) {
      parts.push(p);
      offset += p.length;
    }
  }
  const packHash = createHash('sha1');
  for (const p of parts) packHash.update(p);
  const packSum = packHash.digest();
  parts.push(packSum);
  return { checksum: packSum.toString('hex'), count: list.length, pack: parts, idx: buildIndex(meta, packSum) };
}

/** The 12 bytes a version-2 pack of `count` objects starts with. */
export function packHeader(count: number): Buffer {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(count, 8);
  return header;
}

/** A version-2 index for entries at the given offsets. */
export function buildIndex(meta: Array<{ id: Buffer; offset: number; crc: number }>, packSum: Buffer): Buffer {
  meta.sort((a, b) => Buffer.compare(a.id, b.id));
  const n = meta.length;
  const large = meta.filter((m) => m.offset >= 0x80000000);
  const idx = Buffer.alloc(8 + 1024 + n * 28 + large.length * 8 + 40);
  idx.writeUInt32BE(0xff744f63, 0);
  idx.writeUInt32BE(2, 4);
  const counts = new Uint32Array(256);
  for (const m of meta) counts[m.id[0]!]!++;
  let running = 0;
  for (let i = 0; i < 256; i++) {
    running += counts[i]!;
    idx.writeUInt32BE(running, 8 + i * 4);
  }
  let p = 8 + 1024;
  for (const m of meta) {
    m.id.copy(idx, p);
    p += 20;
  }
  for (const m of meta) {
    idx.writeUInt32BE(m.crc >>> 0, p);
    p += 4;
  }
  let li = 0;
  const largeStart = p + n * 4;
  for (const m of meta) {
    if (m.offset >= 0x80000000) {
      idx.writeUInt32BE((0x80000000 | li) >>> 0, p);
      idx.writeBigUInt64BE(BigInt(m.offset), largeStart + li * 8);
      li++;
    } else {
      idx.writeUInt32BE(m.offset, p);
    }
    p += 4;
  }
  p = largeStart + large.length * 8;
  packSum.copy(idx, p);
  p += 20;
  createHash('sha1').update(idx.subarray(0, p)).digest().copy(idx, p);
  return idx;
}
