import type { Context } from '../context.js';
import { ShadowError } from '../errors.js';
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
import type { RawObject } from './pack-reader.js';
import {
  consolidatePacks,
  consolidatePacksInSteps,
  finishMerge,
  MERGE_AT_PACKS,
  registerPack,
} from './pack-consolidate.js';
import { parsedObjects, RecentBlobs, type ParsedObjects } from './object-caches.js';
import { buildPack, type BuiltPack, type PackObject } from './format/pack-writer.js';
import { PackKeeps } from './pack-keeps.js';
import { PackSet } from './pack-set.js';
import { PackInstaller } from './pack-install.js';
import { looseIdsWithPrefix, readLooseObject } from './loose-objects.js';
import type { AbbrevSource } from './abbrev.js';
import { listDir } from '../durable/durable-file.js';

/** Counters a benchmark prints next to its milliseconds. */
export interface ObjectStats {
  /** Objects read from disk (cache hits are not counted). */
  objectsRead: number;
  objectsWritten: number;
  packsWritten: number;
}

/**
 * The repository's object database: reads loose objects, packs and
 * alternates; writes each set of new objects as one durable pack. Parsed
 * trees and commits are cached for the life of the handle (objects are
 * immutable, so the cache never goes stale). Loose objects are read in
 * loose-objects.ts, packs listed in pack-set.ts, new packs installed by
 * pack-install.ts.
 */
