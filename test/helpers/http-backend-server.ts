/**
 * `git http-backend` behind a tiny node HTTP server on 127.0.0.1, run as a
 * process of its own (remotes.ts starts it) so that a test may block on
 * `spawnSync` while git talks to it. Argument: the project root (the
 * directory holding the bare repositories). Prints `{"port": N}` once it
 * listens; stops on SIGTERM, ending the requests in flight.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';

const root = process.argv[2] ?? '';
if (!root) {
  process.stderr.write('usage: http-backend-server <project root>\n');
  process.exit(2);
}

const running = new Set<ChildProcess>();

/**
 * For tests that kill a client mid-request: with HTTP_BACKEND_MARK_DIR set,
 * each POST (a push's receive-pack, a fetch's upload-pack) leaves a file
 * `<service>-<n>` there when it arrives, and is held HTTP_BACKEND_HOLD_MS
 * before git sees it, so a test polling for the file has a window.
 */
const markDir = process.env.HTTP_BACKEND_MARK_DIR;
const holdMs = Number(process.env.HTTP_BACKEND_HOLD_MS ?? 0);
let posts = 0;

const server = createServer((req, res) => {
  if (markDir !== undefined && req.method === 'POST') {
    const service = /git-[a-z-]+$/.exec(new URL(req.url ?? '/', 'http://127.0.0.1').pathname)?.[0] ?? 'post';
    writeFileSync(join(markDir, `${service}-${++posts}`), '');
    req.pause();
    setTimeout(() => serve(req, res), holdMs);
    return;
  }
  serve(req, res);
});

function serve(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  // The CGI environment http-backend reads; REMOTE_USER lets receive-pack run (the repository also says http.receivepack).
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    REMOTE_USER: 'test',
    REMOTE_ADDR: '127.0.0.1',
  };
  if (req.headers['content-length'] !== undefined) env.CONTENT_LENGTH = String(req.headers['content-length']);
  if (req.headers['content-encoding'] !== undefined)
    env.HTTP_CONTENT_ENCODING = String(req.headers['content-encoding']);
  if (req.headers['git-protocol'] !== undefined) env.GIT_PROTOCOL = String(req.headers['git-protocol']);
  const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  running.add(child);
  child.on('close', () => running.delete(child));
  req.pipe(child.stdin);
  child.stdin.on('error', () => {});
  // CGI output: headers (Status: among them), a blank line, the body.
  let head = Buffer.alloc(0);
  let inBody = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (inBody) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    const endLf = head.indexOf('\n\n');
    const at = end !== -1 ? end : endLf;
    if (at === -1) return;
    const sep = end !== -1 ? 4 : 2;
    let status = 200;
    for (const line of head.subarray(0, at).toString('latin1').split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon === -1) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    inBody = true;
    const rest = head.subarray(at + sep);
    if (rest.length > 0) res.write(rest);
  });
  child.on('close', () => {
    if (!inBody) res.writeHead(502);
    res.end();
  });
}

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});

process.on('SIGTERM', () => {
  for (const child of running) child.kill('SIGKILL');
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
