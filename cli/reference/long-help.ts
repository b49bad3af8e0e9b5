import { HELP_WIDTH, globalOptionRows, twoColumns, wrapText } from '../help-text.js';
import { COMMON_ERRORS } from './command-errors.js';
import type { CommandDoc } from './command-doc.js';
import { optionFlags, optionMeaning, positionalName } from './option-text.js';

/**
 * `shadow help <command>` and `shadow <command> --help`: a command in
 * full, the same parts, in the same order, as its section of docs/cli.md.
 */
export function longHelp(doc: CommandDoc): string {
  const lines = [`usage: ${doc.synopsis}`];
  if (doc.aliases.length > 0)
    lines.push(`   (also: ${doc.aliases.map((a) => doc.path.replace(/[^ ]+$/, a)).join(', ')})`);
  lines.push('', ...wrapText(doc.describe, HELP_WIDTH), `(task: ${doc.task})`, '');
  if (doc.positionals.length > 0)
    lines.push(
      'arguments:',
      ...twoColumns(
        doc.positionals.map((p) => [positionalName(p), optionMeaning(p, true)] as const),
        '   ',
      ),
      '',
    );
  if (doc.options.length > 0)
    lines.push(
      'options:',
      ...twoColumns(
        doc.options.map((o) => [optionFlags(o), optionMeaning(o)] as const),
        '   ',
      ),
      '',
    );
  if (doc.epilog !== undefined) lines.push(doc.epilog, '');
  lines.push('exit status:', ...twoColumns(doc.exits, '   '), '');
  lines.push('error codes:');
  if (doc.errors.length > 0) lines.push(...wrapText(doc.errors.join(', '), HELP_WIDTH - 3).map((l) => `   ${l}`));
  lines.push(...wrapText(`and, as any command: ${COMMON_ERRORS.join(', ')}`, HELP_WIDTH - 3).map((l) => `   ${l}`), '');
  if (doc.examples.length > 0) lines.push('examples:', ...doc.examples.map((e) => `   ${e}`), '');
  lines.push('global options:', ...twoColumns(globalOptionRows(), '   '), '');
  return `${lines.join('\n')}`;
}
