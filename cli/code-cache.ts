import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import vm from 'node:vm';
import { crc32 } from 'node:zlib';

/**
 * Loading the CLI bundle with V8's code cache.
 *
 * A one-shot command spends more of its time compiling JavaScript than doing
 * its work: a batch of 10 files took about 40 ms of compiling and running
 * cold code for 4 ms of work. Node 22 caches compiled code by itself
 * (`module.enableCompileCache`); Node 20, which shadow supports, offers only
 * `vm.Script`'s `cachedData`, so the CLI is one CommonJS bundle, compiled here
 * with the code V8 kept from an earlier run of the same command.
 *
 * - The cache lives beside the bundle, in `.code-cache/`, one file per
 *   command: V8 keeps the functions a run compiled, and commands use
 *   different ones.
 * - A file's name holds a hash of the bundle, node's version and the
 *   architecture, so a rebuilt bundle never meets an old cache (V8 itself
 *   compares only the source's length). Its first 4 bytes are the CRC-32 of
 *   the rest (V8 checks its own checksum only in debug builds): a damaged
 *   file is not used. (A CRC, not a cryptographic hash: it guards against a
 *   torn or damaged file, and whoever can write here can replace the bundle
 *   itself; zlib's is a third of the time of a SHA-1 of the megabyte.)
 * - Hashing the 1.3 MB bundle costs about 1.3 ms a start, so the hash is
 *   kept in a stamp beside the caches, with the bundle's file stamp (device,
 *   inode, size, modification and change times, as git's index keeps a
 *   file's): a start whose bundle has the same stamp takes the hash from
 *   it. A bundle changed in place changes its change time, which nothing
 *   can set back; a stamp is written only for a bundle whose change time is
 *   RACY_MS older than the moment of writing, so that a change in the same
 *   tick of the clock cannot leave the stamp as it was (git's "racy" entries;
 *   the library's statStamp in src/durable/durable-file.ts keeps its files
 *   so, and the executable loads nothing of the library).
 * - A cache V8 refuses (other flags) is made again; files of other builds
 *   are removed when a new one is written.
 * - Where the directory cannot be written (a system-wide install), commands
 *   run without the cache, as they would anyway. `NODE_DISABLE_COMPILE_CACHE`
 *   (node's own switch for its cache) turns it off.
 */

/** What became of the cache on this load. */
export type CacheState = 'used' | 'none' | 'damaged' | 'rejected' | 'off';

export interface LoadedBundle {
  exports: Record<string, unknown>;
  /** `used`; `none` kept yet; `damaged` (checksum); `rejected` by V8; `off` (disabled, or a key that is not cached). */
  cache: CacheState;
  /**
   * Write the cache under `key` when this run had none to use: call it once
   * the command ran, so that the cache holds what the command compiled.
   * Never throws.
   */
  saveCache(key: string): void;
}

const CACHE_DIR = '.code-cache';
/** A cache key is a command name (the callers' table); anything else is not cached. */
const KEY = /^[a-z][a-z0-9-]{0,31}$/;
/** The layout of a cache file (its checksum), part of every build's name. */
const FORMAT = 'crc32';
/** A bundle changed this recently may change again in the same clock tick: its hash is not stamped. */
export const RACY_MS = 2000;

function sha1(...parts: Array<string | Buffer>): Buffer {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return h.digest();
}

function checksum(data: Buffer): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(crc32(data) >>> 0);
  return b;
}

function readCache(path: string): Buffer | 'none' | 'damaged' {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return 'none';
  }
  const data = file.subarray(4);
  return file.length > 4 && checksum(data).equals(file.subarray(0, 4)) ? data : 'damaged';
}

