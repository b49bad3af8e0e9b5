import * as assert from 'uvu/assert';
import type { Ctx } from './http-server.js';

/*
 * The review page's API as a browser on the page calls it: the session
 * cookie from a one-time URL, no bearer token, redirects not followed, and
 * the session's CSRF token on what changes state.
 */

export interface Got {
  status: number;
  headers: Headers;
  body: any;
}

export async function get(
  c: Ctx,
  path: string,
  options: { method?: string; cookie?: string; headers?: Record<string, string>; json?: unknown } = {},
): Promise<Got> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie) headers.cookie = options.cookie;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(`${c.server.url}${path}`, {
    method: options.method ?? 'GET',
    headers,
    redirect: 'manual',
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
  });
  const text = await r.text();
  return {
    status: r.status,
    headers: r.headers,
    body: (r.headers.get('content-type') ?? '').includes('application/json') ? JSON.parse(text) : text,
  };
}

export const pathOf = (url: string): string => url.slice(url.indexOf('/ui/'));

/** Log in through a fresh one-time URL: the cookie to send back. */
export async function login(c: Ctx): Promise<string> {
  const r = await get(c, pathOf(c.server.pageUrl()));
  assert.is(r.status, 303);
  return r.headers.get('set-cookie')!.split(';')[0]!;
}

/** A logged-in page: GET and POST with its cookie and CSRF token. */
export async function pageSession(c: Ctx): Promise<{
  cookie: string;
  csrf: string;
  get(path: string): Promise<Got>;
  post(path: string, json?: unknown): Promise<Got>;
}> {
  const cookie = await login(c);
  const csrf = (await get(c, '/ui/api/session', { cookie })).body.csrf_token as string;
  return {
    cookie,
    csrf,
    get: (path) => get(c, path, { cookie }),
    post: (path, json = {}) => get(c, path, { method: 'POST', cookie, json, headers: { 'x-csrf-token': csrf } }),
  };
}
