import type { Context } from '../context.js';
import { errnoCode } from '../errors.js';
import { listDir, parentOf, readTextIfExists, tryUnlink, writeFileAtomic } from '../durable/durable-file.js';
import { dropStaleKeep } from './pack-keeps.js';
import { PackIndex } from './pack-reader.js';
import type { BuiltPack, RawEntry } from './format/pack-writer.js';
import { buildPackFromRaw } from './format/pack-writer.js';

/**
 * Keeps the small packs that batches write (one each) from piling up. Only
 * packs shadow wrote are ever touched: each is listed in the append-only file
 * `shadow/packs.list` (not in `objects/pack/`, where git would count a stray file
 * as garbage; an append costs a fraction of creating a marker file). Packs are merged the way `git repack --geometric=2` keeps a
 * geometric progression: the smallest packs are rolled up until every pack
 * left is at least twice the size of all smaller ones together, so each
 * object is copied O(log n) times over a draft's life. Entries are copied
 * byte for byte (shadow's packs hold no deltas): no zlib, no hashing but the
 * new pack's checksum.
 *
 * The merged pack is durable and in place before any input is removed, so
 * every object stays readable throughout; a reader that misses a removed pack
 * rescans and finds the merged one. Repositories with git's preciousObjects
 * extension are never merged.
 */

/** Merge when shadow has this many packs. */
export const MERGE_AT_PACKS = 8;
const FACTOR = 2;

export interface PackSink {
  /** The `objects/pack` directory. */
  dir: string;
  /** The file that lists shadow's packs, one name a line. */
  registry: string;
  /** Write a built pack durably; returns the path of its `.idx`. */
  writeBuilt(pack: BuiltPack): string;
}

interface Candidate {
  name: string;
  idx: string;
  size: number;
}

function packSize(ctx: Context, path: string): number | undefined {
  try {
    return Number(ctx.fs.statSync(path).size);
  } catch {
    return undefined;
  }
}

/** Record that shadow wrote `pack-<sum>`: only such packs are ever merged. */
export function registerPack(ctx: Context, registry: string, idxPath: string): void {
  const name = idxPath.slice(idxPath.lastIndexOf('/') + 1, -4);
  try {
    ctx.fs.appendFileSync(registry, `${name}\n`);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw e;
    ctx.fs.mkdirSync(parentOf(registry), { recursive: true });
    ctx.fs.appendFileSync(registry, `${name}\n`);
  }
}

/** shadow's packs that still exist, smallest first. */
export function shadowPacks(ctx: Context, sink: PackSink): Candidate[] {
  const present = new Set(listDir(ctx.fs, sink.dir));
  const listed = new Set(
    (readTextIfExists(ctx.fs, sink.registry) ?? '').split('\n').filter((n) => n.startsWith('pack-')),
  );
  const out: Candidate[] = [];
  for (const name of listed) {
    if (!present.has(`${name}.idx`) || present.has(`${name}.promisor`)) continue;
    if (present.has(`${name}.keep`) && !dropStaleKeep(ctx, `${sink.dir}/${name}.keep`)) continue;
    const size = packSize(ctx, `${sink.dir}/${name}.pack`);
    if (size !== undefined) out.push({ name, idx: `${sink.dir}/${name}.idx`, size });
  }
  return out.sort((a, b) => a.size - b.size || (a.name < b.name ? -1 : 1));
}

/** The packs to roll up so that the rest form a geometric progression (ascending input). */
export function geometricRollup(sizes: readonly number[]): number {
  let split = 0;
  for (let i = sizes.length - 1; i > 0; i--) {
    if (sizes[i]! < FACTOR * sizes[i - 1]!) {
      split = i;
      break;
    }
  }
  let total = 0;
  for (let i = 0; i <= split; i++) total += sizes[i]!;
  for (let j = split + 1; j < sizes.length && sizes[j]! < FACTOR * total; j++) {
    total += sizes[j]!;
    split = j;
  }
  return split + 1;
}

/**
 * Merge shadow's packs when there are `MERGE_AT_PACKS` of them. Returns the
 * number of packs merged (0 when nothing was done, or another process holds
 * the merge lock).
 */
export function consolidatePacks(ctx: Context, sink: PackSink): number {
  const packs = shadowPacks(ctx, sink);
  if (packs.length < MERGE_AT_PACKS) return 0;
  const take = packs.slice(0, geometricRollup(packs.map((p) => p.size)));
  if (take.length < 2) return 0;
  const lock = `${sink.registry}.lock`;
  try {
    ctx.fs.closeSync(ctx.fs.openSync(lock, 'wx'));
  } catch (e) {
    if (errnoCode(e) === 'EEXIST') return 0;
    throw e;
  }
  try {
    const entries: RawEntry[] = [];
    const merged: Candidate[] = [];
    for (const pack of take) {
      const index = new PackIndex(ctx.fs, pack.idx);
      try {
        const raw = index.rawEntries();
        const bytes = index.readPackBytes(0, pack.size);
        // Only whole objects can be copied as they are.
        if (
          raw.some((e) => {
            const t = (bytes[e.offset]! >> 4) & 7;
            return t < 1 || t > 4;
          })
        )
          continue;
        for (const e of raw)
          entries.push({ oid: e.oid, crc: e.crc, parts: [bytes.subarray(e.offset, e.offset + e.length)] });
        merged.push(pack);
      } catch (e) {
        // Removed meanwhile (git gc, another merge): leave it out.
        if (errnoCode(e) !== 'ENOENT') throw e;
      } finally {
        index.close();
      }
    }
    if (merged.length < 2) return 0;
    const written = sink.writeBuilt(buildPackFromRaw(entries));
    registerPack(ctx, sink.registry, written);
    for (const pack of merged) {
      if (pack.idx === written) continue;
      const stem = pack.idx.slice(0, -4);
      tryUnlink(ctx.fs, `${stem}.idx`);
      tryUnlink(ctx.fs, `${stem}.pack`);
      tryUnlink(ctx.fs, `${stem}.rev`);
    }
    // Rewrite the list without what is gone (a line another process appends
    // meanwhile may be lost: that pack is then merely never merged).
    const live = shadowPacks(ctx, sink).map((p) => p.name);
    writeFileAtomic(ctx.fs, sink.registry, live.map((n) => `${n}\n`).join(''), {
      token: ctx.ids.token(),
      durable: false,
    });
    return merged.length;
  } finally {
    tryUnlink(ctx.fs, lock);
  }
}
