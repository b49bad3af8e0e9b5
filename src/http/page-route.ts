import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PageSession } from './page-sessions.js';
import type { RouteDoc } from './route-schema.js';

/**
 * How the review page's route files register a route: through the page's
 * gate (routes-page.ts), which checks the session cookie, and the CSRF token
 * of every request that changes state, before the handler runs and hands it
 * the session.
 */
export type PageHandler = (req: FastifyRequest, reply: FastifyReply, session: PageSession) => Promise<unknown>;

/** What a page route declares (route-schema.ts); who may call it follows from the gate: open, session, or session and CSRF token. */
export type PageRouteDoc = Omit<RouteDoc, 'auth' | 'tag'>;

export type PageRoute = (
  method: 'GET' | 'POST',
  url: string,
  doc: PageRouteDoc,
  handler: PageHandler,
  options?: { open?: boolean },
) => void;
