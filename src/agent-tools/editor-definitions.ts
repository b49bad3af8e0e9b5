import * as z from 'zod/mini';
import { ShadowError } from '../errors.js';
import { describe, hints, type ToolDefinition } from './definitions.js';

/**
 * Anthropic's text editor tool, the shape Claude models are trained on, in
 * its two names: `str_replace_based_edit_tool` (`text_editor_20250728`,
 * Claude 4 models: view, create, str_replace, insert) and
 * `str_replace_editor` (`text_editor_20250124`, Claude Sonnet 3.7: the same
 * and undo_edit). Both are listed, since an MCP client calls the tools
 * tools/list names, and each answers as its version does at home: an
 * undo_edit sent to the newer name is an unrecognized command there. The
 * arguments are Anthropic's, one flat object whose `command` says which
 * others apply (checked per command by the handler, editor-tool.ts);
 * `insert_text` is what the current models send to insert, `new_str` what
 * the older version names it: both are taken.
 */

const int = (min: number): z.ZodMiniNumber<number> => z.number().check(z.int(), z.gte(min));

export const EDITOR_COMMANDS = ['view', 'create', 'str_replace', 'insert'] as const;
export const EDITOR_COMMANDS_20250124 = [...EDITOR_COMMANDS, 'undo_edit'] as const;

/** The reference's answer to a command its version does not have, before the schema's own. */
function commandCheck(name: string, commands: readonly string[]): (args: Record<string, unknown>) => void {
  return (args) => {
    const command = args.command;
    if (typeof command !== 'string' || commands.includes(command)) return;
    throw new ShadowError(
      'INVALID_ARGUMENT',
      `Unrecognized command ${command}. The allowed commands for the ${name} tool are: ${commands.join(', ')}`,
      {
        hint:
          command === 'undo_edit'
            ? 'undo by editing the file back (view it, then str_replace)'
            : `use one of ${commands.join(', ')}`,
        data: { command },
      },
    );
  };
}

const DESCRIPTION =
  "View, create and edit text files of the draft: your changes go to a draft (a private git ref), never straight into the user's working tree, " +
  'and every change is one commit the person reviews; the view shows the draft with the working tree under it. ' +
  'Paths are absolute inside the repository, or relative to its root. ' +
  'view: a file as `cat -n` shows it (view_range [start, end] for part of it, -1 for the end), or a directory two levels deep (hidden entries left out). ' +
  'create: a new file with file_text (a path that exists is refused). ' +
  'str_replace: replace old_str, which must occur exactly once (copy it exactly, whitespace included), by new_str. ' +
  'insert: insert_text after line insert_line (0: at the top). ';
const STALE =
  'When the file changed since you last viewed it (another agent, or the person), an edit fails with EXPECT_FAILED instead of overwriting that change: view it again.';

function input(commands: readonly string[]) {
  return z.strictObject({
    command: describe(z.enum(commands as [string, ...string[]]), 'the command to run'),
    path: describe(
      z.string().check(z.minLength(1)),
      'the file or directory: absolute inside the repository, or relative to its root',
    ),
    file_text: z.optional(describe(z.string(), 'create: the content of the new file')),
    old_str: z.optional(
      describe(z.string(), 'str_replace: the text to replace; it must occur exactly once in the file'),
    ),
    new_str: z.optional(
      describe(
        z.string(),
        'str_replace: the replacement (default empty); insert: the text to insert, when insert_text is not given',
      ),
    ),
    insert_line: z.optional(describe(int(0), 'insert: the line after which to insert (0 inserts at the top)')),
    insert_text: z.optional(describe(z.string(), 'insert: the text to insert')),
    view_range: z.optional(
      describe(
        z.array(z.number().check(z.int())).check(z.minLength(2), z.maxLength(2)),
        'view: [first line, last line], lines numbered from 1; -1 as the last reads to the end',
      ),
    ),
  });
}

const output: ToolDefinition['output'] = {
  type: 'object',
  properties: {
    command: { type: 'string' },
    path: { type: 'string', description: 'the path as given' },
    kind: { type: 'string', enum: ['file', 'directory'] },
    content: { type: 'string', description: 'view: the lines shown, without their numbers' },
    start_line: { type: 'integer' },
    end_line: { type: 'integer' },
    total_lines: {
      type: 'integer',
      description: 'view: the lines of the file as view_range counts them (a last newline ends an empty last line)',
    },
    entries: {
      type: 'array',
      items: { type: 'string' },
      description: 'view of a directory: the paths listed under it',
    },
    oid: { type: 'string', description: 'the blob id of the file as viewed or written' },
    draft: { type: 'string' },
    batch: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'the batch a write made' },
    commit: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    undone: { type: 'integer', description: 'undo_edit: the batch it undid' },
  },
  required: ['command', 'path'],
};

export const EDITOR_TOOL: ToolDefinition = {
  name: 'str_replace_based_edit_tool',
  profile: 'anthropic',
  anthropicType: 'text_editor_20250728',
  description: DESCRIPTION + STALE,
  input: input(EDITOR_COMMANDS),
  before: commandCheck('str_replace_based_edit_tool', EDITOR_COMMANDS),
  annotations: hints('Text editor (draft)', 'destructive'),
  output,
};

/** The same editor under the name Claude Sonnet 3.7 calls it (`text_editor_20250124`), with undo_edit. */
export const EDITOR_TOOL_20250124: ToolDefinition = {
  name: 'str_replace_editor',
  profile: 'anthropic',
  anthropicType: 'text_editor_20250124',
  description: `${DESCRIPTION}undo_edit: undo your last change to the file. ${STALE} (The text editor under the name of text_editor_20250124, for Claude Sonnet 3.7.)`,
  input: input(EDITOR_COMMANDS_20250124),
  before: commandCheck('str_replace_editor', EDITOR_COMMANDS_20250124),
  annotations: hints('Text editor (draft, text_editor_20250124)', 'destructive'),
  output,
};

export const EDITOR_TOOLS: readonly ToolDefinition[] = [EDITOR_TOOL, EDITOR_TOOL_20250124];
