import type { Stats } from 'node:fs';
import type { FileSystem } from '../context.js';
import type { Oid } from './format/git-objects.js';
import { statIfExists } from '../durable/durable-file.js';

/**
 * git's index (version 2 or 3) as a table of its entries' offsets, to say
 * "this working-tree file still holds blob X" from an lstat alone, as git's
 * own `status` does: an entry whose recorded size, mtime, ctime and inode
 * match the file holds the file's blob. A batch's first touches use it (a
 * file it vouches for is not read), and so does materializing a worktree
 * (the manifest of a copied file gets its id without hashing it).
 *
 * Built in one pass that reads each entry's flags and nothing else (names
 * are not decoded, ids not turned to hex): scanning a 50,000-entry index
 * takes about a millisecond (reading its 4 MB, a few more), where a map of
 * its entries took 60 ms. Lookups are binary searches on the names' bytes,
 * in the index's own order.
 *
 * Never trusted:
 * - an entry as new as the index file ("racily clean": a change in the same
 *   tick as the index was written would not show in the stat data);
 * - an entry in a merge stage, or marked intent-to-add or skip-worktree;
 * - an index of another version, or damaged: no view at all.
 */

const ENTRY_FIXED = 62;
const STAGE_MASK = 0x3000;
const EXTENDED = 0x4000;
/** Extended flags (version 3): skip-worktree, intent-to-add. */
const SKIP_WORKTREE = 0x4000;
const UNTRUSTED_EXTENDED = SKIP_WORKTREE | 0x2000;
const DIRECTORY_MODE = 0o040000;

/** Where git keeps a path out of the working tree: its own entry, or (sparse index) the directory entry that holds it. */
export type SkipWorktreeEntry = { mode: string; oid: Oid } | { dir: string; tree: Oid };

export class IndexView {
  private constructor(
    private readonly buf: Buffer,
    private readonly version: number,
    /** Offset of each entry, in the index's order (by name bytes, then stage). */
    private readonly offsets: Uint32Array,
    /** Offset and length of each entry's name. */
    private readonly names: Uint32Array,
    /** The index file's mtime: entries at or after it are racily clean. */
    private readonly indexMtimeMs: number,
  ) {}

  /** Read the index at `path`; undefined when there is none or it is not one shadow reads (the callers then read the files). */
  static read(fs: FileSystem, path: string): IndexView | undefined {
    let buf: Buffer;
    let st: Stats | undefined;
    try {
      st = statIfExists(fs, path, true);
      if (!st) return undefined;
      buf = fs.readFileSync(path) as Buffer;
    } catch {
      return undefined;
    }
    if (buf.length < 32 || buf.toString('latin1', 0, 4) !== 'DIRC') return undefined;
    const version = buf.readUInt32BE(4);
    if (version !== 2 && version !== 3) return undefined;
    const count = buf.readUInt32BE(8);
    const end = buf.length - 20;
    const offsets = new Uint32Array(count);
    const names = new Uint32Array(count * 2);
    let p = 12;
    for (let i = 0; i < count; i++) {
      if (p + ENTRY_FIXED > end) return undefined;
      const flags = buf.readUInt16BE(p + 60);
      const fixed = ENTRY_FIXED + (version >= 3 && (flags & EXTENDED) !== 0 ? 2 : 0);
      let nameLength = flags & 0xfff;
      if (nameLength === 0xfff) nameLength = buf.indexOf(0, p + fixed) - (p + fixed);
      if (nameLength < 0 || p + fixed + nameLength > end) return undefined;
      offsets[i] = p;
      names[2 * i] = p + fixed;
      names[2 * i + 1] = nameLength;
      p += (fixed + nameLength + 8) & ~7;
    }
    return new IndexView(buf, version, offsets, names, st.mtimeMs);
  }

  get size(): number {
    return this.offsets.length;
  }

  /** The offset of `path`'s stage-0 entry, or -1. */
  private find(path: string): number {
    const p = this.findName(Buffer.from(path, 'utf8'));
    return p !== -1 && (this.buf.readUInt16BE(p + 60) & STAGE_MASK) === 0 ? p : -1;
  }

  /** The offset of the first entry named exactly `name` (stage 0 sorts first), or -1. */
  private findName(name: Buffer): number {
    let lo = 0;
    let hi = this.offsets.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const start = this.names[2 * mid]!;
      // compare(target...) orders the entry's name against the name sought.
      if (this.buf.compare(name, 0, name.length, start, start + this.names[2 * mid + 1]!) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= this.offsets.length) return -1;
    const start = this.names[2 * lo]!;
    if (
      this.names[2 * lo + 1] !== name.length ||
      this.buf.compare(name, 0, name.length, start, start + name.length) !== 0
    )
      return -1;
    return this.offsets[lo]!;
  }

