// The page's one way to the server: JSON under /ui/api/ with the session
// cookie, and the session's CSRF token on every request that changes state.
// A refusal becomes an ApiError carrying the server's code and hint, which
// the page shows as the CLI would.

let csrf = '';

export class ApiError extends Error {
  constructor(error, status) {
    super(error.message);
    this.code = error.code;
    this.hint = error.hint;
    this.status = status;
  }
}

async function call(method, path, body) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError({ code: 'HTTP', message: `the server answered ${r.status}` }, r.status);
  }
  if (!r.ok || parsed.error) throw new ApiError(parsed.error ?? { code: 'HTTP', message: `the server answered ${r.status}` }, r.status);
  return parsed;
}

export const get = (path) => call('GET', path);
export const post = (path, body = {}) => call('POST', path, body);

/** Read the session's CSRF token (once, at start). */
export async function startSession() {
  csrf = (await get('/ui/api/session')).csrf_token;
}

export const draftPath = (name) => `/ui/api/drafts/${encodeURIComponent(name)}`;
