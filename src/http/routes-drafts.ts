import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as z from 'zod/mini';
import { ShadowError } from '../errors.js';
import { BatchInputSchema } from '../drafts/batch/batch-schema.js';
import type { Shadow } from '../shadow.js';
import { statusFor } from './http-errors.js';
import { ACTOR_HEADER, DRAFT_PARAM, inputSchema, parseOr, routeSchema } from './route-schema.js';
import {
  BATCH_RESULT,
  CHECKPOINT,
  DIFF,
  DRAFT_LIST,
  FILE_OR_LISTING,
  LOG,
  ROLLBACK,
  SPLIT,
  STOPPING,
} from './answer-schemas.js';

type Named = FastifyRequest<{ Params: { name: string }; Querystring: Record<string, string | undefined> }>;

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
}

const BATCH_HEADERS = {
  ...ACTOR_HEADER,
  'x-shadow-model': 'the model an AI actor runs',
  'x-shadow-actor-type': 'ai (the default) or human',
};

// A repeated parameter is an array: refused, as is a value out of its set, in this order.
const DiffQuery = z.looseObject({
  content: z.optional(z.enum(['none', 'stat', 'patch']).check(z.describe('patch (the default), stat or none'))),
  renames: z.optional(
    z
      .string()
      .check(
        z.regex(/^\d{1,3}$/),
        z.describe('0 (the default), 1 to pair renames as git diff -M, or a minimum similarity in percent'),
      ),
  ),
  range: z.optional(z.string().check(z.describe('a..b: two points of the draft (checkpoints, batches, ~N, commits)'))),
  path: z.optional(
    z.union([z.string(), z.array(z.string())]).check(z.describe('pathspecs from the repository root, repeated')),
  ),
});
const DIFF_REFUSALS: Array<[keyof z.infer<typeof DiffQuery>, ShadowError]> = [
  ['content', new ShadowError('INVALID_ARGUMENT', 'content is none, stat or patch')],
  [
    'renames',
    new ShadowError('INVALID_ARGUMENT', 'renames is 0, 1 or a minimum similarity in percent (0-100)', {
      hint: 'renames=1 pairs renames as git diff -M; renames=90 as -M90%',
    }),
  ],
  ['range', new ShadowError('INVALID_ARGUMENT', 'range is a string')],
];

function diffRefusal(query: Record<string, unknown>, issues: readonly z.core.$ZodIssue[]): ShadowError {
  for (const [name, refusal] of DIFF_REFUSALS) {
    if (Array.isArray(query[name])) return new ShadowError('INVALID_ARGUMENT', `${name} is given more than once`);
    if (issues.some((i) => i.path[0] === name)) return refusal;
  }
  return new ShadowError('INVALID_ARGUMENT', 'path is a pathspec, repeated for more');
}

const positiveInteger = (v: string): boolean => Number.isInteger(Number(v)) && Number(v) > 0;
const LogQuery = z.looseObject({
  limit: z.optional(
    z
      .string()
      .check(z.refine(positiveInteger), z.describe('a positive integer: at most this many batches, newest first')),
  ),
});
// What a client may leave out or get wrong is ignored as before: only the one required field is refused.
const CheckpointBody = z.looseObject({ name: z.string(), message: z.catch(z.optional(z.string()), undefined) });
// The hunks as apply takes them (ids of the diff route's `hunks`, `<path>:<n>`, `<path>:mode`, `<path>`), or a patch.
const SplitBody = z.strictObject({
  hunks: z.optional(
    z.array(z.string().check(z.minLength(1), z.maxLength(4096))).check(z.minLength(1), z.maxLength(10000)),
  ),
  patch: z.optional(z.string().check(z.minLength(1))),
  into: z.optional(z.string().check(z.describe('the new draft; default <draft>-split'))),
  message: z.optional(z.string().check(z.maxLength(4096))),
});
const SPLIT_HINT =
  'send {"hunks": ["<id>", "src/a.ts:1,3", "README.md"]} or {"patch": "diff --git …"}, "into"?: "<new draft>", "message"?: "…"; paths are relative to the repository root';

const RollbackBody = z.looseObject({
  target: z.string().check(z.describe('a checkpoint, a batch number, ~N or a commit of the draft')),
});