/** Write `data` to `name` in `dir` whole or not at all (another process may read it meanwhile). */
function writeWhole(dir: string, name: string, data: Buffer): void {
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `${name}.tmp-${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, join(dir, name));
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // never made
    }
    throw e;
  }
}

function writeCache(dir: string, name: string, build: string, data: Buffer): void {
  writeWhole(dir, name, Buffer.concat([checksum(data), data]));
  for (const other of readdirSync(dir)) {
    if (other.startsWith(build) || other.includes('.tmp-') || other.endsWith(STAMP_SUFFIX)) continue;
    try {
      unlinkSync(join(dir, other));
    } catch {
      // another process removed it
    }
  }
}

const STAMP_SUFFIX = '.stamp';

/** What a stamp records of the bundle: its file stamp (nanoseconds as text) and the build it hashed to. */
interface Stamp {
  file: string;
  build: string;
}

/** The bundle's file stamp, as git's index keeps one; undefined when it cannot be read. */
function fileStamp(file: string): { text: string; ctimeMs: number } | undefined {
  try {
    const s = statSync(file, { bigint: true });
    return {
      text: [s.dev, s.ino, s.size, s.mtimeNs, s.ctimeNs].join(' '),
      ctimeMs: Number(s.ctimeNs / 1_000_000n),
    };
  } catch {
    return undefined;
  }
}

/** The build a stamp recorded for this very file stamp, or undefined (none, another, damaged). */
function stampedBuild(path: string, file: string): string | undefined {
  try {
    const stamp = JSON.parse(readFileSync(path, 'utf8')) as Partial<Stamp>;
    return stamp.file === file && typeof stamp.build === 'string' && /^[0-9a-f]{16}$/.test(stamp.build)
      ? stamp.build
      : undefined;
  } catch {
    return undefined;
  }
}

/** The build `source` hashes to, stamped (when `stamp` is given) for the next start if its file is not racy (RACY_MS). */
function hashedBuild(
  source: Buffer,
  dir: string,
  stampPath: string,
  stamp: { text: string; ctimeMs: number } | undefined,
  now: () => number,
): string {
  const build = sha1(source, '\0', process.version, '\0', process.arch, '\0', FORMAT).toString('hex').slice(0, 16);
  if (stamp && now() - stamp.ctimeMs > RACY_MS) {
    try {
      writeWhole(dir, basename(stampPath), Buffer.from(JSON.stringify({ file: stamp.text, build } satisfies Stamp)));
    } catch {
      // A directory that cannot be written: the hash is made at each start, as without a stamp.
    }
  }
  return build;
}

/**
 * Compile and run the CommonJS bundle `file` (with the cache kept for `key`,
 * when there is one) and return its exports.
 */
export function loadBundle(
  file: string,
  key: string | undefined,
  env: NodeJS.ProcessEnv,
  now: () => number = Date.now,
): LoadedBundle {
  const enabled = !env.NODE_DISABLE_COMPILE_CACHE;
  const dir = join(dirname(file), CACHE_DIR);
  // Stamped before the read: a change after the stat never gets the stamp of the bytes read before it.
  const stamp = enabled ? fileStamp(file) : undefined;
  const stampPath = join(dir, `${process.version}-${process.arch}-${FORMAT}${STAMP_SUFFIX}`);
  const source = readFileSync(file);
  const cacheable = enabled && key !== undefined && KEY.test(key);
  const build =
    (stamp && stampedBuild(stampPath, stamp.text)) ??
    hashedBuild(source, dir, stampPath, cacheable ? stamp : undefined, now);
  const nameFor = (k: string): string => `${build}-${k}.bin`;
  const read = cacheable ? readCache(join(dir, nameFor(key))) : 'off';
  const cachedData = typeof read === 'string' ? undefined : read;
  // The function wrapper node gives a CommonJS module, on the first line so
  // that line numbers in stack traces stay those of the bundle; strict, as
  // the ES modules it was bundled from are.
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname) {"use strict";${source.toString('utf8')}\n})`,
    {
      filename: file,
      cachedData,
    },
  );
  const module = { exports: {} as Record<string, unknown> };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
  );
  const cache: CacheState = typeof read === 'string' ? read : script.cachedDataRejected === true ? 'rejected' : 'used';
  return {
    exports: module.exports,
    cache,
    saveCache: (k) => {
      if (!enabled || (cache === 'used' && k === key) || !KEY.test(k)) return;
      try {
        writeCache(dir, nameFor(k), build, script.createCachedData());
      } catch {
        // A directory that cannot be written: no cache, and nothing else changes.
      }
    },
  };
}
