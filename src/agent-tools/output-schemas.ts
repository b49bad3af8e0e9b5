/**
 * The JSON Schemas of the tools' structured results (MCP's `outputSchema`,
 * protocol 2025-06-18): what `structuredContent` holds, so a client can use
 * the result without parsing text. Every schema also takes the error shape,
 * `{ error: { code, message, hint?, data? } }`: a failed call carries its
 * stable code there too, and the SDK's client checks an error's structured
 * content against the same schema. Library results (status, rebase, …) are
 * described by the fields a client relies on and left open to the rest, so
 * that a field added to the library does not break a client.
 */

export type JsonSchema = Record<string, unknown>;

const str = (description?: string): JsonSchema => (description ? { type: 'string', description } : { type: 'string' });
const int = (description?: string): JsonSchema =>
  description ? { type: 'integer', description } : { type: 'integer' };
const bool = (description?: string): JsonSchema =>
  description ? { type: 'boolean', description } : { type: 'boolean' };
/** A value or null (as anyOf: strict validators refuse a list of types). */
const orNull = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: 'null' }] });
const arrayOf = (items: JsonSchema, description?: string): JsonSchema => ({
  type: 'array',
  items,
  ...(description ? { description } : {}),
});
const obj = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
});

export const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'why the call failed; set exactly when isError is true',
  properties: {
    code: str('a stable error code, e.g. EDIT_NO_MATCH, EXPECT_FAILED, NOT_FOUND'),
    message: str(),
    hint: str('what to do about it'),
    data: {
      type: 'object',
      description: 'machine-readable details: closest lines, matching line numbers, the conflicting batch',
    },
  },
  required: ['code', 'message'],
};

/**
 * A result schema that also takes the error shape: the result's fields, or
 * `error` (a failed batch keeps its per-operation results beside it).
 */
export function withError(result: JsonSchema): JsonSchema {
  const properties = { ...(result.properties as Record<string, JsonSchema>), error: ERROR_SCHEMA };
  const required = (result.required as string[] | undefined) ?? [];
  const { required: _r, properties: _p, ...rest } = result;
  if (required.length === 0) return { ...rest, type: 'object', properties };
  // Each branch names the properties it requires, as strict validators want.
  const named = (keys: string[]): Record<string, boolean> => Object.fromEntries(keys.map((k) => [k, true]));
  return {
    ...rest,
    type: 'object',
    properties,
    anyOf: [
      { properties: named(required), required },
      { properties: named(['error']), required: ['error'] },
    ],
  };
}

const opResult = obj(
  {
    operation: str(),
    path: str(),
    success: bool(),
    status: str('created, updated, deleted, renamed, mode_changed, unchanged, already_applied, failed or not_applied'),
    to: str(),
    error: ERROR_SCHEMA,
  },
  ['operation', 'path', 'success', 'status'],
);

/** A batch's result (batch_write, resolve, finalize_write, append_content when it ends the content). */
export const BATCH_RESULT = obj(
  {
    success: bool(),
    draft: str(),
    batch: orNull(int('the batch number')),
    commit: orNull(str("the draft's tip after the batch")),
    results: arrayOf(opResult, 'per operation, in order'),
    unchanged: bool(),
    created_draft: bool(),
    captured: arrayOf(str()),
    resolved: arrayOf(str()),
    session_id: str(),
    validation_errors: arrayOf(str()),
    attempts_left: int(),
  },
  ['success', 'draft', 'results'],
);

const draftObject = (extra: Record<string, JsonSchema> = {}): JsonSchema => obj({ draft: str(), ...extra });

/** shadow's own tools, by name. */
const SHADOW_OUTPUTS: Record<string, JsonSchema> = {
  batch_write: BATCH_RESULT,
  resolve: BATCH_RESULT,
  finalize_write: BATCH_RESULT,
  read_file: obj(
    {
      path: str(),
      source: { type: 'string', enum: ['draft', 'working tree'] },
      type: { type: 'string', enum: ['text', 'binary', 'symlink'] },
      oid: str('the blob id: expect takes it'),
      size: int('bytes'),
      content: str('the lines shown, without their numbers'),
      start_line: int(),
      end_line: int(),
      total_lines: int(),
      target: str("a symlink's target"),
    },
    ['path', 'source', 'type'],
  ),
  list_files: obj(
    {
      path: str(),
      entries: arrayOf(obj({ name: str(), type: str(), source: str(), commit: orNull(str()) }, ['name', 'type'])),
      files: arrayOf(obj({ path: str(), type: str(), source: str(), commit: orNull(str()) }, ['path', 'type'])),
      truncated: bool(),
    },
    ['path'],
  ),
  search: obj(
    {
      matches: arrayOf(obj({ path: str(), line: int(), text: str() }, ['path', 'line', 'text'])),
      files_searched: int(),
      truncated: bool(),
    },
    ['matches', 'files_searched', 'truncated'],
  ),
  begin_write: obj({ session_id: str(), stage: str(), instructions: str() }, ['session_id', 'stage']),
  // Either the session's progress, or the batch that the DONE line committed.
  append_content: obj({
    session_id: str(),
    stage: str(),
    bytes: int(),
    lines: int(),
    next: str(),
    ...(BATCH_RESULT.properties as Record<string, JsonSchema>),
  }),
  diff: obj({ files: arrayOf(obj({ path: str(), status: str() }, ['path', 'status'])) }, ['files']),
  log: obj(
    {
      batches: arrayOf(
        obj({ batch: int(), commit: str(), actor: str(), time: str(), intent: str() }, ['batch', 'commit']),
      ),
    },
    ['batches'],
  ),
  status: obj({ draft: str(), exists: bool(), batches: int(), changed: arrayOf({ type: 'object' }) }, ['draft']),
  checkpoint: obj({ name: str(), commit: str(), batch: orNull(int()) }, ['name', 'commit']),
  rollback: obj({ draft: str(), from: str(), to: str(), target: str(), kept: str() }, ['draft', 'to']),
  rebase: draftObject(),
  revert: draftObject({ reverted: arrayOf(int()), batch: orNull(int()) }),
  propose: { type: 'object' },
  apply_status: obj({ draft: str(), can_apply: bool(), paths: arrayOf(str()), note: str() }, ['draft', 'can_apply']),
  apply: draftObject({ ok: bool() }),
};

/** A tool without a schema of its own: any object (its text comes as `{ text }`). */
const ANY_RESULT: JsonSchema = obj({ text: str() });

/** The outputSchema of a tool. */
export function outputJsonSchema(tool: { name: string; output?: JsonSchema; profile?: string }): JsonSchema {
  const own =
    tool.output ?? (tool.profile === undefined || tool.profile === 'shadow' ? SHADOW_OUTPUTS[tool.name] : undefined);
  return withError(own ?? ANY_RESULT);
}