/** The core of the draft engine for agents that only speak HTTP. */
export function registerDraftRoutes(app: FastifyInstance, sh: Shadow): void {
  const batchSchema = routeSchema({
    summary: 'Apply a batch of file operations to a draft: one commit, all or nothing',
    tag: 'drafts',
    auth: 'token',
    query: {
      type: 'object',
      properties: {
        draft: { type: 'string', description: 'the draft (default: default)' },
        actor: { type: 'string', description: 'who sends it' },
      },
    },
    headers: BATCH_HEADERS,
    body: inputSchema(BatchInputSchema),
    ok: BATCH_RESULT,
    errors: [404, 409, 422],
    failures: { 400: BATCH_RESULT, 404: BATCH_RESULT, 409: BATCH_RESULT, 413: BATCH_RESULT, 422: BATCH_RESULT },
  });
  app.post(
    '/api/batch',
    { schema: batchSchema },
    async (req: FastifyRequest<{ Querystring: { draft?: string; actor?: string } }>, reply) => {
      const r = await sh.batch(req.body, {
        draft: req.query.draft,
        actor: req.query.actor ?? header(req, 'x-shadow-actor'),
        model: header(req, 'x-shadow-model'),
        // A client of the API is an agent unless it says otherwise.
        actorType: header(req, 'x-shadow-actor-type') ?? 'ai',
      });
      return reply.code(r.success ? 200 : statusFor(r.error?.code ?? 'BATCH_FAILED')).send(r);
    },
  );

  app.get(
    '/api/drafts',
    { schema: routeSchema({ summary: 'List the drafts', tag: 'drafts', auth: 'token', ok: DRAFT_LIST, errors: [] }) },
    async (_req, reply) => reply.send({ drafts: await sh.draftList() }),
  );

  // `renames=1` (or a minimum similarity, `renames=90`) pairs renames as git diff -M; `path` (repeated) limits it to pathspecs from the root.
  const diffSchema = routeSchema({
    summary: "A draft's diff against its bases, or between two of its points",
    description: 'Secrets are masked on every line.',
    tag: 'drafts',
    auth: 'token',
    params: DRAFT_PARAM,
    query: inputSchema(DiffQuery),
    ok: DIFF,
    errors: [400, 404],
  });
  app.get(
    '/api/drafts/:name/diff',
    { schema: diffSchema },
    async (req: FastifyRequest<{ Params: { name: string }; Querystring: Record<string, unknown> }>, reply) => {
      const q = parseOr(DiffQuery, req.query, (issues) => diffRefusal(req.query, issues));
      const renames =
        q.renames === undefined || q.renames === '0' ? false : q.renames === '1' ? true : Number(q.renames);
      const paths = q.path === undefined ? undefined : Array.isArray(q.path) ? q.path : [q.path];
      // Masked as the page's diffs are: a client of the API sees no secret, on any line.
      return reply.send(
        await sh.diff({
          draft: req.params.name,
          range: q.range,
          content: q.content ?? 'patch',
          renames,
          paths,
          redact: true,
        }),
      );
    },
  );

  const logSchema = routeSchema({
    summary: "A draft's batches, newest first",
    tag: 'drafts',
    auth: 'token',
    params: DRAFT_PARAM,
    query: inputSchema(LogQuery),
    ok: LOG,
    errors: [400, 404],
  });
  app.get('/api/drafts/:name/log', { schema: logSchema }, async (req: Named, reply) => {
    const refused = (): ShadowError => new ShadowError('INVALID_ARGUMENT', 'limit is a positive integer');
    const given = parseOr(LogQuery, req.query, refused).limit;
    const limit = given === undefined ? undefined : Number(given);
    return reply.send({ draft: req.params.name, batches: await sh.log({ draft: req.params.name, limit }) });
  });

  // The view: a file's bytes, or a directory's listing as JSON.
  const filesSchema = routeSchema({
    summary: "A file of the draft's view (its bytes), or a directory's listing",
    description: 'Headers x-shadow-source (draft or working tree), x-shadow-oid and x-shadow-mode come with a file.',
    tag: 'drafts',
    auth: 'token',
    params: { ...DRAFT_PARAM, '*': 'a path from the repository root; empty for the root' },
    ok: FILE_OR_LISTING,
    errors: [400, 404],
  });
  app.get(
    '/api/drafts/:name/files/*',
    { schema: filesSchema },
    async (req: FastifyRequest<{ Params: { name: string; '*': string } }>, reply) => {
      const path = decodeURIComponent(req.params['*'] ?? '').replace(/\/+$/, '');
      if (path === '') return reply.send({ dir: '', entries: await sh.ls('', { draft: req.params.name }) });
      try {
        const f = await sh.cat(path, { draft: req.params.name });
        return reply
          .header('x-shadow-source', f.source)
          .header('x-shadow-oid', f.oid)
          .header('x-shadow-mode', f.mode)
          .type('application/octet-stream')
          .send(f.content);
      } catch (e) {
        if (e instanceof ShadowError && e.code === 'IS_A_DIRECTORY')
          return reply.send({ dir: path, entries: await sh.ls(path, { draft: req.params.name }) });
        throw e;
      }
    },
  );

  const checkpointSchema = routeSchema({
    summary: "Name the draft's current tip (a checkpoint)",
    tag: 'drafts',
    auth: 'token',
    params: DRAFT_PARAM,
    headers: ACTOR_HEADER,
    body: inputSchema(CheckpointBody),
    ok: CHECKPOINT,
    errors: [404, 409],
  });
  app.post('/api/drafts/:name/checkpoints', { schema: checkpointSchema }, async (req: Named, reply) => {
    const refused = (): ShadowError =>
      new ShadowError('INVALID_ARGUMENT', 'name is missing', { hint: 'send {"name": "…", "message"?: "…"}' });
    const body = parseOr(CheckpointBody, req.body, refused);
    return reply.send(
      await sh.checkpoint(body.name, {
        draft: req.params.name,
        message: body.message,
        actor: header(req, 'x-shadow-actor'),
      }),
    );
  });

  // Ask the plan running on the draft (in any process) to stop after its current batch.
  const stopSchema = routeSchema({
    summary: 'Ask the plan running on the draft to stop after its current batch',
    tag: 'drafts',
    auth: 'token',
    params: DRAFT_PARAM,
    ok: STOPPING,
    errors: [404, 409],
  });
  app.post('/api/drafts/:name/stop', { schema: stopSchema }, async (req: Named, reply) =>
    reply.send({ stopping: await sh.stopPlan({ draft: req.params.name }) }),
  );

  const splitSchema = routeSchema({
    summary: 'Move chosen hunks of the draft into a new draft (the draft keeps the rest)',
    tag: 'drafts',
    auth: 'token',
    params: DRAFT_PARAM,
    headers: ACTOR_HEADER,
    body: inputSchema(SplitBody),
    ok: SPLIT,
    errors: [404, 409, 422],
  });
  app.post('/api/drafts/:name/split', { schema: splitSchema }, async (req: Named, reply) => {
    const body = parseOr(SplitBody, req.body, (issues) => {
      const problems = issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
      return new ShadowError('INVALID_ARGUMENT', `the split request: ${problems}`, { hint: SPLIT_HINT });
    });
    return reply.send(
      await sh.split({
        draft: req.params.name,
        hunks: body.hunks,
        patch: body.patch,
        into: body.into,
        message: body.message,
        actor: header(req, 'x-shadow-actor'),
      }),
    );
  });

  const rollbackSchema = routeSchema({
    summary: 'Move the draft back to an earlier point (nothing is destroyed)',
    tag: 'drafts',
    auth: 'token',
    params: DRAFT_PARAM,
    headers: ACTOR_HEADER,
    body: inputSchema(RollbackBody),
    ok: ROLLBACK,
    errors: [404, 409],
  });
  app.post('/api/drafts/:name/rollback', { schema: rollbackSchema }, async (req: Named, reply) => {
    const refused = (): ShadowError =>
      new ShadowError('INVALID_ARGUMENT', 'target is missing', {
        hint: 'send {"target": "<checkpoint | batch | ~N | commit>"}',
      });
    const body = parseOr(RollbackBody, req.body, refused);
    return reply.send(await sh.rollback(body.target, { draft: req.params.name, actor: header(req, 'x-shadow-actor') }));
  });
}
