import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { isShadowError, ShadowError, type ShadowErrorJSON } from '../errors.js';
import { parseJsonText } from '../drafts/batch/batch-schema.js';
import type { Shadow } from '../shadow.js';
import { claimServerFile } from './server-file.js';
import { watchBody, type BodyLimits, type BodyTimeout } from './body-deadline.js';
import { PageSessions } from './page-sessions.js';
import { registerRoutes } from './register-routes.js';
import { redeemLoginFile } from './page-login-files.js';
import { removeLoginOpener, sweepLoginOpeners } from './page-login-opener.js';
import { errorBody, statusFor } from './http-errors.js';

/**
 * The local HTTP API (fastify): bound to 127.0.0.1 only, every request
 * needs `Authorization: Bearer <token>` and a Host of 127.0.0.1 or localhost
 * (a DNS-rebinding defence), no CORS headers. The port, token and pid are in
 * `shadow/server.json` (mode 0600) while it runs; one server per repository.
 * A request's body must keep coming (`shadow.serverIdleMs`) and end in time
 * (`shadow.serverBodyMs`), or it gets 408 and its connection is closed.
 * Applying a draft into the working tree is served only with `allowApply`.
 */

export interface ServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The token clients must send; random when not given. */
  token?: string;
  /** Notes for the operator (orphaned sessions, warnings). */
  log?: (line: string) => void;
  /** Bounds on a request body's time; `sh.serverLimits` (git config) when not given. */
  limits?: Partial<BodyLimits>;
  /**
   * Serve a real apply (`POST /api/drafts/:name/apply` without `dry_run`),
   * which writes the working tree. Off by default: the person applies, and
   * a client gets 403 APPLY_NOT_ALLOWED (a dry run is always served).
   */
  allowApply?: boolean;
}

export interface RunningServer {
  port: number;
  token: string;
  url: string;
  /**
   * A new one-time URL of the review page (`/ui/login?once=…`): it works
   * once, within 5 minutes, and gives the browser that opens it a session.
   */
  pageUrl(): string;
  /** Stop listening and remove server.json (unless another server has it now). */
  close(): Promise<void>;
}

/** Reply with a shadow error as `{error: {code, message, hint}}` and its status. */
export function sendError(reply: FastifyReply, e: ShadowErrorJSON): FastifyReply {
  return reply.code(statusFor(e.code)).type('application/json').send(errorBody(e));
}

