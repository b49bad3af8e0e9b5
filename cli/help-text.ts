import { COMMANDS, commandName, type CommandGroup, type CommandSpec } from './command-table.js';
import { COMMAND_TASKS } from './command-tasks.js';
import { GLOBAL_OPTIONS, SHADOW_SUMMARY } from './global-options.js';

/*
 * `shadow --help`: the commands grouped by task, one line each, as `git
 * help` lists git's. It is on the path of every help call, so it holds no
 * more than the table's one-line descriptions (the long form is
 * reference/long-help.ts, loaded only for it).
 */

/** The width help is laid out to. */
export const HELP_WIDTH = 100;

/** `text` broken into lines of at most `width` columns at spaces (a longer word keeps its own line). */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/** Rows of two columns, the second wrapped beside the first: `indent` before each row. */
export function twoColumns(
  rows: ReadonlyArray<readonly [string, string]>,
  indent: string,
  width = HELP_WIDTH,
): string[] {
  const left = Math.min(Math.max(...rows.map(([l]) => l.length)), 28) + 2;
  const out: string[] = [];
  for (const [l, r] of rows) {
    const wrapped = wrapText(r, Math.max(30, width - indent.length - left));
    if (l.length + 2 > left) out.push(`${indent}${l}`, ...wrapped.map((w) => `${indent}${' '.repeat(left)}${w}`));
    else out.push(...wrapped.map((w, i) => `${indent}${(i === 0 ? l : '').padEnd(left)}${w}`));
  }
  return out;
}

const entryName = (e: CommandSpec | CommandGroup): string => ('commands' in e ? e.name : commandName(e));

/** How an option of the command line is written: `-C <dir>`, `--draft <name>`, `--json`. */
export function globalOptionRows(): Array<readonly [string, string]> {
  return GLOBAL_OPTIONS.map(
    ({ key, value, options }) =>
      [`${key.length === 1 ? '-' : '--'}${key}${value ? ` <${value}>` : ''}`, options.describe ?? ''] as const,
  );
}

/** `shadow --help` and `shadow help`: every command under its task. */
export function groupedHelp(): string {
  const lines = ['usage: shadow <command> [options]', '', ...wrapText(SHADOW_SUMMARY, HELP_WIDTH), ''];
  for (const task of COMMAND_TASKS) {
    lines.push(task.title);
    const rows = task.commands.map((name) => {
      const entry = COMMANDS.find((e) => entryName(e) === name);
      if (!entry) throw new Error(`cli/command-tasks.ts names ${name}, which the command table does not hold`);
      const subs = 'commands' in entry ? ` (${entry.commands.map(commandName).join(', ')})` : '';
      return [name, `${entry.describe}${subs}`] as const;
    });
    lines.push(...twoColumns(rows, '   '), '');
  }
  lines.push('global options (every command):', ...twoColumns(globalOptionRows(), '   '), '');
  const more =
    '`shadow help <command>` (or `shadow <command> --help`) shows a command in full: its options, exit statuses, error codes and examples.';
  lines.push(...wrapText(`${more} The whole reference is docs/cli.md.`, HELP_WIDTH));
  return `${lines.join('\n')}\n`;
}

/** `shadow draft --help`: a group's commands, one line each. */
export function groupHelp(group: CommandGroup): string {
  const rows = group.commands.map(
    (c) => [c.usage + (c.aliases ? ` (also ${c.aliases.join(', ')})` : ''), c.describe] as const,
  );
  const lines = [
    `usage: shadow ${group.name} <command> [options]`,
    '',
    ...wrapText(group.describe, HELP_WIDTH),
    '',
    ...twoColumns(rows, '   '),
    '',
  ];
  return [...lines, `\`shadow help ${group.name} <command>\` shows one in full.`, ''].join('\n');
}
