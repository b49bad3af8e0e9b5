import type * as nodeFs from 'node:fs';

/**
 * The methods of the file-system surface every `FileSystem` has (wrappers
 * that count or inject faults iterate over this list, so it cannot drift
 * from the type).
 */
export const FILE_SYSTEM_METHODS = [
  'openSync',
  'closeSync',
  'readSync',
  'writeSync',
  'fsyncSync',
  'fstatSync',
  'readFileSync',
  'writeFileSync',
  'appendFileSync',
  'statSync',
  'lstatSync',
  'readdirSync',
  'mkdirSync',
  'renameSync',
  'unlinkSync',
  'rmdirSync',
  'readlinkSync',
  'existsSync',
  'symlinkSync',
  'accessSync',
  'linkSync',
] as const;

/**
 * The file-system surface shadow uses: the synchronous half of `node:fs`.
 *
 * The store is synchronous on purpose: every call it makes is small and
 * bounded by the paths a batch touches, and a synchronous `fsync` costs about
 * half of one dispatched to libuv's thread pool (measured in bench/batch).
 * memfs volumes and node's `fs` both satisfy this type.
 */
export type FileSystem = Pick<typeof nodeFs, (typeof FILE_SYSTEM_METHODS)[number]> &
  /**
   * Optional: fsync on libuv's thread pool. With it, a publish keeps many
   * fsyncs in flight at once (the disk's journal commits them together);
   * without it every fsync is synchronous.
   */
  Partial<Pick<typeof nodeFs, 'fsync'>> &
  /**
   * Optional: rename on libuv's thread pool. With it, a publish renames a
   * window of files into place at once (renames in different directories
   * proceed in parallel); without it, one after the other.
   */
  Partial<Pick<typeof nodeFs, 'rename'>> &
  /** Optional: a kernel copy (a reflink where the file system can) for materializing worktrees; without it, read and write. */
  Partial<Pick<typeof nodeFs, 'copyFileSync'>>;

/** Wall-clock time and waiting, injectable so tests and the core never read the real clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** The local time zone's offset from UTC in minutes (east positive) at `ms`. */
  tzOffsetMinutes(ms: number): number;
  /** Resolve after `ms` milliseconds (lock back-off). */
  sleep(ms: number): Promise<void>;
}

/** Sources of unique names. */
export interface Ids {
  /** A short random token for temporary file names. */
  token(): string;
  /** A random UUID v4. */
  uuid(): string;
}

/** Environment variables as read by shadow (`SHADOW_*`, `HOME`, `GIT_*`). */
export type Env = Readonly<Record<string, string | undefined>>;

/** This process, and whether another is still alive (to tell a stale lock from a held one). */
export interface Processes {
  /** This process's id. */
  self: number;
  /** This machine's name: a lock held on another machine is never taken as stale. */
  host: string;
  isAlive(pid: number): boolean;
  /**
   * When this machine last started (ms since the epoch), if known: a lock
   * made before it is stale whoever made it, git included, since no process
   * outlives a restart (a power loss leaves locks nobody holds).
   */
  bootTime?: number;
}

/** What a run of native git returned. */
export interface GitRun {
  /** The exit status; null when git could not be started or was killed. */
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs native git, for the few things shadow leaves to git itself because
 * matching it exactly matters more than a spawn (filter drivers, `ident`,
 * `working-tree-encoding`).
 */
export interface GitRunner {
  run(args: readonly string[], options: { cwd: string; env: Env; input?: Buffer }): GitRun;
}

/** Runs another program to completion: `ssh-keygen`, which signs and verifies approvals. */
export interface ProgramRunner {
  run(program: string, args: readonly string[], options: { cwd: string; env: Env; input?: Buffer }): GitRun;
}

/** Where a merge of shadow's packs runs: the pack directory and shadow's list of its packs. */
export interface PackMergeJob {
  /** The `objects/pack` directory. */
  dir: string;
  /** `shadow/packs.list`. */
  registry: string;
}

/**
 * Runs pack merges off the caller's thread (pack-merge-thread.ts: a worker
 * thread), for a process that serves requests: the merge's reads, writes,
 * fsyncs and removals never wait in its event loop. `merge` resolves once
 * the merged pack is durable, in place and registered and the inputs are
 * gone, with the merge lock still held (`lock`); the caller then rewrites
 * the registry and releases the lock (pack-consolidate.ts, finishMerge).
 * Undefined when nothing was merged.
 */
export interface PackMerger {
  merge(job: PackMergeJob): Promise<PackMergeResult | undefined>;
}

/** What a PackMerger's merge did: how many packs it merged, and the merge lock it still holds. */
export interface PackMergeResult {
  merged: number;
  /** The lock's path (`shadow/packs.list.lock`). */
  lock: string;
}

/** Every side effect shadow has comes through this object. */
export interface Context {
  fs: FileSystem;
  clock: Clock;
  ids: Ids;
  env: Env;
  /** Optional: without it, a lock left by a dead process must be removed by hand. */
  processes?: Processes;
  /** Optional: without it, a path that needs a filter driver, `ident` or an encoding is refused (FILTER_FAILED). */
  git?: GitRunner;
  /** Optional: without it, approvals cannot be signed (SIGNING_FAILED) and a signed one from elsewhere does not count. */
  programs?: ProgramRunner;
  /** Optional: without it, a handle that serves requests merges packs in steps on its own event loop. */
  packMerger?: PackMerger;
}
