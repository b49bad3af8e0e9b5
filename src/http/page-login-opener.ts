import { createHash } from 'node:crypto';
import type { Context } from '../context.js';
import { ShadowError } from '../errors.js';
import { readTextIfExists, tryUnlink } from '../durable/durable-file.js';
import { ONCE_TTL_MS } from './page-sessions.js';

/**
 * What `--open` hands the browser instead of the one-time login URL: a file
 * only the owner can read, `shadow/run/page-open/<sha256 of the token>.html`
 * (the file 0600, both directories 0700), that sends the browser on to the
 * URL. Given as a `file://` path, the token is never in a process's
 * arguments, which every local user can read (`ps`). The page's CSP does
 * not cover a local file, but a meta refresh needs no script anyway. The
 * server removes the file when the token is offered (spent, good or not),
 * expired ones whenever a login URL is minted or offered, and all of them
 * when it stops.
 */

export const OPENER_DIR = 'shadow/run/page-open';

const nameOf = (once: string): string => createHash('sha256').update(once).digest('hex');

const attr = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A directory of the owner's only: made 0700, or refused when it is something else (a symlink, a file) or others may enter it. */
function privateDir(ctx: Context, dir: string): void {
  ctx.fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = ctx.fs.lstatSync(dir);
  if (!st.isDirectory()) {
    throw new ShadowError('NOT_A_DIRECTORY', `${dir} is not a directory: the review page's login file goes there`, {
      hint: 'remove it, then ask again',
      data: { path: dir },
    });
  }
  if ((st.mode & 0o077) !== 0) {
    throw new ShadowError(
      'UNSAFE_PATH',
      `${dir} can be entered by other users: the review page's one-time login file is not written there`,
      {
        hint: `chmod 700 ${dir}, then ask again`,
        data: { path: dir },
      },
    );
  }
}

/** Write the opener of a login URL (`…/ui/login?once=<token>`), good as long as the token; its path. */
export function writeLoginOpener(ctx: Context, commondir: string, url: string): string {
  const once = new URL(url).searchParams.get('once') ?? '';
  if (!/^[A-Za-z0-9_-]{43}$/.test(once))
    throw new ShadowError('INVALID_ARGUMENT', 'not a login URL of the review page', { data: { url } });
  sweepLoginOpeners(ctx, commondir);
  privateDir(ctx, `${commondir}/shadow/run`);
  const dir = `${commondir}/${OPENER_DIR}`;
  privateDir(ctx, dir);
  const path = `${dir}/${nameOf(once)}.html`;
  const expires = ctx.clock.now() + ONCE_TTL_MS;
  const html =
    `<!doctype html>\n<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">\n` +
    `<meta name="shadow-expires" content="${expires}">\n` +
    `<meta http-equiv="refresh" content="0;url=${attr(url)}">\n` +
    `<title>shadow review page</title></head>\n` +
    `<body><p>Opening the <a href="${attr(url)}">review page</a> (this link works once, within 5 minutes).</p></body></html>\n`;
  ctx.fs.writeFileSync(path, html, { mode: 0o600, flag: 'wx' });
  return path;
}

/** Remove the opener of `once`: the token was offered, so it is spent whatever the outcome. */
export function removeLoginOpener(ctx: Context, commondir: string, once: string): void {
  if (/^[A-Za-z0-9_-]{1,100}$/.test(once)) tryUnlink(ctx.fs, `${commondir}/${OPENER_DIR}/${nameOf(once)}.html`);
}

/** Remove the openers whose token has expired, or every one (`all`: the server stops). */
export function sweepLoginOpeners(ctx: Context, commondir: string, all = false): void {
  const dir = `${commondir}/${OPENER_DIR}`;
  let names: string[];
  try {
    names = ctx.fs.readdirSync(dir) as string[];
  } catch {
    return;
  }
  const now = ctx.clock.now();
  for (const name of names) {
    if (!name.endsWith('.html')) continue;
    const expires = Number(
      /name="shadow-expires" content="(\d+)"/.exec(readTextIfExists(ctx.fs, `${dir}/${name}`) ?? '')?.[1],
    );
    if (all || !(expires > now)) tryUnlink(ctx.fs, `${dir}/${name}`);
  }
}
