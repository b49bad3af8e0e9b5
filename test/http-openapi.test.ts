import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { registerRoutes } from '../src/http/register-routes.js';
import { PageSessions } from '../src/http/page-sessions.js';
import { setUp, tearDown, type Ctx } from './helpers/http-server.js';
import { get, pageSession, pathOf } from './helpers/page-client.js';
import type { Reply } from './helpers/session-http.js';

/*
 * GET /openapi.json against the routes it describes: fastify's own record
 * of the routes (an onRoute hook of the test's, hasRoute) and the document
 * agree both ways; the document is valid OpenAPI 3.1 (the OpenAPI
 * Initiative's schema, test/fixtures/openapi/); real answers of a session
 * with the API validate against the schemas documented for their route and
 * status; docs/http/openapi.json is the document the routes make
 * (SHADOW_UPDATE_OPENAPI=1 writes it: npm run docs:http).
 */

type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };
type Content = { content?: Record<string, { schema: unknown }> };
type Operation = {
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: Content;
  responses: Record<string, Content>;
};

const COMMITTED = fileURLToPath(new URL('../../docs/http/openapi.json', import.meta.url));
const OAS_SCHEMA = fileURLToPath(new URL('../../test/fixtures/openapi/oas-3.1-schema.json', import.meta.url));

interface OpenApiCtx extends Ctx {
  doc: Doc;
  text: string;
}

/** The routes registered on a bare fastify (no server gates): the document it serves, and what fastify recorded. */
async function bareApp(
  c: Ctx,
): Promise<{ text: string; seen: Array<{ method: string; url: string }>; app: ReturnType<typeof Fastify> }> {
  const app = Fastify();
  const seen: Array<{ method: string; url: string }> = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) seen.push({ method, url: r.url });
  });
  registerRoutes(app, c.sh, {
    bodyNotNeeded: () => {},
    allowApply: false,
    pageSessions: new PageSessions(() => 0),
    cookieName: () => 'shadow_ui',
  });
  await app.ready();
  const r = await app.inject({ method: 'GET', url: '/openapi.json' });
  assert.is(r.statusCode, 200);
  return { text: r.body, seen, app };
}

/** A schema with the document's references put in place (only #/components/schemas/… occur). */
function inline(schema: unknown, doc: Doc): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, doc));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: string }).$ref;
  if (typeof ref === 'string') return inline(doc.components.schemas[ref.replace('#/components/schemas/', '')], doc);
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(v, doc)]));
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
/** The operations real answers were checked against. */
const sampled = new Set<string>();

