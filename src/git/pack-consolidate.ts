import type { Context, PackMergeResult } from '../context.js';
import { errnoCode, ShadowError } from '../errors.js';
import { takeProcessLock, type HeldLock } from '../durable/process-lock.js';
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

/** The lock a merge holds: one merge at a time per repository, whatever process or thread runs it. */
export function mergeLockPath(registry: string): string {
  return `${registry}.lock`;
}

/** What a merge's lock says it is held for. */
export const MERGE_LOCK_WHAT = 'pack merge';

/** A merge decided on and its lock taken: the packs to roll up. */
interface LockedMerge {
  take: Candidate[];
  lock: HeldLock;
  path: string;
}

/**
 * The packs to merge, with the merge lock held; undefined when none is due
 * or a live process holds the lock. The lock names its holder: one a merge
 * left when its process died (kill -9, a power loss) is taken over, so a
 * crash never stops merging for good.
 */
function lockMerge(ctx: Context, sink: PackSink): LockedMerge | undefined {
  const packs = shadowPacks(ctx, sink);
  if (packs.length < MERGE_AT_PACKS) return undefined;
  const take = packs.slice(0, geometricRollup(packs.map((p) => p.size)));
  if (take.length < 2) return undefined;
  try {
    const path = mergeLockPath(sink.registry);
    return { take, lock: takeProcessLock(ctx, path, MERGE_LOCK_WHAT), path };
  } catch (e) {
    if (e instanceof ShadowError && e.code === 'LOCKED') return undefined;
    throw e;
  }
}

/** Add `pack`'s objects to `entries` as they are; false when it cannot be copied so or is gone. */
function gatherPack(ctx: Context, pack: Candidate, entries: RawEntry[]): boolean {
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
      return false;
    for (const e of raw)
      entries.push({ oid: e.oid, crc: e.crc, parts: [bytes.subarray(e.offset, e.offset + e.length)] });
    return true;
  } catch (e) {
    // Removed meanwhile (git gc, another merge): leave it out.
    if (errnoCode(e) !== 'ENOENT') throw e;
    return false;
  } finally {
    index.close();
  }
}

/** An input the merged pack at `written` holds (durable and in place by now): removed. */
function removeMerged(ctx: Context, pack: Candidate, written: string): void {
  if (pack.idx === written) return;
  const stem = pack.idx.slice(0, -4);
  tryUnlink(ctx.fs, `${stem}.idx`);
  tryUnlink(ctx.fs, `${stem}.pack`);
  tryUnlink(ctx.fs, `${stem}.rev`);
}

/**
 * Rewrite the list without what is gone (read and written in one turn: a
 * pack this process registers meanwhile is kept; a line another process
 * appends meanwhile may be lost: that pack is then merely never merged).
 * A pack that is there stays listed whatever keeps it from this merge (a
 * keep: its batch's ref has not moved yet), so that a later merge takes it.
 */
function rewriteRegistry(ctx: Context, sink: PackSink): void {
  const present = new Set(listDir(ctx.fs, sink.dir));
  const listed = new Set(
    (readTextIfExists(ctx.fs, sink.registry) ?? '').split('\n').filter((n) => n.startsWith('pack-')),
  );
  const live = [...listed].filter((name) => present.has(`${name}.idx`));
  writeFileAtomic(ctx.fs, sink.registry, live.map((n) => `${n}\n`).join(''), {
    token: ctx.ids.token(),
    durable: false,
  });
}

/**
 * Merge shadow's packs when there are `MERGE_AT_PACKS` of them. Returns the
 * number of packs merged (0 when nothing was done, or another process holds
 * the merge lock).
 */
export function consolidatePacks(ctx: Context, sink: PackSink): number {
  const done = mergeLeavingRegistry(ctx, sink);
  if (done === undefined) return 0;
  finishMerge(ctx, sink, done);
  return done.merged;
}

/** A merge done but for the registry's rewrite and the lock's release (finishMerge): what a PackMerger answers. */
export type MergeDone = PackMergeResult;

/**
 * `consolidatePacks` up to the registry's rewrite, for another thread
 * (pack-merge-thread.ts): the merge lock is taken, the merged pack durable
 * and in place and registered, the inputs removed; the lock stays held.
 * The thread that appends to the registry (the one that writes batches)
 * must rewrite it (`finishMerge`): a rewrite on another thread would lose
 * a line appended between its read and its rename, and that pack would
 * never be merged. Undefined when nothing was merged (the lock, if taken,
 * is released).
 */
export function mergeLeavingRegistry(ctx: Context, sink: PackSink): MergeDone | undefined {
  const locked = lockMerge(ctx, sink);
  if (!locked) return undefined;
  let handedOn = false;
  try {
    const entries: RawEntry[] = [];
    const merged = locked.take.filter((pack) => gatherPack(ctx, pack, entries));
    if (merged.length < 2) return undefined;
    const written = sink.writeBuilt(buildPackFromRaw(entries));
    registerPack(ctx, sink.registry, written);
    for (const pack of merged) removeMerged(ctx, pack, written);
    handedOn = true;
    return { merged: merged.length, lock: locked.path };
  } finally {
    if (!handedOn) locked.lock.release();
  }
}

/** The end of a merge `mergeLeavingRegistry` did: the registry rewritten without what is gone, the lock released. */
export function finishMerge(ctx: Context, sink: PackSink, done: MergeDone): void {
  try {
    rewriteRegistry(ctx, sink);
  } finally {
    tryUnlink(ctx.fs, done.lock);
  }
}

/**
 * `consolidatePacks` in steps, for a process that serves requests meanwhile:
 * one input pack read per turn of the event loop (`nextTurn` between them),
 * the merged pack's fsyncs (pack, index, directory) on libuv's pool, then
 * one input removed per turn, so
 * a request that arrives during a merge waits for one step at most, not the
 * whole merge. The order on disk is the same as `consolidatePacks`': the
 * merged pack and its index durable and in place before any input is
 * removed, so a crash at any point leaves every object readable.
 */
export async function consolidatePacksInSteps(
  ctx: Context,
  sink: PackSink & { writeBuiltConcurrently(pack: BuiltPack): Promise<string> },
  nextTurn: () => Promise<void>,
): Promise<number> {
  const locked = lockMerge(ctx, sink);
  if (!locked) return 0;
  try {
    const entries: RawEntry[] = [];
    const merged: Candidate[] = [];
    for (const pack of locked.take) {
      if (gatherPack(ctx, pack, entries)) merged.push(pack);
      await nextTurn();
    }
    if (merged.length < 2) return 0;
    const built = buildPackFromRaw(entries);
    await nextTurn();
    const written = await sink.writeBuiltConcurrently(built);
    registerPack(ctx, sink.registry, written);
    // Removing files waits on the file system's journal where other processes sync: one input a turn.
    for (const pack of merged) {
      removeMerged(ctx, pack, written);
      await nextTurn();
    }
    rewriteRegistry(ctx, sink);
    return merged.length;
  } finally {
    locked.lock.release();
  }
}
