import { inflateSync } from 'node:zlib';
import type { Context } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';
import {
  EMPTY_TREE_OID,
  parseCommit,
  parseTag,
  parseTree,
  type Commit,
  type ObjectType,
  type Oid,
  type Tag,
  type TreeEntry,
} from './format/git-objects.js';
import { streamBlobPack } from './blob-pack-stream.js';
import { ensureDir, fsyncDir, listDir, tryUnlink, writeNewFileSynced, writeNewFilesSynced } from '../durable/durable-file.js';
import { PackIndex, type RawObject } from './pack-reader.js';
import { consolidatePacks, MERGE_AT_PACKS, registerPack } from './pack-consolidate.js';
import { Lru, RecentBlobs } from './object-caches.js';
import { buildPack, streamPack, type BuiltPack, type PackObject } from './format/pack-writer.js';
import { TempPackVanished, whileTempVanishes, whileTempVanishesSync } from './pack-temp-retry.js';
import { PackKeeps } from './pack-keeps.js';

/** Counters a benchmark prints next to its milliseconds. */
export interface ObjectStats {
  /** Objects read from disk (cache hits are not counted). */
  objectsRead: number;
  objectsWritten: number;
  packsWritten: number;
}

const TREE_CACHE_ENTRIES = 20_000;
const COMMIT_CACHE_ENTRIES = 5_000;

/**
 * The repository's object database: reads loose objects, packs and
 * alternates; writes each set of new objects as one durable pack. Parsed
 * trees and commits are cached for the life of the handle (objects are
 * immutable, so the cache never goes stale).
 */
export class ObjectDatabase {
  readonly stats: ObjectStats = { objectsRead: 0, objectsWritten: 0, packsWritten: 0 };
  private packs: PackIndex[] | undefined;
  private alternates: ObjectDatabase[] | undefined;
  private readonly trees = new Lru<readonly TreeEntry[]>(TREE_CACHE_ENTRIES);
  private readonly commits = new Lru<Commit>(COMMIT_CACHE_ENTRIES);
  private readonly recentBlobs = new RecentBlobs();
  /** The packs this handle wrote that no ref may name yet (see pack-keeps.ts). */
  private readonly keeps: PackKeeps;
  /** Packs written since the last look at merging (the directory is listed only every few writes). */
  private writesSinceMerge = MERGE_AT_PACKS - 1;

  constructor(
    private readonly ctx: Context,
    /** The `objects` directory. */
    readonly dir: string,
    /**
     * Where shadow records the packs it writes, so that it merges only those;
     * undefined (an alternate, or git's preciousObjects extension) never merges.
     */
    private readonly packRegistry?: string,
  ) {
    this.keeps = new PackKeeps(ctx.fs);
  }

  private packDir(): string {
    return `${this.dir}/pack`;
  }

  private listPacks(): PackIndex[] {
    if (!this.packs) this.packs = this.scanPacks(new Map());
    return this.packs;
  }

  private scanPacks(reuse: ReadonlyMap<string, PackIndex>): PackIndex[] {
    const dir = this.packDir();
    return listDir(this.ctx.fs, dir)
      .filter((n) => n.startsWith('pack-') && n.endsWith('.idx'))
      .map((n) => reuse.get(`${dir}/${n}`) ?? new PackIndex(this.ctx.fs, `${dir}/${n}`));
  }

  /** Look at the pack directory again (another process wrote or merged packs); true when it changed. */
  rescan(): boolean {
    const old = new Map((this.packs ?? []).map((p) => [p.idxPath, p]));
    this.packs = this.scanPacks(old);
    const kept = new Set(this.packs.map((p) => p.idxPath));
    let changed = this.packs.length !== old.size;
    for (const [path, pack] of old) {
      if (!kept.has(path)) {
        pack.close();
        changed = true;
      }
    }
    return changed;
  }

  /**
   * Read, rescanning the pack directory while it keeps changing: a merge in
   * another process may remove the pack just listed, even twice in a row.
   */
  private readFresh(oid: Oid): RawObject | undefined {
    for (let attempt = 0; attempt < 8; attempt++) {
      const obj = this.tryRead(oid);
      if (obj) return obj;
      if (!this.rescan() && attempt > 0) return undefined;
    }
    return this.tryRead(oid);
  }

