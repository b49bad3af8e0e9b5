import { constants } from 'node:fs';
import type { FileSystem } from '../../src/index.js';
import { FILE_SYSTEM_METHODS } from '../../src/context.js';

/** What a counting file system has seen so far. */
export interface FsCounters {
  /** Every call through the FileSystem surface. */
  calls: number;
  /** fsyncSync calls (files and directories). */
  fsyncs: number;
  /** Files opened for writing (openSync with a write flag), written whole (writeFileSync), appended to (appendFileSync) or copied (copyFileSync). */
  filesWritten: number;
  /** Bytes passed to writeSync, writeFileSync and appendFileSync. */
  bytesWritten: number;
  /** Files read whole (readFileSync on a path). */
  filesRead: number;
  /** lstatSync and statSync calls. */
  stats: number;
}

/** Every method of FileSystem is wrapped (the list is the type's own). */
const METHODS = FILE_SYSTEM_METHODS;

function isWriteFlag(flags: unknown): boolean {
  if (flags === undefined) return false;
  if (typeof flags === 'number')
    return (flags & (constants.O_WRONLY | constants.O_RDWR | constants.O_CREAT | constants.O_APPEND)) !== 0;
  const s = String(flags);
  return s.includes('w') || s.includes('a') || s.includes('+');
}

function byteLength(data: unknown): number {
  if (typeof data === 'string') return Buffer.byteLength(data);
  if (data instanceof Uint8Array) return data.byteLength;
  return 0;
}

/**
 * A FileSystem that delegates every call to `base` and counts the calls a
 * benchmark prints next to its milliseconds: fsyncs and files written are
 * machine-independent facts, unlike the time they take.
 */
export function countingFs(base: FileSystem): { fs: FileSystem; counters: FsCounters } {
  const counters: FsCounters = { calls: 0, fsyncs: 0, filesWritten: 0, bytesWritten: 0, filesRead: 0, stats: 0 };
  const wrapped: Record<string, unknown> = {};
  for (const name of METHODS) {
    const fn = (base[name] as (...args: unknown[]) => unknown).bind(base);
    wrapped[name] = (...args: unknown[]): unknown => {
      counters.calls++;
      switch (name) {
        case 'fsyncSync':
          counters.fsyncs++;
          break;
        case 'openSync':
          if (isWriteFlag(args[1])) counters.filesWritten++;
          break;
        case 'writeFileSync':
        case 'appendFileSync':
          if (typeof args[0] !== 'number') counters.filesWritten++;
          counters.bytesWritten += byteLength(args[1]);
          break;
        case 'writeSync': {
          const data = args[1];
          const len = typeof args[3] === 'number' && data instanceof Uint8Array ? args[3] : byteLength(data);
          counters.bytesWritten += len;
          break;
        }
        case 'readFileSync':
          if (typeof args[0] !== 'number') counters.filesRead++;
          break;
        case 'statSync':
        case 'lstatSync':
          counters.stats++;
          break;
        default:
          break; // every other call counts in `calls` alone
      }
      return fn(...args);
    };
  }
  // The optional callback fsync (a publish keeps many in flight): counted as an fsync.
  const fsync = base.fsync;
  if (fsync) {
    wrapped.fsync = (fd: number, cb: (err: NodeJS.ErrnoException | null) => void): void => {
      counters.calls++;
      counters.fsyncs++;
      fsync.call(base, fd, cb);
    };
  }
  // The optional callback rename (a publish renames a window of files at once).
  const rename = base.rename;
  if (rename) {
    wrapped.rename = (from: string, to: string, cb: (err: NodeJS.ErrnoException | null) => void): void => {
      counters.calls++;
      rename.call(base, from, to, cb);
    };
  }
  // The optional kernel copy (a worktree's files): counted as a file written.
  const copyFileSync = base.copyFileSync;
  if (copyFileSync) {
    wrapped.copyFileSync = (src: string, dest: string, mode?: number): void => {
      counters.calls++;
      counters.filesWritten++;
      copyFileSync.call(base, src, dest, mode);
    };
  }
  return { fs: wrapped as unknown as FileSystem, counters };
}

/** A copy of the counters, to subtract later. */
export function snapshot(c: FsCounters): FsCounters {
  return { ...c };
}

/** `after - before`, field by field. */
export function delta(after: FsCounters, before: FsCounters): FsCounters {
  return {
    calls: after.calls - before.calls,
    fsyncs: after.fsyncs - before.fsyncs,
    filesWritten: after.filesWritten - before.filesWritten,
    bytesWritten: after.bytesWritten - before.bytesWritten,
    filesRead: after.filesRead - before.filesRead,
    stats: after.stats - before.stats,
  };
}
