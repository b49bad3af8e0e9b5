/**
 * bench/calls' processes: each case one command line a user (or an agent)
 * runs, timed as the whole process; rounds interleave the cases so that the
 * machine's load weighs on all alike.
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { timedRun } from '../helpers/process-facts.js';
import { startServe as startServeProc, type ServeProc } from '../helpers/serve-proc.js';
import { median, p90 } from '../helpers/stats.js';

export const BIN_DIR = fileURLToPath(new URL('../../bin/', import.meta.url));
/** The executable node runs (`node shadow.cjs`), and the launcher on the PATH (`shadow`). */
export const SHADOW_CJS = join(BIN_DIR, 'shadow.cjs');
export const LAUNCHER = join(BIN_DIR, 'shadow');

/** One timed command line. `before` runs untimed ahead of each timed run (putting the tree back). */
export interface Case {
  label: string;
  cmd: string;
  /** A function when the arguments change between runs (the draft `before` made). */
  args: string[] | (() => string[]);
  env?: Record<string, string>;
  /** Written to a file before each run; `@input` in `args` names it. */
  input?: () => string;
  before?: () => void;
}

export interface Timed {
  label: string;
  times: number[];
}

/** Run every case `runs` times (after one untimed warm-up each), rotating the order every round. */
export function timeCases(cases: readonly Case[], runs: number, cwd: string, env: Record<string, string>): Timed[] {
  const out = cases.map((c) => ({ label: c.label, times: [] as number[] }));
  for (let round = -1; round < runs; round++) {
    for (let j = 0; j < cases.length; j++) {
      const i = (j + Math.max(0, round)) % cases.length;
      const c = cases[i]!;
      c.before?.();
      const t = timedRunInput(c, cwd, env);
      if (round >= 0) out[i]!.times.push(t);
    }
  }
  return out;
}

function timedRunInput(c: Case, cwd: string, env: Record<string, string>): number {
  const args = typeof c.args === 'function' ? c.args() : c.args;
  if (c.input === undefined) return timedRun(c.cmd, args, { cwd, env: { ...env, ...c.env } }).ms;
  const file = join(cwd, '..', `input-${process.pid}.json`);
  nodeFs.writeFileSync(file, c.input());
  // The input as a file shadow reads (`-` would time the shell's pipe too).
  return timedRun(
    c.cmd,
    args.map((a) => (a === '@input' ? file : a)),
    { cwd, env: { ...env, ...c.env } },
  ).ms;
}

export const med = (t: Timed): number => median(t.times);
export const hi = (t: Timed): number => p90(t.times);

/** `shadow serve` on `dir` until stop(): callers' one-shot commands are handed to it. `cjs`: another build's executable. */
export function startServe(dir: string, env: Record<string, string>, cjs = SHADOW_CJS): Promise<ServeProc> {
  return startServeProc(cjs, dir, env);
}

/**
 * A node script that only writes its files (the floor a one-shot batch is
 * held to): `node write-files.cjs <dir> <path>...`, into a scratch copy of
 * the paths' directories (the repository's tree stays as it is).
 */
export function writeFloorScript(dir: string, paths: readonly string[]): string {
  for (const p of paths) nodeFs.mkdirSync(join(dir, 'floor', p, '..'), { recursive: true });
  const file = join(dir, 'write-files.cjs');
  nodeFs.writeFileSync(
    file,
    "const fs = require('node:fs');\nconst path = require('node:path');\nconst [dir, ...paths] = process.argv.slice(2);\nfor (const p of paths) fs.writeFileSync(path.join(dir, p), `floor ${Date.now()}\\n`);\n",
  );
  return file;
}
