import type { Stats } from 'node:fs';
import type { Context } from '../context.js';

/**
 * Blob ids of working-tree files from git's index, without reading the
 * files: an entry whose recorded size, mtime and inode still match the
 * file's lstat holds the file's id, as git itself assumes. An entry as new
 * as the index file is "racily clean" (a change in the same tick would not
 * show), so it is not trusted.
 */

interface StatRow {
  oid: string;
  /** The mode git recorded (octal text, as in trees). */
  mode: string;
  size: number;
  mtimeSec: number;
  mtimeNsec: number;
  ino: number;
}

export interface IndexStatOids {
  /** The file's blob id when the index vouches for it, else null. */
  oidOf(path: string, st: Stats): string | null;
  /** The mode the index records for the path (what git knows where the file system keeps no exec bit). */
  modeOf(path: string): string | undefined;
}

const NONE: IndexStatOids = { oidOf: () => null, modeOf: () => undefined };

export function indexStatOids(ctx: Context, indexPath: string): IndexStatOids {
  let buf: Buffer;
  let indexMtime: number;
  try {
    buf = ctx.fs.readFileSync(indexPath) as Buffer;
    indexMtime = (ctx.fs.statSync(indexPath) as Stats).mtimeMs;
  } catch {
    return NONE;
  }
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return NONE;
  const version = buf.readUInt32BE(4);
  if (version !== 2 && version !== 3) return NONE;
  const count = buf.readUInt32BE(8);
  const rows = new Map<string, StatRow>();
  let p = 12;
  for (let i = 0; i < count && p + 62 <= buf.length; i++) {
    const flags = buf.readUInt16BE(p + 60);
    const extended = version >= 3 && (flags & 0x4000) !== 0;
    const fixed = 62 + (extended ? 2 : 0);
    let nameLength = flags & 0xfff;
    if (nameLength === 0xfff) nameLength = buf.indexOf(0, p + fixed) - (p + fixed);
    if ((flags & 0x3000) === 0) {
      rows.set(buf.toString('utf8', p + fixed, p + fixed + nameLength), {
        oid: buf.toString('hex', p + 40, p + 60),
        mode: buf.readUInt32BE(p + 24).toString(8),
        mtimeSec: buf.readUInt32BE(p + 8),
        mtimeNsec: buf.readUInt32BE(p + 12),
        ino: buf.readUInt32BE(p + 20),
        size: buf.readUInt32BE(p + 36),
      });
    }
    p += (fixed + nameLength + 8) & ~7;
  }
  return {
    modeOf: (path) => rows.get(path)?.mode,
    oidOf(path, st) {
      const r = rows.get(path);
      if (!r) return null;
      const mtimeMs = r.mtimeSec * 1000 + r.mtimeNsec / 1e6;
      if (mtimeMs >= indexMtime) return null;
      if (r.size !== st.size % 2 ** 32 || r.ino !== Number(st.ino) % 2 ** 32) return null;
      // Compared to the microsecond: stat's mtimeMs is a double with that much precision.
      if (Math.abs(st.mtimeMs - mtimeMs) > 0.001) return null;
      return r.oid;
    },
  };
}
