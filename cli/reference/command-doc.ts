import type { ErrorCode } from '../../src/errors.js';
import { COMMANDS, commandName, type CommandGroup, type CommandSpec } from '../command-table.js';
import { COMMAND_TASKS } from '../command-tasks.js';
import { COMMAND_ERRORS, COMMAND_EXITS } from './command-errors.js';
import { EXAMPLES } from './command-examples.js';
import { recordBuilder, type OptionRecord } from './record-builder.js';

/** Everything the reference says of one command, read from the command table and the tables beside it. */
export interface CommandDoc {
  /** The command's words: `apply`, `draft new`. */
  path: string;
  /** `shadow draft new [name] [options]`. */
  synopsis: string;
  aliases: string[];
  describe: string;
  task: string;
  positionals: OptionRecord[];
  options: OptionRecord[];
  /** Text the builder adds after its options (git's forms `shadow diff` reads itself). */
  epilog?: string;
  exits: Array<readonly [string, string]>;
  errors: readonly ErrorCode[];
  examples: readonly string[];
}

/** Every command's exit statuses start with these. */
export const BASE_EXITS: ReadonlyArray<readonly [string, string]> = [
  ['0', 'ok'],
  ['1', 'an error: its code, message and hint on stderr (with --json, one {"error": …} document on stdout)'],
  ['2', 'usage: a command, argument or option shadow does not take'],
];

function taskOf(name: string): string {
  const task = COMMAND_TASKS.find((t) => t.commands.includes(name));
  if (!task) throw new Error(`the command ${name} is in no task of cli/command-tasks.ts`);
  return task.title;
}

function docOf(spec: CommandSpec, group: CommandGroup | undefined): CommandDoc {
  const path = group ? `${group.name} ${commandName(spec)}` : commandName(spec);
  const built = recordBuilder(spec.builder);
  const usage = group ? `${group.name} ${spec.usage}` : spec.usage;
  const errors = COMMAND_ERRORS[path];
  if (!errors) throw new Error(`the command ${path} has no entry in cli/reference/command-errors.ts`);
  return {
    path,
    synopsis: `shadow ${usage}${built.options.length > 0 ? ' [options]' : ''}`,
    aliases: spec.aliases ?? [],
    describe: spec.describe,
    task: taskOf(group ? group.name : commandName(spec)),
    positionals: built.positionals,
    options: built.options,
    ...(built.epilog === undefined ? {} : { epilog: built.epilog }),
    exits: [...BASE_EXITS, ...(COMMAND_EXITS[path] ?? [])],
    errors,
    examples: EXAMPLES[path] ?? [],
  };
}

/** The table entry named `name` (a command or a group). */
export function entryNamed(name: string): CommandSpec | CommandGroup | undefined {
  return COMMANDS.find((e) => ('commands' in e ? e.name : commandName(e)) === name);
}

/** Every command's doc, task by task, in the order `shadow --help` lists them (a group's commands in its order). */
export function commandDocs(): CommandDoc[] {
  const docs: CommandDoc[] = [];
  for (const task of COMMAND_TASKS) {
    for (const name of task.commands) {
      const entry = entryNamed(name);
      if (!entry) throw new Error(`cli/command-tasks.ts names ${name}, which the command table does not hold`);
      if ('commands' in entry) for (const c of entry.commands) docs.push(docOf(c, entry));
      else docs.push(docOf(entry, undefined));
    }
  }
  return docs;
}

/** The doc of the command the words name (`['draft', 'new']`, aliases too), if any. */
export function commandDoc(words: readonly string[]): CommandDoc | undefined {
  const [first, second] = words;
  const entry = COMMANDS.find((e) =>
    'commands' in e ? e.name === first : commandName(e) === first || e.aliases?.includes(first ?? ''),
  );
  if (!entry) return undefined;
  if (!('commands' in entry)) return docOf(entry, undefined);
  const spec = entry.commands.find((c) => commandName(c) === second || c.aliases?.includes(second ?? ''));
  return spec ? docOf(spec, entry) : undefined;
}