  private listAlternates(): ObjectDatabase[] {
    if (this.alternates) return this.alternates;
    this.alternates = [];
    let text: string;
    try {
      text = this.ctx.fs.readFileSync(`${this.dir}/info/alternates`, 'utf8') as string;
    } catch {
      return this.alternates;
    }
    for (const line of text.split('\n')) {
      const p = line.trim();
      if (!p || p.startsWith('#')) continue;
      this.alternates.push(new ObjectDatabase(this.ctx, p.startsWith('/') ? p : `${this.dir}/${p}`));
    }
    return this.alternates;
  }

  private readLoose(oid: Oid): RawObject | undefined {
    let compressed: Buffer;
    try {
      compressed = this.ctx.fs.readFileSync(`${this.dir}/${oid.slice(0, 2)}/${oid.slice(2)}`) as Buffer;
    } catch (e) {
      if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return undefined;
      throw e;
    }
    let raw: Buffer;
    try {
      raw = inflateSync(compressed);
    } catch {
      throw new ShadowError('CORRUPT_OBJECT', `loose object ${oid} is not valid zlib data`, { hint: 'run `git fsck`', data: { oid } });
    }
    const nul = raw.indexOf(0);
    const m = /^(blob|tree|commit|tag) (\d+)$/.exec(raw.toString('latin1', 0, nul));
    if (nul === -1 || !m || Number(m[2]) !== raw.length - nul - 1) {
      throw new ShadowError('CORRUPT_OBJECT', `loose object ${oid} has a bad header`, { hint: 'run `git fsck`', data: { oid } });
    }
    return { type: m[1] as ObjectType, content: raw.subarray(nul + 1) };
  }

  private readFromPacks(oid: Oid): RawObject | undefined {
    for (const pack of this.listPacks()) {
      let obj: RawObject | undefined;
      try {
        obj = pack.readObject(oid, (base) => this.read(base));
      } catch (e) {
        // A pack removed by a concurrent repack: its objects are in a new pack now.
        if (errnoCode(e) === 'ENOENT') continue;
        throw e;
      }
      if (obj) return obj;
    }
    return undefined;
  }

  private tryRead(oid: Oid): RawObject | undefined {
    const obj = this.readFromPacks(oid) ?? this.readLoose(oid);
    if (obj) return obj;
    for (const alt of this.listAlternates()) {
      const a = alt.tryRead(oid);
      if (a) return a;
    }
    return undefined;
  }

  /** Read any object; OBJECT_MISSING when the repository does not have it. */
  read(oid: Oid): RawObject {
    const obj = this.readFresh(oid);
    if (!obj) {
      if (oid === EMPTY_TREE_OID) return { type: 'tree', content: Buffer.alloc(0) };
      throw new ShadowError('OBJECT_MISSING', `object ${oid} is missing from the repository`, {
        hint: 'run `git fsck`; in a partial clone, fetch the missing objects with git first',
        data: { oid },
      });
    }
    this.stats.objectsRead++;
    return obj;
  }

  /** True when the object exists. */
  has(oid: Oid): boolean {
    return this.readFresh(oid) !== undefined;
  }

  private readTyped(oid: Oid, type: ObjectType): Buffer {
    const obj = this.read(oid);
    if (obj.type !== type) {
      throw new ShadowError('CORRUPT_OBJECT', `object ${oid} is a ${obj.type}, expected a ${type}`, { data: { oid } });
    }
    return obj.content;
  }

  readBlob(oid: Oid): Buffer {
    return this.recentBlobs.get(oid) ?? this.readTyped(oid, 'blob');
  }

  readTree(oid: Oid): readonly TreeEntry[] {
    const hit = this.trees.get(oid);
    if (hit) return hit;
    // Frozen: shared by every reader of the cache, and eligible for findEntry's position maps.
    const entries = Object.freeze(oid === EMPTY_TREE_OID ? [] : parseTree(this.readTyped(oid, 'tree'), oid));
    this.trees.set(oid, entries);
    return entries;
  }

