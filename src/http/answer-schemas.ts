import type { JsonSchema } from './route-schema.js';

/**
 * The success answers of the routes, as JSON Schema: the fields a client
 * relies on, each required where the library always sets it, and open to
 * the rest (a field the library adds does not break a client, nor this
 * description). test/http-openapi.test.ts checks real answers against them.
 */

const str = (description?: string): JsonSchema => ({ type: 'string', ...(description ? { description } : {}) });
const int = (description?: string): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}) });
const bool = (description?: string): JsonSchema => ({ type: 'boolean', ...(description ? { description } : {}) });
const orNull = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: 'null' }] });
const arrayOf = (items: JsonSchema, description?: string): JsonSchema => ({
  type: 'array',
  items,
  ...(description ? { description } : {}),
});

/** An object with these properties, those in `required` always there. */
export const obj = (
  properties: Record<string, JsonSchema>,
  required: string[] = Object.keys(properties),
): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
});

const ERROR = obj({ code: str(), message: str(), hint: str(), data: { type: 'object' } }, ['code', 'message']);
const PATHS = arrayOf(obj({ path: str() }, ['path']));

/** A batch's result: one commit, or none and an `error` beside the per-operation results. */
export const BATCH_RESULT = obj(
  {
    success: bool(),
    draft: str(),
    batch: orNull(int('the batch number, null when nothing was committed')),
    commit: orNull(str("the draft's tip after the batch")),
    results: arrayOf(
      obj({ operation: str(), path: str(), success: bool(), status: str() }, ['success', 'status']),
      'per operation, in order',
    ),
    error: ERROR,
  },
  ['success', 'draft', 'results'],
);

export const DRAFT_LIST = obj({
  drafts: arrayOf(
    obj({ name: str(), tip: str(), root: str(), status: str(), batches: int(), created_at: str(), touched: int() }),
  ),
});

export const DIFF = obj(
  {
    draft: str(),
    from: str(),
    to: str(),
    files: arrayOf(
      obj(
        {
          path: str(),
          status: str(),
          patch: str(),
          hunks: arrayOf(
            obj({
              id: str('12 hex digits: names this hunk of this state of the draft (apply body `hunks`)'),
              index: int('1-based, in the file'),
              header: str('the `@@ … @@` line'),
              old_start: int(),
              old_lines: int(),
              new_start: int(),
              new_lines: int(),
            }),
            'with the patch, against the bases: the hunks an apply can take one by one',
          ),
          whole: {
            type: 'string',
            enum: ['binary', 'type', 'encoding', 'empty'],
            description: 'set when the file is taken whole only (then `hunks` is empty)',
          },
        },
        ['path', 'status'],
      ),
    ),
  },
  ['draft', 'files'],
);

export const LOG = obj({
  draft: str(),
  batches: arrayOf(
    obj({ batch: int(), commit: str(), actor: str(), time: str(), intent: str(), captured: arrayOf(str()) }),
    'newest first',
  ),
});

export const LISTING = obj({ dir: str('the directory, "" for the root'), entries: arrayOf({ type: 'object' }) });

export const CHECKPOINT = obj({ name: str(), commit: str(), batch: orNull(int()) }, ['name', 'commit']);

export const STOPPING = obj({ stopping: bool('true when a plan was running and was asked to stop') });

export const ROLLBACK = obj({ draft: str(), from: str(), to: str() }, ['draft', 'to']);

export const SESSION_BEGUN = obj({ session_id: str(), stage: str(), instructions: str() }, [
  'session_id',
  'stage',
  'instructions',
]);

/** Content appended, the session still open; a DONE line answers the finalized batch instead. */
export const SESSION_PROGRESS = {
  anyOf: [obj({ session_id: str(), stage: str(), bytes: int(), lines: int(), last_save: orNull(str()) }), BATCH_RESULT],
};

export const SESSION_STATUS = obj(
  {
    session_id: str(),
    stage: { type: 'string', enum: ['awaiting_content', 'done', 'failed'] },
    target_file: str(),
    operation: str(),
    draft: str(),
    bytes: int(),
    lines: int(),
  },
  ['session_id', 'stage', 'target_file', 'operation', 'draft', 'bytes', 'lines'],
);

/** The session as it was when cancelled. */
export const CANCELLED = obj({ cancelled: SESSION_STATUS });

