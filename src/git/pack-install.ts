/**
 * The durable installation of new packs in `objects/pack`: each written and
 * fsynced under git's temporary names (`tmp_pack_`/`tmp_idx_`), kept (see
 * pack-keeps.ts), renamed into place pack first and index last (as git does:
 * readers find packs through their index), the directory fsynced. Once a
 * write returns, a crash cannot lose the pack.
 */

import type { Context } from '../context.js';
import { errnoCode } from '../errors.js';
import type { Oid } from './format/git-objects.js';
import { streamBlobPack } from './blob-pack-stream.js';
import {
  ensureDir,
  fsyncDir,
  fsyncDirConcurrently,
  tryUnlink,
  writeNewFileSynced,
  writeNewFilesSynced,
} from '../durable/durable-file.js';
import { streamPack, type BuiltPack, type PackObject } from './format/pack-writer.js';
import { TempPackVanished, whileTempVanishes, whileTempVanishesSync } from './pack-temp-retry.js';
import type { PackKeeps } from './pack-keeps.js';

interface TempNames {
  tmpPack: string;
  tmpIdx: string;
}

export class PackInstaller {
  constructor(
    private readonly ctx: Context,
    /** The `objects/pack` directory. */
    private readonly dir: string,
    private readonly keeps: PackKeeps,
    /** Told of each pack once it is in place: its `.idx` path and how many objects it holds. */
    private readonly placed: (idx: string, count: number) => void,
  ) {}

  /** Write a built pack durably; returns its `.idx` path. */
  writeBuilt(built: BuiltPack): string {
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
   * `writeBuilt` with the fsyncs of the pack, its index and the directory on
   * libuv's pool (where the file system has them): the event loop runs on
   * while the disk catches up. Same order, so the same promise on a crash.
   */
  async writeBuiltConcurrently(built: BuiltPack): Promise<string> {
    const fs = this.ctx.fs;
    return whileTempVanishes(async () => {
      const { tmpPack, tmpIdx } = this.tempNames();
      try {
        await writeNewFilesSynced(fs, [
          [tmpPack, built.pack],
          [tmpIdx, [built.idx]],
        ]);
      } catch (e) {
        tryUnlink(fs, tmpPack);
        tryUnlink(fs, tmpIdx);
        throw e;
      }
      const idx = this.rename(tmpPack, tmpIdx, built);
      await fsyncDirConcurrently(fs, this.dir);
      this.placed(idx, built.count);
      return idx;
    });
  }

  /** Stream `objects` into a pack durably, its and its index's fsyncs in flight together; returns its `.idx` path. */
  async writeStreamed(objects: readonly PackObject[]): Promise<string> {
    const fs = this.ctx.fs;
    return whileTempVanishes(async () => {
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
      const idx = this.rename(tmpPack, tmpIdx, built!);
      await fsyncDirConcurrently(fs, this.dir);
      this.placed(idx, built!.count);
      return idx;
    });
  }

  /**
   * Write one blob durably from a file, streamed (`prefix`, then the file's
   * first `length` bytes): a pack of its own. Returns its `.idx` path, the
   * blob's id and size.
   */
  async writeBlobFromFile(
    source: string,
    length: number,
    prefix: Buffer,
  ): Promise<{ idx: string; oid: Oid; size: number }> {
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
    return { idx, oid: streamed.oid, size: streamed.size };
  }

  /** Temporary names for a new pack and its index (git's own `tmp_pack_`/`tmp_idx_` prefixes), the directory made. */
  private tempNames(): TempNames {
    const dir = this.dir;
    ensureDir(this.ctx.fs, dir);
    const token = this.ctx.ids.token();
    return { tmpPack: `${dir}/tmp_pack_${token}`, tmpIdx: `${dir}/tmp_idx_${token}` };
  }

  /**
   * Put a pack written (and fsynced) at `tmpPack` into place with its index:
   * the index written and fsynced, both renamed (pack first, index last, as
   * git does: readers find packs through their index), the directory
   * fsynced. Returns the `.idx` path.
   */
  private install({ tmpPack, tmpIdx }: TempNames, built: { checksum: string; count: number; idx: Buffer }): string {
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
    const finalIdx = this.rename(tmpPack, tmpIdx, built);
    fsyncDir(this.ctx.fs, this.dir);
    this.placed(finalIdx, built.count);
    return finalIdx;
  }

  /** Rename a pack and its index into place (pack first), kept; returns the `.idx` path. The directory is the caller's to fsync. */
  private rename(tmpPack: string, tmpIdx: string, built: { checksum: string }): string {
    const fs = this.ctx.fs;
    const dir = this.dir;
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
    return finalIdx;
  }
}
