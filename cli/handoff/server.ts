import { chmodSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { findMarker, nodeContext, SharedCaches, type PackMerger } from '../../src/index.js';
import { commandWords } from '../command-words.js';
import type { CliIO } from '../io.js';
import { BUILD_ID } from './build-id.js';
import { findSocket, handedOff, startDir } from './client.js';
import {
  AGENT_RUNS,
  MAX_SOCKET_PATH,
  PROTOCOL,
  SOCKET_DIR,
  SOCKET_NAME,
  type ClientFrame,
  type HandoffRequest,
  type ServerFrame,
  type ServerRole,
} from './protocol.js';

/** The CLI's own runner (cli/run.ts), given by the command that starts the listener. */
export type RunCli = (args: string[], io: CliIO) => Promise<number>;

/** A listening hand-off socket. */
export interface CallListener {
  path: string;
  /** Stop taking calls (those running finish) and remove the socket. */
  close(): Promise<void>;
}

/** Largest request line (arguments and environment). */
const MAX_REQUEST = 4 * 1024 * 1024;

function isRequest(v: unknown): v is HandoffRequest {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.v === 'number' &&
    typeof r.build === 'string' &&
    Array.isArray(r.args) &&
    r.args.every((a) => typeof a === 'string') &&
    typeof r.cwd === 'string' &&
    r.cwd.startsWith('/') &&
    typeof r.umask === 'number' &&
    typeof r.env === 'object' &&
    r.env !== null &&
    Object.values(r.env).every((x) => typeof x === 'string')
  );
}

/** Whether a live process answers on the socket at `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((done) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      done(true);
    });
    s.once('error', () => done(false));
  });
}

/**
 * What the server cannot take from a caller's request but would show in a
 * result: its umask (the modes of files an apply creates) and its time
 * zone (node reads TZ once; commits and `log` carry local times). A caller
 * that differs runs the command itself. And what limits the calls it runs:
 * its role, and its own socket (the repository it serves).
 */
interface ServerProcess {
  umask: number;
  tz: string | undefined;
  role: ServerRole;
  socket: { dev: number; ino: number };
}

/** Whether a server of `role` runs the command `args` for a caller. */
export function roleRuns(role: ServerRole, args: readonly string[]): boolean {
  if (role === 'person') return true;
  const [word, sub] = commandWords(args);
  return AGENT_RUNS.has(word === 'draft' ? `draft ${sub ?? ''}` : (word ?? ''));
}

/**
 * Whether the command would open the repository this server serves: the
 * directory it names (cwd, `-C`) finds this very socket the way a caller
 * finds it, and is not inside a materialized worktree (whose marker names
 * a repository of its own).
 */
function ownRepository(req: HandoffRequest, own: ServerProcess): boolean {
  const start = startDir(req.args, req.cwd);
  if (start === undefined) return false;
  const found = findSocket(start, process.getuid?.());
  if (found === undefined) return false;
  try {
    const st = lstatSync(found);
    if (st.dev !== own.socket.dev || st.ino !== own.socket.ino) return false;
  } catch {
    return false;
  }
  return findMarker(nodeContext({ env: req.env }), start) === undefined;
}

