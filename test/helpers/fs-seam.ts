import type { FileSystem } from '../../src/index.js';
import { FILE_SYSTEM_METHODS } from '../../src/context.js';

/**
 * A wrapper around a `FileSystem` (memfs or node's fs) for fault injection:
 * it counts calls, can "crash" at the Nth call, and can make chosen
 * operations on chosen paths fail with an errno code (ENOSPC, EACCES, ...).
 *
 * A crash is a process death: once it happened, every later call throws
 * too, so no catch block of the code under test can tidy up after it.
 */

export type FsOp = keyof FileSystem;

export const FS_OPS: readonly FsOp[] = FILE_SYSTEM_METHODS;

/** Operations whose first argument is a file descriptor: their path is the one the descriptor was opened on. */
const FD_OPS = new Set<FsOp>(['closeSync', 'readSync', 'writeSync', 'fsyncSync', 'fstatSync']);

/** The error a simulated crash throws. */
export class SimulatedCrash extends Error {
  readonly code = 'SIMULATED_CRASH';
  constructor(
    readonly op: string,
    readonly at: number,
  ) {
    super(`simulated crash at fs call #${at} (${op})`);
  }
}

/** A node-style system error. */
export function errnoError(code: string, op: string, path: string | undefined): NodeJS.ErrnoException {
  const errnos: Record<string, number> = { ENOSPC: -28, EACCES: -13, EPERM: -1, EIO: -5, EROFS: -30 };
  const e = new Error(`${code}: injected failure, ${op} '${path ?? '?'}'`) as NodeJS.ErrnoException;
  e.code = code;
  e.errno = errnos[code] ?? -1;
  e.syscall = op.replace(/Sync$/, '');
  if (path !== undefined) e.path = path;
  return e;
}

/** A failure to inject: `op` on a path `path` matches, after `after` matching calls went through. */
export interface Injection {
  op: FsOp | readonly FsOp[];
  /** Matched against the path of the call (for fd operations, the path the fd was opened on). Default: every path. */
  path?: RegExp | ((path: string) => boolean);
  /** How many matching calls succeed first. Default 0. */
  after?: number;
  /** The errno code to throw. */
  code: string;
}

export interface CallRecord {
  n: number;
  op: FsOp;
  /** The path the call acts on: for renameSync and symlinkSync, the destination. */
  path: string | undefined;
  /** renameSync: the source. */
  from?: string;
  /** For fd operations: the descriptor. */
  fd?: number;
}

export class FsSeam {
  readonly fs: FileSystem;
  /** Calls made while counting. */
  calls = 0;
  counting = false;
  /** Crash when the call count reaches this number (1-based). */
  crashAt: number | undefined;
  crashed = false;
  private crash: SimulatedCrash | undefined;
  /** The calls made while counting, when `record` is on. */
  readonly log: CallRecord[] = [];
  record = false;
  /** Called before each counted call (after counting it), e.g. to kill a real process at a chosen point. */
  onCall: ((n: number, op: FsOp, path: string | undefined) => void) | undefined;
  private injections: Array<Injection & { hits: number }> = [];
  private readonly fdPaths = new Map<number, string>();

  constructor(readonly inner: FileSystem) {
    const wrapped: Record<string, unknown> = {};
    for (const op of FS_OPS) wrapped[op] = (...args: unknown[]) => this.call(op, args);
    this.fs = wrapped as unknown as FileSystem;
  }

  /** Start counting from zero, crashing at call `crashAt` if given. */
  arm(crashAt?: number): void {
    this.calls = 0;
    this.crashAt = crashAt;
    this.crashed = false;
    this.crash = undefined;
    this.counting = true;
    this.log.length = 0;
  }

  disarm(): void {
    this.counting = false;
    this.crashAt = undefined;
  }

  /** Crash now: this call and every later one throw. */
  die(op: string): never {
    this.crashed = true;
    throw (this.crash = new SimulatedCrash(op, this.calls));
  }

  inject(injection: Injection): void {
    this.injections.push({ ...injection, hits: 0 });
  }

  /** Remove every injection ("the disk has space again"). */
  heal(): void {
    this.injections = [];
  }

  private pathOf(op: FsOp, args: unknown[]): string | undefined {
    if (FD_OPS.has(op)) return this.fdPaths.get(args[0] as number);
    const p = args[0];
    return typeof p === 'string' ? p : p instanceof URL ? p.pathname : Buffer.isBuffer(p) ? p.toString() : undefined;
  }

  private call(op: FsOp, args: unknown[]): unknown {
    const path =
      op === 'symlinkSync' || op === 'renameSync' || op === 'linkSync' ? String(args[1]) : this.pathOf(op, args);
    if (this.crashed) throw (this.crash ??= new SimulatedCrash(op, this.calls));
    if (this.counting) {
      this.calls++;
      if (this.record) {
        const rec: CallRecord = { n: this.calls, op, path };
        if (op === 'renameSync' || op === 'linkSync') rec.from = String(args[0]);
        if (FD_OPS.has(op)) rec.fd = args[0] as number;
        this.log.push(rec);
      }
      if (this.crashAt !== undefined && this.calls >= this.crashAt) this.die(op);
      this.onCall?.(this.calls, op, path);
    }
    for (const inj of this.injections) {
      const ops = typeof inj.op === 'string' ? [inj.op] : inj.op;
      if (!ops.includes(op)) continue;
      if (inj.path && (path === undefined || (inj.path instanceof RegExp ? !inj.path.test(path) : !inj.path(path))))
        continue;
      inj.hits++;
      if (inj.hits > (inj.after ?? 0)) throw errnoError(inj.code, op, path);
    }
    const result = (this.inner[op] as (...a: unknown[]) => unknown).apply(this.inner, args);
    if (op === 'openSync' && typeof result === 'number' && path !== undefined) this.fdPaths.set(result, path);
    if (op === 'closeSync') this.fdPaths.delete(args[0] as number);
    return result;
  }
}
