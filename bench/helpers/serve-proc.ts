/**
 * `shadow serve` as a child process for the benchmarks, and its memory as
 * Linux reports it in /proc/<pid>/status (VmRSS now, VmHWM the peak since the
 * start or since the last reset through /proc/<pid>/clear_refs).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ServeProc {
  child: ChildProcess;
  pid: number;
  port: number;
  token: string;
  url: string;
  stderr: () => string;
  stop(): Promise<number | null>;
}

/** The first line `child` prints (a server saying it listens); an error when it ends or fails to start first. */
export async function started(child: ChildProcess, what: string): Promise<string> {
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise<string>((resolve, reject) => {
    const exited = (code: number | null): void =>
      reject(new Error(`${what} exited (${code}) before it listened: ${err}`));
    child.once('exit', exited);
    child.once('error', (e) => reject(new Error(`${what} did not start: ${e.message}`)));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (!out.includes('\n')) return;
      child.off('exit', exited);
      resolve(out.slice(0, out.indexOf('\n')));
    });
  });
}

/** `child` ended with SIGTERM, resolving to its exit code (at once when it has ended already: no more exit events come). */
export async function stopped(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exit;
}

/** Start `node <bin> serve` in `dir`; resolves once it says it serves (server.json then names the port and token). */
export async function startServe(bin: string, dir: string, env: Record<string, string>): Promise<ServeProc> {
  const child = spawn(process.execPath, [bin, 'serve'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  // Its first line: "shadow serving <url> ...", written once server.json is.
  await started(child, 'shadow serve');
  const info = JSON.parse(readFileSync(join(dir, '.git/shadow/server.json'), 'utf8')) as {
    port: number;
    token: string;
  };
  return {
    child,
    pid: child.pid!,
    port: info.port,
    token: info.token,
    url: `http://127.0.0.1:${info.port}`,
    stderr: () => err,
    stop: () => stopped(child),
  };
}

/** VmRSS and VmHWM of `pid`, in bytes. */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Reset VmHWM to the current RSS (Linux >= 4.0); false when the kernel refuses. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
