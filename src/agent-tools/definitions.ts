import * as z from 'zod/mini';
import { FileOperationSchema, REPO_PATH_PATTERN, RepoPath } from '../drafts/batch/batch-schema.js';
import { pathspecProblem } from '../core/pathspec.js';
import { outputJsonSchema, type JsonSchema } from './output-schemas.js';

/**
 * The tools shadow offers an agent: names, descriptions written for a model,
 * input schemas (zod: the same schemas the library validates with, turned
 * into JSON Schema here, so there is one source of truth), and MCP hints.
 * `shadow mcp` serves them; `shadow tools` prints them for other runtimes.
 */

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

/** The shapes of tools shadow can serve: its own, Anthropic's text editor, the MCP filesystem server's (see profiles.ts). */
export type Profile = 'shadow' | 'anthropic' | 'filesystem';

export interface ToolDefinition {
  name: string;
  description: string;
  input: z.ZodMiniType;
  annotations: ToolAnnotations;
  /** Only served when asked for (`--allow-apply`): the person applies, not the model. */
  gated?: 'apply';
  /** The shape it belongs to (default shadow's own). */
  profile?: Profile;
  /** The JSON Schema of its structured result (default: output-schemas.ts, by name). */
  output?: JsonSchema;
  /** A tool the Anthropic API defines itself (schema-less there): its `type`, e.g. text_editor_20250728. */
  anthropicType?: string;
  /** A check before the schema's, for a tool whose home answers some bad arguments in words of its own. */
  before?: (args: Record<string, unknown>) => void;
}

const path = (): z.ZodMiniString<string> => z.string().check(z.minLength(1));
const int = (min: number): z.ZodMiniNumber<number> => z.number().check(z.int(), z.gte(min));
const sessionId = (): z.ZodMiniString<string> =>
  describe(z.string().check(z.minLength(1)), 'the id begin_write returned');

export const hints = (title: string, kind: 'read' | 'write' | 'destructive', idempotent = false): ToolAnnotations => ({
  title,
  readOnlyHint: kind === 'read',
  destructiveHint: kind === 'destructive',
  idempotentHint: kind === 'read' || idempotent,
  openWorldHint: false,
});

/** Descriptions of the schemas' fields, for the JSON Schema (a registry of this module's own, not zod's global one). */
const descriptions = z.registry<{ description: string }>();
export const describe = <T extends z.ZodMiniType>(schema: T, description: string): T => {
  descriptions.add(schema, { description });
  return schema;
};

/** One repository-relative pathspec; JSON Schema carries its rule as PATHSPEC_PATTERN. */
const Pathspec = z.string().check(
  z.superRefine((value, ctx) => {
    const problem = pathspecProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: value });
  }),
);
const PATHSPEC_PATTERN = String.raw`^(?![A-Za-z]:)(?!/)(?!(?:.*/)?\.\.(?:/|$)).+$`;

/**
 * The pathspecs of a partial apply. At least one: an empty list would read
 * as "the whole draft", which is what leaving the field out says.
 */
