import { createRequire } from 'node:module';
import type { CliIO } from '../io.js';

/**
 * Long output through a pager, chosen as git chooses it (pager.c): only on
 * a terminal, `GIT_PAGER`, else `core.pager`, else `PAGER`, else `less`;
 * an empty one or `cat` means none. The pager runs through the shell, as
 * git runs it, with `LESS=FRX` and `LV=-c` unless they are set: less then
 * quits at once when the text fits the screen, passes colours through and
 * leaves the text on the screen.
 */

/** The pager command for this run, or undefined for none. */
export function choosePager(
  io: Pick<CliIO, 'env' | 'isTTY'>,
  config: (name: string) => string | undefined,
): string | undefined {
  if (!io.isTTY) return undefined;
  const pager = io.env.GIT_PAGER ?? config('core.pager') ?? io.env.PAGER ?? 'less';
  return pager === '' || pager === 'cat' ? undefined : pager;
}

/** The pager's environment: ours, with git's LESS and LV where unset. */
export function pagerEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  out.LESS ??= 'FRX';
  out.LV ??= '-c';
  return out;
}

/**
 * Write `text` through `pager` (whose output goes to our terminal); resolves
 * once the pager exits. A pager that cannot start leaves the text to
 * `fallback`; one the reader quits early (q in less) is not an error.
 * Ctrl-C while it runs is the pager's: shadow waits for it, as git does.
 */
export function page(
  text: string,
  pager: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  fallback: (s: string) => void,
): Promise<void> {
  return new Promise((done) => {
    const keepRunning = (): void => undefined;
    process.on('SIGINT', keepRunning);
    const finish = (): void => {
      process.off('SIGINT', keepRunning);
      done();
    };
    let child;
    try {
      // node:child_process loads here: a diff into a pipe starts no pager, and loads no sockets for one.
      const { spawn } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
      child = spawn(pager, { shell: true, cwd, env: pagerEnv(env), stdio: ['pipe', 'inherit', 'inherit'] });
    } catch {
      fallback(text);
      finish();
      return;
    }
    let started = false;
    child.on('spawn', () => {
      started = true;
    });
    child.on('error', () => {
      if (!started) fallback(text);
      finish();
    });
    child.on('close', finish);
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
  });
}