/** The answer `r` to `method path` is one the document lists, and fits the schema it gives for that status and media type. */
function fits(doc: Doc, method: string, path: string, r: { status: number; headers: Headers; body: unknown }): void {
  const op = doc.paths[path]?.[method.toLowerCase()];
  assert.ok(op, `${method} ${path} is documented`);
  sampled.add(`${method} ${path}`);
  const answer = op!.responses[String(r.status)];
  const listed = Object.keys(op!.responses).join(', ');
  assert.ok(
    answer,
    `${method} ${path} answered ${r.status}, which the document lists (${listed}): ${JSON.stringify(r.body)}`,
  );
  const type = (r.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (answer!.content === undefined) {
    assert.is(r.body, '', `${method} ${path} ${r.status} has no body, as documented`);
    return;
  }
  const media = answer!.content[type];
  assert.ok(
    media,
    `${method} ${path} ${r.status} answered ${type}, which the document lists (${Object.keys(answer!.content).join(', ')})`,
  );
  if (type !== 'application/json') return;
  const validate = ajv.compile(inline(media!.schema, doc) as object);
  assert.ok(
    validate(r.body),
    `${method} ${path} ${r.status}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(r.body).slice(0, 400)}`,
  );
}

const Doc = suite<OpenApiCtx>('http: the OpenAPI document of the routes');
Doc.before(async (c) => {
  await setUp(c);
  const r = await c.api.call('GET', '/openapi.json');
  assert.is(r.status, 200);
  c.text = r.bytes.toString('utf8');
  c.doc = JSON.parse(c.text) as Doc;
});
Doc.after(tearDown);

Doc('GET /openapi.json needs the token, like every /api route; an unknown route points to it', async ({ api }) => {
  const r = await api.call('GET', '/openapi.json', { token: null });
  assert.is(r.status, 401);
  assert.is(r.body.error.code, 'UNAUTHORIZED');
  const unknown = await api.call('GET', '/api/draft');
  assert.is(unknown.status, 404);
  assert.is(unknown.body.error.code, 'ROUTE_NOT_FOUND');
  assert.match(unknown.body.error.hint, 'GET /openapi.json lists every endpoint');
});

Doc(
  'every route fastify registered is an operation of the document, with its schema; every operation is a route',
  async (c) => {
    const { text, seen, app } = await bareApp(c);
    assert.is(text, c.text, 'the server serves the document its routes make');
    const ops = Object.entries(c.doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
    const asOpenApi = (url: string): string => url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{path}');
    // fastify adds a HEAD route for each GET; the document leaves them out.
    const registered = seen
      .filter((r) => r.method !== 'HEAD')
      .map((r) => `${r.method} ${asOpenApi(r.url)}`)
      .sort();
    assert.equal(ops.map((o) => `${o.method} ${o.path}`).sort(), registered);
    assert.ok(registered.length >= 30, `${registered.length} routes`);
    for (const { method, path, op } of ops) {
      const url = path.replace(/\{path\}$/, '*').replace(/\{(\w+)\}/g, ':$1');
      assert.ok(app.hasRoute({ method: method as 'GET', url }), `${method} ${path} is a route`);
      const name = `${method} ${path}`;
      assert.type(op.summary, 'string', name);
      assert.equal(op.tags?.length, 1, name);
      assert.ok(Array.isArray(op.security), name);
      assert.ok(
        Object.keys(op.responses).some((s) => /^[23]\d\d$/.test(s)),
        `${name} has a success answer`,
      );
      for (const status of ['401', '403', '500']) {
        assert.equal(
          op.responses[status]?.content?.['application/json']?.schema,
          { $ref: '#/components/schemas/Error' },
          `${name} ${status}`,
        );
      }
      for (const param of path.match(/\{\w+\}/g) ?? []) {
        assert.ok(
          op.parameters?.some((p) => p.in === 'path' && `{${p.name}}` === param),
          `${name} declares ${param}`,
        );
      }
    }
    await app.close();
  },
);

Doc('the document is valid OpenAPI 3.1, and each of its schemas compiles', ({ doc }) => {
  const oas = new Ajv2020({ strict: false, validateFormats: false });
  // Schema Objects are "$dynamicRef": "#meta", the anchor of $defs/schema in this base schema (no dialect);
  // ajv resolves that anchor to the wrong place, so it is named directly. Each Schema Object is compiled below.
  const text = readFileSync(OAS_SCHEMA, 'utf8').replaceAll('"$dynamicRef": "#meta"', '"$ref": "#/$defs/schema"');
  const validate = oas.compile(JSON.parse(text) as object);
  assert.ok(validate(doc), oas.errorsText(validate.errors));
  assert.is((doc as unknown as { openapi: string }).openapi, '3.1.0');
  // The OAS schema leaves Schema Objects unchecked: each must be a JSON Schema ajv takes.
  let schemas = 0;
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      for (const b of [...Object.values(op.responses), ...(op.requestBody ? [op.requestBody] : [])]) {
        for (const m of Object.values(b.content ?? {})) {
          ajv.compile(inline(m.schema, doc) as object);
          schemas++;
        }
      }
    }
  }
  assert.ok(schemas > 100, `${schemas} schemas`);
  // A malformed document is refused by the same check: the check bites.
  assert.not.ok(validate({ ...doc, paths: { 'no-slash': {} } }));
});

