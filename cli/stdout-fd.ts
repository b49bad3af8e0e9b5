import { fstatSync, statSync, writeSync, type Stats } from 'node:fs';

/** The executable's standard output: whether it is a terminal, and a writer. */
export interface ProcessStdout {
  isTTY: boolean;
  write(s: string | Uint8Array): void;
}

/**
 * Standard output of the executable. Where it is not a terminal (a pipe or
 * a file: an agent's call, a hook, a script) it is written with
 * `fs.writeSync` on descriptor 1, in order and whole before the process
 * ends: node's `process.stdout` would first make it a stream, which for a
 * pipe is a socket and loads node's `net`, `stream` and `tty` modules
 * (about 30 of them, measured by test/start-up-cli.test.ts) at every start.
 * So is `/dev/null` (`shadow batch x.json > /dev/null` in a script), known
 * by its device number. Any other character device is asked whether it is
 * a terminal, which loads `tty`; a terminal keeps `process.stdout`: a pager
 * and the width of the screen need it.
 *
 * A descriptor another process left non-blocking can refuse a write
 * (EAGAIN): that write and every one after it then go through
 * `process.stdout`, which waits for the pipe. A reader that stops early
 * (`shadow log | head`) ends the process with its status, as before.
 */
export function processStdout(): ProcessStdout {
  const isTTY = !plainFile(1) && ttyModule().isatty(1);
  let viaStream = isTTY;
  let stream: NodeJS.WriteStream | undefined;
  const toStream = (s: string | Uint8Array): void => {
    if (!stream) {
      stream = process.stdout;
      stream.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
        throw e;
      });
    }
    stream.write(s);
  };
  return {
    isTTY,
    write: (s) => {
      if (viaStream) return toStream(s);
      const bytes = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
      let at = 0;
      try {
        while (at < bytes.length) at += writeSync(1, bytes, at, bytes.length - at);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') process.exit(process.exitCode ?? 0);
        if (code !== 'EAGAIN') throw e;
        viaStream = true;
        toStream(bytes.subarray(at));
      }
    },
  };
}

/** Descriptor `fd` is a pipe, a socket, a regular file or /dev/null (never a terminal); false when it cannot be told. */
function plainFile(fd: number): boolean {
  try {
    const st = fstatSync(fd);
    return st.isFIFO() || st.isFile() || st.isSocket() || nullDevice(st);
  } catch {
    return false;
  }
}

function nullDevice(st: Stats): boolean {
  // rdev 0: a layer that numbers no device, where a terminal would look the same.
  if (!st.isCharacterDevice() || st.rdev === 0) return false;
  try {
    return st.rdev === statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

function ttyModule(): typeof import('node:tty') {
  // Not `node:module`'s createRequire: loading that module costs a start what this saves.
  return process.getBuiltinModule('node:tty');
}
