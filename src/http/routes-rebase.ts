import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as z from 'zod/mini';
import { isShadowError, ShadowError } from '../errors.js';
import { validate } from '../drafts/batch/batch-schema.js';
import type { Shadow } from '../shadow.js';
import { ACTOR_HEADER, DRAFT_PARAM, inputSchema, routeSchema, type JsonSchema } from './route-schema.js';
import { BATCH_RESULT, REBASE, REVERT } from './answer-schemas.js';

/**
 * The draft-only moves beside a person: rebase a draft onto the working
 * tree (or a commit), revert some of its batches, resolve the conflicts
 * either leaves. None writes the person's files, so all are served.
 */

type Named = FastifyRequest<{ Params: { name: string } }>;

const RebaseBody = z.strictObject({ onto: z.optional(z.string().check(z.minLength(1))) });
const RevertBody = z.strictObject({ batches: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)) });
const ResolveBody = z.strictObject({ paths: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)) });

function body<T>(schema: z.ZodMiniType<T>, value: unknown, what: string, hint: string): T {
  try {
    return validate(schema, value ?? {}, 'INVALID_ARGUMENT', what);
  } catch (e) {
    if (isShadowError(e)) throw new ShadowError('INVALID_ARGUMENT', e.message, { hint, data: e.data && { ...e.data } });
    throw e;
  }
}

const actorOf = (req: FastifyRequest): string | undefined =>
  typeof req.headers['x-shadow-actor'] === 'string' ? req.headers['x-shadow-actor'] : undefined;

const schemaOf = (summary: string, body: z.ZodMiniType, ok: JsonSchema) =>
  routeSchema({
    summary,
    tag: 'drafts',
    auth: 'token',
    params: DRAFT_PARAM,
    headers: ACTOR_HEADER,
    body: inputSchema(body),
    ok,
    errors: [404, 409, 422],
  });

export function registerRebaseRoutes(app: FastifyInstance, sh: Shadow): void {
  const rebaseSchema = schemaOf('Rebase the draft onto the working tree, or onto a commit', RebaseBody, REBASE);
  app.post('/api/drafts/:name/rebase', { schema: rebaseSchema }, async (req: Named, reply) => {
    const b = body(
      RebaseBody,
      req.body,
      'the rebase request',
      'send {} to rebase onto the working tree, or {"onto": "main"}',
    );
    return reply.send(await sh.rebase({ draft: req.params.name, onto: b.onto, actor: actorOf(req) }));
  });
  app.post(
    '/api/drafts/:name/revert',
    { schema: schemaOf('Undo some batches of the draft with a new commit', RevertBody, REVERT) },
    async (req: Named, reply) => {
      const b = body(
        RevertBody,
        req.body,
        'the revert request',
        'send {"batches": ["3"]}: batch numbers, ~N or commits of the draft',
      );
      return reply.send(await sh.revert(b.batches, { draft: req.params.name, actor: actorOf(req) }));
    },
  );
  app.post(
    '/api/drafts/:name/resolve',
    { schema: schemaOf('Mark paths in conflict as resolved, as they are in the draft', ResolveBody, BATCH_RESULT) },
    async (req: Named, reply) => {
      const b = body(
        ResolveBody,
        req.body,
        'the resolve request',
        'send {"paths": ["src/a.ts"]}: repository-relative paths in conflict',
      );
      return reply.send(await sh.resolve(b.paths, { draft: req.params.name, actor: actorOf(req) }));
    },
  );
}