const applyPaths = (): z.ZodMiniArray<typeof Pathspec> =>
  describe(
    z.array(Pathspec).check(z.minLength(1)),
    'only these paths of the draft: files, directories (everything below), or globs (* within a directory, ** across), relative to the repository root; the draft keeps the rest (default: the whole draft)',
  );

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'batch_write',
    description:
      'Change files as one atomic batch: every operation is validated first and either all land as one commit on the draft or none does. ' +
      'Operations run in order and see each other. write: create or replace a file (content; encoding "base64" for bytes). ' +
      'edit: replace the single occurrence of old_content with content (copy old_content exactly from read_file, whitespace included; ' +
      'an old_content that is absent fails with the closest lines). patch: apply a unified diff to one file. apply_patch: a patch in the apply_patch format (see that tool), any number of files. ' +
      'Sending the same batch again right after it landed (a retry) changes nothing and reports already_applied. ' +
      'delete, rename (path -> to), chmod (mode 100644 or 100755). Optional expect: the blob id or sha256:<hex> the path must hold first. ' +
      "Nothing touches the user's working tree: the person reviews and applies the draft. For content over a few hundred lines use begin_write instead.",
    input: z.strictObject({
      intent: z.optional(
        describe(
          z.string().check(z.maxLength(10_000)),
          'one line saying what the batch is for; it becomes the commit message',
        ),
      ),
      operations: describe(
        z.array(FileOperationSchema).check(z.minLength(1)),
        'the file operations, applied in order, all or nothing',
      ),
    }),
    annotations: hints('Write files (atomic batch)', 'destructive'),
  },
  {
    // Codex's own tool shape (name and one `input` string), so that a model trained on it calls it as it always does.
    name: 'apply_patch',
    description:
      'Edit files with a patch in the apply_patch format; the whole patch lands as one atomic batch on the draft (every file or none). ' +
      'The format:\n*** Begin Patch\n*** Add File: <path>\n+<each line of the new file, each starting with +>\n' +
      '*** Update File: <path>\n*** Move to: <new path>   (optional: rename it too)\n@@ <a line above the change, e.g. a def or class line; or a bare @@>\n' +
      ' <context line, unchanged>\n-<removed line>\n+<added line>\n*** End of File   (optional: the change ends the file)\n*** Delete File: <path>\n*** End Patch\n' +
      'Paths are relative to the repository root. Give about 3 lines of context around each change, in the order of the file; when they are not unique, add @@ lines naming the class, then the def. ' +
      "Add File over a file that exists replaces it, as Move to onto one does. Nothing touches the user's working tree.",
    input: z.strictObject({
      input: describe(z.string().check(z.minLength(1)), 'The entire contents of the apply_patch command'),
    }),
    annotations: hints('Apply a patch (apply_patch format)', 'destructive'),
  },
  {
    name: 'read_file',
    description:
      "Read a file as the draft sees it: the draft's own changes, else the working tree. Lines are numbered from 1; give start_line/end_line to read part of a long file.",
    input: z.strictObject({
      path: describe(path(), 'path relative to the repository root'),
      start_line: z.optional(describe(int(1), 'first line to return (default 1)')),
      end_line: z.optional(describe(int(1), 'last line to return (default: the end, at most 2,000 lines)')),
    }),
    annotations: hints('Read a file', 'read'),
  },
  {
    name: 'list_files',
    description:
      "List a directory of the draft's view (what the draft changed shows as such). With recursive, every file below it, skipping what .gitignore ignores.",
    input: z.strictObject({
      path: z.optional(describe(z.string(), 'directory relative to the repository root (default: the root)')),
      recursive: z.optional(describe(z.boolean(), 'list every file below, not just the directory (default false)')),
    }),
    annotations: hints('List files', 'read'),
  },
  {
    name: 'search',
    description:
      "Find lines in the text files of the draft's view: a plain substring, or a JavaScript regular expression with regex: true. Ignored files, binary files and files over 1 MiB are skipped; results are bounded.",
    input: z.strictObject({
      pattern: describe(z.string().check(z.minLength(1)), 'what to look for'),
      regex: z.optional(describe(z.boolean(), 'treat pattern as a regular expression (default false)')),
      case_sensitive: z.optional(describe(z.boolean(), 'default true')),
      path: z.optional(describe(z.string(), 'directory to search under (default: the root)')),
      max_results: z.optional(describe(int(1), 'at most this many matching lines (default 200)')),
    }),
    annotations: hints('Search files', 'read'),
  },
  {
    name: 'begin_write',
    description:
      'Start writing a large file without putting it in one giant JSON argument: returns a session_id. Then send the content in pieces with append_content ' +
      '(plain text, exactly as the file should read) and call finalize_write. The content is saved as it arrives and committed as one batch at the end.',
    input: z.strictObject({
      target_file: describe(path(), 'the file to write, relative to the repository root'),
      operation: describe(
        z.enum(['create', 'overwrite', 'append']),
        'create a new file, overwrite an existing one, or append to it',
      ),
      intent: z.optional(describe(z.string(), 'what the content is for')),
    }),
    annotations: hints('Begin a large write', 'write'),
  },
  {
    name: 'append_content',
    description:
      "Send the next piece of a write session's content (plain text, appended in order). A line that is exactly DONE ends the content and commits it.",
    input: z.strictObject({
      session_id: sessionId(),
      content: describe(z.string(), 'the next piece of the file, as it should read'),
    }),
    annotations: hints('Append content', 'write'),
  },
  {
    name: 'finalize_write',
    description:
      "Validate a write session's content and commit it as one batch. On a validation error the session stays open: send the corrected whole content here (content) up to 2 more times.",
    input: z.strictObject({
      session_id: sessionId(),
      content: z.optional(describe(z.string(), 'the corrected whole content, replacing what was sent')),
    }),
    annotations: hints('Finalize a large write', 'write'),
  },
  {
    name: 'diff',
    description:
      'What the draft changes, as a unified diff against what it was based on; or between two points with range (e.g. "before-refactor..", "3..5", "~2..").',
    input: z.strictObject({
      range: z.optional(
        describe(
          z.string(),
          'from..to: checkpoint names, batch numbers, ~N or commits (default: everything the draft changed)',
        ),
      ),
      stat: z.optional(describe(z.boolean(), 'only the list of files with line counts (default false)')),
      renames: z.optional(
        describe(z.boolean(), 'pair deleted and added files into renames, as git diff -M (default false)'),
      ),
      paths: z.optional(
        describe(z.array(z.string()), 'only these paths, directories or globs, from the repository root'),
      ),
    }),
    annotations: hints('Show the diff', 'read'),
  },
  {
    name: 'log',
    description: "The draft's batches, newest first: number, author, time, intent and operations.",
    input: z.strictObject({ limit: z.optional(describe(int(1), 'at most this many batches (default 20)')) }),
    annotations: hints('Show the log', 'read'),
  },
  {
    name: 'status',
    description:
      "The draft's state: tip, batches, changed paths, and paths the user's working tree moved away from since.",
    input: z.strictObject({}),
    annotations: hints('Draft status', 'read'),
  },
  {
    name: 'checkpoint',
    description: "Name the draft's current state so that rollback can return to it (e.g. before a risky refactor).",
    input: z.strictObject({
      name: describe(z.string().check(z.minLength(1)), 'a short name: letters, digits, . _ -'),
      message: z.optional(describe(z.string(), 'why this point matters')),
    }),
    annotations: hints('Checkpoint', 'write'),
  },
  {
    name: 'rollback',
    description:
      'Move the draft back (or forward) to a checkpoint, a batch number, ~N (N batches back) or a commit. Nothing is lost: the state left is kept as a checkpoint.',
    input: z.strictObject({
      target: describe(z.string().check(z.minLength(1)), 'checkpoint name, batch number, ~N, or commit id'),
    }),
    annotations: hints('Roll back', 'destructive', true),
  },
  {
    name: 'rebase',
    description:
      "Move the draft onto the user's working tree as it is now (or onto a commit with onto): each file the draft changed is merged with the user's own changes since. " +
      "Files that do not merge stay in the draft as conflicts (git's <<<<<<< markers where both changed the same lines); resolve each by writing the content you want (any batch on the path resolves it), or with resolve. " +
      'Writes only the draft; undone by rollback ~1.',
    input: z.strictObject({
      onto: z.optional(
        describe(z.string().check(z.minLength(1)), 'a branch, tag or commit to move onto instead of the working tree'),
      ),
    }),
    annotations: hints('Rebase the draft', 'write'),
  },
  {
    name: 'revert',
    description:
      'Undo some of your own earlier batches on the draft and keep everything after them (like git revert): a new batch. Name them by number (see log) or ~N. ' +
      'A file a later batch changed on the same lines stays in conflict (git markers) until you write it again.',
    input: z.strictObject({
      batches: describe(
        z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
        'batch numbers (as log shows them) or ~N',
      ),
    }),
    annotations: hints('Revert batches', 'write'),
  },
  {
    name: 'resolve',
    description:
      'Mark files in conflict since a rebase as resolved, keeping them as the draft holds them now (status lists the conflicts).',
    input: z.strictObject({
      paths: describe(z.array(RepoPath).check(z.minLength(1)), 'repository-relative paths in conflict'),
    }),
    annotations: hints('Resolve conflicts', 'write', true),
  },
  {
    name: 'propose',
    description:
      "Freeze the draft's diff as a proposal for the person to review and apply. Writes nothing to their files.",
    input: z.strictObject({ message: z.optional(describe(z.string(), 'what the change does, for the reviewer')) }),
    annotations: hints('Propose for review', 'write', true),
  },
  {
    name: 'apply_status',
    description:
      "Whether the draft could be applied now: the paths it would write (each clean, merged with the user's own change, or in conflict), conflicts with the working tree, and approvals still pending (secrets, protected paths, mass deletes). " +
      "With paths, the same for only those paths (a partial apply: the draft keeps the rest); a path that matches none of the draft's changes is INVALID_ARGUMENT. Read-only.",
    input: z.strictObject({ paths: z.optional(applyPaths()) }),
    annotations: hints('Apply status', 'read'),
  },
  {
    name: 'apply',
    description:
      "Publish the draft into the user's working tree. A file the user changed meanwhile is merged line by line; where both changed the same lines it fails with CONFLICT (writing nothing) unless conflict is 'markers'. Fails while approvals are pending. " +
      "With paths, publish only those paths: they stop being changes of the draft, the rest stay; a path that matches none of the draft's changes is INVALID_ARGUMENT (nothing written).",
    input: z.strictObject({
      paths: z.optional(applyPaths()),
      conflict: z.optional(
        describe(
          z.enum(['refuse', 'markers']),
          "where the user changed the same lines: stop (refuse, the default) or write git's conflict markers into the file",
        ),
      ),
      expect: z.optional(
        describe(
          z.string(),
          'the review_fingerprint the person reviewed (apply_status gives the current one): if the draft changed since, STALE_REVIEW and nothing is written',
        ),
      ),
    }),
    annotations: hints('Apply to the working tree', 'destructive'),
    gated: 'apply',
  },
  {
    name: 'unapply',
    description:
      "Undo the last apply in the user's working tree, keeping the user's later edits to the same files where they do not touch the applied lines. " +
      "With dry_run, only say what would be put back (each path clean, merged or in conflict). Where the user changed the applied lines it fails with CONFLICT (writing nothing) unless conflict is 'markers'.",
    input: z.strictObject({
      dry_run: z.optional(describe(z.boolean(), 'only report, write nothing (default false)')),
      conflict: z.optional(
        describe(
          z.enum(['refuse', 'markers']),
          "where the user changed the applied lines: stop (refuse, the default) or write git's conflict markers",
        ),
      ),
    }),
    annotations: hints('Undo the last apply', 'destructive'),
    gated: 'apply',
  },
];

