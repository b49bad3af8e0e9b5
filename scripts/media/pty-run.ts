/**
 * One command in a real pseudo-terminal of a given size, its output handed
 * over as it comes. Node has no pseudo-terminal of its own; python3's
 * standard library does (pty, which every python3 on Linux and macOS has),
 * so a few lines of it open one, size it, start the command on it and copy
 * what it prints to a pipe.
 */
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';

const PTY_PY = `
import fcntl, os, pty, struct, sys, termios
rows, cols, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
    os.execvp(argv[0], argv)
while True:
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    os.write(1, data)
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
`;

export interface PtyOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  cols: number;
  rows: number;
}

/** Run `argv` on a pseudo-terminal; `onOutput` gets its text (UTF-8, never split inside a character). Resolves to the exit status. */
export function runInPty(argv: readonly string[], opts: PtyOptions, onOutput: (text: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', PTY_PY, String(opts.rows), String(opts.cols), ...argv], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const decoder = new StringDecoder('utf8');
    child.stdout.on('data', (b: Buffer) => {
      const text = decoder.write(b);
      if (text) onOutput(text);
    });
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'ENOENT'
          ? new Error('the terminal recording needs python3 on the PATH (its pty module opens the pseudo-terminal)')
          : e,
      ),
    );
    child.on('close', (status) => {
      const rest = decoder.end();
      if (rest) onOutput(rest);
      resolve(status ?? 1);
    });
  });
}
