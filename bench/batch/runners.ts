/**
 * bench/batch's runners: one system applying one case's batches, timed and
 * counted; shadow in-process (counts from sh.stats and a counting fs), or a
 * system whose batches are processes (counts from git and strace).
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { nodeContext, openShadow, type FileSystem } from '../../src/index.js';
import type { CheckpointRepo, Spawner, TraceCounts } from '../helpers/baselines.js';
import { countingFs, delta, snapshot } from '../helpers/counting-fs.js';
import { Profiler } from '../helpers/profile.js';
import { log } from '../helpers/progress.js';
import { countObjects, type CachedRepo, type GitDirReset } from '../helpers/repo.js';
import type { Batch } from '../helpers/workload.js';
import { plan, type Options, type System } from './options.js';
import type { CaseResult } from './results.js';

export interface Env {
  o: Options;
  repo: CachedRepo;
  /** The scratch copy of the repository (working tree and .git): shadow-disk and checkpoint work here. */
  dir: string;
  scratch: string;
  env: Record<string, string>;
  gitEnv: Record<string, string>;
  spawner: Spawner;
  /** Every git dir the cases write to, each put back as it was after each k. */
  resets: GitDirReset[];
  /** Own copies of the repository's .git for the cases that interleave with shadow-disk. */
  gitDirs: { fastImport: string; plumbing: string; cli: string };
  memfs?: { fs: FileSystem };
  /** (c)'s git dir, made once per N (its set-up is a whole-tree add -A && commit). */
  checkpoint?: CheckpointRepo;
}

/** One system applying one case's batches, one at a time. */
export interface Runner {
  readonly system: System;
  readonly warm: number;
  readonly runs: number;
  /** Apply batch `i`, timed; past the warm-up the time is recorded. */
  batch(i: number): Promise<void>;
  /** After the last batch: the per-batch counts (a traced extra batch for processes), clean-up. */
  finish(): Promise<CaseResult>;
}

function batchInput(
  batch: Batch,
  i: number,
): { intent: string; operations: Array<{ operation: 'write'; path: string; content: string }> } {
  return {
    intent: `bench batch ${i}`,
    operations: batch.map((w) => ({ operation: 'write' as const, path: w.path, content: w.content })),
  };
}

/** shadow in-process: one warm handle, `sh.batch` timed; counts from `sh.stats` and a counting fs. */
export async function shadowRunner(
  e: Env,
  system: 'shadow-disk' | 'shadow-memfs',
  k: number,
  batches: Batch[],
): Promise<Runner> {
  const { warm, runs } = plan(system, e.repo.n, k, e.o);
  const onDisk = system === 'shadow-disk';
  const base = onDisk ? (nodeFs as unknown as FileSystem) : e.memfs!.fs;
  const { fs, counters } = countingFs(base);
  const ctx = nodeContext({
    fs,
    env: onDisk ? e.env : { ...e.env, HOME: '/home/bench', XDG_CONFIG_HOME: '/home/bench/.config' },
  });
  const sh = await openShadow({
    dir: onDisk ? e.dir : '/repo',
    fs: ctx.fs,
    clock: ctx.clock,
    ids: ctx.ids,
    env: ctx.env,
  });
  const draft = `bench-k${k}`;
  const profiler = onDisk && e.o.profileDir !== undefined ? new Profiler() : undefined;
  const times: number[] = [];
  const sums = { read: 0, written: 0, packs: 0, calls: 0, fsyncs: 0, files: 0 };
  return {
    system,
    warm,
    runs,
    async batch(i) {
      if (i === warm && profiler) await profiler.start();
      const input = batchInput(batches[i]!, i);
      const s0 = sh.stats;
      const c0 = snapshot(counters);
      const t0 = performance.now();
      const r = await sh.batch(input, { draft });
      const t1 = performance.now();
      if (!r.success) throw new Error(`${system}: batch ${i} failed: ${JSON.stringify(r.error)}`);
      if (i < warm) return;
      times.push(t1 - t0);
      const s1 = sh.stats;
      const d = delta(counters, c0);
      sums.read += s1.objectsRead - s0.objectsRead;
      sums.written += s1.objectsWritten - s0.objectsWritten;
      sums.packs += s1.packsWritten - s0.packsWritten;
      sums.calls += d.calls;
      sums.fsyncs += d.fsyncs;
      sums.files += d.filesWritten;
    },
    async finish() {
      if (profiler) {
        const file = join(e.o.profileDir!, `shadow-disk-n${e.repo.n}-k${k}.cpuprofile`);
        await profiler.stop(file);
        log(`  wrote ${file}`);
      }
      sh.close();
      const per = (x: number): number => x / times.length;
      return {
        system,
        n: e.repo.n,
        k,
        times,
        objectsRead: per(sums.read),
        objectsWritten: per(sums.written),
        packs: per(sums.packs),
        fsyncs: per(sums.fsyncs),
        filesWritten: per(sums.files),
        fsCalls: per(sums.calls),
        notes: [],
      };
    },
  };
}

/**
 * A system whose batches are processes: each batch timed as a whole; objects
 * written from `git count-objects` over its measured batches; fsyncs and files
 * written from one more batch under strace.
 */
export function processRunner(
  e: Env,
  system: System,
  k: number,
  batches: Batch[],
  how: {
    apply: (b: Batch, i: number) => void | Promise<void>;
    /** Objects in the git dir the system writes to. */
    objects: () => number;
    /** Trace counts of one more batch (starting at batch `next`), then clean up. */
    after: (next: number) => Promise<TraceCounts | undefined>;
    notes?: string[];
  },
): Runner {
  const { warm, runs } = plan(system, e.repo.n, k, e.o);
  const times: number[] = [];
  let before = 0;
  return {
    system,
    warm,
    runs,
    async batch(i) {
      if (i === warm) before = how.objects();
      const t0 = performance.now();
      await how.apply(batches[i]!, i);
      const t1 = performance.now();
      if (i >= warm) times.push(t1 - t0);
    },
    async finish() {
      const written = (how.objects() - before) / runs;
      const trace = await how.after(warm + runs);
      return {
        system,
        n: e.repo.n,
        k,
        times,
        objectsWritten: written,
        fsyncs: trace?.fsyncs,
        filesWritten: trace?.filesWritten,
        notes: how.notes ?? [],
      };
    },
  };
}

export async function traced(e: Env, apply: () => void | Promise<void>): Promise<TraceCounts | undefined> {
  if (!e.o.strace) return undefined;
  e.spawner.startTrace();
  try {
    await apply();
  } catch (err) {
    e.spawner.stopTrace();
    throw err;
  }
  return e.spawner.stopTrace();
}

export function objectsIn(e: Env, gitArgs: readonly string[], env: Record<string, string>): () => number {
  return () => {
    const c = countObjects(gitArgs, e.dir, env);
    return c.loose + c.inPack;
  };
}
