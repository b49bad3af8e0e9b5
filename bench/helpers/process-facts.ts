/**
 * Whole processes, timed and counted: what a user runs (`shadow apply`, `git
 * rebase`) measured as the process it is, and, on one more run under
 * strace, the facts beside the milliseconds that do not depend on the
 * machine: files read and written, bytes read, fsyncs, stat calls, and for
 * a node process the number of node's own modules it loaded.
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
  /** Bytes that read, pread64, readv and preadv returned, from any file, pipe or socket (a bundle and its code cache included). */
  bytesRead: number;
  /** Node's built-in modules the node process loaded (`process.moduleLoadList`); undefined for any other program. */
  nodeModules?: number;
}

// %%stat: every stat variant (%stat alone leaves out newfstatat and statx).
const TRACED = 'trace=open,openat,creat,fsync,fdatasync,sync_file_range,read,pread64,readv,preadv,%%stat';

/** What a node process under tracedRun says of its modules on stderr as it exits (preloaded with --require). */
const MODULES_MARK = 'process-facts: node modules ';
const MODULES_PROBE = `process.on('exit', () => process._rawDebug(${JSON.stringify(MODULES_MARK)} + process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).length));\n`;

/**
 * What starts and times each timed process: a bare node, as small as a
 * shell. Starting a process costs its parent a copy of its page tables, so
 * a bench that had grown to 570 MB (its repositories and drafts made in
 * process) added about 22 ms to every process it started, `node -e 0` as
 * much as shadow: ratios to a baseline looked closer to 1 than a person at
 * a shell sees them. Its request comes on standard input; it answers with
 * the time and what the process wrote.
 */
const TIMER = `'use strict';
const { spawnSync } = require('node:child_process');
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c)).on('end', () => {
  const q = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const t = performance.now();
  const r = spawnSync(q.cmd, q.args, { cwd: q.cwd, env: q.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - t;
  process.stdout.write(JSON.stringify({ ms, status: r.status, error: r.error ? String(r.error) : undefined, stdout: r.stdout, stderr: r.stderr }));
});`;

/**
 * Run to completion, started by a small node process (TIMER); throws with
 * stderr when it fails. Returns stdout and the milliseconds it took.
 */