export const APPLY = obj(
  {
    ok: bool('false when approvals are pending: then nothing was written'),
    draft: str(),
    applied: bool(),
    dry_run: bool(),
    tip: str(),
    paths: PATHS,
    conflicts: PATHS,
    fingerprint: str(),
    review_fingerprint: str('what `expect` is checked against'),
    pendingApprovals: arrayOf({ type: 'object' }),
    partial: arrayOf(
      obj({ path: str(), chosen: int(), hunks: int() }),
      'a hunk apply: the paths taken in part, and how many of their hunks',
    ),
  },
  ['ok', 'draft', 'applied', 'dry_run', 'tip', 'paths', 'conflicts', 'review_fingerprint', 'pendingApprovals'],
);

/** Approvals pending: the dry run's fields beside the error. */
export const APPLY_REFUSED = obj({ ...(APPLY.properties as Record<string, JsonSchema>), error: ERROR }, [
  'ok',
  'draft',
  'pendingApprovals',
  'error',
]);

export const UNAPPLY = obj({
  draft: str(),
  reverted: str(),
  dry_run: bool(),
  paths: PATHS,
  kept: arrayOf(str()),
  conflicts: PATHS,
});

export const REBASE = obj(
  { draft: str(), from: str(), tip: str(), base: str(), unchanged: bool(), paths: PATHS, conflicts: PATHS },
  ['draft', 'from', 'tip', 'unchanged', 'conflicts'],
);

export const REVERT = obj({
  draft: str(),
  reverted: arrayOf(int()),
  from: str(),
  tip: str(),
  batch: orNull(int()),
  unchanged: bool(),
});

export const SPLIT = obj({
  draft: str('the draft the hunks left'),
  from: str('its tip before the split'),
  tip: str('its batch that took the hunks out'),
  batch: int(),
  into: str('the new draft'),
  into_tip: str("the new draft's batch 1: base + the chosen hunks"),
  paths: arrayOf(obj({ path: str(), moved: { type: 'string', enum: ['whole', 'part'] } })),
  partial: arrayOf(
    obj({ path: str(), chosen: int(), hunks: int() }),
    'the paths cut in part, and how many of their hunks moved',
  ),
});

export const ANY_OBJECT: JsonSchema = { type: 'object' };

/** An OpenAPI 3.1 document: only its outline, the routes' schemas are inside. */
export const OPENAPI = obj({ openapi: str(), info: { type: 'object' }, paths: { type: 'object' } });

const BYTES: JsonSchema = { type: 'string', contentMediaType: 'application/octet-stream' };

/** A draft's file (its bytes) or directory (its listing). */
export const FILE_OR_LISTING = { content: { 'application/octet-stream': BYTES, 'application/json': LISTING } };

/** One of the review page's files. */
export const asset = (type: string): { content: Record<string, JsonSchema> } => ({
  content: { [type]: { type: 'string' } },
});

export const PAGE_SESSION = obj({ csrf_token: str('sent back as X-CSRF-Token on every request that changes state') });
export const LOGGED_OUT = obj({ logged_out: bool() });
export const PAGE_DRAFTS = obj({
  drafts: arrayOf(
    obj({ name: str(), status: str(), batches: int(), actors: arrayOf(str()), pending_approvals: int() }),
  ),
});
export const PAGE_DRAFT = obj(
  {
    draft: { type: 'object' },
    review: { type: 'object' },
    drifted: { type: 'array' },
    checkpoints: { type: 'array' },
    batches: { type: 'array' },
  },
  ['draft', 'review', 'checkpoints', 'batches'],
);
export const TIMELINE = obj({
  draft: str(),
  events: arrayOf(obj({ seq: int(), ts: str(), type: str(), actor: str(), what: str() })),
});
export const PAGE_DIFF = obj(
  {
    draft: str(),
    range: orNull(str()),
    from: orNull(str()),
    to: orNull(str()),
    files: arrayOf({ type: 'object' }),
    patch: str(),
    too_large: bool(),
    lines: int(),
    review_fingerprint: str(),
  },
  ['draft', 'range', 'files', 'patch', 'too_large', 'lines'],
);
export const EVENT_STREAM = {
  content: { 'text/event-stream': { type: 'string', description: 'server-sent events: ready, ledger, drafts' } },
};

/** Answers several routes give, named once in the document's components. */
export const NAMED_ANSWERS: Record<string, JsonSchema> = {
  BatchResult: BATCH_RESULT,
  ApplyResult: APPLY,
  ApplyRefused: APPLY_REFUSED,
  UnapplyResult: UNAPPLY,
};
