import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { SHADOW_BIN, type DiskRepo } from './disk-repo.js';

/**
 * Helpers for the write-session tests over HTTP and the CLI: a small JSON
 * client on node's fetch, a raw request (fetch will not send a foreign Host
 * header), a controllable streamed body, a reader that waits for text on a
 * child's output, and `shadow serve` as a real child process.
 */

export interface Reply {
  status: number;
  headers: Headers;
  /** Parsed JSON when the reply is JSON, else the text. */
  body: any;
  bytes: Buffer;
}

export type Body = string | Buffer | Uint8Array | ReadableStream<Uint8Array>;

/** A client for one server: `call('POST', '/api/...', {json})`. */
export class Api {
  constructor(
    readonly url: string,
    readonly token: string,
  ) {}

  async call(
    method: string,
    path: string,
    options: {
      json?: unknown;
      text?: Body;
      type?: string;
      headers?: Record<string, string>;
      token?: string | null;
    } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.token : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: Body | undefined;
    if (options.json !== undefined) {
      body = typeof options.json === 'string' ? options.json : JSON.stringify(options.json);
      headers['content-type'] = options.type ?? 'application/json';
    } else if (options.text !== undefined) {
      body = options.text;
      headers['content-type'] = options.type ?? 'text/plain';
    }
    const init: RequestInit & { duplex?: 'half' } = { method, headers, body: body as RequestInit['body'] };
    if (body instanceof ReadableStream) init.duplex = 'half';
    const r = await fetch(`${this.url}${path}`, init);
    const bytes = Buffer.from(await r.arrayBuffer());
    const isJson = (r.headers.get('content-type') ?? '').includes('application/json');
    return {
      status: r.status,
      headers: r.headers,
      body: isJson ? JSON.parse(bytes.toString('utf8')) : bytes.toString('utf8'),
      bytes,
    };
  }

  begin(input: Record<string, unknown>): Promise<Reply> {
    return this.call('POST', '/api/write-session/begin', { json: input });
  }

  content(id: string, text: Body, type?: string): Promise<Reply> {
    return this.call('POST', `/api/write-session/${id}/content`, { text, type });
  }

  finalize(input: Record<string, unknown>): Promise<Reply> {
    return this.call('POST', '/api/write-session/finalize', { json: input });
  }

  status(id: string): Promise<Reply> {
    return this.call('GET', `/api/write-session/status/${id}`);
  }
}

/** A request with node:http, for headers fetch will not send as given (Host). */
export function rawRequest(
  port: number,
  options: { method?: string; path: string; headers: Record<string, string>; setHost?: boolean; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        setHost: options.setHost ?? true,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* text */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A request body the test feeds by hand: `push` a chunk, `end` it; `sent` counts bytes taken by the client. */
export class Pushable {
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  sent = 0;
  readonly stream = new ReadableStream<Uint8Array>({
    start: (c) => {
      this.controller = c;
    },
  });

  push(chunk: string | Buffer): void {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.sent += b.length;
    this.controller.enqueue(new Uint8Array(b));
  }

  end(): void {
    this.controller.close();
  }
}

/**
 * A body generated on demand in chunks of `chunk` bytes up to `total`;
 * `produced` says how much the client pulled (a server that stops reading
 * stops the pulling, up to what the socket buffers hold).
 */
export function generated(
  total: number,
  chunk: Buffer,
): { stream: ReadableStream<Uint8Array>; produced: () => number } {
  let produced = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (produced >= total) {
        c.close();
        return;
      }
      const n = Math.min(chunk.length, total - produced);
      produced += n;
      c.enqueue(new Uint8Array(chunk.subarray(0, n)));
    },
  });
  return { stream, produced: () => produced };
}

/** Collects a stream's text and resolves `waitFor` once a pattern shows up (rejects if the stream ends first). */
export class OutputReader {
  text = '';
  private ended = false;
  private waiters: Array<() => void> = [];

  constructor(stream: Readable | null) {
    stream?.setEncoding('utf8');
    stream?.on('data', (d: string) => {
      this.text += d;
      this.wake();
    });
    stream?.on('end', () => {
      this.ended = true;
      this.wake();
    });
  }

  private wake(): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }

  /** Resolves with the text when `test` holds for it. `guardMs` only keeps a broken run from hanging. */
  waitFor(test: RegExp | ((text: string) => boolean), guardMs = 15_000): Promise<string> {
    const ok = (): boolean => (typeof test === 'function' ? test(this.text) : test.test(this.text));
    return new Promise((resolve, reject) => {
      const guard = setTimeout(
        () => reject(new Error(`waited ${guardMs} ms for ${String(test)}; got:\n${this.text}`)),
        guardMs,
      );
      const check = (): void => {
        if (ok()) {
          clearTimeout(guard);
          resolve(this.text);
        } else if (this.ended) {
          clearTimeout(guard);
          reject(new Error(`the stream ended without ${String(test)}; got:\n${this.text}`));
        } else {
          this.waiters.push(check);
        }
      };
      check();
    });
  }
}

/** How often `needle` occurs in `text`. */
export function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** A child process's exit. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Run `shadow <args>` in `repo` as a child whose stdin the test writes. */
export function spawnShadow(
  repo: DiskRepo,
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; stdout: OutputReader; stderr: OutputReader } {
  const child = spawn(process.execPath, [SHADOW_BIN, ...args], {
    cwd: repo.dir,
    env: { ...repo.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return { child, stdout: new OutputReader(child.stdout), stderr: new OutputReader(child.stderr) };
}

export interface ServeChild {
  child: ChildProcess;
  stdout: OutputReader;
  stderr: OutputReader;
  port: number;
  token: string;
  pid: number;
  api: Api;
  infoPath: string;
}

/** `shadow serve` in `repo`, once it serves: its port and token from server.json. */
export async function serveChild(repo: DiskRepo, args: string[] = []): Promise<ServeChild> {
  const { child, stdout, stderr } = spawnShadow(repo, ['serve', ...args]);
  try {
    await stdout.waitFor(/shadow serving http:\/\/127\.0\.0\.1:\d+/);
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\nstderr: ${stderr.text}`);
  }
  const infoPath = repo.path('.git/shadow/server.json');
  const info = JSON.parse(readFileSync(infoPath, 'utf8')) as { port: number; token: string; pid: number };
  return {
    child,
    stdout,
    stderr,
    port: info.port,
    token: info.token,
    pid: info.pid,
    api: new Api(`http://127.0.0.1:${info.port}`, info.token),
    infoPath,
  };
}
