import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ShadowError } from '../errors.js';
import type { Shadow } from '../shadow.js';
import { statusFor } from './http-errors.js';

type Named = FastifyRequest<{ Params: { name: string }; Querystring: Record<string, string | undefined> }>;

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
}

/** The core of the draft engine for agents that only speak HTTP. */
export function registerDraftRoutes(app: FastifyInstance, sh: Shadow): void {
  app.post('/api/batch', async (req: FastifyRequest<{ Querystring: { draft?: string; actor?: string } }>, reply) => {
    const r = await sh.batch(req.body, {
      draft: req.query.draft,
      actor: req.query.actor ?? header(req, 'x-shadow-actor'),
      model: header(req, 'x-shadow-model'),
      // A client of the API is an agent unless it says otherwise.
      actorType: header(req, 'x-shadow-actor-type') ?? 'ai',
    });
    return reply.code(r.success ? 200 : statusFor(r.error?.code ?? 'BATCH_FAILED')).send(r);
  });

  app.get('/api/drafts', async (_req, reply) => reply.send({ drafts: await sh.draftList() }));

  // `renames=1` (or a minimum similarity, `renames=90`) pairs renames as git diff -M; `path` (repeated) limits it to pathspecs from the root.
  app.get('/api/drafts/:name/diff', async (req: FastifyRequest<{ Params: { name: string }; Querystring: Record<string, string | string[] | undefined> }>, reply) => {
    const one = (name: string): string | undefined => {
      const v = req.query[name];
      if (Array.isArray(v)) throw new ShadowError('INVALID_ARGUMENT', `${name} is given more than once`);
      return v;
    };
    const content = (one('content') ?? 'patch') as 'none' | 'stat' | 'patch';
    if (!['none', 'stat', 'patch'].includes(content)) throw new ShadowError('INVALID_ARGUMENT', 'content is none, stat or patch');
    const r = one('renames');
    const renames = r === undefined || r === '0' ? false : r === '1' ? true : /^\d{1,3}$/.test(r) ? Number(r) : Number.NaN;
    if (Number.isNaN(renames)) throw new ShadowError('INVALID_ARGUMENT', 'renames is 0, 1 or a minimum similarity in percent (0-100)', { hint: 'renames=1 pairs renames as git diff -M; renames=90 as -M90%' });
    const p = req.query.path;
    const paths = p === undefined ? undefined : Array.isArray(p) ? p : [p];
    // Masked as the page's diffs are: a client of the API sees no secret, on any line.
    return reply.send(await sh.diff({ draft: req.params.name, range: one('range'), content, renames, paths, redact: true }));
  });

  app.get('/api/drafts/:name/log', async (req: Named, reply) => {
    const limit = req.query.limit === undefined ? undefined : Number(req.query.limit);
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new ShadowError('INVALID_ARGUMENT', 'limit is a positive integer');
    return reply.send({ draft: req.params.name, batches: await sh.log({ draft: req.params.name, limit }) });
  });

  // The view: a file's bytes, or a directory's listing as JSON.
  app.get('/api/drafts/:name/files/*', async (req: FastifyRequest<{ Params: { name: string; '*': string } }>, reply) => {
    const path = decodeURIComponent(req.params['*'] ?? '').replace(/\/+$/, '');
    if (path === '') return reply.send({ dir: '', entries: await sh.ls('', { draft: req.params.name }) });
    try {
      const f = await sh.cat(path, { draft: req.params.name });
      return reply.header('x-shadow-source', f.source).header('x-shadow-oid', f.oid).header('x-shadow-mode', f.mode).type('application/octet-stream').send(f.content);
    } catch (e) {
      if (e instanceof ShadowError && e.code === 'IS_A_DIRECTORY') return reply.send({ dir: path, entries: await sh.ls(path, { draft: req.params.name }) });
      throw e;
    }
  });

  app.post('/api/drafts/:name/checkpoints', async (req: Named, reply) => {
    const body = (req.body ?? {}) as { name?: unknown; message?: unknown };
    if (typeof body.name !== 'string') throw new ShadowError('INVALID_ARGUMENT', 'name is missing', { hint: 'send {"name": "…", "message"?: "…"}' });
    return reply.send(await sh.checkpoint(body.name, { draft: req.params.name, message: typeof body.message === 'string' ? body.message : undefined, actor: header(req, 'x-shadow-actor') }));
  });

  // Ask the plan running on the draft (in any process) to stop after its current batch.
  app.post('/api/drafts/:name/stop', async (req: Named, reply) => reply.send({ stopping: await sh.stopPlan({ draft: req.params.name }) }));

  app.post('/api/drafts/:name/rollback', async (req: Named, reply) => {
    const body = (req.body ?? {}) as { target?: unknown };
    if (typeof body.target !== 'string') throw new ShadowError('INVALID_ARGUMENT', 'target is missing', { hint: 'send {"target": "<checkpoint | batch | ~N | commit>"}' });
    return reply.send(await sh.rollback(body.target, { draft: req.params.name, actor: header(req, 'x-shadow-actor') }));
  });
}
