import type { Argv } from 'yargs';
import type { CommandContext } from './command-context.js';

/** The shapes of the command table (command-table.ts), apart so that the files a table is split into import them without a cycle. */

/** A command's implementation: resolves to its exit status (default 0). */
export type Handler = (ctx: CommandContext) => Promise<number | void>;

/** One CLI command: how yargs parses it, and where its handler lives (loaded on use). */
export interface CommandSpec {
  /** yargs command string: `name <arg> [opt]`. */
  usage: string;
  aliases?: string[];
  describe: string;
  builder?: (y: Argv) => Argv;
  load: () => Promise<Handler>;
}

/** A group of subcommands (`shadow draft new`). */
export interface CommandGroup {
  name: string;
  describe: string;
  commands: CommandSpec[];
}
