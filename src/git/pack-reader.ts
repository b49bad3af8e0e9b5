import { inflateSync } from 'node:zlib';
import type { FileSystem } from '../context.js';
import { ShadowError } from '../errors.js';
import type { ObjectType } from './format/git-objects.js';
import { unstoredZlib } from './format/zlib-stored.js';

/**
 * Reads objects out of one packfile through its version-2 index, with
 * positioned reads: a lookup touches the fan-out table and one slice of the
 * id table, never the whole file.
 *
 * Written here rather than taken from isomorphic-git: its pack reader loads
 * the whole packfile into memory on first use (hundreds of MB in a real
 * repository) and parses the whole index into a Map, which a one-shot
 * `shadow batch` cannot afford.
 */

export interface RawObject {
  type: ObjectType;
  content: Buffer;
}

const TYPE_NAMES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;
const MAX_DELTA_DEPTH = 10_000;
const BASE_CACHE_BYTES = 16 * 1024 * 1024;
const WHOLE_INDEX_BYTES = 256 * 1024;
/** Bytes read at an entry at first: its header and, for most objects, all of their compressed data. */
const HEAD_AND_BODY_GUESS = 4096;
/**
 * A read of the packfile for an object's entry near the one read before it
 * takes this much (64 KB, half of it before the entry) and keeps it: the
 * next entry read there comes from it. A batch's pack holds its commit and
 * trees together, and a merged pack keeps them so: reading a draft's
 * history (`status` reads each of its commits) then makes one read for
 * dozens of entries instead of one each. An entry far from the last one
 * read (the blobs a diff reads from a large pack, one here and one there)
 * reads only what it needs, as before: 64 KB for each of them copied 16
 * times the bytes used.
 */
const WINDOW = 64 * 1024;

function corrupt(file: string, what: string): ShadowError {
  return new ShadowError('CORRUPT_OBJECT', `pack ${file}: ${what}`, {
    hint: 'run `git fsck`; `git repack -a -d` rewrites packs',
  });
}

export class PackIndex {
  private idxFd = -1;
  private packFd = -1;
  private fanout: Uint32Array | undefined;
  private count = 0;
  private readonly slices = new Map<number, Buffer>();
  /** The 4-byte offsets of the ids of each first byte, read with their first lookup (one read, not one per object). */
  private readonly offsetSlices = new Map<number, Buffer>();
  private packSize = -1;
  /** The whole index, when it is small. */
  private whole: Buffer | undefined;
  /** Resolved delta bases by offset, oldest first (a small LRU, like git's delta base cache). */
  private readonly bases = new Map<number, RawObject>();
  private basesBytes = 0;
  /** The bytes of the packfile last read for an entry (a packfile never changes under its name). */
  private window: { offset: number; bytes: Buffer } | undefined;
  /** Where the entry of the last read that missed the window began (-1: none yet). */
  private lastMiss = -1;

  constructor(
    private readonly fs: FileSystem,
    /** Path of the `.idx` file. */
    readonly idxPath: string,
  ) {}

  get packPath(): string {
    return `${this.idxPath.slice(0, -4)}.pack`;
  }