Doc('real answers fit the schemas documented for their route and status', async (c) => {
  const { api, doc, sh } = c;
  const call = async (
    method: string,
    path: string,
    url: string,
    options: Parameters<typeof api.call>[2] = {},
  ): Promise<Reply> => {
    const r = await api.call(method, url, options);
    fits(doc, method, path, r);
    return r;
  };
  await call('GET', '/api/drafts', '/api/drafts');
  const batch = await call('POST', '/api/batch', '/api/batch', {
    json: { intent: 'add', operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] },
  });
  assert.is(batch.status, 200);
  assert.is((await call('POST', '/api/batch', '/api/batch', { json: { operations: [] } })).status, 400);
  assert.is(
    (
      await call('POST', '/api/batch', '/api/batch', {
        json: { operations: [{ operation: 'edit', path: 'a.txt', old_content: 'zz', content: 'b' }] },
      })
    ).status,
    422,
  );
  await call('GET', '/api/drafts', '/api/drafts');
  await call('GET', '/api/drafts/{name}/diff', '/api/drafts/default/diff');
  assert.is((await call('GET', '/api/drafts/{name}/diff', '/api/drafts/default/diff?content=all')).status, 400);
  await call('GET', '/api/drafts/{name}/log', '/api/drafts/default/log?limit=5');
  assert.is((await call('GET', '/api/write-session/status/{id}', '/api/write-session/status/nope')).status, 404);
  await call('GET', '/api/drafts/{name}/files/{path}', '/api/drafts/default/files/');
  await call('GET', '/api/drafts/{name}/files/{path}', '/api/drafts/default/files/a.txt');
  await call('POST', '/api/drafts/{name}/checkpoints', '/api/drafts/default/checkpoints', { json: { name: 'one' } });
  assert.is(
    (await call('POST', '/api/drafts/{name}/checkpoints', '/api/drafts/default/checkpoints', { json: { name: 'one' } }))
      .status,
    409,
  );
  await call('POST', '/api/drafts/{name}/stop', '/api/drafts/default/stop');
  await call('POST', '/api/drafts/{name}/rollback', '/api/drafts/default/rollback', { json: { target: 'one' } });
  await call('POST', '/api/drafts/{name}/apply', '/api/drafts/default/apply', { json: { dry_run: true } });
  assert.is((await call('POST', '/api/drafts/{name}/apply', '/api/drafts/default/apply', { json: {} })).status, 403);
  assert.is(
    (await call('POST', '/api/drafts/{name}/apply', '/api/drafts/default/apply', { json: { paths: [] } })).status,
    400,
  );
  await call('POST', '/api/drafts/{name}/unapply', '/api/drafts/default/unapply', { json: { dry_run: true } });
  await call('POST', '/api/drafts/{name}/rebase', '/api/drafts/default/rebase', { json: {} });
  await call('POST', '/api/drafts/{name}/revert', '/api/drafts/default/revert', { json: { batches: ['1'] } });
  await call('POST', '/api/drafts/{name}/resolve', '/api/drafts/default/resolve', { json: { paths: ['a.txt'] } });
  const begun = await call('POST', '/api/write-session/begin', '/api/write-session/begin', {
    json: { intent: 'guide', target_file: 'guide.md', operation: 'create' },
  });
  const id = begun.body.session_id as string;
  await call('POST', '/api/write-session/{id}/content', `/api/write-session/${id}/content`, {
    text: '# Guide\n',
    type: 'text/plain',
  });
  await call('GET', '/api/write-session/status/{id}', `/api/write-session/status/${id}`);
  await call('POST', '/api/write-session/{id}/content', `/api/write-session/${id}/content`, {
    text: 'DONE\n',
    type: 'text/plain',
  });
  const other = await call('POST', '/api/write-session/begin', '/api/write-session/begin', {
    json: { intent: 'x', target_file: 'x.md', operation: 'create' },
  });
  await call('POST', '/api/write-session/finalize', '/api/write-session/finalize', {
    json: { session_id: other.body.session_id, content: 'x\n' },
  });
  assert.is(
    (await call('POST', '/api/write-session/finalize', '/api/write-session/finalize', { json: {} })).status,
    400,
  );
  const third = await call('POST', '/api/write-session/begin', '/api/write-session/begin', {
    json: { intent: 'y', target_file: 'y.md', operation: 'create' },
  });
  assert.is(
    (await call('DELETE', '/api/write-session/{id}', `/api/write-session/${third.body.session_id}`)).body.cancelled
      .target_file,
    'y.md',
  );
  await call('DELETE', '/api/write-session/{id}', '/api/write-session/nope');
  assert.is(
    (await call('POST', '/api/write-session/begin', '/api/write-session/begin', { text: 'x', type: 'application/xml' }))
      .status,
    415,
  );
  const split = { json: { hunks: ['x.md'], into: 'x-part' } };
  assert.is((await call('POST', '/api/drafts/{name}/split', '/api/drafts/default/split', split)).status, 200);
  assert.is((await call('POST', '/api/drafts/{name}/split', '/api/drafts/default/split', split)).status, 409);
  await call('GET', '/openapi.json', '/openapi.json');

  // The review page's API, with its session cookie and CSRF token.
  const page = await pageSession(c);
  const pageCall = async (method: 'GET' | 'POST', path: string, url: string, json?: unknown): Promise<void> => {
    const r = method === 'GET' ? await page.get(url) : await page.post(url, json);
    fits(doc, method, path, r);
  };
  await pageCall('GET', '/ui/api/session', '/ui/api/session');
  await pageCall('GET', '/ui/api/drafts', '/ui/api/drafts');
  await pageCall('GET', '/ui/api/drafts/{name}', '/ui/api/drafts/default');
  await pageCall('GET', '/ui/api/drafts/{name}/timeline', '/ui/api/drafts/default/timeline');
  await pageCall('GET', '/ui/api/drafts/{name}/diff', '/ui/api/drafts/default/diff');
  await pageCall('GET', '/ui/api/drafts/{name}/diff', '/ui/api/drafts/default/diff?renames=2');
  await pageCall('POST', '/ui/api/drafts/{name}/apply', '/ui/api/drafts/default/apply', { dry_run: true });
  await pageCall('POST', '/ui/api/drafts/{name}/rollback', '/ui/api/drafts/default/rollback', {});
  await pageCall('GET', '/ui/', '/ui/');
  await pageCall('POST', '/ui/api/drafts/{name}/unapply', '/ui/api/drafts/default/unapply', { dry_run: true });
  await pageCall('POST', '/ui/api/drafts/{name}/approvals/{id}', '/ui/api/drafts/default/approvals/nope', {
    decision: 'approve',
  });
  for (const asset of ['app.js', 'highlighter.js', 'app.css']) await pageCall('GET', `/ui/${asset}`, `/ui/${asset}`);
  await pageCall('POST', '/ui/api/logout', '/ui/api/logout');
  fits(doc, 'GET', '/ui/login', await get(c, pathOf(c.server.pageUrl())));
  fits(doc, 'GET', '/ui/login', await get(c, '/ui/login?once=spent'));
  const asBrowser = await get(c, '/ui/login?once=spent', { headers: { accept: 'text/html' } });
  assert.is(asBrowser.status, 401);
  fits(doc, 'GET', '/ui/login', asBrowser);
  fits(doc, 'GET', '/ui/', await get(c, '/ui/', { headers: { accept: 'text/html' } }));
  assert.ok((await sh.draftList()).length > 0);
  // Every operation but the live stream (text/event-stream, checked by http-page-api.test.ts) answered here.
  const all = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
  );
  assert.equal(
    all.filter((op) => !sampled.has(op)),
    ['GET /ui/api/live'],
  );
});

