import * as z from 'zod/mini';
import { MEDIA_OUTPUT } from './filesystem-media.js';
import { describe, hints, type ToolAnnotations, type ToolDefinition } from './definitions.js';

/**
 * The tools of the MCP filesystem server (modelcontextprotocol/servers,
 * src/filesystem), by the same names and arguments, so that a client set up
 * for that server talks to a draft without a change: reads see the draft's
 * view, each write is one batch on the draft. Their results are what that
 * server returns, text and `{ content }` as structured content. Where shadow
 * differs the description says so: what .gitignore ignores is left out of
 * walks; a write needs no directory made first (git keeps none).
 */

const path = (what = 'path'): z.ZodMiniString<string> =>
  describe(
    z.string().check(z.minLength(1)),
    `${what}: absolute inside the repository (see list_allowed_directories), or relative to its root`,
  );
const lines = (what: string): z.ZodMiniOptional<z.ZodMiniNumber<number>> =>
  z.optional(describe(z.number().check(z.int(), z.gte(0)), what));
const patterns = (): z.ZodMiniOptional<z.ZodMiniArray<z.ZodMiniString<string>>> =>
  z.optional(describe(z.array(z.string()), 'glob patterns (relative to path) of what to leave out'));

/** That server's result: one text, also as `{ content }`. */
const CONTENT = { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] };

const fs = (
  name: string,
  title: string,
  description: string,
  input: z.ZodMiniType,
  annotations: ToolAnnotations,
): ToolDefinition => ({
  name,
  profile: 'filesystem',
  description,
  input,
  annotations: { ...annotations, title },
  output: CONTENT,
});

const readArgs = z.strictObject({
  path: path(),
  tail: lines('if given, only the last N lines of the file'),
  head: lines('if given, only the first N lines of the file'),
});

const READ =
  "Read a file of the draft's view (the draft's own changes, else the working tree) as UTF-8 text. head: only its first N lines; tail: only its last N.";

export const FILESYSTEM_TOOLS: readonly ToolDefinition[] = [
  fs('read_text_file', 'Read Text File', READ, readArgs, hints('', 'read')),
  fs('read_file', 'Read File (Deprecated)', `${READ} Deprecated: use read_text_file.`, readArgs, hints('', 'read')),
  {
    ...fs(
      'read_media_file',
      'Read Media File',
      "Read a file of the draft's view and return it base64-encoded with its MIME type (by extension): image and audio files as image or audio content, any other file as an embedded resource.",
      z.strictObject({ path: path() }),
      hints('', 'read'),
    ),
    output: MEDIA_OUTPUT,
  },
  fs(
    'read_multiple_files',
    'Read Multiple Files',
    "Read several files of the draft's view at once: each file's text after its path, separated by ---. A file that cannot be read is reported in its place and does not stop the others.",
    z.strictObject({
      paths: describe(z.array(z.string().check(z.minLength(1))).check(z.minLength(1)), 'the files to read'),
    }),
    hints('', 'read'),
  ),
  fs(
    'write_file',
    'Write File',
    "Create a file or replace its whole content, as one batch (one commit) on the draft; the user's working tree is not touched until the person applies the draft.",
    z.strictObject({ path: path(), content: describe(z.string(), 'the whole new content') }),
    hints('', 'destructive', true),
  ),
  fs(
    'edit_file',
    'Edit File',
    'Replace text in a file: each edit replaces its oldText, which must occur exactly once (whitespace included), by newText; edits apply in order, all or none, as one batch on the draft. ' +
      'Returns a git-style diff of the change; dryRun: only show that diff. A file changed by someone else meanwhile is never overwritten: the edit fails (EXPECT_FAILED).',
    z.strictObject({
      path: path(),
      edits: describe(
        z.array(
          z.strictObject({
            oldText: describe(z.string(), 'Text to search for - must match exactly'),
            newText: describe(z.string(), 'the text to put in its place'),
          }),
        ),
        'the replacements, in order',
      ),
      dryRun: z.optional(describe(z.boolean(), 'show the diff without writing (default false)')),
    }),
    hints('', 'destructive'),
  ),
  fs(
    'create_directory',
    'Create Directory',
    'Make sure a directory exists. Git keeps no empty directories, so this writes nothing: a directory of the draft exists once a file is written in it (write_file creates the directories it needs). Fails when a file is in the way.',
    z.strictObject({ path: path() }),
    hints('', 'write', true),
  ),
  fs(
    'list_directory',
    'List Directory',
    "List a directory of the draft's view, each entry marked [DIR] or [FILE].",
    z.strictObject({ path: path() }),
    hints('', 'read'),
  ),
  fs(
    'list_directory_with_sizes',
    'List Directory with Sizes',
    "List a directory of the draft's view, [DIR] or [FILE], with each file's size and totals.",
    z.strictObject({
      path: path(),
      sortBy: z.optional(describe(z.enum(['name', 'size']), 'sort by name (default) or size')),
    }),
    hints('', 'read'),
  ),
  fs(
    'directory_tree',
    'Directory Tree',
    "The draft's view below a directory as a JSON tree: entries with name, type (file or directory) and, for directories, children. What .gitignore ignores is left out (it is not the project's), and so are directories holding no files.",
    z.strictObject({ path: path(), excludePatterns: patterns() }),
    hints('', 'read'),
  ),
  fs(
    'move_file',
    'Move File',
    'Move or rename a file or a directory (every file below it), as one batch on the draft. Fails when the destination exists.',
    z.strictObject({ source: path('source'), destination: path('destination') }),
    hints('', 'destructive'),
  ),
  fs(
    'search_files',
    'Search Files',
    "Find files and directories of the draft's view whose path below `path` matches a glob: '*.ts' in that directory, '**/*.ts' at any depth. Returns their full paths. What .gitignore ignores is left out.",
    z.strictObject({
      path: path(),
      pattern: describe(z.string().check(z.minLength(1)), 'a glob, relative to path'),
      excludePatterns: patterns(),
    }),
    hints('', 'read'),
  ),
  fs(
    'get_file_info',
    'Get File Info',
    "Metadata of a file or directory of the draft's view: size, created, modified and accessed times, isDirectory, isFile, permissions. " +
      "A file the draft changed has the draft's size and mode, modified when the draft's last batch touching it was made.",
    z.strictObject({ path: path() }),
    hints('', 'read'),
  ),
  fs(
    'list_allowed_directories',
    'List Allowed Directories',
    'The directory these tools work in: the repository (its draft). Paths below it, absolute or relative to it, are allowed.',
    z.strictObject({}),
    hints('', 'read'),
  ),
];
