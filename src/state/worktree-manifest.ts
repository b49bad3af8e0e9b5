import * as z from 'zod/mini';
import type { Context } from '../context.js';
import { MODE } from '../git/format/git-objects.js';
import { listDir, tryUnlink, writeFileAtomic } from '../durable/durable-file.js';
import { readJsonFile } from '../durable/json-file.js';

/**
 * A worktree's manifest: every file as shadow left it there (blob id when
 * known, mode, and the stat data that tells an edit made there from a file
 * untouched since). Kept in shards, `shadow/worktrees/<id>.manifest/<x>.json`,
 * a path's shard chosen by a hash of it, and read lazily: a sync after a
 * batch of ten files reads and writes at most ten small shards, whatever
 * the size of the worktree (one file of 100,000 entries took longer to
 * parse than the whole sync may). The number of shards is chosen when the
 * worktree is made, about 32 paths each (`shardsFor`), and kept in its
 * record. A whole scan (`keys()`) reads them all.
 *
 * A cache, never fsynced: a shard lost or damaged reads as empty, so its
 * files look new and recording compares their contents (nothing recorded
 * twice, nothing lost).
 */

export interface ManifestEntry {
  /** Blob id of what was written (null when it was copied and not hashed). */
  oid: string | null;
  mode: string;
  size: number;
  mtime: number;
  ino: number;
}

/** About 32 paths a shard: a power of two between 16 and 65,536. */
export function shardsFor(files: number): number {
  let n = 16;
  while (n < 65536 && n * 32 < files) n *= 2;
  return n;
}

/** A shard on disk: path → [oid, mode, size, mtime, ino] (compact: parsing is the cost). */
const ShardSchema = z.record(
  z.string(),
  z.tuple([z.nullable(z.string()), z.string(), z.number(), z.number(), z.number()]),
);

