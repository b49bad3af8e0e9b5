import type { spawnSync as SpawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { randomBytes, randomUUID } from 'node:crypto';
import { hostname, uptime } from 'node:os';
import type { Clock, Context, GitRunner, Ids, Processes, ProgramRunner } from './context.js';

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  tzOffsetMinutes: (ms) => -new Date(ms).getTimezoneOffset(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Random ids from node:crypto. Tokens (temporary file names: an apply of
 * 1,000 files takes 1,000 of them) are cut from a pool of random bytes
 * filled 4 KiB at a time, not one getrandom call each.
 */
export function randomIds(): Ids {
  let pool = Buffer.alloc(0);
  let at = 0;
  return {
    token: () => {
      if (at + 6 > pool.length) {
        pool = randomBytes(4096);
        at = 0;
      }
      at += 6;
      return pool.toString('hex', at - 6, at);
    },
    uuid: () => randomUUID(),
  };
}

/** Seconds of slack on the boot time: a lock made this soon after a restart is never taken for one made before it. */
const BOOT_SLACK_MS = 10_000;

/** This process, and liveness of others by signal 0. */
export const localProcesses: Processes = {
  self: process.pid,
  host: hostname(),
  bootTime: Date.now() - uptime() * 1000 - BOOT_SLACK_MS,
  isAlive: (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EPERM';
    }
  },
};

/**
 * node:child_process, loaded when a process is first started: it brings
 * node's sockets and streams with it, which a command that starts none (a
 * batch, `status`) would load for nothing.
 */
let spawnSyncFn: typeof SpawnSync | undefined;
const spawnSync: typeof SpawnSync = ((...args: Parameters<typeof SpawnSync>) => {
  spawnSyncFn ??= (createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process'))
    .spawnSync;
  return spawnSyncFn(...args);
}) as typeof SpawnSync;

/** Native git on the PATH, run to completion (filters run inside it). */
export const nativeGit: GitRunner = {
  run: (args, { cwd, env, input }) => {
    const r = spawnSync('git', args, {
      cwd,
      env: env as NodeJS.ProcessEnv,
      input,
      maxBuffer: 1 << 30,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout = r.stdout ?? Buffer.alloc(0);
    const stderr = r.error ? r.error.message : (r.stderr ?? Buffer.alloc(0)).toString('utf8');
    return { status: r.error ? null : r.status, stdout, stderr };
  },
};

/** Programs on the PATH, run to completion. */
export const nativePrograms: ProgramRunner = {
  run: (program, args, { cwd, env, input }) => {
    const r = spawnSync(program, args, {
      cwd,
      env: env as NodeJS.ProcessEnv,
      input,
      maxBuffer: 1 << 26,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout = r.stdout ?? Buffer.alloc(0);
    const stderr = r.error ? r.error.message : (r.stderr ?? Buffer.alloc(0)).toString('utf8');
    return { status: r.error ? null : r.status, stdout, stderr };
  },
};

/**
 * The context of a real process: node's fs, the system clock, crypto ids and
 * `process.env`. Only entry points (the CLI, the server) call this.
 *
 * @example
 * const ctx = nodeContext();
 */
export function nodeContext(overrides: Partial<Context> = {}): Context {
  return {
    fs,
    clock: systemClock,
    ids: randomIds(),
    env: process.env,
    processes: localProcesses,
    git: nativeGit,
    programs: nativePrograms,
    ...overrides,
  };
}
