/** The packed-refs file: its parse, cached under the file's stat, and the removal of one ref from it under its lock. */

import type { Context } from '../context.js';
import { isOid, type Oid } from './format/git-objects.js';
import { fsyncDir, readTextIfExists, statStamp, writeAll } from '../durable/durable-file.js';
import type { RefLocks } from './ref-locks.js';

export class PackedRefs {
  /** The last parse, under the stat it was read with. */
  private cached: { stamp: string; refs: ReadonlyMap<string, Oid> } | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly commondir: string,
    private readonly locks: RefLocks,
  ) {}

  private get path(): string {
    return `${this.commondir}/packed-refs`;
  }

  /**
   * Every packed ref, by name (read-only: shared between calls). The file is
   * parsed again only when its stat changes: every rewrite of packed-refs,
   * git's or shadow's, renames a new file into place, so a new inode shows
   * it; a file changed so recently that an edit in place could change it
   * again unseen (see statStamp) is parsed every time. A repository with
   * thousands of packed refs no longer pays for them on every lookup of a
   * ref that is not loose.
   */
  read(): ReadonlyMap<string, Oid> {
    const path = this.path;
    const { stamp, racy } = statStamp(this.ctx.fs, path, this.ctx.clock.now());
    if (this.cached?.stamp === stamp && !racy) return this.cached.refs;
    const refs = new Map<string, Oid>();
    const text = stamp === '-' ? undefined : readTextIfExists(this.ctx.fs, path);
    for (const line of text ? text.split('\n') : []) {
      if (line.length < 42 || line.startsWith('#') || line.startsWith('^')) continue;
      const oid = line.slice(0, 40);
      if (isOid(oid) && line[40] === ' ') refs.set(line.slice(41).trimEnd(), oid);
    }
    this.cached = { stamp, refs };
    return refs;
  }

  /** Rewrite packed-refs without `ref` (and its peeled line), under `packed-refs.lock`. */
  async remove(ref: string): Promise<void> {
    const fs = this.ctx.fs;
    const packedPath = this.path;
    const lock = await this.locks.take(packedPath);
    const fd = lock.fd;
    try {
      const text = readTextIfExists(fs, packedPath) ?? '';
      const lines = text.split('\n');
      const kept: string[] = [];
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        if (!line.startsWith('#') && !line.startsWith('^') && line.slice(41) === ref) {
          if (lines[i + 1]?.startsWith('^')) i++; // its peeled line goes with it
          continue;
        }
        kept.push(line);
      }
      writeAll(fs, fd, Buffer.from(kept.join('\n'), 'utf8'));
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      fs.renameSync(`${packedPath}.lock`, packedPath);
      fsyncDir(fs, this.commondir);
      lock.forget();
    } catch (e) {
      this.locks.release(lock, `${packedPath}.lock`);
      throw e;
    }
  }
}
