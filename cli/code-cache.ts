import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import vm from 'node:vm';

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
 *   compares only the source's length). Its first 20 bytes are the SHA-1 of
 *   the rest (V8 checks its own checksum only in debug builds): a damaged
 *   file is not used.
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

function sha1(...parts: Array<string | Buffer>): Buffer {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return h.digest();
}

function readCache(path: string): Buffer | 'none' | 'damaged' {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return 'none';
  }
  const data = file.subarray(20);
  return file.length > 20 && sha1(data).equals(file.subarray(0, 20)) ? data : 'damaged';
}

function writeCache(dir: string, name: string, build: string, data: Buffer): void {
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `${name}.tmp-${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(tmp, Buffer.concat([sha1(data), data]));
    renameSync(tmp, join(dir, name));
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // never made
    }
    throw e;
  }
  for (const other of readdirSync(dir)) {
    if (other.startsWith(build) || other.includes('.tmp-')) continue;
    try {
      unlinkSync(join(dir, other));
    } catch {
      // another process removed it
    }
  }
}

/**
 * Compile and run the CommonJS bundle `file` (with the cache kept for `key`,
 * when there is one) and return its exports.
 */
export function loadBundle(file: string, key: string | undefined, env: NodeJS.ProcessEnv): LoadedBundle {
  const source = readFileSync(file);
  const enabled = !env.NODE_DISABLE_COMPILE_CACHE;
  const dir = join(dirname(file), CACHE_DIR);
  const build = sha1(source, '\0', process.version, '\0', process.arch).toString('hex').slice(0, 16);
  const nameFor = (k: string): string => `${build}-${k}.bin`;
  const cacheable = enabled && key !== undefined && KEY.test(key);
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
