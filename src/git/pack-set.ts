/** The packs of one `objects/pack` directory: listed through their indexes on first use, looked at again on demand, read in turn. */

import type { FileSystem } from '../context.js';
import { errnoCode } from '../errors.js';
import type { Oid } from './format/git-objects.js';
import { listDir } from '../durable/durable-file.js';
import { PackIndex, type RawObject } from './pack-reader.js';

export class PackSet {
  private packs: PackIndex[] | undefined;

  constructor(
    private readonly fs: FileSystem,
    /** The `objects/pack` directory. */
    readonly dir: string,
  ) {}

  /** The packs, the directory listed on first use. */
  list(): PackIndex[] {
    if (!this.packs) this.packs = this.scan(new Map());
    return this.packs;
  }

  private scan(reuse: ReadonlyMap<string, PackIndex>): PackIndex[] {
    const dir = this.dir;
    return listDir(this.fs, dir)
      .filter((n) => n.startsWith('pack-') && n.endsWith('.idx'))
      .map((n) => reuse.get(`${dir}/${n}`) ?? new PackIndex(this.fs, `${dir}/${n}`));
  }

  /** Look at the pack directory again (another process wrote or merged packs); true when it changed. */
  rescan(): boolean {
    const old = new Map((this.packs ?? []).map((p) => [p.idxPath, p]));
    this.packs = this.scan(old);
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
   * `oid` from the first pack that has it (delta bases outside a pack read
   * through `external`), or undefined. The pack that has it moves to the
   * front, as git keeps its packs most recently used first: objects read
   * together are mostly in one pack (a commit's trees, a batch's blobs), and
   * each pack tried before it costs a search of its index. A pack whose
   * index is read in slices (the large pack of a repository's history) goes
   * only to the front of those: a search there for an object it lacks costs
   * a read, and a diff that reads a path's old blob there and its new one
   * from a draft's pack would pay it for every new one.
   */
  read(oid: Oid, external: (oid: Oid) => RawObject): RawObject | undefined {
    // In the order of now: a delta's base read through `external` may move another pack to the front meanwhile.
    const packs = this.list().slice();
    for (let i = 0; i < packs.length; i++) {
      const pack = packs[i]!;
      let obj: RawObject | undefined;
      try {
        obj = pack.readObject(oid, external);
      } catch (e) {
        // A pack removed by a concurrent repack: its objects are in a new pack now.
        if (errnoCode(e) === 'ENOENT') continue;
        throw e;
      }
      if (obj) {
        this.toFront(pack);
        return obj;
      }
    }
    return undefined;
  }

  private toFront(pack: PackIndex): void {
    const live = this.packs ?? [];
    const at = live.indexOf(pack);
    if (at === -1) return;
    live.splice(at, 1);
    // A pack read in slices goes behind every pack searched in memory (or not yet opened).
    let to = 0;
    if (pack.readInSlices) live.forEach((p, i) => (to = p.readInSlices ? to : i + 1));
    live.splice(to, 0, pack);
  }

  /** Ids in any pack that start with `prefix`, at most `limit` from each. */
  matchPrefix(prefix: string, limit: number): Oid[] {
    return this.list().flatMap((pack) => pack.matchPrefix(prefix, limit));
  }

  /** How many objects the packs hold, each pack's counted (an object in two packs twice, as git counts them). */
  objectCount(): number {
    let n = 0;
    for (const pack of this.list()) n += this.unlessGone(() => pack.size(), 0);
    return n;
  }

  /** Each pack's ids whose first byte is `first` (sorted, 20 bytes each). */
  idsStartingWith(first: number): Buffer[] {
    return this.list().map((pack) => this.unlessGone(() => pack.idsStartingWith(first), Buffer.alloc(0)));
  }

  /** `read()`, or `gone` when a concurrent repack removed the pack meanwhile. */
  private unlessGone<T>(read: () => T, gone: T): T {
    try {
      return read();
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return gone;
      throw e;
    }
  }

  /** A pack just put in place at `idxPath`: listed now, without a look at the directory. */
  add(idxPath: string): void {
    const packs = this.list();
    if (!packs.some((p) => p.idxPath === idxPath)) packs.unshift(new PackIndex(this.fs, idxPath));
  }

  close(): void {
    for (const p of this.packs ?? []) p.close();
    this.packs = undefined;
  }
}
