import type { Readable } from 'node:stream';
import { commandWords } from './command-words.js';
import { handOff } from './handoff/client.js';
import type { CliIO } from './io.js';
import { restoreCaCerts } from './launcher-env.js';
import { answerMcpEarly } from './mcp-launch.js';

/** The CLI bundle's two entries (`shadow-cli.cjs`, from cli/run.ts). */
export interface CliBundle {
  run(args: string[], io: CliIO): Promise<number>;
  commandKey(args: readonly string[]): string | undefined;
}

/**
 * What a run of the executable takes from where it runs: a process of its
 * own (cli/main.ts), or a test's worker thread, which runs this same
 * sequence without starting a process (test/helpers/cli-thread.ts).
 */
export interface LaunchHost {
  cwd: string;
  /** Changed in place: the launcher's saved NODE_EXTRA_CA_CERTS is put back. */
  env: NodeJS.ProcessEnv;
  stdout: (s: string | Uint8Array) => void;
  stderr: (s: string) => void;
  /** Read only by a command that reads its input. */
  stdin: () => Readable;
  isTTY: boolean;
  /** The terminal's width when standard output is one. */
  columns?: () => number | undefined;
  uid: number | undefined;
  umask: number;
  /** shadow's version, for `--version`. */
  version: () => string;
  /** Before the command runs here (not handed off): the process's own set-up (its thread pool). */
  beforeRun?: () => void;
  /** The CLI bundle, for the command `key` names (its code cache); `saveCache` once it ran. */
  loadCli: (key: string) => Promise<{ cli: CliBundle; saveCache: () => void }>;
}

/**
 * Run the executable's arguments: `--version` before anything heavy loads,
 * a `shadow mcp` client's `initialize` answered before the CLI loads
 * (mcp-launch.ts), a one-shot command handed to a shadow process already serving the
 * repository when one runs (handoff/protocol.ts), otherwise the CLI bundle
 * here. Resolves to the exit status.
 */
export async function launch(args: string[], host: LaunchHost): Promise<number> {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    host.stdout(`shadow ${host.version()}\n`);
    return 0;
  }
  restoreCaCerts(host.env);
  // A `shadow mcp` client's `initialize` is answered before the CLI loads.
  const mcpEarly = await answerMcpEarly(args, { ...host, stdout: (b) => host.stdout(b) });
  const handed = await handOff(args, {
    cwd: host.cwd,
    env: host.env,
    stdin: host.stdin,
    stdout: (b) => host.stdout(b),
    stderr: host.stderr,
    isTTY: host.isTTY,
    uid: host.uid,
    umask: host.umask,
  });
  if (handed !== undefined) return handed;
  host.beforeRun?.();
  // Help and unknown words share one cache; a word that is not a command is not cached.
  const word = commandWords(args)[0];
  const { cli, saveCache } = await host.loadCli(word ?? 'help');
  const status = await cli.run(args, {
    cwd: host.cwd,
    env: host.env,
    stdout: host.stdout,
    stderr: host.stderr,
    get stdin() {
      return host.stdin();
    },
    isTTY: host.isTTY,
    columns: host.columns,
    mcpEarly,
  });
  if (word === undefined || cli.commandKey(args) !== undefined) saveCache();
  return status;
}