/** Run one caller's command and stream its output back. */
function serveCall(conn: Socket, runCli: RunCli, own: ServerProcess, shared: SharedCaches): void {
  let head = '';
  let request: HandoffRequest | undefined;
  let stdin: Readable | undefined;
  let accepted: (() => void) | undefined;
  const send = (frame: ServerFrame): void => {
    if (!conn.destroyed && conn.writable) conn.write(`${JSON.stringify(frame)}\n`);
  };
  const onClientLine = (line: string): void => {
    let frame: ClientFrame;
    try {
      frame = JSON.parse(line) as ClientFrame;
    } catch {
      stdin?.destroy(new Error('the caller sent a line that is not JSON'));
      return;
    }
    if ('go' in frame) {
      const run = accepted;
      accepted = undefined;
      run?.();
    } else if ('in' in frame && typeof frame.in === 'string') stdin?.push(Buffer.from(frame.in, 'base64'));
    else if ('end' in frame) stdin?.push(null);
  };
  const start = (req: HandoffRequest): void => {
    const declined =
      req.v !== PROTOCOL || req.build !== BUILD_ID
        ? 'another build of shadow'
        : !handedOff(req.args, req.env)
          ? 'a command the caller runs itself'
          : !roleRuns(own.role, req.args)
            ? "a command an agent's server does not run for others"
            : !ownRepository(req, own)
              ? 'another repository'
              : req.umask !== own.umask || req.env.TZ !== own.tz
                ? 'another umask or time zone'
                : undefined;
    if (declined !== undefined) {
      send({ fallback: declined });
      conn.end();
      return;
    }
    let asked = false;
    stdin = new Readable({
      read() {
        if (!asked) {
          asked = true;
          send({ stdin: true });
        }
      },
    });
    const io: CliIO = {
      cwd: req.cwd,
      env: req.env,
      stdout: (s) => send({ o: Buffer.from(s).toString('base64') }),
      stderr: (s) => send({ e: s }),
      stdin,
      isTTY: false,
      shared,
    };
    // Run only on the caller's `go`: a caller that gave up waiting has closed the connection and runs the command itself.
    accepted = () =>
      void runCli(req.args, io).then(
        (status) => {
          send({ exit: status });
          conn.end();
        },
        () => {
          send({ exit: 1 });
          conn.end();
        },
      );
    send({ accepted: true });
  };
  conn.setEncoding('utf8');
  conn.on('data', (chunk: string) => {
    head += chunk;
    if (request === undefined) {
      const nl = head.indexOf('\n');
      if (nl < 0) {
        if (head.length > MAX_REQUEST) conn.destroy();
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(head.slice(0, nl));
      } catch {
        parsed = undefined;
      }
      head = head.slice(nl + 1);
      if (!isRequest(parsed)) {
        send({ fallback: 'not a request' });
        conn.end();
        return;
      }
      request = parsed;
      start(parsed);
    }
    let nl: number;
    while ((nl = head.indexOf('\n')) >= 0) {
      onClientLine(head.slice(0, nl));
      head = head.slice(nl + 1);
    }
  });
  // The caller went away: its command runs to the end (atomic as any), its output goes nowhere.
  const gone = (): void => {
    accepted = undefined;
    stdin?.push(null);
  };
  conn.on('error', gone);
  conn.on('end', gone);
  conn.on('close', gone);
}

/**
 * Take one-shot commands from `shadow` callers on the socket in `gitdir`
 * (protocol.ts), those a server of `role` runs for others, in this
 * repository only. Resolves to undefined, and nothing changes, where the
 * socket cannot be: a path too long for a Unix socket, another live server
 * on it, a directory that is not ours.
 */
export async function listenForCalls(
  gitdir: string,
  runCli: RunCli,
  role: ServerRole,
  packMerger?: PackMerger,
): Promise<CallListener | undefined> {
  const dir = join(gitdir, SOCKET_DIR);
  const path = join(dir, SOCKET_NAME);
  if (path.length > MAX_SOCKET_PATH) return undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory() || (process.getuid !== undefined && st.uid !== process.getuid())) return undefined;
    chmodSync(dir, 0o700);
  } catch {
    return undefined;
  }
  try {
    lstatSync(path);
    if (await answers(path)) return undefined;
    unlinkSync(path);
  } catch {
    // no socket yet, or one another server just removed
  }
  // Each call opens the repository afresh (its config, its refs) but starts
  // from the draft metadata and parsed objects the calls before it left.
  const shared = new SharedCaches({ packMerger });
  let own: ServerProcess | undefined;
  const server: Server = createServer((conn) => (own ? serveCall(conn, runCli, own, shared) : conn.destroy()));
  const listening = await new Promise<boolean>((done) => {
    server.once('error', () => done(false));
    server.listen(path, () => done(true));
  });
  if (!listening) return undefined;
  const { dev, ino } = lstatSync(path);
  own = { umask: process.umask(), tz: process.env.TZ, role, socket: { dev, ino } };
  server.unref();
  return {
    path,
    close: () =>
      new Promise<void>((done) => {
        try {
          if (lstatSync(path).ino === ino) unlinkSync(path);
        } catch {
          // already gone
        }
        server.close(() => done());
      }),
  };
}