Doc('bad input to a route checked by its declared schema keeps its code, message and hint', async ({ api, doc }) => {
  const diff = (q: string) => `/api/drafts/default/diff?${q}`;
  const renamesHint = 'renames=1 pairs renames as git diff -M; renames=90 as -M90%';
  const cases: Array<[string, string, string, unknown, string, string | undefined]> = [
    ['GET', '/api/drafts/{name}/diff', diff('content=all'), undefined, 'content is none, stat or patch', undefined],
    [
      'GET',
      '/api/drafts/{name}/diff',
      diff('content=stat&content=none'),
      undefined,
      'content is given more than once',
      undefined,
    ],
    [
      'GET',
      '/api/drafts/{name}/diff',
      diff('renames=yes'),
      undefined,
      'renames is 0, 1 or a minimum similarity in percent (0-100)',
      renamesHint,
    ],
    [
      'GET',
      '/api/drafts/{name}/diff',
      diff('renames=1&renames=0'),
      undefined,
      'renames is given more than once',
      undefined,
    ],
    [
      'GET',
      '/api/drafts/{name}/diff',
      diff('content=bad&renames=bad'),
      undefined,
      'content is none, stat or patch',
      undefined,
    ],
    [
      'GET',
      '/api/drafts/{name}/diff',
      diff('range=a..b&range=c..d'),
      undefined,
      'range is given more than once',
      undefined,
    ],
    [
      'GET',
      '/api/drafts/{name}/log',
      '/api/drafts/default/log?limit=0',
      undefined,
      'limit is a positive integer',
      undefined,
    ],
    [
      'GET',
      '/api/drafts/{name}/log',
      '/api/drafts/default/log?limit=2&limit=3',
      undefined,
      'limit is a positive integer',
      undefined,
    ],
    [
      'POST',
      '/api/drafts/{name}/checkpoints',
      '/api/drafts/default/checkpoints',
      { message: 'm' },
      'name is missing',
      'send {"name": "…", "message"?: "…"}',
    ],
    [
      'POST',
      '/api/drafts/{name}/checkpoints',
      '/api/drafts/default/checkpoints',
      ['one'],
      'name is missing',
      'send {"name": "…", "message"?: "…"}',
    ],
    [
      'POST',
      '/api/drafts/{name}/rollback',
      '/api/drafts/default/rollback',
      { target: 3 },
      'target is missing',
      'send {"target": "<checkpoint | batch | ~N | commit>"}',
    ],
    [
      'POST',
      '/api/write-session/finalize',
      '/api/write-session/finalize',
      { content: 'x' },
      'session_id is missing',
      'send {"session_id": "…", "content"?: "…"}',
    ],
  ];
  for (const [method, path, url, json, message, hint] of cases) {
    const r = await api.call(method, url, json === undefined ? {} : { json });
    assert.is(r.status, 400, url);
    assert.equal(r.body.error.code, 'INVALID_ARGUMENT', url);
    assert.is(r.body.error.message, message, url);
    assert.is(r.body.error.hint, hint, url);
    fits(doc, method, path, r);
  }
  // What the checks let through as before: a message of another type is ignored, a checkpoint made.
  const made = await api.call('POST', '/api/drafts/default/checkpoints', {
    json: { name: 'ignored-message', message: 7 },
  });
  assert.is(made.status, 200, JSON.stringify(made.body));
  fits(doc, 'POST', '/api/drafts/{name}/checkpoints', made);
});

Doc('docs/http/openapi.json is the document the routes make (SHADOW_UPDATE_OPENAPI=1 rewrites it)', ({ text }) => {
  if (process.env.SHADOW_UPDATE_OPENAPI === '1') writeFileSync(COMMITTED, text);
  let committed = '';
  try {
    committed = readFileSync(COMMITTED, 'utf8');
  } catch {
    // Absent: the comparison below says so.
  }
  assert.ok(committed === text, 'docs/http/openapi.json is stale: run npm run docs:http and commit it');
});

Doc.run();
