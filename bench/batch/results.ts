/** bench/batch's results: each case's batch times and per-batch counts, and the fsync probe of each N's disk. */
import { median } from '../helpers/stats.js';
import type { System } from './options.js';

export interface CaseResult {
  system: System;
  n: number;
  k: number;
  times: number[];
  /** Per measured batch (means); for git processes, fsyncs and files written come from one more, traced batch. */
  objectsRead?: number;
  objectsWritten?: number;
  packs?: number;
  fsyncs?: number;
  filesWritten?: number;
  fsCalls?: number;
  notes: string[];
}

/** Every case measured, in the order measured. */
export const results: CaseResult[] = [];
/** The median fsync of a new file on the disk of each N's repository (the probe before its cases). */
export const fsyncMedians = new Map<number, number>();
/**
 * Serial waits on the disk in one durable batch: the pack, its index and the
 * ref's lock file (together), the pack directory, the ref's directory, the
 * ledger line. What no CPU work can go below on this disk.
 */
export const SERIAL_FSYNCS = 4;

export function find(system: System, n: number, k: number): CaseResult | undefined {
  return results.find((r) => r.system === system && r.n === n && r.k === k);
}

export function med(system: System, n: number, k: number): number {
  const r = find(system, n, k);
  return r ? median(r.times) : NaN;
}
