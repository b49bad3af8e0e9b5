/**
 * What every command handler is given. Its own file so that handlers, the
 * command table and the runner all import it without importing each other.
 */
import type { PackMerger, Shadow } from '../src/index.js';
import type { CliIO } from './io.js';
import type { Output } from './output.js';

/** Everything a command handler gets. */
export interface CommandContext {
  argv: Record<string, unknown>;
  io: CliIO;
  out: Output;
  /** The directory the command runs in: the working directory, or `-C`. Relative paths resolve from here. */
  dir: string;
  /**
   * Open the repository (lazily: `--help` never touches the disk). A server
   * passes the thread its handle merges packs on (the first open decides).
   */
  open(options?: { packMerger?: PackMerger }): Promise<Shadow>;
  /** The repository path that a path typed on the command line (relative to `dir`, as git's pathspecs are) names. */
  repoPath(arg: string): Promise<string>;
  draft: string | undefined;
  actor: string | undefined;
  /** The materialized worktree the command runs inside (found by its marker), if any. */
  worktreeRoot: string | undefined;
  /** The CLI's runner itself, for a server that runs one-shot commands for callers (handoff/). */
  runCli(args: string[], io: CliIO): Promise<number>;
}