  private read(fd: number, length: number, position: number): Buffer {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = this.fs.readSync(fd, buf, got, length - got, position + got);
      if (n === 0) break;
      got += n;
    }
    return got === length ? buf : buf.subarray(0, got);
  }

  private load(): Uint32Array {
    if (this.fanout) return this.fanout;
    this.idxFd = this.fs.openSync(this.idxPath, 'r');
    try {
      return this.loadHead();
    } catch (e) {
      // A bad index is not kept open: the next lookup looks at it afresh.
      this.fs.closeSync(this.idxFd);
      this.idxFd = -1;
      throw e;
    }
  }

  private loadHead(): Uint32Array {
    const size = Number(this.fs.fstatSync(this.idxFd).size);
    // A small index (every pack a batch writes) is read whole: one read
    // instead of one per id-table slice. A large one is read slice by slice.
    const head = size <= WHOLE_INDEX_BYTES ? this.read(this.idxFd, size, 0) : this.read(this.idxFd, 8 + 1024, 0);
    if (head.length < 8 + 1024) throw corrupt(this.idxPath, 'index is truncated');
    if (head.readUInt32BE(0) !== 0xff744f63 || head.readUInt32BE(4) !== 2) {
      throw new ShadowError('UNSUPPORTED_REPOSITORY', `pack index ${this.idxPath} is not version 2`, {
        hint: 'rewrite it with `git index-pack` or `git repack -a -d`',
      });
    }
    const fanout = new Uint32Array(256);
    for (let i = 0; i < 256; i++) fanout[i] = head.readUInt32BE(8 + i * 4);
    // Ids, CRCs and offsets of every object, then the two checksums: an index
    // shorter than that is cut off, and no lookup may read past its end.
    if (size < 8 + 1024 + fanout[255]! * 28 + 40)
      throw corrupt(this.idxPath, `index is truncated (${size} bytes for ${fanout[255]} objects)`);
    this.count = fanout[255]!;
    this.fanout = fanout;
    if (size <= WHOLE_INDEX_BYTES) this.whole = head;
    return fanout;
  }

  /**
   * The index is open and too large to be held whole (read slice by slice):
   * looking in it for an object it lacks costs a read, where a small one is
   * searched in memory.
   */
  get readInSlices(): boolean {
    return this.fanout !== undefined && this.whole === undefined;
  }

  /** Number of objects in the pack. */
  size(): number {
    this.load();
    return this.count;
  }

  private slice(first: number): { lo: number; ids: Buffer } {
    const fanout = this.load();
    const lo = first === 0 ? 0 : fanout[first - 1]!;
    const hi = fanout[first]!;
    let ids = this.slices.get(first);
    if (!ids) {
      const at = 8 + 1024 + lo * 20;
      ids = this.whole ? this.whole.subarray(at, at + (hi - lo) * 20) : this.read(this.idxFd, (hi - lo) * 20, at);
      this.slices.set(first, ids);
    }
    return { lo, ids };
  }

  /** Position of `oid` in the index, or -1. */
  private find(oid: string): number {
    return this.locate(oid)?.position ?? -1;
  }

  /** Where `oid` is in the index: its position and its first byte, or undefined. */
  private locate(oid: string): { position: number; first: number } | undefined {
    const key = Buffer.from(oid, 'hex');
    const first = key[0]!;
    const { lo, ids } = this.slice(first);
    let a = 0;
    let b = ids.length / 20 - 1;
    while (a <= b) {
      const mid = (a + b) >> 1;
      // Compared in place: no slice allocated per step.
      const c = -key.compare(ids, mid * 20, mid * 20 + 20);
      if (c === 0) return { position: lo + mid, first };
      if (c < 0) a = mid + 1;
      else b = mid - 1;
    }
    return undefined;
  }

  has(oid: string): boolean {
    return this.find(oid) !== -1;
  }

  /** The ids in the pack whose first byte is `first`: sorted, 20 bytes each. */
  idsStartingWith(first: number): Buffer {
    return this.slice(first).ids;
  }

  /** Ids in the pack that start with the hex `prefix` (at most `limit`). */
  matchPrefix(prefix: string, limit: number): string[] {
    const first = parseInt(prefix.slice(0, 2).padEnd(2, '0'), 16);
    const firsts = prefix.length >= 2 ? [first] : Array.from({ length: 16 }, (_, i) => first + i);
    const out: string[] = [];
    for (const f of firsts) {
      const { ids } = this.slice(f);
      for (let i = 0; i < ids.length && out.length < limit; i += 20) {
        const hex = ids.toString('hex', i, i + 20);
        if (hex.startsWith(prefix)) out.push(hex);
      }
    }
    return out;
  }

  /** Every object id in the pack, in index order. */
  allIds(): string[] {
    const out: string[] = [];
    for (let f = 0; f < 256; f++) {
      const { ids } = this.slice(f);
      for (let i = 0; i < ids.length; i += 20) out.push(ids.toString('hex', i, i + 20));
    }
    return out;
  }

  /**
   * Every entry of the pack as stored: id, offset, CRC-32 and length of its
   * raw bytes (header and compressed data), in pack order. Lets a merge copy
   * entries without inflating or deflating anything.
   */
  rawEntries(): Array<{ oid: string; offset: number; crc: number; length: number }> {
    this.load();
    this.ensurePack();
    const n = this.count;
    const table = this.read(this.idxFd, n * 28, 8 + 1024);
    const out: Array<{ oid: string; offset: number; crc: number; length: number }> = [];
    for (let i = 0; i < n; i++) {
      const v = table.readUInt32BE(n * 24 + i * 4);
      const offset = (v & 0x80000000) === 0 ? v : this.offsetAt(i);
      out.push({
        oid: table.toString('hex', i * 20, i * 20 + 20),
        offset,
        crc: table.readUInt32BE(n * 20 + i * 4),
        length: 0,
      });
    }
    out.sort((a, b) => a.offset - b.offset);
    for (let i = 0; i < out.length; i++) {
      const e = out[i]!;
      e.length = (i + 1 < out.length ? out[i + 1]!.offset : this.packSize - 20) - e.offset;
    }
    return out;
  }

  /** Raw bytes of the packfile. */
  readPackBytes(offset: number, length: number): Buffer {
    this.ensurePack();
    return this.read(this.packFd, length, offset);
  }

  /** The offset of the entry at `position`, whose id starts with the byte `first`. */
  private offsetIn(first: number, position: number): number {
    if (this.whole) return this.offsetAt(position);
    const fanout = this.load();
    const lo = first === 0 ? 0 : fanout[first - 1]!;
    let offsets = this.offsetSlices.get(first);
    if (!offsets) {
      const want = (fanout[first]! - lo) * 4;
      offsets = this.read(this.idxFd, want, 8 + 1024 + this.count * 24 + lo * 4);
      if (offsets.length < want) throw corrupt(this.idxPath, 'index is truncated');
      this.offsetSlices.set(first, offsets);
    }
    const v = offsets.readUInt32BE((position - lo) * 4);
    return (v & 0x80000000) === 0 ? v : this.offsetAt(position);
  }

  private offsetAt(position: number): number {
    this.load();
    const n = this.count;
    const base = 8 + 1024 + n * 24;
    const at = base + position * 4;
    const v = (this.whole ? this.whole.subarray(at, at + 4) : this.read(this.idxFd, 4, at)).readUInt32BE(0);
    if ((v & 0x80000000) === 0) return v;
    const largeAt = base + n * 4 + (v & 0x7fffffff) * 8;
    const large = this.whole ? this.whole.subarray(largeAt, largeAt + 8) : this.read(this.idxFd, 8, largeAt);
    return Number(large.readBigUInt64BE(0));
  }

  /**
   * Read the object `oid` from this pack, or undefined when it is not here.
   * `external` resolves a REF_DELTA base stored elsewhere.
   */
  readObject(oid: string, external: (oid: string) => RawObject): RawObject | undefined {
    const at = this.locate(oid);
    if (!at) return undefined;
    return this.readAt(this.offsetIn(at.first, at.position), external, 0);
  }

  private ensurePack(): void {
    if (this.packFd !== -1) return;
    this.packFd = this.fs.openSync(this.packPath, 'r');
    this.packSize = Number(this.fs.fstatSync(this.packFd).size);
  }

  private readAt(offset: number, external: (oid: string) => RawObject, depth: number): RawObject {
    if (depth > MAX_DELTA_DEPTH) throw corrupt(this.packPath, `delta chain deeper than ${MAX_DELTA_DEPTH}`);
    this.ensurePack();
    // One read for the header and, most often, all of the compressed data:
    // a 4 KB guess covers the typical small object (a larger one reads again).
    const head = this.readEntryBytes(HEAD_AND_BODY_GUESS, offset);
    if (head.length < 2) throw corrupt(this.packPath, `truncated entry at offset ${offset}`);
    let p = 0;
    let c = head[p++]!;
    const type = (c >> 4) & 7;
    let size = c & 15;
    let shift = 4;
    while (c & 0x80) {
      c = head[p++]!;
      size += (c & 0x7f) * 2 ** shift;
      shift += 7;
    }
    let base: RawObject | undefined;
    if (type === OFS_DELTA) {
      c = head[p++]!;
      let rel = c & 0x7f;
      while (c & 0x80) {
        c = head[p++]!;
        rel = (rel + 1) * 128 + (c & 0x7f);
      }
      base = this.cachedBase(offset - rel, external, depth + 1);
    } else if (type === REF_DELTA) {
      const baseOid = head.toString('hex', p, p + 20);
      p += 20;
      base = external(baseOid);
    } else if (!TYPE_NAMES[type]) {
      throw corrupt(this.packPath, `unknown object type ${type} at offset ${offset}`);
    }
    const data = this.inflateAt(offset + p, size, head.subarray(p));
    if (base) return { type: base.type, content: applyDelta(base.content, data, this.packPath) };
    return { type: TYPE_NAMES[type]!, content: data };
  }

  /**
   * `length` bytes of the packfile at `offset` (fewer at its end), from the
   * window when it holds them. `more`: the rest of the entry read last,
   * which the first read fell short of (read as it is, and kept).
   */
  private readEntryBytes(length: number, offset: number, more = false): Buffer {
    const w = this.window;
    if (w && offset >= w.offset && offset + length <= w.offset + w.bytes.length)
      return w.bytes.subarray(offset - w.offset, offset - w.offset + length);
    if (length > WINDOW / 2) return this.read(this.packFd, length, offset);
    if (more) {
      const bytes = this.read(this.packFd, length, offset);
      this.window = { offset, bytes };
      return bytes;
    }
    const near = this.lastMiss !== -1 && Math.abs(offset - this.lastMiss) <= WINDOW;
    this.lastMiss = offset;
    if (!near) {
      const bytes = this.read(this.packFd, length, offset);
      this.window = { offset, bytes };
      return bytes;
    }
    // Half before the entry, half from it: a history is read newest first, and a pack holds it oldest first.
    const start = Math.max(0, offset - WINDOW / 2);
    const bytes = this.read(this.packFd, WINDOW, start);
    this.window = { offset: start, bytes };
    return bytes.subarray(offset - start, offset - start + length);
  }

  private cachedBase(offset: number, external: (oid: string) => RawObject, depth: number): RawObject {
    const hit = this.bases.get(offset);
    if (hit) {
      this.bases.delete(offset);
      this.bases.set(offset, hit);
      return hit;
    }
    const obj = this.readAt(offset, external, depth);
    if (obj.content.length <= BASE_CACHE_BYTES / 8) {
      this.bases.set(offset, obj);
      this.basesBytes += obj.content.length;
      for (const [k, v] of this.bases) {
        if (this.basesBytes <= BASE_CACHE_BYTES) break;
        this.bases.delete(k);
        this.basesBytes -= v.content.length;
      }
    }
    return obj;
  }

  /** Inflate the object data at `position` (`have`: its first bytes, already read). */
  private inflateAt(position: number, size: number, have: Buffer): Buffer {
    const limit = this.packSize - 20 - position;
    let want = Math.min(limit, size + 64 + (size >> 6));
    for (;;) {
      const chunk = have.length >= want ? have.subarray(0, want) : this.readEntryBytes(want, position, true);
      // Trees and commits shadow wrote are stored, not compressed: read without setting up zlib.
      const stored = unstoredZlib(chunk, size);
      if (stored) return stored;
      try {
        const out = inflateSync(chunk);
        if (out.length !== size)
          throw corrupt(this.packPath, `object at ${position} inflates to ${out.length} bytes, expected ${size}`);
        return out;
      } catch (e) {
        if (e instanceof ShadowError) throw e;
        if (want >= limit) throw corrupt(this.packPath, `bad compressed data at offset ${position}`);
        want = Math.min(limit, want * 2);
      }
    }
  }

  close(): void {
    if (this.idxFd !== -1) this.fs.closeSync(this.idxFd);
    if (this.packFd !== -1) this.fs.closeSync(this.packFd);
    this.idxFd = this.packFd = -1;
    this.fanout = undefined;
    this.whole = undefined;
    this.slices.clear();
    this.offsetSlices.clear();
    this.bases.clear();
    this.window = undefined;
    this.lastMiss = -1;
    this.basesBytes = 0;
  }
}