  readCommit(oid: Oid): Commit {
    const hit = this.commits.get(oid);
    if (hit) return hit;
    const commit = parseCommit(this.readTyped(oid, 'commit'), oid);
    this.commits.set(oid, commit);
    return commit;
  }

  readTag(oid: Oid): Tag {
    return parseTag(this.readTyped(oid, 'tag'), oid);
  }

  /** Full ids that start with `prefix` (for abbreviated ids), at most `limit`. */
  expandPrefix(prefix: string, limit = 2): Oid[] {
    const found = new Set<string>();
    for (const pack of this.listPacks()) for (const id of pack.matchPrefix(prefix, limit)) found.add(id);
    const dirs = prefix.length >= 2 ? [prefix.slice(0, 2)] : Array.from({ length: 16 }, (_, i) => prefix + i.toString(16));
    for (const d of dirs) {
      for (const name of listDir(this.ctx.fs, `${this.dir}/${d}`)) {
        const id = d + name;
        if (id.length === 40 && id.startsWith(prefix)) found.add(id);
      }
    }
    for (const alt of this.listAlternates()) for (const id of alt.expandPrefix(prefix, limit)) found.add(id);
    return [...found].slice(0, Math.max(limit, 2));
  }

  /** Remember a parsed tree written by this process, so it is never read back. */
  rememberTree(oid: Oid, entries: readonly TreeEntry[]): void {
    this.trees.set(oid, Object.freeze([...entries]));
  }

  rememberCommit(oid: Oid, commit: Commit): void {
    this.commits.set(oid, commit);
  }

  /**
   * Write `objects` durably as one pack: both files written and fsynced under
   * temporary names, renamed into place (pack first, index last, as git
   * does: readers find packs through their index), then the directory
   * fsynced. After this returns, a crash cannot lose them.
   */
  write(objects: readonly PackObject[]): string | undefined {
    if (objects.length === 0) return undefined;
    const idx = this.writeBuilt(buildPack(objects));
    this.written(objects, idx);
    this.mergeIfDue();
    return idx;
  }

  /**
   * `write`, with the pack's and the index's fsyncs in flight together:
   * one round trip to the disk where `write` makes two. A batch awaits it
   * while its ref's lock file is fsynced too, and calls `mergeIfDue` once
   * the ref has moved (a merge never runs under the ref's lock).
   */
  async writeConcurrently(objects: readonly PackObject[]): Promise<string | undefined> {
    if (objects.length === 0) return undefined;
    const fs = this.ctx.fs;
    const idx = await whileTempVanishes(async () => {
      const { tmpPack, tmpIdx } = this.tempNames();
      let built: Omit<BuiltPack, 'pack'> | undefined;
      try {
        await writeNewFilesSynced(fs, [
          [tmpPack, (write) => (built = streamPack(objects, write))],
          [tmpIdx, (write) => write(built!.idx)],
        ]);
      } catch (e) {
        tryUnlink(fs, tmpPack);
        tryUnlink(fs, tmpIdx);
        throw e;
      }
      return this.place(tmpPack, tmpIdx, built!);
    });
    this.written(objects, idx);
    return idx;
  }

  /** After a pack of `objects` is in place at `idx`: remember its blobs and register it. */
  private written(objects: readonly PackObject[], idx: string): void {
    for (const o of objects) if (o.type === 'blob') this.recentBlobs.add(o.oid, o.content);
    if (this.packRegistry === undefined) return;
    registerPack(this.ctx, this.packRegistry, idx);
    this.writesSinceMerge++;
  }

  /** Merge the packs shadow wrote once they pile up (the directory is looked at every few writes). */
  mergeIfDue(): void {
    if (this.packRegistry === undefined || this.writesSinceMerge < MERGE_AT_PACKS) return;
    this.writesSinceMerge = 0;
    // A merge copies objects of packs already free to go: its own pack needs no keep.
    const writeBuilt = (p: BuiltPack): string => {
      const idx = this.writeBuilt(p);
      this.keeps.release(idx);
      return idx;
    };
    const merged = consolidatePacks(this.ctx, { dir: this.packDir(), registry: this.packRegistry, writeBuilt });
    if (merged > 0) this.rescan();
  }

