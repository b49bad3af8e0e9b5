import { createRequire } from 'node:module';

/**
 * A program run in a real pseudo-terminal (node-pty), answered prompt by
 * prompt: each answer is typed once the program has printed a question
 * (its output ends with `? `, a reset after it allowed) and waits, as a
 * person at the terminal would. The whole screen, as the terminal got it,
 * is the result.
 */

interface Pty {
  onData(listener: (data: string) => void): unknown;
  onExit(listener: (e: { exitCode: number; signal?: number }) => void): unknown;
  write(data: string): void;
  kill(signal?: string): void;
}

interface PtyModule {
  spawn(
    file: string,
    args: string[],
    options: { name: string; cols: number; rows: number; cwd: string; env: Record<string, string> },
  ): Pty;
}

/** node-pty, loaded through require (it is a native CommonJS module). */
function ptyModule(): PtyModule {
  return createRequire(import.meta.url)('node-pty') as PtyModule;
}

export interface PtyRun {
  /** Everything the terminal showed, CRLF line ends and colours as they came. */
  screen: string;
  exitCode: number;
}

/** A question waiting for its answer: the output so far ends with `? ` (and maybe the colour reset). */
const ASKING = /\? (?:\x1b\[m)?$/;

/**
 * Run `file args` in a terminal of 200 columns, typing `answers` in turn,
 * each followed by Enter unless `singleKey`; Ctrl-D once they run out.
 */
export function runInPty(
  file: string,
  args: string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    answers: readonly string[];
    singleKey?: boolean;
    timeoutMs?: number;
  },
): Promise<PtyRun> {
  const pty = ptyModule().spawn(file, args, {
    name: 'xterm',
    cols: 200,
    rows: 50,
    cwd: options.cwd,
    env: { TERM: 'xterm', ...options.env },
  });
  return new Promise((done, fail) => {
    let screen = '';
    let since = 0;
    let next = 0;
    const timer = setTimeout(() => {
      pty.kill();
      fail(new Error(`${file} ${args.join(' ')} did not finish; the screen:\n${screen}`));
    }, options.timeoutMs ?? 15_000);
    pty.onData((data) => {
      screen += data;
      if (!ASKING.test(screen.slice(since))) return;
      since = screen.length;
      const a = options.answers[next++];
      if (a === undefined) pty.write('\x04');
      else pty.write(options.singleKey ? a : `${a}\r`);
    });
    pty.onExit(({ exitCode }) => {
      clearTimeout(timer);
      done({ screen, exitCode });
    });
  });
}