  private skipsWorktree(p: number): boolean {
    const b = this.buf;
    return (
      this.version >= 3 && (b.readUInt16BE(p + 60) & EXTENDED) !== 0 && (b.readUInt16BE(p + 62) & SKIP_WORKTREE) !== 0
    );
  }

  /**
   * What git's index holds at `path` when git keeps the path out of the
   * working tree (outside the sparse cone, or `update-index
   * --skip-worktree`): its entry's mode and blob, or, in a sparse index, the
   * collapsed directory entry (`dir/`, a tree) that holds it. Undefined for
   * any other path: the working tree is the truth there.
   */
  skipWorktree(path: string): SkipWorktreeEntry | undefined {
    const p = this.find(path);
    if (p !== -1)
      return this.skipsWorktree(p)
        ? { mode: this.modeAt(p), oid: this.buf.toString('hex', p + 40, p + 60) }
        : undefined;
    for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) {
      const q = this.findName(Buffer.from(path.slice(0, at + 1), 'utf8'));
      if (q !== -1 && this.buf.readUInt32BE(q + 24) === DIRECTORY_MODE && this.skipsWorktree(q)) {
        return { dir: path.slice(0, at), tree: this.buf.toString('hex', q + 40, q + 60) };
      }
    }
    return undefined;
  }

  /** The mode the index records for `path` (octal text, as in trees): what git knows where the file system keeps no executable bit. */
  modeOf(path: string): string | undefined {
    const p = this.find(path);
    return p === -1 ? undefined : this.modeAt(p);
  }

  /** The id the index records for `path` (a blob, or a submodule's commit), whatever the working tree holds. */
  idOf(path: string): Oid | undefined {
    const p = this.find(path);
    return p === -1 ? undefined : this.buf.toString('hex', p + 40, p + 60);
  }

  private modeAt(p: number): string {
    return this.buf.readUInt32BE(p + 24).toString(8);
  }

  /**
   * The blob id the index vouches for at `path`, given the file's lstat
   * `st`: the entry's, when its stat data (size, mtime, ctime, inode) and its
   * type (file or symlink) match and it is trusted (see above); else null.
   * The executable bit is not compared: see `vouches`.
   */
  oidOf(path: string, st: Stats): Oid | null {
    const p = this.find(path);
    return p === -1 ? null : this.oidAt(p, st);
  }

  private oidAt(p: number, st: Stats): Oid | null {
    const b = this.buf;
    if (
      this.version >= 3 &&
      (b.readUInt16BE(p + 60) & EXTENDED) !== 0 &&
      (b.readUInt16BE(p + 62) & UNTRUSTED_EXTENDED) !== 0
    )
      return null;
    const entryMode = b.readUInt32BE(p + 24);
    const typeMatches =
      entryMode === 0o120000 ? st.isSymbolicLink() : (entryMode === 0o100644 || entryMode === 0o100755) && st.isFile();
    if (!typeMatches) return null;
    const mtimeMs = b.readUInt32BE(p + 8) * 1000 + b.readUInt32BE(p + 12) / 1e6;
    const ctimeMs = b.readUInt32BE(p) * 1000 + b.readUInt32BE(p + 4) / 1e6;
    // Racily clean, by git's own rule (the mtime): a change in the tick the index was written would not show.
    if (mtimeMs >= this.indexMtimeMs) return null;
    if (b.readUInt32BE(p + 36) !== Number(st.size) % 2 ** 32) return null;
    if (b.readUInt32BE(p + 20) !== Number(st.ino) % 2 ** 32) return null;
    // To the microsecond: a Stats' times are doubles with about that precision.
    if (Math.abs(Number(st.mtimeMs) - mtimeMs) > 0.001 || Math.abs(Number(st.ctimeMs) - ctimeMs) > 0.001) return null;
    return b.toString('hex', p + 40, p + 60);
  }

  /**
   * True when the index says the file at `path`, as `st` (its lstat) shows
   * it, is blob `oid` with `mode` (a tree mode: 100644, 100755, 120000),
   * without reading it. `trustExecutableBit` false (core.fileMode): the
   * file's executable bit is not compared.
   */
  vouches(path: string, st: Stats, mode: string, oid: Oid, trustExecutableBit: boolean): boolean {
    const p = this.find(path);
    if (p === -1 || this.modeAt(p) !== mode) return false;
    if (trustExecutableBit && mode !== '120000' && ((Number(st.mode) & 0o100) !== 0) !== (mode === '100755'))
      return false;
    return this.oidAt(p, st) === oid;
  }
}
