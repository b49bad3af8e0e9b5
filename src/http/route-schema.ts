import type { FastifySchema } from 'fastify';
import * as z from 'zod/mini';

/**
 * What a route declares about itself, as fastify's `schema`: its path
 * parameters, query, headers, body and answers as JSON Schema, from which
 * `GET /openapi.json` is made (openapi-document.ts). A body or query that a
 * route validates with zod is declared by that same zod schema
 * (`inputSchema`), so what the document says and what the route accepts
 * cannot part. fastify does not validate with these (http-server.ts sets a
 * validator that passes everything): the route's zod schema does, so bad
 * input keeps its codes, messages and hints.
 */

export type JsonSchema = Record<string, unknown>;

/** Who may call a route: the bearer token, the review page's session cookie (and CSRF token to change state), or anyone local. */
export type RouteAuth = 'token' | 'session' | 'session+csrf' | 'none';

export interface RouteDoc {
  summary: string;
  description?: string;
  /** The part of the API: drafts, apply, sessions, page, meta. */
  tag: string;
  auth: RouteAuth;
  /** Path parameters, each with what it names. */
  params?: Record<string, string>;
  /** Query parameters as one object schema. */
  query?: JsonSchema;
  /** Request headers the route reads, each with what it says. */
  headers?: Record<string, string>;
  /** A JSON body's schema. */
  body?: JsonSchema;
  /** A body that is not JSON, by media type. */
  bodyContent?: Record<string, JsonSchema>;
  /** The success answer: a JSON schema, or schemas by media type (assets, a file's bytes). */
  ok: JsonSchema | { content: Record<string, JsonSchema> };
  /** The success status, 200 unless said. */
  okStatus?: number;
  /** The statuses of error answers beyond those every route may give. */
  errors: number[];
  /** Statuses whose answer is the route's result with an `error` beside it (a failed batch keeps its per-operation results). */
  failures?: Record<number, JsonSchema>;
  /** Errors also come as a small HTML page, to a browser that asks for one (the review page's own pages). */
  htmlErrors?: boolean;
}

/** The shape of every error answer: `{error: {code, message, hint?, data?}}`. */
export const ERROR_ANSWER: JsonSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: {
          type: 'string',
          description: 'a stable error code (INVALID_ARGUMENT, DRAFT_NOT_FOUND, STALE_REVIEW, …)',
        },
        message: { type: 'string' },
        hint: { type: 'string', description: 'what to do about it' },
        data: { type: 'object', description: 'machine-readable details' },
      },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
  additionalProperties: false,
};

const HTML_PAGE: JsonSchema = { type: 'string', description: 'the error as a page: its message, hint and code' };

/**
 * Statuses any route may answer: 401 (token or session), 403 (a foreign
 * Host), 408 (a body too slow), 500 (a fault of shadow's or of the disk).
 */
const EVERY_ROUTE = [401, 403, 408, 500];
/** What a route with a body may answer besides: malformed JSON, a body too large, a media type it does not take. */
const WITH_BODY = [400, 413, 415];

/** The JSON Schema of a zod schema, as a request's part: what a client may send. */
export function inputSchema(schema: z.ZodMiniType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const objectOf = (properties: Record<string, string>, required: boolean): JsonSchema => ({
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(properties).map(([k, description]) => [k, { type: 'string', description }]),
  ),
  ...(required ? { required: Object.keys(properties) } : {}),
});

/** fastify's form of schemas by media type (OpenAPI's too): `{<type>: {schema}}`. */
const byMediaType = (schemas: Record<string, JsonSchema>): Record<string, { schema: JsonSchema }> =>
  Object.fromEntries(Object.entries(schemas).map(([type, schema]) => [type, { schema }]));

/** A route's declaration as fastify's `schema` (with `summary`, `tags` and `auth` beside fastify's own keys). */
export function routeSchema(doc: RouteDoc): FastifySchema & JsonSchema {
  const hasBody = doc.body !== undefined || doc.bodyContent !== undefined;
  const statuses = [...new Set([...doc.errors, ...EVERY_ROUTE, ...(hasBody ? WITH_BODY : [])])].sort((a, b) => a - b);
  const ok = 'content' in doc.ok ? { content: byMediaType(doc.ok.content as Record<string, JsonSchema>) } : doc.ok;
  const response: Record<number, unknown> = { [doc.okStatus ?? 200]: ok };
  const error = doc.htmlErrors
    ? { content: byMediaType({ 'application/json': ERROR_ANSWER, 'text/html': HTML_PAGE }) }
    : ERROR_ANSWER;
  for (const status of statuses) response[status] = doc.failures?.[status] ?? error;
  return {
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    auth: doc.auth,
    ...(doc.params ? { params: objectOf(doc.params, true) } : {}),
    ...(doc.query ? { querystring: doc.query } : {}),
    ...(doc.headers ? { headers: objectOf(doc.headers, false) } : {}),
    ...(doc.body ? { body: doc.body } : {}),
    ...(doc.bodyContent ? { body: { content: byMediaType(doc.bodyContent) } } : {}),
    response,
  };
}

/** The headers through which a client names who it is. */
export const ACTOR_HEADER = { 'x-shadow-actor': 'who sends the request (an agent, a script): recorded as the actor' };

export const DRAFT_PARAM = { name: 'the draft' };

/** `input` as `schema` reads it (a missing body as `{}`), or the route's own error for what it refused. */
export function parseOr<T>(
  schema: z.ZodMiniType<T>,
  input: unknown,
  refuse: (issues: readonly z.core.$ZodIssue[]) => Error,
): T {
  const r = schema.safeParse(input ?? {});
  if (r.success) return r.data;
  throw refuse(r.error.issues);
}
