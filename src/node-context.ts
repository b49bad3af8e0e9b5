import * as fs from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock, Context, Ids, Processes } from './context.js';

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  tzOffsetMinutes: (ms) => -new Date(ms).getTimezoneOffset(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Random ids from node:crypto. */
export const randomIds: Ids = {
  token: () => randomBytes(6).toString('hex'),
  uuid: () => randomUUID(),
};

/** This process, and liveness of others by signal 0. */
export const localProcesses: Processes = {
  self: process.pid,
  host: hostname(),
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
    ids: randomIds,
    env: process.env,
    processes: localProcesses,
    ...overrides,
  };
}
