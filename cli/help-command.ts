import { COMMANDS, commandName } from './command-table.js';
import { COMMAND_TASKS } from './command-tasks.js';
import { commandWords } from './command-words.js';
import { EXIT } from './exit-status.js';
import { groupHelp, groupedHelp } from './help-text.js';
import type { Output } from './output.js';

/**
 * The words help is asked about, or undefined when it is not asked:
 * `shadow help [<command>]`, or `--help`/`-h` among the words before `--`
 * (after it they are the words of a command `shadow exec` runs).
 */
export function helpAsked(args: readonly string[]): string[] | undefined {
  const end = args.indexOf('--');
  const before = end === -1 ? args : args.slice(0, end);
  const words = commandWords(before, 3);
  if (words[0] === 'help') return words.slice(1);
  if (before.includes('--help') || before.includes('-h')) return words.slice(0, 2);
  return undefined;
}

/**
 * Answer a help request: the commands by task (no words), a group's
 * commands (`draft`), or one command in full, loaded only here
 * (reference/). With --json, the same as one JSON document.
 */
export async function showHelp(words: readonly string[], out: Output): Promise<number> {
  const [first, second] = words;
  if (first === undefined) {
    const describe = (name: string): string | undefined =>
      COMMANDS.find((e) => ('commands' in e ? e.name : commandName(e)) === name)?.describe;
    const tasks = COMMAND_TASKS.map((t) => ({
      title: t.title,
      commands: t.commands.map((name) => ({ name, describe: describe(name) })),
    }));
    out.result({ tasks }, groupedHelp);
    return EXIT.ok;
  }
  const group = COMMANDS.find((e) => 'commands' in e && e.name === first);
  if (group && 'commands' in group && second === undefined) {
    const commands = group.commands.map((c) => ({ name: commandName(c), usage: c.usage, describe: c.describe }));
    out.result({ group: group.name, describe: group.describe, commands }, () => groupHelp(group));
    return EXIT.ok;
  }
  const { commandDoc } = await import('./reference/command-doc.js');
  const doc = commandDoc(group ? [first, second!] : [first]);
  if (!doc) {
    const name = group ? `${first} ${second}` : first;
    const hint = group
      ? `run \`shadow help ${first}\` for its commands`
      : 'run `shadow --help` for the commands and their options';
    out.error({ code: 'USAGE', message: `shadow has no command "${name}"`, hint });
    return EXIT.usage;
  }
  const { longHelp } = await import('./reference/long-help.js');
  out.result({ command: doc }, () => longHelp(doc));
  return EXIT.ok;
}
