import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as z from 'zod/mini';
import { ShadowError } from '../errors.js';
import { BeginSessionSchema, type Shadow } from '../shadow.js';
import { statusFor } from './http-errors.js';
import { ACTOR_HEADER, inputSchema, parseOr, routeSchema } from './route-schema.js';
import { BATCH_RESULT, CANCELLED, SESSION_BEGUN, SESSION_PROGRESS, SESSION_STATUS } from './answer-schemas.js';

type WithId = FastifyRequest<{ Params: { id: string } }>;

function isStream(body: unknown): body is Readable {
  return typeof (body as Readable | undefined)?.on === 'function' && typeof (body as Readable).pipe === 'function';
}

/** Finalize results carry their own error: a validation failure is 422, success 200. */
function sendFinalize(reply: FastifyReply, r: Awaited<ReturnType<Shadow['sessions']['finalize']>>): FastifyReply {
  return reply.code(r.success ? 200 : statusFor(r.error?.code ?? 'VALIDATION_FAILED')).send(r);
}

const SESSION_PARAM = { id: 'the session id begin answered' };
// Content fields of another type are ignored, as a missing one is.
const FinalizeBody = z.looseObject({
  session_id: z.string(),
  content: z.catch(z.optional(z.string().check(z.describe('the whole content, or its last part, as text'))), undefined),
  content_base64: z.catch(z.optional(z.string().check(z.describe('the same in base64 (binary sessions)'))), undefined),
});
const CONTENT = { type: 'string', description: 'the content, appended in order; a line DONE ends it' };

/** The write-session endpoints: begin, content (streamed, appended in order), finalize, status, cancel. */
export function registerSessionRoutes(
  app: FastifyInstance,
  sh: Shadow,
  bodyNotNeeded: (req: FastifyRequest, reply: FastifyReply) => void,
): void {
  const beginSchema = routeSchema({
    summary: 'Begin a write session: large content that travels as plain text, never inside JSON',
    tag: 'sessions',
    auth: 'token',
    headers: ACTOR_HEADER,
    body: inputSchema(BeginSessionSchema),
    ok: SESSION_BEGUN,
    errors: [404, 409],
  });
  app.post('/api/write-session/begin', { schema: beginSchema }, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (isStream(body))
      throw new ShadowError('INVALID_ARGUMENT', 'begin takes a JSON body', {
        hint: 'send {"intent", "target_file", "operation"} as application/json',
      });
    const actor = typeof req.headers['x-shadow-actor'] === 'string' ? req.headers['x-shadow-actor'] : undefined;
    return reply.send(await sh.sessions.begin(body as never, { actor }));
  });

  const contentSchema = routeSchema({
    summary: "Append to a session's content (streamed); a DONE line finalizes it into one batch",
    tag: 'sessions',
    auth: 'token',
    params: SESSION_PARAM,
    bodyContent: { 'text/plain': CONTENT, 'application/octet-stream': CONTENT },
    ok: SESSION_PROGRESS,
    errors: [404, 409, 422],
    failures: { 404: BATCH_RESULT, 409: BATCH_RESULT, 422: BATCH_RESULT },
  });
  app.post('/api/write-session/:id/content', { schema: contentSchema }, async (req: WithId, reply) => {
    const id = req.params.id;
    const body = req.body as unknown;
    if (!isStream(body)) {
      throw new ShadowError('INVALID_ARGUMENT', 'session content is plain text, not JSON', {
        hint: 'send it with Content-Type: text/plain (or application/octet-stream for a binary session)',
      });
    }
    const status = sh.sessions.status(id);
    const declared = Number(req.headers['content-length']);
    const max = sh.maxContentBytes;
    if (Number.isFinite(declared) && status.bytes + declared > max + 64) {
      // Announced too large: refuse without reading it.
      sh.sessions.cancel(id);
      reply.header('connection', 'close');
      throw new ShadowError('CONTENT_TOO_LARGE', `Content exceeds ${Math.round(max / 1024 / 1024)}MB limit`, {
        data: { size: status.bytes + declared, limit: max },
      });
    }
    let done = false;
    try {
      for await (const chunk of body) {
        done = sh.sessions.push(id, chunk as Buffer);
        if (done) break;
      }
    } catch (e) {
      // Stop reading the rest of an oversized (or broken) stream.
      body.destroy();
      reply.header('connection', 'close');
      throw e;
    }
    if (done) {
      bodyNotNeeded(req, reply);
      body.resume();
      return sendFinalize(reply, await sh.sessions.finalize(id));
    }
    sh.sessions.save(id);
    const s = sh.sessions.status(id);
    return reply.send({ session_id: id, stage: s.stage, bytes: s.bytes, lines: s.lines, last_save: s.last_save });
  });

  const finalizeSchema = routeSchema({
    summary: "Validate a session's content and commit it as one batch",
    tag: 'sessions',
    auth: 'token',
    body: inputSchema(FinalizeBody),
    ok: BATCH_RESULT,
    errors: [404, 409, 422],
    failures: { 404: BATCH_RESULT, 409: BATCH_RESULT, 422: BATCH_RESULT },
  });
  app.post('/api/write-session/finalize', { schema: finalizeSchema }, async (req, reply) => {
    const refused = (): ShadowError =>
      new ShadowError('INVALID_ARGUMENT', 'session_id is missing', {
        hint: 'send {"session_id": "…", "content"?: "…"}',
      });
    const body = parseOr(FinalizeBody, req.body, refused);
    const content =
      body.content !== undefined
        ? Buffer.from(body.content, 'utf8')
        : body.content_base64 !== undefined
          ? Buffer.from(body.content_base64, 'base64')
          : undefined;
    return sendFinalize(reply, await sh.sessions.finalize(body.session_id, content));
  });

  const statusSchema = routeSchema({
    summary: "A session's progress",
    tag: 'sessions',
    auth: 'token',
    params: SESSION_PARAM,
    ok: SESSION_STATUS,
    errors: [404],
  });
  app.get('/api/write-session/status/:id', { schema: statusSchema }, async (req: WithId, reply) =>
    reply.send(sh.sessions.status(req.params.id)),
  );

  const cancelSchema = routeSchema({
    summary: 'Cancel a session: its content goes, no batch is made',
    tag: 'sessions',
    auth: 'token',
    params: SESSION_PARAM,
    ok: CANCELLED,
    errors: [404],
  });
  app.delete('/api/write-session/:id', { schema: cancelSchema }, async (req: WithId, reply) =>
    reply.send({ cancelled: sh.sessions.cancel(req.params.id) }),
  );
}
