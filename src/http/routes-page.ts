import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ShadowError, type ShadowErrorJSON } from '../errors.js';
import type { Shadow } from '../shadow.js';
import { errorBody, statusFor } from './http-errors.js';
import { sameSecret, type PageSession, type PageSessions } from './page-sessions.js';
import type { PageRoute } from './page-route.js';
import { registerPageReads } from './page-reads.js';
import { registerPageActions } from './page-actions.js';
import { registerPageLive } from './page-live.js';
import { routeSchema } from './route-schema.js';
import { LOGGED_OUT, PAGE_SESSION, asset as assetAnswer } from './answer-schemas.js';

/**
 * The review page (`/ui/…`): a login through a one-time URL that sets a
 * session cookie, the page and its assets, and a JSON API for it under
 * `/ui/api/`. The cookie authorizes these routes only, never `/api/…`: the
 * bearer clients' API (apply, batches, sessions) stays out of a browser's
 * reach whatever a page or a forged request does, and the page's API grows
 * one deliberate route at a time. Every request that changes state needs
 * `X-CSRF-Token`, the session's token, as well as the cookie.
 */

/** No inline script or style, nothing from elsewhere, never framed. */
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const ASSETS: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'highlighter.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** The page's files: copied to dist/src/http/page/ by cli/bundle.mjs, found from there by the library and by the CLI's bundle (dist/bin). */
function readAsset(name: string): Buffer {
  for (const dir of ['./page/', '../src/http/page/']) {
    try {
      return readFileSync(new URL(`${dir}${name}`, import.meta.url));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  throw new ShadowError('INTERNAL', `the review page's ${name} is missing from this build of shadow`, {
    hint: 'rebuild shadow (npm run build copies src/http/page/)',
  });
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** An error as the page's routes answer it: a small HTML page to a browser, JSON to the page's own fetches and other clients. */
function sendPageError(req: FastifyRequest, reply: FastifyReply, e: ShadowErrorJSON): FastifyReply {
  reply.code(statusFor(e.code));
  if (!req.url.startsWith('/ui/api/') && (req.headers.accept ?? '').includes('text/html')) {
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>shadow: ${escapeHtml(e.code)}</title></head><body><h1>${escapeHtml(e.message)}</h1><p>${escapeHtml(e.hint ?? '')}</p><p>${escapeHtml(e.code)}</p></body></html>`;
    return reply.type('text/html; charset=utf-8').send(html);
  }
  return reply.type('application/json').send(errorBody(e));
}

// The server's own code, as http-server.ts names it (not one of the library's).
const UNAUTHORIZED = 'UNAUTHORIZED' as ShadowErrorJSON['code'];

const NO_SESSION: ShadowErrorJSON = {
  code: UNAUTHORIZED,
  message: 'this page needs the one-time URL that shadow serve printed',
  hint: 'open the http://127.0.0.1:<port>/ui/login?once=… URL shadow serve printed (shadow serve --open opens it)',
};

function cookieValue(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export interface PageGate {
  /** Whether the request is for one of the page's routes (the cookie's, not the bearer token's). */
  handles(req: FastifyRequest): boolean;
  /** The onRequest check of a page route: its security headers, the session cookie, the CSRF token; a reply sent when refused. */
  authorize(req: FastifyRequest, reply: FastifyReply): FastifyReply | undefined;
}

/** Register the page's routes; the server's onRequest hook asks the returned gate about every request. */
export function registerPageRoutes(
  app: FastifyInstance,
  sh: Shadow,
  sessions: PageSessions,
  cookieName: () => string,
): PageGate {
  const routes = new Set<string>();
  const open = new Set<string>();
  const bySession = new WeakMap<FastifyRequest, PageSession>();
  const route: PageRoute = (method, url, doc, handler, options = {}) => {
    routes.add(url);
    if (options.open) open.add(url);
    const auth = options.open ? 'none' : method === 'GET' ? 'session' : 'session+csrf';
    // As sendPageError answers: HTML to a browser asking for a page, outside the page's JSON API.
    const schema = routeSchema({ ...doc, tag: 'page', auth, htmlErrors: !url.startsWith('/ui/api/') });
    app.route({ method, url, schema, handler: (req, reply) => handler(req, reply, bySession.get(req)!) });
  };
  // Read once per server: a build's files do not change under it.
  const assets = new Map<string, Buffer>();
  const asset = (name: string) => async (_req: FastifyRequest, reply: FastifyReply) => {
    let bytes = assets.get(name);
    if (!bytes) assets.set(name, (bytes = readAsset(name)));
    return reply.type(ASSETS[name]!).send(bytes);
  };

  // The one way in: a token printed by shadow serve, spent on first use (a URL in a terminal's scrollback, history or a proxy log opens nothing later).
  route(
    'GET',
    '/ui/login',
    {
      summary: 'Log in with the one-time URL shadow serve printed: sets the session cookie, on to /ui/',
      query: {
        type: 'object',
        properties: { once: { type: 'string', description: 'the one-time token' } },
        required: ['once'],
      },
      // No body: Location says where to go.
      ok: { content: {} },
      okStatus: 303,
      errors: [],
    },
    async (req, reply) => {
      const once = (req.query as Record<string, string | undefined>).once ?? '';
      const s = sessions.redeem(once);
      if (!s) {
        return sendPageError(req, reply, {
          code: UNAUTHORIZED,
          message: 'this login URL was already used, has expired, or was never issued',
          hint: 'a URL from shadow serve works once, within 5 minutes: start shadow serve again for a new one',
        });
      }
      // No Secure: the page is served over http://127.0.0.1, which never leaves the machine.
      reply.header('set-cookie', `${cookieName()}=${s.id}; Path=/; HttpOnly; SameSite=Strict`);
      return reply.code(303).header('location', '/ui/').send();
    },
    { open: true },
  );

  const assetRoute = (url: string, name: string, summary: string): void =>
    route('GET', url, { summary, ok: assetAnswer(ASSETS[name]!.split(';')[0]!), errors: [] }, asset(name));
  assetRoute('/ui/', 'index.html', 'The review page');
  assetRoute('/ui/app.js', 'app.js', "The page's script");
  assetRoute('/ui/highlighter.js', 'highlighter.js', "The page's syntax highlighter");
  assetRoute('/ui/app.css', 'app.css', "The page's style");

  route(
    'GET',
    '/ui/api/session',
    { summary: "The session's CSRF token", ok: PAGE_SESSION, errors: [] },
    async (_req, reply, session) => reply.send({ csrf_token: session.csrf }),
  );

  registerPageReads(route, sh);
  registerPageActions(route, sh);
  registerPageLive(route, sh);

  route(
    'POST',
    '/ui/api/logout',
    { summary: 'End the session', ok: LOGGED_OUT, errors: [] },
    async (_req, reply, session) => {
      sessions.end(session.id);
      return reply
        .header('set-cookie', `${cookieName()}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`)
        .send({ logged_out: true });
    },
  );

  return {
    handles: (req) => routes.has(req.routeOptions.url ?? ''),
    authorize: (req, reply) => {
      reply
        .header('content-security-policy', PAGE_CSP)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .header('x-frame-options', 'DENY')
        .header('cache-control', 'no-store');
      const url = req.routeOptions.url ?? '';
      if (open.has(url)) return undefined;
      const s = sessions.session(cookieValue(req, cookieName()));
      if (!s) return sendPageError(req, reply, NO_SESSION);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        const given = req.headers['x-csrf-token'];
        if (typeof given !== 'string' || !sameSecret(given, s.csrf)) {
          return sendPageError(req, reply, {
            code: 'CSRF_FAILED',
            message: 'a request that changes state needs the X-CSRF-Token header of its session',
            hint: 'the page reads its token from GET /ui/api/session',
          });
        }
      }
      bySession.set(req, s);
      return undefined;
    },
  };
}
