/**
 * bench/worktree.bench.ts's exec cases: `shadow exec -- true` on a
 * repository of N files, the first call (the draft's git worktree made)
 * against the second (synced after a batch of a few files), beside
 * `git worktree add --detach` itself; and `shadow worktree add` against
 * `git worktree add`. Each row carries the peak RSS of the largest process
 * of the run (GNU time's %M: shadow's node, or one of the gits it starts).
 */
import * as nodeFs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { median } from './stats.js';

export interface ExecRow {
  label: string;
  ms: number[];
  kb: number[];
}

/** Run `cmd` under GNU time: wall ms and peak RSS (KiB). */
export function measured(
  cmd: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): { ms: number; kb: number } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { cwd, env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const kb = Number(r.stderr.trim().split('\n').pop());
  return { ms, kb };
}

export function execRows(o: {
  runs: number;
  shadowBin: string;
  dir: string;
  env: Record<string, string>;
  root: string;
  batch: (seed: number) => void;
}): ExecRow[] {
  const rows: Record<string, ExecRow> = {};
  const add = (label: string, m: { ms: number; kb: number }): void => {
    (rows[label] ??= { label, ms: [], kb: [] }).ms.push(m.ms);
    rows[label]!.kb.push(m.kb);
  };
  const execDir = `${o.dir}.shadow-exec/default`;
  const wtAdd = join(o.root, 'wt-add-mem');
  const gitDir = join(o.root, 'wt-git-mem');
  for (let round = 0; round <= o.runs; round++) {
    o.batch(5000 + round);
    const tip = spawnSync('git', ['rev-parse', 'refs/shadow/drafts/default'], {
      cwd: o.dir,
      env: o.env,
      encoding: 'utf8',
    }).stdout.trim();
    const first = measured(process.execPath, [o.shadowBin, 'exec', '--', 'true'], o.dir, o.env);
    o.batch(6000 + round);
    const second = measured(process.execPath, [o.shadowBin, 'exec', '--', 'true'], o.dir, o.env);
    const git = measured('git', ['worktree', 'add', '-q', '--detach', gitDir, tip], o.dir, o.env);
    const add2 = measured(process.execPath, [o.shadowBin, 'worktree', 'add', wtAdd], o.dir, o.env);
    if (round > 0) {
      add('shadow exec -- true: first call (worktree made)', first);
      add('shadow exec -- true: second call (after a 10-file batch)', second);
      add('git worktree add --detach <dir> <tip>', git);
      add('shadow worktree add <dir> (a process)', add2);
    }
    spawnSync(process.execPath, [o.shadowBin, 'worktree', 'remove', '--force', execDir], { cwd: o.dir, env: o.env });
    spawnSync(process.execPath, [o.shadowBin, 'worktree', 'remove', '--force', wtAdd], { cwd: o.dir, env: o.env });
    nodeFs.rmSync(gitDir, { recursive: true, force: true });
    spawnSync('git', ['worktree', 'prune'], { cwd: o.dir, env: o.env });
  }
  return Object.values(rows);
}

export function execTable(rows: ExecRow[]): string[][] {
  const git = rows.find((r) => r.label.startsWith('git'));
  const base = git ? median(git.ms) : 1;
  return rows.map((r) => [
    r.label,
    String(r.ms.length),
    median(r.ms).toFixed(1),
    `${(median(r.ms) / base).toFixed(2)}x`,
    (Math.max(...r.kb) / 1024).toFixed(1),
  ]);
}
