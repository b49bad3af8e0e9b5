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

/** Start `node <bin> serve` in `dir`; resolves once server.json names the port and token. */
export function startServe(bin: string, dir: string, env: Record<string, string>): Promise<ServeProc> {
  const child = spawn(process.execPath, [bin, 'serve'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`shadow serve exited (${code}): ${err}`)));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (!/shadow serving http:\/\/127\.0\.0\.1:\d+/.test(out)) return;
      const info = JSON.parse(readFileSync(join(dir, '.git/shadow/server.json'), 'utf8')) as {
        port: number;
        token: string;
        pid: number;
      };
      child.removeAllListeners('exit');
      resolve({
        child,
        pid: child.pid!,
        port: info.port,
        token: info.token,
        url: `http://127.0.0.1:${info.port}`,
        stderr: () => err,
        stop: () =>
          new Promise((done) => {
            child.once('exit', (code) => done(code));
            child.kill('SIGTERM');
          }),
      });
    });
  });
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
