import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Shadow } from '../shadow.js';
import { registerApplyRoute } from './routes-apply.js';
import { registerRebaseRoutes } from './routes-rebase.js';
import { registerDraftRoutes } from './routes-drafts.js';
import { registerSessionRoutes } from './routes-sessions.js';
import { registerPageRoutes, type PageGate } from './routes-page.js';
import type { PageSessions } from './page-sessions.js';
import { collectRoutes, openApiDocument } from './openapi-document.js';
import { routeSchema } from './route-schema.js';
import { OPENAPI } from './answer-schemas.js';

/**
 * Every route of `shadow serve`, each with its schema, and `GET
 * /openapi.json`, the document made from them. The server (http-server.ts)
 * puts its gates (Host, token, body deadlines) around them.
 */

export interface RouteDeps {
  /** A route that has what it needs stops waiting for the rest of the body. */
  bodyNotNeeded: (req: FastifyRequest, reply: FastifyReply) => void;
  /** Serve a real apply and unapply (`shadow serve --allow-apply`). */
  allowApply: boolean;
  pageSessions: PageSessions;
  /** The review page's session cookie. */
  cookieName: () => string;
}

/** Register the routes on `app`; the review page's gate, for the server's onRequest hook. */
export function registerRoutes(app: FastifyInstance, sh: Shadow, deps: RouteDeps): PageGate {
  // The routes' schemas describe them (GET /openapi.json); each route validates its input with the zod schema its
  // JSON Schema was made from, so bad input keeps its codes and hints, and answers are serialized as before.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  const routes = collectRoutes(app);
  // Made once, on first ask: every route is registered by then.
  let openapi: string | undefined;
  const summary = 'This document: the API as OpenAPI 3.1, made from the routes';
  const openapiSchema = routeSchema({ summary, tag: 'meta', auth: 'token', ok: OPENAPI, errors: [] });
  app.get('/openapi.json', { schema: openapiSchema }, async (_req, reply) =>
    reply.type('application/json').send((openapi ??= openApiText(routes))),
  );

  registerSessionRoutes(app, sh, deps.bodyNotNeeded);
  registerDraftRoutes(app, sh);
  registerApplyRoute(app, sh, { allowApply: deps.allowApply });
  registerRebaseRoutes(app, sh);
  return registerPageRoutes(app, sh, deps.pageSessions, deps.cookieName);
}

/** The document as served and committed (docs/http/openapi.json): two-space indented, a newline at the end. */
export function openApiText(routes: Parameters<typeof openApiDocument>[0]): string {
  return `${JSON.stringify(openApiDocument(routes), null, 2)}\n`;
}
