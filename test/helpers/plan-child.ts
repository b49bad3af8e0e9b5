/**
 * A `shadow` child process whose JSON-lines stdout is watched as it comes,
 * to signal it at a chosen moment: when it has printed its n-th line, or a
 * delay after its first output. The moment is found by reading the child's
 * output, never by sleeping.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SHADOW_BIN, type DiskRepo } from './disk-repo.js';

/** A plan run that SIGKILLs (or SIGSTOPs) itself at an exact step: see plan-crash-worker.ts. */
export const CRASH_WORKER = fileURLToPath(new URL('./plan-crash-worker.js', import.meta.url));

/** When to signal the child. */
export type Trigger =
  | { kind: 'none' }
  /** When stdout line `line` (1-based; line 1 is plan/start) has been read. */
  | { kind: 'line'; line: number }
  /** When the `count`-th batch/commit event has been read. */
  | { kind: 'commits'; count: number }
  /** `ms` after the first stdout output. */
  | { kind: 'delay'; ms: number };

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Whether the signal was sent (the child may have ended first). */
  sent: boolean;
  /** The JSON events printed, in order (a torn last line is left out). */
  events: Array<Record<string, any>>;
  stdout: string;
  stderr: string;
}

/** The highest plan_batch of the batch/commit events printed. */
export function lastReported(run: ChildRun): number {
  return run.events.filter((e) => e.type === 'batch/commit').reduce((m, e) => Math.max(m, Number(e.plan_batch)), 0);
}

const CHILD_TIMEOUT_MS = 60_000;

/**
 * Run `shadow <args>` in the repository; signal it with `signal` at `trigger`
 * (or `act` instead of a signal, e.g. running `shadow stop`).
 */
export function runShadowChild(
  repo: DiskRepo,
  args: string[],
  trigger: Trigger,
  signal: NodeJS.Signals | ((pid: number) => void) = 'SIGKILL',
): Promise<ChildRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [SHADOW_BIN, ...args], {
      cwd: repo.dir,
      env: repo.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: ChildRun = { code: null, signal: null, sent: false, events: [], stdout: '', stderr: '' };
    let pending = '';
    let lines = 0;
    let commits = 0;
    let timer: NodeJS.Timeout | undefined;
    const fire = (): void => {
      if (out.sent) return;
      out.sent = true;
      if (typeof signal === 'function') signal(child.pid!);
      else child.kill(signal);
    };
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`shadow ${args.join(' ')} did not end within ${CHILD_TIMEOUT_MS / 1000}s; stderr: ${out.stderr}`));
    }, CHILD_TIMEOUT_MS);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (out.stderr += d));
    child.stdout.on('data', (d: string) => {
      if (out.stdout === '' && trigger.kind === 'delay') timer = setTimeout(fire, trigger.ms);
      out.stdout += d;
      pending += d;
      for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        lines++;
        try {
          const e = JSON.parse(line) as Record<string, any>;
          out.events.push(e);
          if (e.type === 'batch/commit') commits++;
        } catch {
          // not an event line
        }
        if (trigger.kind === 'line' && lines === trigger.line) fire();
        if (trigger.kind === 'commits' && commits === trigger.count) fire();
      }
    });
    child.on('error', fail);
    child.on('close', (code, sig) => {
      clearTimeout(guard);
      if (timer) clearTimeout(timer);
      out.code = code;
      out.signal = sig;
      done(out);
    });
  });
}