export function timedRun(
  cmd: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): { ms: number; stdout: string; stderr: string } {
  const timer = spawnSync(process.execPath, ['-e', TIMER], {
    input: JSON.stringify({ cmd, args, cwd: options.cwd, env: options.env }),
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (timer.status !== 0) throw new Error(`the timer failed (${timer.status}): ${String(timer.stderr).slice(0, 2000)}`);
  const r = JSON.parse(timer.stdout) as {
    ms: number;
    status: number | null;
    error?: string;
    stdout: string;
    stderr: string;
  };
  if (r.error) throw new Error(`${cmd}: ${r.error}`);
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${String(r.stderr).slice(0, 2000)}`);
  return { ms: r.ms, stdout: r.stdout, stderr: r.stderr };
}

/** Count the syscalls of one strace output file (`-f`: every thread and child); relative paths are the process's cwd's. */
export function countTrace(text: string, cwd: string, root: string): ProcessFacts {
  const out: ProcessFacts = { filesRead: 0, filesWritten: 0, fsyncs: 0, stats: 0, bytesRead: 0 };
  const inRoot = (p: string): boolean => {
    const abs = resolve(cwd, p);
    return abs === root || abs.startsWith(`${root}/`);
  };
  for (const line of text.split('\n')) {
    // A call interrupted by another thread's is printed as `<unfinished ...>`: its name and arguments are on that first line.
    if (/ = -1 /.test(line)) continue;
    // A read's count is on the line that ends it: the call's own, or its `<... read resumed>`.
    const read = /\b(?:read|pread64|readv|preadv)(?:\(|\s+resumed>).* = (\d+)$/.exec(line);
    if (read) {
      if (!line.includes('<unfinished ...>')) out.bytesRead += Number(read[1]);
      continue;
    }
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

type TraceOptions = { cwd: string; env: Record<string, string>; root: string; scratch: string };

/** One traced run; with `probe`, node processes preload it and say how many of node's modules they loaded. */
function traceOnce(
  cmd: string,
  args: readonly string[],
  options: TraceOptions,
  probe: string | undefined,
): { facts: ProcessFacts; counts: number[] } {
  nodeFs.mkdirSync(options.scratch, { recursive: true });
  const file = join(options.scratch, `trace-${process.pid}-${Date.now()}.txt`);
  const env = probe
    ? { ...options.env, NODE_OPTIONS: [options.env.NODE_OPTIONS, `--require=${probe}`].filter(Boolean).join(' ') }
    : options.env;
  try {
    const r = timedRun('strace', ['-f', '-qq', '--seccomp-bpf', '-e', TRACED, '-o', file, cmd, ...args], {
      cwd: options.cwd,
      env,
    });
    const counts = [...r.stderr.matchAll(new RegExp(`${MODULES_MARK}(\\d+)`, 'g'))].map((m) => Number(m[1]));
    return { facts: countTrace(nodeFs.readFileSync(file, 'utf8'), options.cwd, options.root), counts };
  } finally {
    nodeFs.rmSync(file, { force: true });
  }
}

/** What preloading the probe adds to one node process's counts (its resolution and read), by scratch directory. */
const probeCosts = new Map<string, ProcessFacts>();

function probeCost(probe: string, options: TraceOptions): ProcessFacts {
  let cost = probeCosts.get(probe);
  if (!cost) {
    const bare = traceOnce(process.execPath, ['-e', '0'], options, undefined).facts;
    const probed = traceOnce(process.execPath, ['-e', '0'], options, probe).facts;
    cost = {
      filesRead: probed.filesRead - bare.filesRead,
      filesWritten: probed.filesWritten - bare.filesWritten,
      fsyncs: probed.fsyncs - bare.fsyncs,
      stats: probed.stats - bare.stats,
      bytesRead: probed.bytesRead - bare.bytesRead,
    };
    probeCosts.set(probe, cost);
  }
  return cost;
}

/**
 * Run `cmd args` once under strace and count what it did (check
 * `straceWorks()` first). A node process preloads a one-line probe that
 * reports node's modules it loaded; what the probe itself costs (measured
 * once on `node -e 0`) is taken out of the counts.
 */
export function tracedRun(cmd: string, args: readonly string[], options: TraceOptions): ProcessFacts {
  nodeFs.mkdirSync(options.scratch, { recursive: true });
  const probe = join(options.scratch, 'modules-probe.cjs');
  nodeFs.writeFileSync(probe, MODULES_PROBE);
  const cost = probeCost(probe, options);
  const { facts, counts } = traceOnce(cmd, args, options, probe);
  if (counts.length === 0) return facts;
  const n = counts.length;
  return {
    filesRead: facts.filesRead - n * cost.filesRead,
    filesWritten: facts.filesWritten - n * cost.filesWritten,
    fsyncs: facts.fsyncs - n * cost.fsyncs,
    stats: facts.stats - n * cost.stats,
    bytesRead: facts.bytesRead - n * cost.bytesRead,
    // The command's own process: the one that loaded the most (a node child, if any, loads fewer).
    nodeModules: Math.max(...counts),
  };
}

/** Per-process facts summed over several processes (20 `git merge-file` runs are one case). */
export function sumFacts(xs: readonly ProcessFacts[]): ProcessFacts {
  return xs.reduce(
    (a, b) => ({
      filesRead: a.filesRead + b.filesRead,
      filesWritten: a.filesWritten + b.filesWritten,
      fsyncs: a.fsyncs + b.fsyncs,
      stats: a.stats + b.stats,
      bytesRead: a.bytesRead + b.bytesRead,
    }),
    { filesRead: 0, filesWritten: 0, fsyncs: 0, stats: 0, bytesRead: 0 },
  );
}
