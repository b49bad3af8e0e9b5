/**
 * CPU profiles of part of a benchmark (node:inspector, this process), and a
 * summary of where a function's time goes: the functions under it, by
 * inclusive time. A synchronous system call (fsyncSync, openSync) shows up as
 * the time of the JS function that made it.
 */
import * as nodeFs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { dirname } from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Sampling every `intervalUs` microseconds until `stop`. */
export class Profiler {
  private readonly session = new Session();

  constructor(private readonly intervalUs = 100) {}

  async start(): Promise<void> {
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: this.intervalUs });
    await this.session.post('Profiler.start');
  }

  /** Stop; write the profile to `file` (a .cpuprofile Chrome DevTools opens) and return it. */
  async stop(file: string): Promise<CpuProfile> {
    const { profile } = await this.session.post('Profiler.stop');
    this.session.disconnect();
    nodeFs.mkdirSync(dirname(file), { recursive: true });
    nodeFs.writeFileSync(file, JSON.stringify(profile));
    return profile as unknown as CpuProfile;
  }
}

export interface FunctionTime {
  name: string;
  /** file:line, relative to `base` when given. */
  where: string;
  /** Milliseconds with the function on the stack under a root (counted once per stack, recursion or not). */
  inclusive: number;
  /** Milliseconds at the top of the stack. */
  self: number;
}

/** A span of time on the profiler's clock: microseconds of CLOCK_MONOTONIC, as `process.hrtime.bigint() / 1000n`. */
export type Window = readonly [startUs: number, endUs: number];

/** Now on the profiler's clock (V8 stamps its samples with the same monotonic clock as process.hrtime). */
export function nowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Where the time inside `windows` went (say, the calls of `sh.apply`, async
 * continuations included): every function on the stack of a sample taken in
 * a window, by inclusive time (once per sample, recursion or not), and the
 * windows' sampled total. Samples outside every window are ignored.
 */
export function inWindows(
  profile: CpuProfile,
  windows: readonly Window[],
  base = '',
): { total: number; samples: number; functions: FunctionTime[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const sorted = [...windows].sort((a, b) => a[0] - b[0]);
  const key = (f: CallFrame): string => `${f.functionName || '(anonymous)'}\u0000${f.url}:${f.lineNumber + 1}`;
  const times = new Map<string, FunctionTime>();
  const entry = (f: CallFrame): FunctionTime => {
    const k = key(f);
    let t = times.get(k);
    if (!t) {
      const url = f.url.replace(/^file:\/\//, '');
      const where =
        url === '' ? '' : `${base && url.startsWith(base) ? url.slice(base.length) : url}:${f.lineNumber + 1}`;
      times.set(k, (t = { name: f.functionName || '(anonymous)', where, inclusive: 0, self: 0 }));
    }
    return t;
  };
  let total = 0;
  let count = 0;
  let t = profile.startTime;
  let w = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    // The time of sample i runs until the next sample.
    const dt = (i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1]! : 0) / 1000;
    while (w < sorted.length && sorted[w]![1] < t) w++;
    if (w >= sorted.length || t < sorted[w]![0]) continue;
    total += dt;
    count++;
    const seen = new Set<FunctionTime>();
    let id: number | undefined = profile.samples[i]!;
    entry(byId.get(id)!.callFrame).self += dt;
    while (id !== undefined) {
      const f = entry(byId.get(id)!.callFrame);
      if (!seen.has(f)) {
        seen.add(f);
        f.inclusive += dt;
      }
      id = parent.get(id);
    }
  }
  const functions = [...times.values()].filter((f) => f.name !== '(root)').sort((a, b) => b.inclusive - a.inclusive);
  return { total, samples: count, functions };
}
