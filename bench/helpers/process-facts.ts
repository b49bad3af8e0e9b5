/**
 * Whole processes, timed and counted: what a user runs (`shadow apply`, `git
 * rebase`) measured as the process it is, and, on one more run under
 * strace, the facts beside the milliseconds that do not depend on the
 * machine: files read and written, fsyncs, stat calls.
 */
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join, resolve } from 'node:path';

/** One process's syscalls, counted. */
export interface ProcessFacts {
  /** Regular files opened read-only inside `root` (the repository: work tree and .git). */
  filesRead: number;
  /** Files opened for writing or created, anywhere but /dev. */
  filesWritten: number;
  /** fsync, fdatasync and sync_file_range calls. */
  fsyncs: number;
  /** stat, lstat, fstat, newfstatat and statx calls: how much of the tree a process looks at. */
  stats: number;
}

// %%stat: every stat variant (%stat alone leaves out newfstatat and statx).
const TRACED = 'trace=open,openat,creat,fsync,fdatasync,sync_file_range,%%stat';

/** Run to completion; throws with stderr when it fails. Returns stdout and the milliseconds it took. */
export function timedRun(
  cmd: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): { ms: number; stdout: string } {
  const t = performance.now();
  const r = spawnSync(cmd, args, { cwd: options.cwd, env: options.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - t;
  if (r.error) throw r.error;
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${String(r.stderr).slice(0, 2000)}`);
  return { ms, stdout: r.stdout };
}

/** Count the syscalls of one strace output file (`-f`: every thread and child); relative paths are the process's cwd's. */
export function countTrace(text: string, cwd: string, root: string): ProcessFacts {
  const out: ProcessFacts = { filesRead: 0, filesWritten: 0, fsyncs: 0, stats: 0 };
  const inRoot = (p: string): boolean => {
    const abs = resolve(cwd, p);
    return abs === root || abs.startsWith(`${root}/`);
  };
  for (const line of text.split('\n')) {
    // A call interrupted by another thread's is printed as `<unfinished ...>`: its name and arguments are on that first line.
    if (/ = -1 /.test(line)) continue;
    if (/\b(fsync|fdatasync|sync_file_range)\(/.test(line)) out.fsyncs++;
    else if (/\b(stat|lstat|fstat|newfstatat|statx|stat64|lstat64|fstat64|fstatat64)\(/.test(line)) out.stats++;
    else {
      const m = /\b(?:open|openat|creat)\((?:AT_FDCWD, |\d+, )?"([^"]*)"(?:, ([A-Z_|]+))?/.exec(line);
      if (!m) continue;
      const [, path, flags = ''] = m;
      if (path!.startsWith('/dev/')) continue;
      if (/O_WRONLY|O_RDWR|O_CREAT/.test(flags) || line.includes('creat(')) out.filesWritten++;
      else if (!flags.includes('O_DIRECTORY') && inRoot(path!)) out.filesRead++;
    }
  }
  return out;
}

/** Run `cmd args` once under strace and count what it did (check `straceWorks()` first). */
export function tracedRun(
  cmd: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; root: string; scratch: string },
): ProcessFacts {
  nodeFs.mkdirSync(options.scratch, { recursive: true });
  const file = join(options.scratch, `trace-${process.pid}-${Date.now()}.txt`);
  try {
    timedRun('strace', ['-f', '-qq', '--seccomp-bpf', '-e', TRACED, '-o', file, cmd, ...args], options);
    return countTrace(nodeFs.readFileSync(file, 'utf8'), options.cwd, options.root);
  } finally {
    nodeFs.rmSync(file, { force: true });
  }
}

/** Per-process facts summed over several processes (20 `git merge-file` runs are one case). */
export function sumFacts(xs: readonly ProcessFacts[]): ProcessFacts {
  return xs.reduce(
    (a, b) => ({
      filesRead: a.filesRead + b.filesRead,
      filesWritten: a.filesWritten + b.filesWritten,
      fsyncs: a.fsyncs + b.fsyncs,
      stats: a.stats + b.stats,
    }),
    { filesRead: 0, filesWritten: 0, fsyncs: 0, stats: 0 },
  );
}
