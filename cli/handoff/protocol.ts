/**
 * The hand-off of a one-shot command to a running shadow process.
 *
 * A `shadow` process pays node's start-up and the loading of the CLI on every
 * call (tens of milliseconds), which an agent calling it hundreds of times a
 * task feels; the work itself takes a few. A long-running shadow process that
 * serves a repository (`shadow serve`, `shadow mcp`) listens on a Unix socket
 * in the repository's git directory, and the `shadow` executable hands a
 * command to it instead of loading the CLI: the server runs the very same
 * CLI code (`run(args, io)`) with the caller's arguments, directory,
 * environment and standard input, and streams back its output and exit
 * status. Without a server, or when anything about it is off (another
 * build, a socket that is not ours, a refused connection), the command runs
 * in the calling process as always: the result is the same either way.
 *
 * The wire: JSON lines. The client sends one request line; the server
 * answers `fallback` (run it yourself: nothing was done) or `accepted`; the
 * client says `go`, and only then does the command run. A client that hears
 * nothing for ACCEPT_WAIT_MS (a server stopped with Ctrl-Z, or too busy)
 * closes the connection and runs the command itself, and a server that
 * finds the connection closed before `go` runs nothing: a command never runs
 * twice. Then (when the server asks for it) the client sends its standard
 * input as `in` lines and an `end` line; the server sends `o` (stdout
 * bytes, base64), `e` (stderr text), `stdin` (send your input), and finally
 * `exit`.
 *
 * A server answers `fallback` as well for a call it does not run for
 * others: one of another repository, or, in an agent's server, one that
 * decides or publishes (ServerRole).
 */

/** How long a caller waits for a server to accept a command before running it itself (ms). */
export const ACCEPT_WAIT_MS = 2000;

/** Bumped when the frames change; a server of another version answers `fallback`. */
export const PROTOCOL = 1;

/** Where a repository's server listens, inside its git directory (0700: only its owner connects). */
export const SOCKET_DIR = 'shadow/run';
export const SOCKET_NAME = 'cli.sock';

/** Longest Unix socket path the platforms take (Linux 108 bytes with the NUL, macOS 104). */
export const MAX_SOCKET_PATH = 100;

/**
 * Commands a server runs for a caller: the one-shot ones. Not those that
 * hold a terminal, run for long, install signal handlers or start servers
 * (session, serve, mcp, watch, exec, worktree, run, resume, stop, init,
 * recover): they always run in the calling process.
 */
export const HANDED_OFF = new Set([
  'hook',
  'batch',
  'write',
  'edit',
  'rm',
  'mv',
  'apply-patch',
  'draft',
  'cat',
  'ls',
  'log',
  'diff',
  'blame',
  'trace',
  'status',
  'checkpoint',
  'checkpoints',
  'rollback',
  'rebase',
  'revert',
  'resolve',
  'undo',
  'apply',
  'unapply',
  'propose',
  'review',
  'approve',
  'deny',
  'events',
  'tools',
]);

/**
 * Who a server was started for, which limits what it runs for others: the
 * person's (`shadow serve`) runs every command of HANDED_OFF; an agent's
 * (`shadow mcp`) only what its agent may do itself (AGENT_RUNS). A role
 * does not travel through the socket: a caller whose command the server
 * does not run for it runs the command itself, with its own authority.
 */
export type ServerRole = 'person' | 'agent';

/**
 * What an agent's server runs for a caller: batches, reads, checkpoints,
 * rollbacks and proposals within a draft. Never what decides or publishes
 * (`approve`, `deny`, `apply`, `unapply`, `draft drop`): a sandboxed shell
 * must not reach them through an unsandboxed agent server.
 */
export const AGENT_RUNS = new Set([
  'hook',
  'batch',
  'write',
  'edit',
  'rm',
  'mv',
  'apply-patch',
  'draft new',
  'draft list',
  'draft ls',
  'draft show',
  'cat',
  'ls',
  'log',
  'diff',
  'blame',
  'trace',
  'status',
  'checkpoint',
  'checkpoints',
  'rollback',
  'rebase',
  'revert',
  'resolve',
  'undo',
  'propose',
  'review',
  'events',
  'tools',
]);

/** Commands that change nothing: when the server stops during one, the caller runs it again itself. */
export const READ_ONLY = new Set([
  'cat',
  'ls',
  'log',
  'diff',
  'blame',
  'trace',
  'status',
  'checkpoints',
  'review',
  'events',
  'tools',
]);

/** What a caller sends first. */
export interface HandoffRequest {
  v: number;
  /** The build of the caller's executable: a server of another build answers `fallback`. */
  build: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** The caller's umask: the modes of the files an apply creates depend on it. */
  umask: number;
}

/** A line from the server. */
export type ServerFrame =
  { accepted: true } | { o: string } | { e: string } | { stdin: true } | { exit: number } | { fallback: string };

/** A line from the caller after its request. */
export type ClientFrame = { go: true } | { in: string } | { end: true };
