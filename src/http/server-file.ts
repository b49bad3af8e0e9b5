import type { Context } from '../context.js';
import { ShadowError } from '../errors.js';
import { parentOf, readTextIfExists, tryUnlink } from '../durable/durable-file.js';
import { claimByLink, isStale } from '../durable/process-lock.js';

/**
 * `shadow/server.json`: how clients reach the running server, and the claim
 * that makes it the only one on the repository. It is created exclusively
 * with its content already in it, so a second server sees a whole record or
 * none; a record whose process died on this machine (SIGKILL) is taken over,
 * as process locks are.
 */

export interface ServerRecord {
  port: number;
  token: string;
  url: string;
  /** null when the context has no process table. */
  pid: number | null;
  host: string;
  since: string;
}

export interface ServerClaim {
  /** Remove the record, if it is still this server's. */
  release(): void;
}

function readRecord(ctx: Context, path: string): Partial<ServerRecord> | undefined {
  const text = readTextIfExists(ctx.fs, path);
  if (text === undefined) return undefined;
  try {
    const r = JSON.parse(text) as Partial<ServerRecord> | null;
    return r !== null && typeof r === 'object' ? r : {};
  } catch {
    return {};
  }
}

function isGone(ctx: Context, r: Partial<ServerRecord>): boolean {
  if (typeof r.pid !== 'number') return isStale(ctx, undefined);
  // A record without a host was written by a shadow that wrote none: always on the machine that serves.
  const since = typeof r.since === 'string' ? r.since : undefined;
  return isStale(ctx, {
    pid: r.pid,
    host: typeof r.host === 'string' ? r.host : (ctx.processes?.host ?? 'unknown'),
    since,
  });
}

function serverRunning(path: string, r: Partial<ServerRecord>): ShadowError {
  const where = r.url ?? (typeof r.port === 'number' ? `http://127.0.0.1:${r.port}` : 'an unknown port');
  return new ShadowError(
    'SERVER_RUNNING',
    `shadow serve is already running on this repository: process ${r.pid ?? '?'}${r.host ? ` on ${r.host}` : ''}, at ${where}`,
    {
      hint: `use that server (its port and token are in ${path}), or stop it first`,
      data: { server_json: path, pid: r.pid ?? null, host: r.host ?? null, url: r.url ?? null, port: r.port ?? null },
    },
  );
}

/** Write `record` to `path` unless a live server holds it (SERVER_RUNNING, naming it). */
export function claimServerFile(ctx: Context, path: string, record: ServerRecord): ServerClaim {
  ctx.fs.mkdirSync(parentOf(path), { recursive: true });
  // 0600 from the start: the token must never be readable by others, even for a moment.
  claimByLink(ctx, path, Buffer.from(`${JSON.stringify(record)}\n`), 0o600, {
    read: () => readRecord(ctx, path),
    // A record gone meanwhile is simply tried again.
    stale: (current) => current === undefined || isGone(ctx, current),
    busy: (current) => serverRunning(path, current!),
    keepsChanging: () =>
      new ShadowError(
        'SERVER_RUNNING',
        `another shadow serve is starting on this repository (${path} keeps changing)`,
        { hint: 'use the server that started, or retry', data: { server_json: path } },
      ),
  });
  return { release: () => releaseIfOurs(ctx, path, record.token) };
}

/** The record of the server running on the repository, if one runs (a record left by a killed server is none). */
export function liveServerRecord(ctx: Context, path: string): Partial<ServerRecord> | undefined {
  const r = readRecord(ctx, path);
  return r === undefined || isGone(ctx, r) ? undefined : r;
}

function releaseIfOurs(ctx: Context, path: string, token: string): void {
  // A record that is not ours belongs to a server that took over a record it believed dead: it stays.
  if (readRecord(ctx, path)?.token === token) tryUnlink(ctx.fs, path);
}
