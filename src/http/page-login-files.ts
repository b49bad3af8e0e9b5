import { createHash, randomBytes } from 'node:crypto';
import type { Context } from '../context.js';
import { ShadowError } from '../errors.js';
import { readTextIfExists, tryUnlink } from '../durable/durable-file.js';
import { ONCE_TTL_MS } from './page-sessions.js';
import { liveServerRecord } from './server-file.js';

/**
 * One-time login URLs of the review page asked for while `shadow serve`
 * runs (`shadow page`), from another process: the token is written as a
 * file in the repository's `shadow/run/page-login/` (directory 0700; the
 * file named by the token's sha256, holding its expiry), and the server
 * spends it by removing the file. Whoever can write there can already run
 * `shadow approve` and `shadow apply` in this repository, so this opens
 * nothing new; a bearer-token client (an agent over HTTP) has no way to mint
 * one.
 */

export const LOGIN_DIR = 'shadow/run/page-login';

const nameOf = (once: string): string => createHash('sha256').update(once).digest('hex');

/** Write a new one-time token for the server of the repository at `commondir`; the token. */
export function mintLoginFile(ctx: Context, commondir: string): string {
  const dir = `${commondir}/${LOGIN_DIR}`;
  ctx.fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const now = ctx.clock.now();
  // Expired tokens nobody used go on the next mint.
  for (const name of ctx.fs.readdirSync(dir) as string[]) {
    const expires = Number(readTextIfExists(ctx.fs, `${dir}/${name}`));
    if (!(expires > now)) tryUnlink(ctx.fs, `${dir}/${name}`);
  }
  const once = randomBytes(32).toString('base64url');
  ctx.fs.writeFileSync(`${dir}/${nameOf(once)}`, String(now + ONCE_TTL_MS), { mode: 0o600, flag: 'wx' });
  return once;
}

/** Spend a token minted by `mintLoginFile`: true when it existed and had not expired (it is gone either way). */
export function redeemLoginFile(ctx: Context, commondir: string, once: string): boolean {
  if (!/^[A-Za-z0-9_-]{43}$/.test(once)) return false;
  const path = `${commondir}/${LOGIN_DIR}/${nameOf(once)}`;
  const expires = Number(readTextIfExists(ctx.fs, path));
  try {
    // The one that removes it spends it: two logins racing on one token never both win.
    ctx.fs.unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  return expires > ctx.clock.now();
}

/** The review page's URL with a new one-time token, for the server running on this repository (SERVER_NOT_RUNNING without one). */
export function pageLoginUrl(ctx: Context, commondir: string): string {
  const path = `${commondir}/shadow/server.json`;
  const url = liveServerRecord(ctx, path)?.url;
  if (typeof url !== 'string' || !/^http:\/\/127\.0\.0\.1:\d+$/.test(url)) {
    throw new ShadowError(
      'SERVER_NOT_RUNNING',
      'shadow serve is not running on this repository: the review page is served by it',
      {
        hint: 'start it with shadow serve (it prints a URL of its own), then ask again',
        data: { server_json: path },
      },
    );
  }
  return `${url}/ui/login?once=${mintLoginFile(ctx, commondir)}`;
}