/** FNV-1a of the path's UTF-16 code units: cheap, and spreads paths of one directory over the shards. */
function shardOf(path: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) {
    h ^= path.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

function shardName(shard: number): string {
  return `${shard.toString(16)}.json`;
}

export function manifestDir(shadowDir: string, id: string): string {
  return `${shadowDir}/worktrees/${id}.manifest`;
}

export class Manifest {
  private readonly shards = new Map<number, Map<string, ManifestEntry>>();
  private readonly dirty = new Set<number>();

  private constructor(
    private readonly ctx: Context,
    private readonly dir: string,
    /** How many shards (fixed for the manifest's life). */
    readonly shardCount: number,
    /** A new manifest: nothing on disk to read. */
    private readonly fresh: boolean,
  ) {}

  /**
   * A worktree's manifest (in as many shards as its record says), read
   * shard by shard as paths are asked for. A worktree made before the
   * manifest was sharded has no count in its record and one file,
   * `<id>.manifest.json`: it is moved into 256 shards here, once.
   */
  static open(ctx: Context, shadowDir: string, rec: { id: string; manifest_shards?: number | undefined }): Manifest {
    if (rec.manifest_shards === undefined) Manifest.migrateLegacy(ctx, shadowDir, rec.id);
    return new Manifest(ctx, manifestDir(shadowDir, rec.id), rec.manifest_shards ?? LEGACY_SHARDS, false);
  }

  /** Move a single-file manifest (`<id>.manifest.json`) into the shards an unmarked record reads; a damaged one is dropped (a cache). */
  private static migrateLegacy(ctx: Context, shadowDir: string, id: string): void {
    const path = legacyPath(shadowDir, id);
    if (!ctx.fs.existsSync(path)) return;
    const old = readJsonFile(ctx.fs, path, LegacySchema);
    if (old) {
      const moved = new Manifest(ctx, manifestDir(shadowDir, id), LEGACY_SHARDS, true);
      for (const [p, e] of Object.entries(old)) moved.set(p, e);
      moved.save();
    }
    tryUnlink(ctx.fs, path);
  }

  /** A new, empty manifest for about `files` paths (a materialization). */
  static create(ctx: Context, shadowDir: string, id: string, files: number): Manifest {
    return new Manifest(ctx, manifestDir(shadowDir, id), shardsFor(files), true);
  }

  private shard(n: number): Map<string, ManifestEntry> {
    let s = this.shards.get(n);
    if (s) return s;
    s = new Map();
    if (!this.fresh) {
      const raw = readJsonFile(this.ctx.fs, `${this.dir}/${shardName(n)}`, ShardSchema) ?? {};
      for (const [path, [oid, mode, size, mtime, ino]] of Object.entries(raw))
        s.set(path, { oid, mode, size, mtime, ino });
    }
    this.shards.set(n, s);
    return s;
  }

  get(path: string): ManifestEntry | undefined {
    return this.shard(shardOf(path, this.shardCount)).get(path);
  }

  has(path: string): boolean {
    return this.shard(shardOf(path, this.shardCount)).has(path);
  }

  set(path: string, entry: ManifestEntry): void {
    const n = shardOf(path, this.shardCount);
    this.shard(n).set(path, entry);
    this.dirty.add(n);
  }

  delete(path: string): void {
    const n = shardOf(path, this.shardCount);
    if (this.shard(n).delete(path)) this.dirty.add(n);
  }

  /** Every path (reads every shard). */
  keys(): string[] {
    const out: string[] = [];
    for (let n = 0; n < this.shardCount; n++) for (const p of this.shard(n).keys()) out.push(p);
    return out;
  }

  /** Write the shards that changed (all of them, for a new manifest). */
  save(): void {
    const fs = this.ctx.fs;
    fs.mkdirSync(this.dir, { recursive: true });
    // A new manifest writes only the shards that hold paths (a missing shard reads as empty).
    const shards = this.fresh ? [...this.shards.keys()] : [...this.dirty];
    for (const n of shards) {
      const s = this.shards.get(n);
      const out: Record<string, [string | null, string, number, number, number]> = {};
      if (s) for (const [path, e] of s) out[path] = [e.oid, e.mode, e.size, e.mtime, e.ino];
      writeFileAtomic(fs, `${this.dir}/${shardName(n)}`, JSON.stringify(out), {
        token: this.ctx.ids.token(),
        durable: false,
      });
    }
    this.dirty.clear();
  }
}

/** Shards of a manifest whose record gives no count (one moved from the single-file manifest). */
const LEGACY_SHARDS = 256;

function legacyPath(shadowDir: string, id: string): string {
  return `${shadowDir}/worktrees/${id}.manifest.json`;
}

const LegacySchema = z.record(
  z.string(),
  z.object({ oid: z.nullable(z.string()), mode: z.string(), size: z.number(), mtime: z.number(), ino: z.number() }),
);

/** Forget a worktree's manifest. */
export function removeManifest(ctx: Context, shadowDir: string, id: string): void {
  tryUnlink(ctx.fs, legacyPath(shadowDir, id));
  const dir = manifestDir(shadowDir, id);
  for (const name of listDir(ctx.fs, dir)) tryUnlink(ctx.fs, `${dir}/${name}`);
  try {
    ctx.fs.rmdirSync(dir);
  } catch {
    // already gone, or something not ours inside: left
  }
}

/** The stat data a manifest keeps of a file. */
export function statEntry(
  st: { size: number; mtimeMs: number; ino: number },
  oid: string | null,
  mode: string,
): ManifestEntry {
  return { oid, mode, size: st.size, mtime: st.mtimeMs, ino: st.ino };
}

interface StatLike {
  size: number;
  mtimeMs: number;
  ino: number;
  mode: number | bigint;
  isSymbolicLink(): boolean;
}

/**
 * The git mode a file's stat data stands for. The exec bit counts only
 * where the file system keeps it (core.filemode); where it does not, a
 * regular file keeps the mode git knew for it (`known`), as git does.
 */
export function modeOfStat(st: StatLike, trustExec: boolean, known?: string): string {
  if (st.isSymbolicLink()) return MODE.symlink;
  if (!trustExec) return known === MODE.executable ? MODE.executable : MODE.file;
  return (Number(st.mode) & 0o100) !== 0 ? MODE.executable : MODE.file;
}

/**
 * True when a file's stat data is still what the manifest recorded (so its
 * content is too). A chmod moves neither size nor mtime, so the mode is
 * compared as well.
 */
export function unchangedSince(entry: ManifestEntry, st: StatLike, trustExec: boolean): boolean {
  return (
    entry.size === st.size &&
    entry.mtime === st.mtimeMs &&
    entry.ino === st.ino &&
    entry.mode === modeOfStat(st, trustExec, entry.mode)
  );
}