/** A body too slow: 408 when no reply has started, and the connection closed either way. */
function replyTimedOut(reply: FastifyReply, socket: Socket, limits: BodyLimits, why: BodyTimeout): void {
  if (reply.raw.headersSent) {
    socket.destroy();
    return;
  }
  const idle = why === 'idle';
  const message = idle
    ? `no byte of the request body arrived for ${limits.idleMs} ms`
    : `the request body did not arrive within ${limits.bodyMs} ms`;
  const hint = idle
    ? 'send the body without pausing (shadow.serverIdleMs sets the bound); a write session keeps what arrived: send the rest in another content request'
    : 'send long session content in several content requests, appended in order (shadow.serverBodyMs sets the bound); a write session keeps what arrived';
  // The route still reading the body fails once the socket closes; this reply is the one the client gets.
  sendError(reply.header('connection', 'close'), {
    code: 'REQUEST_TIMEOUT',
    message,
    hint,
    data: { bound: why, limit_ms: idle ? limits.idleMs : limits.bodyMs },
  });
  // Node closes the socket once a `connection: close` reply is written; a client that never reads it does not hold it either.
  setTimeout(() => socket.destroy(), limits.idleMs).unref();
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Start the API for `sh` on 127.0.0.1. */
export async function startServer(sh: Shadow, options: ServerOptions = {}): Promise<RunningServer> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const maxContent = sh.maxContentBytes;
  // A JSON body carries at most one content in base64 (4/3 of it) plus the rest of the batch.
  const jsonLimit = Math.ceil((maxContent * 4) / 3) + 1024 * 1024;
  const limits: BodyLimits = { ...sh.serverLimits, ...options.limits };
  // An idle connection between requests is bound like an idle body.
  const app: FastifyInstance = Fastify({
    logger: false,
    bodyLimit: jsonLimit,
    forceCloseConnections: true,
    keepAliveTimeout: limits.idleMs,
  });
  let port = 0;

  app.removeAllContentTypeParsers();
  // The body stays bytes until the strict decode: fastify's own would turn bytes that are not UTF-8 into U+FFFD.
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: jsonLimit },
    (_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      try {
        done(null, parseJsonText(body, 'request'));
      } catch (e) {
        done(e as Error);
      }
    },
  );
  // Content for a session is streamed, never buffered whole: the route reads it chunk by chunk.
  app.addContentTypeParser(
    ['text/plain', 'application/octet-stream'],
    (_req: FastifyRequest, payload: Readable, done: (err: Error | null, body?: unknown) => void) => done(null, payload),
  );

  // First of all, before a 401 can leave a body for node to drain at the client's pace.
  const watches = new WeakMap<FastifyRequest, { stop(): void }>();
  app.addHook('onRequest', async (req, reply) => {
    watches.set(
      req,
      watchBody(
        req.raw,
        limits,
        () => sh.context.clock.now(),
        (why, socket) => replyTimedOut(reply, socket, limits, why),
      ),
    );
  });
  // A complete request's watch ends with its reply, not at its next check: a page's burst of requests on one
  // keep-alive socket would otherwise pile up close listeners on it.
  app.addHook('onResponse', async (req) => {
    if (req.raw.complete) watches.get(req)?.stop();
  });
  // A route that has all it needs (a DONE line) answers on its own time; a rest still coming is dropped with the connection.
  const bodyNotNeeded = (req: FastifyRequest, reply: FastifyReply): void => {
    watches.get(req)?.stop();
    if (!req.raw.complete) reply.header('connection', 'close');
  };
  app.addHook('onRequest', async (req, reply) => {
    const host = (req.headers.host ?? '').toLowerCase();
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      return sendError(reply, {
        code: 'FORBIDDEN_HOST' as ShadowErrorJSON['code'],
        message: `requests must be addressed to 127.0.0.1:${port} or localhost:${port}`,
        hint: 'shadow serves local clients only',
      });
    }
    // The review page's routes take its session cookie instead of the token (routes-page.ts).
    if (page.handles(req)) return page.authorize(req, reply);
    const auth = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    if (!m || !sameToken(m[1]!, token)) {
      return sendError(reply, {
        code: 'UNAUTHORIZED' as ShadowErrorJSON['code'],
        message: 'a valid bearer token is required',
        hint: 'send Authorization: Bearer <token>, the token of .git/shadow/server.json',
      });
    }
    return undefined;
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, _req, reply) => {
    if (isShadowError(err)) return sendError(reply, (err as ShadowError).toJSON());
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(reply, {
        code: 'CONTENT_TOO_LARGE',
        message: `Content exceeds ${Math.round(maxContent / 1024 / 1024)}MB limit`,
        hint: 'stream large content through a write session',
      });
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendError(reply, {
        code: 'UNSUPPORTED_MEDIA_TYPE' as ShadowErrorJSON['code'],
        message: err.message,
        hint: 'send application/json, or text/plain for session content',
      });
    }
    if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
      return sendError(reply, {
        code: 'INVALID_JSON',
        message: 'the JSON body is empty',
        hint: 'send a JSON document',
      });
    if (typeof err.statusCode === 'number' && err.statusCode < 500)
      return sendError(reply, { code: 'USAGE', message: err.message });
    return sendError(reply, {
      code: 'INTERNAL',
      message: `internal error: ${err.message}`,
      hint: 'this is a bug in shadow; please report it',
    });
  });
  app.setNotFoundHandler((req, reply) =>
    sendError(reply, {
      code: 'ROUTE_NOT_FOUND' as ShadowErrorJSON['code'],
      message: `no route ${req.method} ${req.url}`,
      hint: 'GET /openapi.json lists every endpoint with what it takes and answers (docs/http.md)',
    }),
  );

  // Login URLs come from this process (pageUrl) or from `shadow page` in another (page-login-files.ts).
  const pageSessions = new PageSessions(
    () => sh.context.clock.now(),
    (once) => redeemLoginFile(sh.context, sh.layout.commondir, once),
  );
  // The file `--open` gave the browser for a token goes once the token is offered; expired ones with it (page-login-opener.ts).
  pageSessions.onSpent((once) => {
    removeLoginOpener(sh.context, sh.layout.commondir, once);
    sweepLoginOpeners(sh.context, sh.layout.commondir);
  });
  // Cookies ignore ports: a name per port keeps two servers' sessions (two repositories) apart.
  const page = registerRoutes(app, sh, {
    bodyNotNeeded,
    allowApply: options.allowApply === true,
    pageSessions,
    cookieName: () => `shadow_ui_${port}`,
  });

  await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  const infoPath = `${sh.layout.commondir}/shadow/server.json`;
  const url = `http://127.0.0.1:${port}`;
  const ctx = sh.context;
  let claim;
  try {
    claim = claimServerFile(ctx, infoPath, {
      port,
      token,
      url,
      pid: ctx.processes?.self ?? null,
      host: ctx.processes?.host ?? 'unknown',
      since: new Date(ctx.clock.now()).toISOString(),
    });
  } catch (e) {
    await app.close();
    throw e;
  }

  // Sessions fed over HTTP save every few seconds even when no chunk arrives.
  const saver = setInterval(() => sh.sessions.saveAll(), Math.max(250, Math.min(sh.sessions.settings().saveMs, 1000)));
  saver.unref();
  const orphans = sh.sessions.orphans();
  for (const s of orphans.resumable)
    options.log?.(
      `orphaned write session ${s.session_id} (${s.target_file}, ${s.bytes} bytes): resume or finalize it, or drop it (shadow session recover)`,
    );
  if (orphans.cleaned.length > 0)
    options.log?.(`cleaned up ${orphans.cleaned.length} write session(s) older than an hour`);

  let closed = false;
  return {
    port,
    token,
    url,
    pageUrl: () => `${url}/ui/login?once=${pageSessions.mintOnce()}`,
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(saver);
      sh.sessions.saveAll();
      await app.close();
      sweepLoginOpeners(sh.context, sh.layout.commondir, true);
      claim.release();
    },
  };
}