  /**
   * Write one blob durably from a file, streamed (`prefix`, then the file's
   * first `length` bytes): a pack of its own, the content never held whole.
   * Returns the blob's id and size.
   */
  async writeBlobFromFile(source: string, length: number, prefix: Buffer = Buffer.alloc(0)): Promise<{ oid: Oid; size: number }> {
    const fs = this.ctx.fs;
    let streamed!: Awaited<ReturnType<typeof streamBlobPack>>;
    const idx = await whileTempVanishes(async () => {
      const names = this.tempNames();
      try {
        streamed = await streamBlobPack(fs, source, length, prefix, names.tmpPack);
      } catch (e) {
        tryUnlink(fs, names.tmpPack);
        throw e;
      }
      return this.install(names, { checksum: streamed.checksum, count: 1, idx: streamed.idx });
    });
    if (this.packRegistry !== undefined) registerPack(this.ctx, this.packRegistry, idx);
    return { oid: streamed.oid, size: streamed.size };
  }

  /** Temporary names for a new pack and its index (git's own `tmp_pack_`/`tmp_idx_` prefixes), the directory made. */
  private tempNames(): { tmpPack: string; tmpIdx: string } {
    const dir = this.packDir();
    ensureDir(this.ctx.fs, dir);
    const token = this.ctx.ids.token();
    return { tmpPack: `${dir}/tmp_pack_${token}`, tmpIdx: `${dir}/tmp_idx_${token}` };
  }

  /** Write a built pack durably; returns its `.idx` path. */
  private writeBuilt(built: BuiltPack): string {
    const fs = this.ctx.fs;
    return whileTempVanishesSync(() => {
      const names = this.tempNames();
      try {
        writeNewFileSynced(fs, names.tmpPack, built.pack);
      } catch (e) {
        tryUnlink(fs, names.tmpPack);
        throw e;
      }
      return this.install(names, built);
    });
  }

  /**
   * Put a pack written (and fsynced) at `tmpPack` into place with its index:
   * the index written and fsynced, both renamed (pack first, index last, as
   * git does: readers find packs through their index), the directory
   * fsynced. Returns the `.idx` path.
   */
  private install({ tmpPack, tmpIdx }: { tmpPack: string; tmpIdx: string }, built: { checksum: string; count: number; idx: Buffer }): string {
    const fs = this.ctx.fs;
    try {
      writeNewFileSynced(fs, tmpIdx, [built.idx]);
    } catch (e) {
      tryUnlink(fs, tmpPack);
      tryUnlink(fs, tmpIdx);
      throw e;
    }
    return this.place(tmpPack, tmpIdx, built);
  }

  /** Rename a pack and its index, both durable under temporary names, into place (pack first), and fsync the directory. */
  private place(tmpPack: string, tmpIdx: string, built: { checksum: string; count: number }): string {
    const fs = this.ctx.fs;
    const dir = this.packDir();
    const finalPack = `${dir}/pack-${built.checksum}.pack`;
    const finalIdx = `${dir}/pack-${built.checksum}.idx`;
    this.keeps.keep(finalIdx);
    try {
      fs.renameSync(tmpPack, finalPack);
      fs.renameSync(tmpIdx, finalIdx);
    } catch (e) {
      this.keeps.release(finalIdx);
      tryUnlink(fs, tmpPack);
      tryUnlink(fs, tmpIdx);
      throw errnoCode(e) === 'ENOENT' ? new TempPackVanished(e) : e;
    }
    fsyncDir(fs, dir);
    this.stats.objectsWritten += built.count;
    this.stats.packsWritten++;
    const packs = this.listPacks();
    if (!packs.some((p) => p.idxPath === finalIdx)) packs.unshift(new PackIndex(fs, finalIdx));
    return finalIdx;
  }

  /** The pack at `idx` (a write's result) is named by a ref now, or never will be: git may repack it. */
  releaseKeep(idx: string | undefined): void {
    if (idx !== undefined) this.keeps.release(idx);
  }

  close(): void {
    this.keeps.releaseAll();
    for (const p of this.packs ?? []) p.close();
    this.packs = undefined;
    for (const a of this.alternates ?? []) a.close();
  }
}