export class ObjectDatabase {
  readonly stats: ObjectStats = { objectsRead: 0, objectsWritten: 0, packsWritten: 0 };
  private readonly packs: PackSet;
  private readonly installer: PackInstaller;
  private alternates: ObjectDatabase[] | undefined;
  private readonly trees: ParsedObjects['trees'];
  private readonly commits: ParsedObjects['commits'];
  private readonly recentBlobs = new RecentBlobs();
  /** Blobs of a transaction not written yet (rememberStaged). */
  private readonly stagedBlobs = new Map<Oid, Buffer>();
  /** The packs this handle wrote that no ref may name yet (see pack-keeps.ts). */
  private readonly keeps: PackKeeps;
  /** Packs written since the last look at merging (the directory is listed only every few writes). */
  private writesSinceMerge = MERGE_AT_PACKS - 1;
  /** The merge `mergeInSteps` runs, while it runs. */
  private merge: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly ctx: Context,
    /** The `objects` directory. */
    readonly dir: string,
    /**
     * Where shadow records the packs it writes, so that it merges only those;
     * undefined (an alternate, or git's preciousObjects extension) never merges.
     */
    private readonly packRegistry?: string,
    /** Parsed trees and commits, shared with other handles on this repository (default: this handle's own). */
    parsed: ParsedObjects = parsedObjects(),
  ) {
    this.trees = parsed.trees;
    this.commits = parsed.commits;
    this.keeps = new PackKeeps(ctx.fs);
    this.packs = new PackSet(ctx.fs, `${dir}/pack`);
    this.installer = new PackInstaller(ctx, this.packs.dir, this.keeps, (idx, count) => {
      this.stats.objectsWritten += count;
      this.stats.packsWritten++;
      // A merge in steps may end after close: a closed handle opens no pack again.
      if (!this.closed) this.packs.add(idx);
    });
  }

  /** Look at the pack directory again (another process wrote or merged packs); true when it changed. */
  rescan(): boolean {
    return this.packs.rescan();
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

  private tryRead(oid: Oid): RawObject | undefined {
    const obj = this.packs.read(oid, (base) => this.read(base)) ?? readLooseObject(this.ctx.fs, this.dir, oid);
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
    return this.recentBlobs.get(oid) ?? this.stagedBlobs.get(oid) ?? this.readTyped(oid, 'blob');
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
    for (const id of this.packs.matchPrefix(prefix, limit)) found.add(id);
    for (const id of looseIdsWithPrefix(this.ctx.fs, this.dir, prefix)) found.add(id);
    for (const alt of this.listAlternates()) for (const id of alt.expandPrefix(prefix, limit)) found.add(id);
    return [...found].slice(0, Math.max(limit, 2));
  }

  /** The objects of the pack indexes, this repository's and its alternates', as git counts them to size an abbreviation. */
  packedObjectCount(): number {
    return this.listAlternates().reduce((n, alt) => n + alt.packedObjectCount(), this.packs.objectCount());
  }

  /**
   * The ids an abbreviation is checked against (git/abbrev.ts), this
   * repository's and its alternates', by first byte: each pack's sorted,
   * and the loose ones. The loose directories are listed once, here, so
   * that a first byte without one costs no look.
   */
  abbrevSource(): AbbrevSource {
    const looseDirs = new Set(listDir(this.ctx.fs, this.dir));
    const alternates = this.listAlternates().map((alt) => alt.abbrevSource());
    return {
      idsStartingWith: (first) => {
        const hex = first.toString(16).padStart(2, '0');
        const packed = this.packs.idsStartingWith(first);
        const loose = looseDirs.has(hex) ? looseIdsWithPrefix(this.ctx.fs, this.dir, hex) : [];
        for (const alt of alternates) {
          const a = alt.idsStartingWith(first);
          packed.push(...a.packed);
          loose.push(...a.loose);
        }
        return { packed, loose };
      },
    };
  }

  /** Remember a parsed tree written by this process, so it is never read back. */
  rememberTree(oid: Oid, entries: readonly TreeEntry[]): void {
    this.trees.set(oid, Object.freeze([...entries]));
  }

  rememberCommit(oid: Oid, commit: Commit): void {
    this.commits.set(oid, commit);
  }

  /**
   * Remember objects of a transaction that are not written yet, so that
   * what it builds on them reads them (a group of batches, each on the
   * commit before it); `forget` them if the transaction fails.
   */
  rememberStaged(
    objects: ReadonlyArray<{ oid: Oid; type: ObjectType; content: Uint8Array }>,
    trees: ReadonlyArray<{ oid: Oid; entries: readonly TreeEntry[] }>,
  ): void {
    for (const o of objects)
      if (o.type === 'blob')
        this.stagedBlobs.set(o.oid, Buffer.from(o.content.buffer, o.content.byteOffset, o.content.length));
    for (const t of trees) this.rememberTree(t.oid, t.entries);
  }

  /** The transaction of rememberStaged is over: its blobs are on disk (`written`), or never will be and are forgotten. */
  settleStaged(oids: Iterable<Oid>, written: boolean): void {
    for (const oid of oids) {
      this.stagedBlobs.delete(oid);
      if (written) continue;
      this.trees.delete(oid);
      this.commits.delete(oid);
    }
  }

  /**
   * Write `objects` durably as one pack: both files written and fsynced under
   * temporary names, renamed into place (pack first, index last, as git
   * does: readers find packs through their index), then the directory
   * fsynced. After this returns, a crash cannot lose them.
   */
  write(objects: readonly PackObject[]): string | undefined {
    if (objects.length === 0) return undefined;
    const idx = this.installer.writeBuilt(buildPack(objects));
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
    const idx = await this.installer.writeStreamed(objects);
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
    const writeBuilt = (p: BuiltPack): string => this.unkept(this.installer.writeBuilt(p));
    const merged = consolidatePacks(this.ctx, { dir: this.packs.dir, registry: this.packRegistry, writeBuilt });
    if (merged > 0) this.rescan();
  }

  /**
   * `mergeIfDue` off the event loop, for a process that serves requests: on
   * the context's `packMerger` (a worker thread) when it has one, else in
   * steps between the other work of the event loop (pack-consolidate.ts). Returns at
   * once; `merging()` settles when the merge is over. A failure is upkeep's:
   * the merge is due again later.
   */
  mergeInSteps(): void {
    if (this.packRegistry === undefined || this.writesSinceMerge < MERGE_AT_PACKS || this.merge) return;
    this.writesSinceMerge = 0;
    const sink = {
      dir: this.packs.dir,
      registry: this.packRegistry,
      writeBuilt: (p: BuiltPack): string => this.unkept(this.installer.writeBuilt(p)),
      writeBuiltConcurrently: async (p: BuiltPack): Promise<string> =>
        this.unkept(await this.installer.writeBuiltConcurrently(p)),
    };
    const nextTurn = (): Promise<void> => new Promise((turn) => setImmediate(turn));
    const merger = this.ctx.packMerger;
    // On the merger's thread when there is one: only the registry's rewrite runs here (see finishMerge).
    const merging = merger
      ? merger.merge({ dir: sink.dir, registry: sink.registry }).then((done) => {
          if (done === undefined) return 0;
          finishMerge(this.ctx, sink, done);
          return done.merged;
        })
      : consolidatePacksInSteps(this.ctx, sink, nextTurn);
    this.merge = merging
      .then(
        (merged) => void (merged > 0 && !this.closed && this.rescan()),
        () => undefined,
      )
      .finally(() => (this.merge = undefined));
  }

  /** Settles when the merge `mergeInSteps` started is over (at once when none runs). */
  merging(): Promise<void> {
    return this.merge ?? Promise.resolve();
  }

  /** A merge copies objects of packs already free to go: its own pack needs no keep. */
  private unkept(idx: string): string {
    this.keeps.release(idx);
    return idx;
  }

  /**
   * Write one blob durably from a file, streamed (`prefix`, then the file's
   * first `length` bytes): a pack of its own, the content never held whole.
   * Returns the blob's id and size.
   */
  async writeBlobFromFile(
    source: string,
    length: number,
    prefix: Buffer = Buffer.alloc(0),
  ): Promise<{ oid: Oid; size: number }> {
    const { idx, oid, size } = await this.installer.writeBlobFromFile(source, length, prefix);
    if (this.packRegistry !== undefined) registerPack(this.ctx, this.packRegistry, idx);
    return { oid, size };
  }

  /** The pack at `idx` (a write's result) is named by a ref now, or never will be: git may repack it. */
  releaseKeep(idx: string | undefined): void {
    if (idx !== undefined) this.keeps.release(idx);
  }

  close(): void {
    this.closed = true;
    this.keeps.releaseAll();
    this.packs.close();
    for (const a of this.alternates ?? []) a.close();
  }
}
