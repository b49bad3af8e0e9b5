import { lstatSync, type Stats } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { commandWords } from '../command-words.js';
import { BUILD_ID } from './build-id.js';
import {
  ACCEPT_WAIT_MS,
  HANDED_OFF,
  MAX_SOCKET_PATH,
  PROTOCOL,
  READ_ONLY,
  SOCKET_DIR,
  SOCKET_NAME,
  type ClientFrame,
  type HandoffRequest,
  type ServerFrame,
} from './protocol.js';

/** What the caller's process gives the hand-off. */
export interface CallerIO {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Read only when the server asks for it: node sets up its stdin stream on first use. */
  stdin: () => Readable;
  stdout: (b: Buffer) => void;
  stderr: (s: string) => void;
  /** stdout is a terminal: colour, pager and layout are the caller's, so the command runs here. */
  isTTY: boolean;
  uid: number | undefined;
  umask: number;
}

/**
 * Environment that changes which repository git finds: a caller with any of
 * it runs the command itself (the socket is looked up the plain way only).
 */
export const GIT_LOCATION = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_COMMON_DIR',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
];

/** What findSocket asks of a path (lstat: a symbolic link is not followed). */
export type LstatOf = (path: string) => Pick<Stats, 'uid' | 'mode' | 'isDirectory' | 'isSocket'>;

/**
 * Whether the run directory and the socket in it are this user's alone: a
 * socket of another user's is theirs to answer as they like, and a
 * directory another user owns or may write in lets them put one there.
 * Where there are no user ids (Windows), only their kinds count.
 */
function ownSocket(dir: string, path: string, uid: number | undefined, stat: LstatOf): boolean {
  const d = stat(dir);
  const s = stat(path);
  if (!d.isDirectory() || !s.isSocket()) return false;
  return uid === undefined || (d.uid === uid && (d.mode & 0o022) === 0 && s.uid === uid);
}

/**
 * The socket of a server for the repository that contains `start`, found as
 * git finds a repository (the nearest `.git` above), or undefined: no `.git`
 * directory (a bare repository, a worktree's or submodule's `.git` file), no
 * socket, or one that is not this user's alone (ownSocket). `stat` is
 * lstat, or a stand-in that reports other owners.
 */
