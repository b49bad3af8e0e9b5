/** bench/apply's results: each row's times and per-run facts, summed as the runs come, and the CPU profiles' summaries. */
import type { FsCounters } from '../helpers/counting-fs.js';
import type { inWindows } from '../helpers/profile.js';
import { median } from '../helpers/stats.js';
import type { WhereCounters } from '../helpers/where-fs.js';
import { GIT_DIR, WORK_TREE } from './instrumented-fs.js';
import type { Row } from './options.js';

/** Per-run facts (means over the measured runs). */
export interface Facts {
  filesWritten?: number;
  /** Files written in the work tree (not under .git). */
  worktreeFiles?: number;
  fsyncs?: number;
  worktreeFileFsyncs?: number;
  worktreeDirFsyncs?: number;
  gitFsyncs?: number;
  objectsRead?: number;
  fsCalls?: number;
  bytesWritten?: number;
}

export interface RowResult extends Facts {
  row: Row;
  k: number;
  times: number[];
}

/** Every row measured, in the order measured. */
export const results: RowResult[] = [];

export function find(row: Row, k: number): RowResult | undefined {
  return results.find((r) => r.row === row && r.k === k);
}

export function med(row: Row, k: number): number {
  const r = find(row, k);
  return r && r.times.length > 0 ? median(r.times) : NaN;
}

/** Sums of the per-run facts of one row, divided by the runs at the end. */
export class Tally {
  readonly times: number[] = [];
  private readonly sums: Required<Facts> = {
    filesWritten: 0,
    worktreeFiles: 0,
    fsyncs: 0,
    worktreeFileFsyncs: 0,
    worktreeDirFsyncs: 0,
    gitFsyncs: 0,
    objectsRead: 0,
    fsCalls: 0,
    bytesWritten: 0,
  };

  add(ms: number, c: FsCounters, w: WhereCounters, objectsRead?: number): void {
    this.times.push(ms);
    const wt = w.get(WORK_TREE) ?? { filesWritten: 0, fileFsyncs: 0, dirFsyncs: 0 };
    const git = w.get(GIT_DIR) ?? { filesWritten: 0, fileFsyncs: 0, dirFsyncs: 0 };
    this.sums.filesWritten += c.filesWritten;
    this.sums.worktreeFiles += wt.filesWritten;
    this.sums.fsyncs += c.fsyncs;
    this.sums.worktreeFileFsyncs += wt.fileFsyncs;
    this.sums.worktreeDirFsyncs += wt.dirFsyncs;
    this.sums.gitFsyncs += git.fileFsyncs + git.dirFsyncs;
    this.sums.objectsRead += objectsRead ?? 0;
    this.sums.fsCalls += c.calls;
    this.sums.bytesWritten += c.bytesWritten;
  }

  result(row: Row, k: number): RowResult {
    const n = this.times.length || 1;
    const per = (x: number): number => x / n;
    const s = this.sums;
    return {
      row,
      k,
      times: this.times,
      filesWritten: per(s.filesWritten),
      worktreeFiles: per(s.worktreeFiles),
      fsyncs: per(s.fsyncs),
      worktreeFileFsyncs: per(s.worktreeFileFsyncs),
      worktreeDirFsyncs: per(s.worktreeDirFsyncs),
      gitFsyncs: per(s.gitFsyncs),
      objectsRead: per(s.objectsRead),
      fsCalls: per(s.fsCalls),
      bytesWritten: per(s.bytesWritten),
    };
  }
}

/** The summaries of the CPU profiles taken (--profile), printed after the tables. */
export const profiles: Array<{
  k: number;
  what: string;
  file: string;
  runs: number;
  summary: ReturnType<typeof inWindows>;
}> = [];
