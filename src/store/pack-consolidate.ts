import type { Context } from '../context.js';
import { errnoCode } from '../errors.js';
import { listDir, tryUnlink } from './durable-file.js';
import { PackIndex, type RawObject } from './pack-reader.js';
import type { PackObject } from './pack-writer.js';

/**
 * Keeps the pack directory from filling with the small packs that batches
 * write (one per batch): once there are `SMALL_PACK_LIMIT` packs under
 * `SMALL_PACK_BYTES`, they are merged into one. The merged pack is durable
 * and in place before any small pack is removed, so every object stays
 * readable throughout; readers that miss a removed pack rescan and find the
 * merged one. Packs with a `.keep` or `.promisor` file, and repositories with
 * the `preciousObjects` extension, are never touched.
 */

export const SMALL_PACK_LIMIT = 16;
export const SMALL_PACK_BYTES = 1024 * 1024;

export interface PackDirectory {
  dir: string;
  read(oid: string): RawObject;
  /** Write a durable pack; returns the path of its `.idx`. */
  writePack(objects: PackObject[]): string;
}

function packSize(ctx: Context, path: string): number | undefined {
  try {
    return Number(ctx.fs.statSync(path).size);
  } catch {
    return undefined;
  }
}

/** The small packs that may be merged, as `.idx` paths. */
export function smallPacks(ctx: Context, dir: string): string[] {
  const names = new Set(listDir(ctx.fs, dir));
  const out: string[] = [];
  for (const name of names) {
    if (!name.startsWith('pack-') || !name.endsWith('.idx')) continue;
    const stem = name.slice(0, -4);
    if (names.has(`${stem}.keep`) || names.has(`${stem}.promisor`) || !names.has(`${stem}.pack`)) continue;
    const size = packSize(ctx, `${dir}/${stem}.pack`);
    if (size !== undefined && size <= SMALL_PACK_BYTES) out.push(`${dir}/${name}`);
  }
  return out.sort();
}

/**
 * Merge the small packs into one when there are enough of them. Returns the
 * number of packs merged (0 when nothing was done, or another process holds
 * the merge lock).
 */
export function consolidatePacks(ctx: Context, packs: PackDirectory): number {
  const candidates = smallPacks(ctx, packs.dir);
  if (candidates.length < SMALL_PACK_LIMIT) return 0;
  const lock = `${packs.dir}/shadow-merge.lock`;
  let fd: number;
  try {
    fd = ctx.fs.openSync(lock, 'wx');
  } catch (e) {
    if (errnoCode(e) === 'EEXIST') return 0;
    throw e;
  }
  ctx.fs.closeSync(fd);
  try {
    const objects = new Map<string, PackObject>();
    const merged: string[] = [];
    for (const idxPath of candidates) {
      const index = new PackIndex(ctx.fs, idxPath);
      try {
        for (const oid of index.allIds()) {
          if (objects.has(oid)) continue;
          const obj = index.readObject(oid, (base) => packs.read(base));
          if (obj) objects.set(oid, { oid, type: obj.type, content: obj.content });
        }
        merged.push(idxPath);
      } catch (e) {
        // Removed meanwhile (git gc, another merge): leave it out.
        if (errnoCode(e) !== 'ENOENT') throw e;
      } finally {
        index.close();
      }
    }
    if (merged.length < 2) return 0;
    const written = packs.writePack([...objects.values()]);
    for (const idxPath of merged) {
      if (idxPath === written) continue;
      const stem = idxPath.slice(0, -4);
      tryUnlink(ctx.fs, `${stem}.idx`);
      tryUnlink(ctx.fs, `${stem}.pack`);
      tryUnlink(ctx.fs, `${stem}.rev`);
    }
    return merged.length;
  } finally {
    tryUnlink(ctx.fs, lock);
  }
}
