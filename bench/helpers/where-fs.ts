import { constants } from 'node:fs';
import type { FileSystem } from '../../src/index.js';
import { FILE_SYSTEM_METHODS } from '../../src/context.js';

/**
 * Where the writes and fsyncs of a FileSystem go: a wrapper that remembers
 * the path and flags of every descriptor it opens, and counts per place
 * (`classify` names it: "work tree", ".git", ...) the files opened for
 * writing, the fsyncs of files and the fsyncs of directories (a descriptor
 * opened read-only and then fsynced is taken for a directory: that is how
 * durable code syncs a directory). Layered under (or over) countingFs, it
 * splits the totals that countingFs gives.
 */

export interface PlaceCounts {
  /** Files opened for writing (openSync with a write flag, writeFileSync or appendFileSync on a path). */
  filesWritten: number;
  /** fsyncs of descriptors opened for writing. */
  fileFsyncs: number;
  /** fsyncs of descriptors opened read-only: directories. */
  dirFsyncs: number;
}

export type WhereCounters = Map<string, PlaceCounts>;

const WRAPPED = [
  'openSync',
  'closeSync',
  'fsyncSync',
  'writeFileSync',
  'appendFileSync',
] as const satisfies ReadonlyArray<keyof FileSystem>;

/** Every other method of FileSystem is passed on as it is. */
const PASS_THROUGH = FILE_SYSTEM_METHODS.filter((m) => !(WRAPPED as readonly string[]).includes(m));

function writes(flags: unknown): boolean {
  if (flags === undefined) return false;
  if (typeof flags === 'number')
    return (flags & (constants.O_WRONLY | constants.O_RDWR | constants.O_CREAT | constants.O_APPEND)) !== 0;
  const s = String(flags);
  return s.includes('w') || s.includes('a') || s.includes('+');
}

export function whereFs(
  base: FileSystem,
  classify: (path: string) => string,
): { fs: FileSystem; counters: WhereCounters } {
  const counters: WhereCounters = new Map();
  const place = (path: string): PlaceCounts => {
    const name = classify(path);
    let c = counters.get(name);
    if (!c) counters.set(name, (c = { filesWritten: 0, fileFsyncs: 0, dirFsyncs: 0 }));
    return c;
  };
  const open = new Map<number, { path: string; writes: boolean }>();
  const wrapped: Record<string, unknown> = {};
  for (const name of PASS_THROUGH) wrapped[name] = (base[name] as (...args: unknown[]) => unknown).bind(base);
  wrapped.openSync = (path: unknown, flags?: unknown, mode?: unknown): number => {
    const fd = (base.openSync as (...a: unknown[]) => number)(path, flags, mode);
    const w = writes(flags);
    open.set(fd, { path: String(path), writes: w });
    if (w) place(String(path)).filesWritten++;
    return fd;
  };
  wrapped.closeSync = (fd: number): void => {
    open.delete(fd);
    base.closeSync(fd);
  };
  const count = (fd: number): void => {
    const o = open.get(fd);
    if (o) {
      const c = place(o.path);
      if (o.writes) c.fileFsyncs++;
      else c.dirFsyncs++;
    }
  };
  wrapped.fsyncSync = (fd: number): void => {
    count(fd);
    base.fsyncSync(fd);
  };
  // The optional callback fsync (a publish keeps many in flight).
  const fsync = base.fsync;
  if (fsync) {
    wrapped.fsync = (fd: number, cb: (err: NodeJS.ErrnoException | null) => void): void => {
      count(fd);
      fsync.call(base, fd, cb);
    };
  }
  if (base.rename) wrapped.rename = base.rename.bind(base);
  for (const name of ['writeFileSync', 'appendFileSync'] as const) {
    const fn = (base[name] as (...args: unknown[]) => unknown).bind(base);
    wrapped[name] = (file: unknown, ...rest: unknown[]): unknown => {
      if (typeof file !== 'number') place(String(file)).filesWritten++;
      return fn(file, ...rest);
    };
  }
  return { fs: wrapped as unknown as FileSystem, counters };
}

/** A deep copy of the counters, to subtract later. */
export function whereSnapshot(c: WhereCounters): WhereCounters {
  return new Map([...c].map(([k, v]) => [k, { ...v }]));
}

/** `after - before`, place by place. */
export function whereDelta(after: WhereCounters, before: WhereCounters): WhereCounters {
  const out: WhereCounters = new Map();
  for (const [k, v] of after) {
    const b = before.get(k) ?? { filesWritten: 0, fileFsyncs: 0, dirFsyncs: 0 };
    out.set(k, {
      filesWritten: v.filesWritten - b.filesWritten,
      fileFsyncs: v.fileFsyncs - b.fileFsyncs,
      dirFsyncs: v.dirFsyncs - b.dirFsyncs,
    });
  }
  return out;
}
