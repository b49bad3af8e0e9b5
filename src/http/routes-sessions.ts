import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ShadowError } from '../errors.js';
import type { Shadow } from '../shadow.js';
import { statusFor } from './http-errors.js';

type WithId = FastifyRequest<{ Params: { id: string } }>;

function isStream(body: unknown): body is Readable {
  return typeof (body as Readable | undefined)?.on === 'function' && typeof (body as Readable).pipe === 'function';
}

/** Finalize results carry their own error: a validation failure is 422, success 200. */
function sendFinalize(reply: FastifyReply, r: Awaited<ReturnType<Shadow['sessions']['finalize']>>): FastifyReply {
  return reply.code(r.success ? 200 : statusFor(r.error?.code ?? 'VALIDATION_FAILED')).send(r);
}

/** The write-session endpoints: begin, content (streamed, appended in order), finalize, status, cancel. */
export function registerSessionRoutes(app: FastifyInstance, sh: Shadow, bodyNotNeeded: (req: FastifyRequest, reply: FastifyReply) => void): void {
  app.post('/api/write-session/begin', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (isStream(body)) throw new ShadowError('INVALID_ARGUMENT', 'begin takes a JSON body', { hint: 'send {"intent", "target_file", "operation"} as application/json' });
    const actor = typeof req.headers['x-shadow-actor'] === 'string' ? req.headers['x-shadow-actor'] : undefined;
    return reply.send(await sh.sessions.begin(body as never, { actor }));
  });

  app.post('/api/write-session/:id/content', async (req: WithId, reply) => {
    const id = req.params.id;
    const body = req.body as unknown;
    if (!isStream(body)) {
      throw new ShadowError('INVALID_ARGUMENT', 'session content is plain text, not JSON', { hint: 'send it with Content-Type: text/plain (or application/octet-stream for a binary session)' });
    }
    const status = sh.sessions.status(id);
    const declared = Number(req.headers['content-length']);
    const max = sh.maxContentBytes;
    if (Number.isFinite(declared) && status.bytes + declared > max + 64) {
      // Announced too large: refuse without reading it.
      sh.sessions.cancel(id);
      reply.header('connection', 'close');
      throw new ShadowError('CONTENT_TOO_LARGE', `Content exceeds ${Math.round(max / 1024 / 1024)}MB limit`, { data: { size: status.bytes + declared, limit: max } });
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

  app.post('/api/write-session/finalize', async (req, reply) => {
    const body = (req.body ?? {}) as { session_id?: unknown; content?: unknown; content_base64?: unknown };
    if (typeof body.session_id !== 'string') throw new ShadowError('INVALID_ARGUMENT', 'session_id is missing', { hint: 'send {"session_id": "…", "content"?: "…"}' });
    const content =
      typeof body.content === 'string' ? Buffer.from(body.content, 'utf8') : typeof body.content_base64 === 'string' ? Buffer.from(body.content_base64, 'base64') : undefined;
    return sendFinalize(reply, await sh.sessions.finalize(body.session_id, content));
  });

  app.get('/api/write-session/status/:id', async (req: WithId, reply) => reply.send(sh.sessions.status(req.params.id)));

  app.delete('/api/write-session/:id', async (req: WithId, reply) => reply.send({ cancelled: sh.sessions.cancel(req.params.id) }));
}
