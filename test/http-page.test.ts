import { suite } from 'uvu';
import { readdirSync, readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { setUp, tearDown, type Ctx } from './helpers/http-server.js';
import { rawRequest } from './helpers/session-http.js';
import { get, login, pathOf, type Got } from './helpers/page-client.js';

/*
 * The review page's security, in-process: the one-time login URL (once,
 * within its 5 minutes) that sets an HttpOnly, SameSite=Strict cookie; no
 * cookie, no page; the Host check on /ui as on /api; the CSRF token on every
 * request that changes state; the CSP and its companions on the page and its
 * assets, and no CORS; then the drafts the page lists.
 */

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

function assertPageHeaders(r: Got, what: string): void {
  assert.is(r.headers.get('content-security-policy'), CSP, what);
  assert.is(r.headers.get('x-content-type-options'), 'nosniff', what);
  assert.is(r.headers.get('referrer-policy'), 'no-referrer', what);
  for (const [name] of r.headers)
    assert.not.ok(name.startsWith('access-control-'), `${what}: no CORS header (${name})`);
}

const Page = suite<Ctx>('review page');
Page.before.each((c) => setUp(c));
Page.after.each((c) => tearDown(c));

Page(
  'the one-time URL is 127.0.0.1 on the server port, and works once: 303 to /ui/ with an HttpOnly, SameSite=Strict cookie',
  async (c) => {
    const url = c.server.pageUrl();
    assert.match(url, new RegExp(`^http://127\\.0\\.0\\.1:${c.server.port}/ui/login\\?once=[A-Za-z0-9_-]{43}$`));
    const first = await get(c, pathOf(url));
    assert.is(first.status, 303);
    assert.is(first.headers.get('location'), '/ui/');
    const cookie = first.headers.get('set-cookie')!;
    assert.match(
      cookie,
      new RegExp(`^shadow_ui_${c.server.port}=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict$`),
    );
    assert.not.match(cookie, /Secure/);
    assertPageHeaders(first, 'login');

    const again = await get(c, pathOf(url));
    assert.is(again.status, 401);
    assert.is(again.headers.get('set-cookie'), null);
    assert.is(again.body.error.code, 'UNAUTHORIZED');
    assert.match(again.body.error.message, /already used, has expired/);
    const inBrowser = await get(c, pathOf(url), { headers: { accept: 'text/html' } });
    assert.is(inBrowser.status, 401);
    assert.match(inBrowser.headers.get('content-type')!, /^text\/html/);
    assert.match(inBrowser.body, /this login URL was already used/);
    assertPageHeaders(inBrowser, 'login refused');

    for (const once of ['', 'nope', url.slice(url.indexOf('=') + 1, -1)])
      assert.is((await get(c, `/ui/login?once=${once}`)).status, 401, once);
    assert.is((await get(c, '/ui/login')).status, 401);
    // Each URL is its own: another still opens a session.
    assert.is((await get(c, pathOf(c.server.pageUrl()))).status, 303);
  },
);

Page('an expired one-time URL is 401, and spent', async (c) => {
  const url = c.server.pageUrl();
  c.skew.ms += 5 * 60 * 1000 + 1;
  const r = await get(c, pathOf(url));
  assert.is(r.status, 401);
  assert.is(r.body.error.code, 'UNAUTHORIZED');
  c.skew.ms = 0;
  assert.is((await get(c, pathOf(url))).status, 401, 'an expired token is spent by its first try');
});

Page(
  'no cookie, a wrong cookie or another server’s cookie name: 401 on the page, its assets and its API',
  async (c) => {
    const cookie = await login(c);
    const value = cookie.split('=')[1]!;
    for (const path of ['/ui/', '/ui/app.js', '/ui/app.css', '/ui/api/drafts', '/ui/api/session']) {
      for (const sent of [undefined, `shadow_ui_${c.server.port}=wrong`, `shadow_ui_1=${value}`]) {
        const r = await get(c, path, sent === undefined ? {} : { cookie: sent });
        assert.is(r.status, 401, `${path} ${sent}`);
        assert.is(r.body.error.code, 'UNAUTHORIZED');
        assertPageHeaders(r, path);
      }
    }
    const html = await get(c, '/ui/', { headers: { accept: 'text/html,application/xhtml+xml' } });
    assert.is(html.status, 401);
    assert.match(html.body, /the one-time URL that shadow serve printed/);
    // The bearer token does not open the page, nor the cookie the bearer API.
    assert.is((await get(c, '/ui/api/drafts', { headers: { authorization: `Bearer ${c.server.token}` } })).status, 401);
    const api = await get(c, '/api/drafts', { cookie });
    assert.is(api.status, 401);
    assert.is(api.body.error.code, 'UNAUTHORIZED');
  },
);

Page('a wrong Host is 403 on every /ui route, cookie or not', async (c) => {
  const cookie = await login(c);
  for (const path of ['/ui/login?once=x', '/ui/', '/ui/app.js', '/ui/api/drafts', '/ui/api/logout']) {
    for (const host of ['evil.example', `evil.example:${c.server.port}`, `127.0.0.1:${c.server.port + 1}`]) {
      const r = await rawRequest(c.server.port, {
        method: path.endsWith('logout') ? 'POST' : 'GET',
        path,
        headers: { host, cookie },
      });
      assert.is(r.status, 403, `${path} ${host}`);
      assert.is(r.body.error.code, 'FORBIDDEN_HOST');
    }
  }
  const ok = await rawRequest(c.server.port, { path: '/ui/', headers: { host: `localhost:${c.server.port}`, cookie } });
  assert.is(ok.status, 200);
});

Page(
  'a request that changes state needs the session’s X-CSRF-Token: none or a wrong one is 403 CSRF_FAILED',
  async (c) => {
    const cookie = await login(c);
    const session = await get(c, '/ui/api/session', { cookie });
    assert.is(session.status, 200);
    const csrf = session.body.csrf_token as string;
    assert.match(csrf, /^[A-Za-z0-9_-]{43}$/);
    const other = (await get(c, '/ui/api/session', { cookie: await login(c) })).body.csrf_token as string;
    assert.is.not(other, csrf, 'each session has its own token');

    for (const token of [undefined, '', 'wrong', other, csrf.slice(1)]) {
      const r = await get(c, '/ui/api/logout', {
        method: 'POST',
        cookie,
        headers: token === undefined ? {} : { 'x-csrf-token': token },
      });
      assert.is(r.status, 403, String(token));
      assert.is(r.body.error.code, 'CSRF_FAILED');
      assert.match(r.body.error.hint, /GET \/ui\/api\/session/);
    }
    // A cross-site form post: the cookie (were it sent) but no header.
    const form = await get(c, '/ui/api/logout', {
      method: 'POST',
      cookie,
      headers: { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.is(form.status, 403);
    assert.is(form.body.error.code, 'CSRF_FAILED');
    assert.is((await get(c, '/ui/api/drafts', { cookie })).status, 200, 'the refused posts changed nothing');

    const out = await get(c, '/ui/api/logout', { method: 'POST', cookie, headers: { 'x-csrf-token': csrf } });
    assert.is(out.status, 200, JSON.stringify(out.body));
    assert.equal(out.body, { logged_out: true });
    assert.match(out.headers.get('set-cookie')!, /Max-Age=0/);
    assert.is((await get(c, '/ui/api/drafts', { cookie })).status, 401, 'the session is over');
  },
);

Page('the page and its assets: no inline script or style, with the CSP, nosniff and no CORS', async (c) => {
  const cookie = await login(c);
  const page = await get(c, '/ui/', { cookie });
  assert.is(page.status, 200);
  assert.match(page.headers.get('content-type')!, /^text\/html; charset=utf-8/);
  assert.match(page.body, /<script type="module" src="\/ui\/app\.js"><\/script>/);
  assert.match(page.body, /<link rel="stylesheet" href="\/ui\/app\.css">/);
  assert.not.match(page.body, /<script>|<script [^>]*>[^<]|<style|style=|\son[a-z]+=/i);
  assertPageHeaders(page, '/ui/');
  const js = await get(c, '/ui/app.js', { cookie });
  assert.is(js.status, 200);
  assert.match(js.headers.get('content-type')!, /^text\/javascript/);
  assert.match(js.body, /\/ui\/api\/drafts/);
  assertPageHeaders(js, '/ui/app.js');
  // The page's own modules build the DOM from text only; diff2html (bundled) writes the markup of its escaped templates.
  const sources = new URL('../../src/http/page/', import.meta.url);
  for (const f of readdirSync(sources).filter((n) => n.endsWith('.js')))
    assert.not.match(
      readFileSync(new URL(f, sources), 'utf8'),
      /innerHTML|outerHTML|insertAdjacentHTML|document\.write/,
      f,
    );
  const css = await get(c, '/ui/app.css', { cookie });
  assert.is(css.status, 200);
  assert.match(css.headers.get('content-type')!, /^text\/css/);
  assertPageHeaders(css, '/ui/app.css');
  const preflight = await get(c, '/ui/api/logout', {
    method: 'OPTIONS',
    cookie,
    headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
  });
  assert.ok(preflight.status >= 400, String(preflight.status));
  for (const [name] of preflight.headers) assert.not.ok(name.startsWith('access-control-'), name);
});

Page(
  'the drafts endpoint lists the repository’s drafts: status, batches, actors, last change, pending approvals',
  async (c) => {
    const cookie = await login(c);
    assert.equal((await get(c, '/ui/api/drafts', { cookie })).body, { drafts: [] });
    for (const [draft, path] of [
      ['web', 'hi.txt'],
      ['ci', '.github/workflows/ci.yml'],
    ] as const) {
      for (let i = 1; i <= (draft === 'web' ? 2 : 1); i++) {
        const r = await c.api.call('POST', `/api/batch?draft=${draft}`, {
          json: { intent: `write ${path}`, operations: [{ operation: 'write', path, content: `v${i}\n` }] },
        });
        assert.is(r.status, 200, JSON.stringify(r.body));
      }
    }
    const r = await get(c, '/ui/api/drafts', { cookie });
    assert.is(r.status, 200);
    assertPageHeaders(r, '/ui/api/drafts');
    const byName = Object.fromEntries((r.body.drafts as Array<{ name: string }>).map((d) => [d.name, d]));
    assert.equal(Object.keys(byName).sort(), ['ci', 'web']);
    const log = await c.api.call('GET', '/api/drafts/web/log?limit=1');
    assert.equal(byName.web, {
      name: 'web',
      status: 'open',
      batches: 2,
      actors: ['Test User'],
      last_change: log.body.batches[0].time,
      pending_approvals: 0,
    });
    assert.is((byName.ci as any).batches, 1);
    const review = await c.sh.review({ draft: 'ci' });
    const pending = review.approvals.filter((a) => a.status === 'pending').length;
    assert.ok(pending > 0, 'a workflow file needs an approval');
    assert.is((byName.ci as any).pending_approvals, pending);
  },
);

Page.run();
