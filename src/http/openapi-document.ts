import type { FastifyInstance } from 'fastify';
import { ERROR_ANSWER, type JsonSchema, type RouteAuth } from './route-schema.js';
import { NAMED_ANSWERS } from './answer-schemas.js';

/**
 * `GET /openapi.json`: the API as an OpenAPI 3.1 document, made from the
 * routes fastify registered and the schema each declares (route-schema.ts).
 * A small collector rather than @fastify/swagger: an `onRoute` hook keeps
 * each route's method, URL and schema, and `openApiDocument` turns them
 * into paths and operations. The document holds nothing of one server (no
 * port, no token), so the same build always gives the same bytes;
 * docs/http/openapi.json is it, committed.
 */

/** The API's own version: it changes when an endpoint or a schema changes incompatibly. */
export const API_VERSION = '1';

export interface CollectedRoute {
  method: string;
  url: string;
  schema?: JsonSchema;
}

/** Keep every route registered on `app` from now on (HEAD routes fastify adds for each GET left out). */
export function collectRoutes(app: FastifyInstance): CollectedRoute[] {
  const routes: CollectedRoute[] = [];
  app.addHook('onRoute', (r) => {
    for (const method of Array.isArray(r.method) ? r.method : [r.method]) {
      if (method === 'HEAD') continue;
      routes.push({ method, url: r.url, schema: r.schema as JsonSchema | undefined });
    }
  });
  return routes;
}

/** fastify's `/a/:name/*` as OpenAPI's `/a/{name}/{path}`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}').replace(/\*$/, '{path}');
}

const SECURITY: Record<RouteAuth, Array<Record<string, string[]>>> = {
  token: [{ bearer: [] }],
  session: [{ pageSession: [] }],
  'session+csrf': [{ pageSession: [], csrfToken: [] }],
  none: [],
};

const REASONS: Record<number, string> = {
  200: 'done',
  303: 'logged in: on to the page',
  400: 'bad input (INVALID_JSON, INVALID_ARGUMENT, INVALID_PATH, …)',
  401: 'no valid token or session (UNAUTHORIZED)',
  403: 'refused: a foreign Host (FORBIDDEN_HOST), an apply this server does not serve (APPLY_NOT_ALLOWED), no CSRF token (CSRF_FAILED)',
  404: 'unknown draft, session, checkpoint or approval',
  408: 'the request body came too slowly (REQUEST_TIMEOUT)',
  409: 'the state moved (CONFLICT, STALE_REVIEW, STALE_BASE, LOCKED, …)',
  413: 'too large (CONTENT_TOO_LARGE, BATCH_TOO_LARGE)',
  415: 'a media type the route does not take (UNSUPPORTED_MEDIA_TYPE)',
  422: 'refused content (an edit that does not match, a failed validation, approvals pending)',
  500: 'a fault of shadow or of the disk (INTERNAL, IO_ERROR, CORRUPT_*)',
  502: 'a remote failed',
};

/** The error shape and the answers several routes give are components; every schema that is one (the same object) refers to it. */
const COMPONENTS: Record<string, JsonSchema> = { Error: ERROR_ANSWER, ...NAMED_ANSWERS };
const NAMES = new Map<unknown, string>(Object.entries(COMPONENTS).map(([name, schema]) => [schema, name]));

function refOrInline(schema: unknown, self?: string): unknown {
  const name = NAMES.get(schema);
  if (name !== undefined && name !== self) return { $ref: `#/components/schemas/${name}` };
  if (Array.isArray(schema)) return schema.map((s) => refOrInline(s));
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, refOrInline(v)]));
}

function parameters(schema: JsonSchema): unknown[] {
  const out: unknown[] = [];
  const place: Array<[string, string]> = [
    ['params', 'path'],
    ['querystring', 'query'],
    ['headers', 'header'],
  ];
  for (const [key, where] of place) {
    const part = schema[key] as JsonSchema | undefined;
    if (!part) continue;
    const required = new Set((part.required as string[] | undefined) ?? []);
    for (const [name, s] of Object.entries((part.properties ?? {}) as Record<string, JsonSchema>)) {
      const { description, ...rest } = s;
      const param: JsonSchema = { name: where === 'path' && name === '*' ? 'path' : name, in: where };
      if (typeof description === 'string') param.description = description;
      if (where === 'path' || required.has(name)) param.required = true;
      param.schema = rest;
      out.push(param);
    }
  }
  return out;
}

function content(schema: unknown): Record<string, unknown> {
  const s = schema as JsonSchema;
  if (s.content && typeof s.content === 'object' && !('type' in s)) {
    const byType = Object.entries(s.content as Record<string, { schema: unknown }>);
    return Object.fromEntries(byType.map(([type, c]) => [type, { schema: refOrInline(c.schema) }]));
  }
  return { 'application/json': { schema: refOrInline(schema) } };
}

function operation(method: string, url: string, schema: JsonSchema): JsonSchema {
  const op: JsonSchema = {
    operationId: `${method.toLowerCase()}${url.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: schema.summary,
  };
  if (schema.description) op.description = schema.description;
  if (schema.tags) op.tags = schema.tags;
  op.security = SECURITY[(schema.auth as RouteAuth | undefined) ?? 'token'];
  const params = parameters(schema);
  if (params.length > 0) op.parameters = params;
  if (schema.body) op.requestBody = { required: false, content: content(schema.body) };
  const responses: JsonSchema = {};
  for (const [status, answer] of Object.entries((schema.response ?? {}) as Record<string, unknown>)) {
    const body = content(answer);
    const description = REASONS[Number(status)] ?? 'see the error code';
    responses[status] = Object.keys(body).length > 0 ? { description, content: body } : { description };
  }
  op.responses = responses;
  return op;
}

/** The OpenAPI 3.1 document of the routes collected. */
export function openApiDocument(routes: readonly CollectedRoute[]): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const sorted = [...routes].sort((a, b) =>
    a.url === b.url ? a.method.localeCompare(b.method) : a.url < b.url ? -1 : 1,
  );
  for (const r of sorted) {
    const path = openApiPath(r.url);
    (paths[path] ??= {})[r.method.toLowerCase()] = operation(
      r.method,
      path,
      r.schema ?? { summary: `${r.method} ${r.url}` },
    );
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'shadow: the local HTTP API',
      version: API_VERSION,
      description:
        'shadow serve: drafts, write sessions, apply and the review page, on 127.0.0.1 only. ' +
        'Every /api route takes Authorization: Bearer <token> (the token of .git/shadow/server.json); ' +
        'the review page (/ui) takes the session cookie its one-time URL set. Errors are {error: {code, message, hint?, data?}}.',
    },
    servers: [
      {
        url: 'http://127.0.0.1:{port}',
        variables: { port: { default: '7777', description: 'the port in .git/shadow/server.json' } },
      },
    ],
    paths,
    components: {
      schemas: Object.fromEntries(
        Object.entries(COMPONENTS).map(([name, schema]) => [name, refOrInline(schema, name)]),
      ),
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'the token of .git/shadow/server.json' },
        pageSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'shadow_ui_<port>',
          description: 'the review page session, set by /ui/login',
        },
        csrfToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-CSRF-Token',
          description: 'the session CSRF token, from GET /ui/api/session',
        },
      },
    },
  };
}