export type { JsonSchema } from './output-schemas.js';

/** The JSON Schema of a tool's input (draft 2020-12, without the `$schema` key). */
export function inputJsonSchema(tool: ToolDefinition): JsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.input, {
    io: 'input',
    metadata: descriptions,
    // The path rules are a refinement, which JSON Schema cannot carry: say them as a pattern.
    override: (ctx) => {
      if (ctx.zodSchema === RepoPath)
        Object.assign(ctx.jsonSchema, { minLength: 1, maxLength: 4096, pattern: REPO_PATH_PATTERN });
      if (ctx.zodSchema === Pathspec) Object.assign(ctx.jsonSchema, { minLength: 1, pattern: PATHSPEC_PATTERN });
    },
  }) as JsonSchema;
  return schema;
}

/** The tools a server offers: all but the gated ones unless allowed. */
export function offeredTools(options: { allowApply?: boolean } = {}): ToolDefinition[] {
  return TOOLS.filter((t) => t.gated === undefined || (t.gated === 'apply' && options.allowApply === true));
}

export type ToolFormat = 'openai' | 'anthropic' | 'mcp';

/** The definitions in the shape a runtime expects. */
export function formatTools(format: ToolFormat, tools: readonly ToolDefinition[]): unknown[] {
  return tools.map((t) => {
    const schema = inputJsonSchema(t);
    if (format === 'openai')
      return { type: 'function', function: { name: t.name, description: t.description, parameters: schema } };
    // The API knows its own tools by type: it refuses a schema for them, and the model was trained on theirs.
    if (format === 'anthropic')
      return t.anthropicType
        ? { type: t.anthropicType, name: t.name }
        : { name: t.name, description: t.description, input_schema: schema };
    return {
      name: t.name,
      title: t.annotations.title,
      description: t.description,
      inputSchema: schema,
      outputSchema: outputJsonSchema(t),
      annotations: t.annotations,
    };
  });
}