export function findSocket(start: string, uid: number | undefined, stat: LstatOf = lstatSync): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    let isDir: boolean | undefined;
    try {
      isDir = lstatSync(dotGit).isDirectory();
    } catch {
      isDir = undefined;
    }
    if (isDir === false) return undefined;
    if (isDir === true) {
      const path = join(dotGit, SOCKET_DIR, SOCKET_NAME);
      if (path.length > MAX_SOCKET_PATH) return undefined;
      try {
        return ownSocket(join(dotGit, SOCKET_DIR), path, uid, stat) ? path : undefined;
      } catch {
        return undefined;
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The directory the command names with `-C`, or undefined when its form is
 * one the caller does not read (then the command runs here): any other
 * spelling yargs would take for it (`-C=x`, `-Cx`, `--C x`, `--C=x`, a
 * group of short options with C in it), or more than one.
 */
export function startDir(args: readonly string[], cwd: string): string | undefined {
  let dir = cwd;
  let seen = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    if (a === '-C') {
      const value = args[i + 1];
      if (value === undefined || ++seen > 1) return undefined;
      dir = resolve(cwd, value);
      i++;
    } else if (/^-[^-]*C/.test(a) || a === '--C' || a.startsWith('--C=')) return undefined;
  }
  return dir;
}

/** Whether `args` may be handed to a server at all. */
export function handedOff(args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  if (env.SHADOW_HANDOFF === '0' || GIT_LOCATION.some((k) => env[k] !== undefined)) return false;
  if (args.some((a) => a === '--help' || a === '-h' || a === '--version' || a === '-V')) return false;
  const word = commandWords(args)[0];
  if (word === undefined || !HANDED_OFF.has(word)) return false;
  // `apply -p` asks at the caller's terminal.
  if (word === 'apply' && args.some((a) => a === '-p' || a === '--patch')) return false;
  return !(word === 'events' && args.includes('--follow'));
}

/**
 * Hand `args` to the server of the repository, if one runs: resolves to the
 * command's exit status, or undefined when the caller must run the command
 * itself (no server, another build, the server declined, or it stopped
 * during a command that changes nothing before printing anything). Never
 * throws.
 */
export async function handOff(args: string[], io: CallerIO): Promise<number | undefined> {
  if (io.isTTY || !handedOff(args, io.env)) return undefined;
  const start = startDir(args, io.cwd);
  const path = start === undefined ? undefined : findSocket(start, io.uid);
  if (path === undefined) return undefined;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(io.env)) if (v !== undefined) env[k] = v;
  const request: HandoffRequest = { v: PROTOCOL, build: BUILD_ID, args, cwd: io.cwd, env, umask: io.umask };
  const { connect } = await import('node:net');
  return new Promise((done) => {
    const socket: Socket = connect(path);
    // `go` sent: from then on the command may have run.
    let sent = false;
    let printed = false;
    let finished = false;
    let rest = '';
    let reading = false;
    // A server that does not accept in time (stopped, or stuck): run it here; it will find the connection closed and run nothing.
    const waiting = setTimeout(() => finish(undefined), ACCEPT_WAIT_MS);
    const finish = (status: number | undefined): void => {
      if (finished) return;
      finished = true;
      clearTimeout(waiting);
      if (reading) io.stdin().pause();
      socket.destroy();
      done(status);
    };
    const send = (frame: ClientFrame): void => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(frame)}\n`);
    };
    const lost = (): void => {
      if (finished) return;
      const word = commandWords(args)[0]!;
      if (!printed && READ_ONLY.has(word)) return finish(undefined);
      if (word === 'hook') {
        // An agent reads exit 2 as "refuse the tool call, for the reason on stderr"; any other failure lets its edit through.
        io.stderr(
          'the shadow process serving this repository stopped while it took this edit, so the edit is refused; ' +
            "whether it reached the draft is not known: read the file from the draft before making the change again with shadow's tools\n",
        );
        return finish(2);
      }
      // Printed here as Output.error prints errors: the caller has not loaded the CLI, and must not for this.
      const error = {
        code: 'SERVER_GONE',
        message: `the shadow process serving this repository stopped during \`shadow ${word}\`; whether it took effect is not known`,
        hint: 'look with `shadow status` and `shadow log`, then run the command again (a batch with a request_id is safe to send twice)',
      };
      if (args.includes('--json')) io.stdout(Buffer.from(`${JSON.stringify({ error }, null, 2)}\n`));
      else io.stderr(`error: ${error.message}\nhint: ${error.hint}\n`);
      finish(1);
    };
    const onFrame = (frame: ServerFrame): void => {
      if ('accepted' in frame) {
        clearTimeout(waiting);
        sent = true;
        send({ go: true });
      } else if ('o' in frame) {
        printed = true;
        io.stdout(Buffer.from(frame.o, 'base64'));
      } else if ('e' in frame) {
        printed = true;
        io.stderr(frame.e);
      } else if ('stdin' in frame) {
        reading = true;
        const stdin = io.stdin();
        stdin.on('data', (chunk: Buffer | string) => send({ in: Buffer.from(chunk).toString('base64') }));
        stdin.once('end', () => send({ end: true }));
        stdin.once('error', () => send({ end: true }));
      } else if ('exit' in frame) finish(frame.exit);
      else if ('fallback' in frame) finish(undefined);
    };
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      rest += chunk;
      let nl: number;
      while (!finished && (nl = rest.indexOf('\n')) >= 0) {
        const line = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        let frame: ServerFrame;
        try {
          frame = JSON.parse(line) as ServerFrame;
        } catch {
          return lost();
        }
        onFrame(frame);
      }
    });
    // Refused, or gone before `go`: nothing ran, run it here.
    socket.on('error', () => (sent ? lost() : finish(undefined)));
    socket.on('close', () => (sent ? lost() : finish(undefined)));
  });
}
