import * as z from 'zod/mini';
import { describe, hints, type ToolDefinition } from './definitions.js';

/**
 * Anthropic's text editor tool, the shape Claude models are trained on
 * (`text_editor_20250728`, named str_replace_based_edit_tool; Claude 3.x's
 * str_replace_editor is taken as an alias): view, create, str_replace,
 * insert, and undo_edit, which the newest version dropped and older models
 * still send. The arguments are Anthropic's, one flat object whose
 * `command` says which others apply (checked per command by the handler,
 * editor-tool.ts); `insert_text` is what the current models send to insert,
 * `new_str` what the older documentation named it: both are taken.
 */

const int = (min: number): z.ZodMiniNumber<number> => z.number().check(z.int(), z.gte(min));

export const EDITOR_TOOL: ToolDefinition = {
  name: 'str_replace_based_edit_tool',
  profile: 'anthropic',
  anthropicType: 'text_editor_20250728',
  description:
    "View, create and edit text files of the draft: your changes go to a draft (a private git ref), never straight into the user's working tree, " +
    'and every change is one commit the person reviews; the view shows the draft with the working tree under it. ' +
    'Paths are absolute inside the repository, or relative to its root. ' +
    'view: a file as `cat -n` shows it (view_range [start, end] for part of it, -1 for the end), or a directory two levels deep (hidden entries left out). ' +
    'create: a new file with file_text (replacing an existing file is allowed only after you viewed it). ' +
    'str_replace: replace old_str, which must occur exactly once (copy it exactly, whitespace included), by new_str. ' +
    'insert: insert_text after line insert_line (0: at the top). ' +
    'undo_edit: undo your last change to the file. ' +
    'When the file changed since you last viewed it (another agent, or the person), an edit fails with EXPECT_FAILED instead of overwriting that change: view it again.',
  input: z.strictObject({
    command: describe(z.enum(['view', 'create', 'str_replace', 'insert', 'undo_edit']), 'the command to run'),
    path: describe(z.string().check(z.minLength(1)), 'the file or directory: absolute inside the repository, or relative to its root'),
    file_text: z.optional(describe(z.string(), 'create: the content of the new file')),
    old_str: z.optional(describe(z.string(), 'str_replace: the text to replace; it must occur exactly once in the file')),
    new_str: z.optional(describe(z.string(), 'str_replace: the replacement (default empty); insert: the text to insert, when insert_text is not given')),
    insert_line: z.optional(describe(int(0), 'insert: the line after which to insert (0 inserts at the top)')),
    insert_text: z.optional(describe(z.string(), 'insert: the text to insert')),
    view_range: z.optional(
      describe(z.array(z.number().check(z.int())).check(z.minLength(2), z.maxLength(2)), 'view: [first line, last line], lines numbered from 1; -1 as the last reads to the end'),
    ),
  }),
  annotations: hints('Text editor (draft)', 'destructive'),
  output: {
    type: 'object',
    properties: {
      command: { type: 'string' },
      path: { type: 'string', description: 'the path as given' },
      kind: { type: 'string', enum: ['file', 'directory'] },
      content: { type: 'string', description: 'view: the lines shown, without their numbers' },
      start_line: { type: 'integer' },
      end_line: { type: 'integer' },
      total_lines: { type: 'integer' },
      entries: { type: 'array', items: { type: 'string' }, description: 'view of a directory: the paths listed' },
      oid: { type: 'string', description: 'the blob id of the file as viewed or written' },
      draft: { type: 'string' },
      batch: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'the batch a write made' },
      commit: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      undone: { type: 'integer', description: 'undo_edit: the batch it undid' },
    },
    required: ['command', 'path'],
  },
};

export const EDITOR_TOOLS: readonly ToolDefinition[] = [EDITOR_TOOL];
