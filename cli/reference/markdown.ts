import { COMMAND_TASKS } from '../command-tasks.js';
import { SHADOW_SUMMARY } from '../global-options.js';
import { globalOptionRows } from '../help-text.js';
import { COMMON_ERRORS } from './command-errors.js';
import { BASE_EXITS, commandDocs, type CommandDoc } from './command-doc.js';
import { optionFlags, optionMeaning, positionalName } from './option-text.js';

/** The npm script that writes docs/cli.md. */
export const REGENERATE = 'npm run docs:cli';

/** Prose in markdown: angle brackets shown, not taken for HTML; pipes kept out of table syntax. */
const prose = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|');
const code = (s: string): string => `\`${s.replace(/\|/g, '\\|')}\``;

function table(head: readonly [string, string], rows: ReadonlyArray<readonly [string, string]>): string[] {
  return [`| ${head[0]} | ${head[1]} |`, '| --- | --- |', ...rows.map(([a, b]) => `| ${a} | ${b} |`)];
}

function section(doc: CommandDoc): string[] {
  const lines = [`### shadow ${doc.path}`, '', prose(doc.describe), '', '```', doc.synopsis, '```', ''];
  if (doc.aliases.length > 0)
    lines.push(`Also: ${doc.aliases.map((a) => code(`shadow ${doc.path.replace(/[^ ]+$/, a)}`)).join(', ')}.`, '');
  if (doc.positionals.length > 0)
    lines.push(
      ...table(
        ['argument', 'meaning'],
        doc.positionals.map((p) => [code(positionalName(p)), prose(optionMeaning(p, true))] as const),
      ),
      '',
    );
  if (doc.options.length > 0)
    lines.push(
      ...table(
        ['option', 'meaning'],
        doc.options.map((o) => [code(optionFlags(o)), prose(optionMeaning(o))] as const),
      ),
      '',
    );
  if (doc.epilog !== undefined) lines.push('```text', doc.epilog, '```', '');
  const extra = doc.exits.slice(BASE_EXITS.length);
  lines.push(
    `**Exit status:** ${['`0` ok, `1` an error, `2` usage', ...extra.map(([s, m]) => `${code(s)} ${prose(m)}`)].join('; ')}.`,
    '',
  );
  const every = 'those of [every command](#error-codes-of-every-command)';
  lines.push(
    `**Error codes:** ${doc.errors.length > 0 ? `${doc.errors.map(code).join(', ')}, and ${every}` : `only ${every}`}.`,
    '',
  );
  if (doc.examples.length > 0) lines.push('**Examples:**', '', '```sh', ...doc.examples, '```', '');
  return lines;
}

/** docs/cli.md, made from the command table: what `npm run docs:cli` writes and a test compares with the committed file. */
export function cliReference(): string {
  const docs = commandDocs();
  const lines = [
    '# shadow command reference',
    '',
    `<!-- Generated from the command table (cli/command-table.ts and cli/reference/) by \`${REGENERATE}\`: edit those, not this file. -->`,
    '',
    prose(SHADOW_SUMMARY),
    '',
    'Every command prints human text, or exactly one JSON document with `--json` (errors too: `{"error": {"code", "message", "hint", "data"}}`). ' +
      '`shadow --help` lists the commands by task; `shadow help <command>` (or `shadow <command> --help`) shows the section below for one command.',
    '',
    '## Global options',
    '',
    ...table(
      ['option', 'meaning'],
      globalOptionRows().map(([flags, meaning]) => [code(flags), prose(meaning)] as const),
    ),
    '',
    '## Exit status',
    '',
    ...table(
      ['status', 'meaning'],
      BASE_EXITS.map(([s, m]) => [code(s), prose(m)] as const),
    ),
    '',
    'A command with statuses of its own lists them in its section.',
    '',
    '## Error codes of every command',
    '',
    `Any command that opens the repository may also raise: ${COMMON_ERRORS.map(code).join(', ')}.`,
    '',
    '## Commands by task',
    '',
  ];
  for (const task of COMMAND_TASKS) {
    lines.push(
      `- **${task.title}**: ${docs
        .filter((d) => d.task === task.title)
        .map((d) => `[${d.path}](#shadow-${d.path.replace(/ /g, '-')})`)
        .join(', ')}`,
    );
  }
  lines.push('');
  for (const task of COMMAND_TASKS) {
    lines.push(`## ${task.title[0]!.toUpperCase()}${task.title.slice(1)}`, '');
    for (const doc of docs.filter((d) => d.task === task.title)) lines.push(...section(doc));
  }
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}