function readVarint(buf: Buffer, start: number): [number, number] {
  let value = 0;
  let shift = 0;
  let p = start;
  let c: number;
  do {
    c = buf[p++]!;
    value += (c & 0x7f) * 2 ** shift;
    shift += 7;
  } while (c & 0x80);
  return [value, p];
}

/** Apply a git delta to `base`. */
export function applyDelta(base: Buffer, delta: Buffer, where = 'delta'): Buffer {
  let [srcSize, p] = readVarint(delta, 0);
  if (srcSize !== base.length) throw corrupt(where, `delta expects a base of ${srcSize} bytes, got ${base.length}`);
  let dstSize: number;
  [dstSize, p] = readVarint(delta, p);
  const out = Buffer.allocUnsafe(dstSize);
  let o = 0;
  while (p < delta.length) {
    const op = delta[p++]!;
    if (op & 0x80) {
      let off = 0;
      let len = 0;
      if (op & 0x01) off |= delta[p++]!;
      if (op & 0x02) off |= delta[p++]! << 8;
      if (op & 0x04) off |= delta[p++]! << 16;
      if (op & 0x08) off += delta[p++]! * 0x1000000;
      if (op & 0x10) len |= delta[p++]!;
      if (op & 0x20) len |= delta[p++]! << 8;
      if (op & 0x40) len |= delta[p++]! << 16;
      if (len === 0) len = 0x10000;
      if (off + len > base.length || o + len > dstSize) throw corrupt(where, 'delta copies out of range');
      base.copy(out, o, off, off + len);
      o += len;
    } else if (op !== 0) {
      if (o + op > dstSize || p + op > delta.length) throw corrupt(where, 'delta inserts out of range');
      delta.copy(out, o, p, p + op);
      p += op;
      o += op;
    } else {
      throw corrupt(where, 'delta has a zero opcode');
    }
  }
  if (o !== dstSize) throw corrupt(where, `delta produced ${o} bytes, expected ${dstSize}`);
  return out;
}
