/**
 * bench/calls' load generator: `clients` HTTP clients at once, each sending
 * `perClient` one-file batches to `shadow serve` one after the other, in a
 * process of its own (the bench's own, grown to hundreds of megabytes by
 * its repositories, would add its collections to the clients' time).
 *
 *   node load-clients.js <port> <token> <draft> <clients> <perClient> <tag> [http|fetch]
 *
 * `http` (the default) sends through node's own `http` with a kept-alive
 * socket a client, the least a client costs, as a load generator for a
 * server should (autocannon, wrk); `fetch` through node's `fetch` (undici),
 * what most agent runtimes call, which costs about 1 ms of CPU a request and
 * so, on a machine of two cores, takes that much from the server. Prints one
 * JSON line: the seconds from the first request to the last answer, the
 * batches not answered 200, and the CPU the clients took.
 */
import * as http from 'node:http';

type Post = (path: string, text: string) => Promise<boolean>;

function httpPoster(port: number, token: string, draft: string): Post {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return (path, text) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ operations: [{ operation: 'write', path, content: text }] });
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: `/api/batch?draft=${encodeURIComponent(draft)}`,
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

function fetchPoster(port: number, token: string, draft: string): Post {
  return async (path, text) => {
    const r = await fetch(`http://127.0.0.1:${port}/api/batch?draft=${encodeURIComponent(draft)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operations: [{ operation: 'write', path, content: text }] }),
    });
    await r.arrayBuffer();
    return r.status === 200;
  };
}

async function main(): Promise<void> {
  const [port, token, draft, clients, perClient, tag, kind = 'http'] = process.argv.slice(2);
  if (!port || token === undefined || !draft || !clients || !perClient || !tag || !['http', 'fetch'].includes(kind))
    throw new Error('usage: load-clients <port> <token> <draft> <clients> <perClient> <tag> [http|fetch]');
  const n = Number(clients);
  const per = Number(perClient);
  // One poster a client: each keeps its own socket, as separate agents' processes would.
  const posters = Array.from({ length: n }, () =>
    kind === 'fetch' ? fetchPoster(Number(port), token, draft) : httpPoster(Number(port), token, draft),
  );
  let failed = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    posters.map(async (post, c) => {
      for (let i = 0; i < per; i++) {
        const ok = await post(`par/${tag}/c${c}/f${i}.txt`, `client ${c} batch ${i} ${tag}\n`).catch(() => false);
        if (!ok) failed++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(`${JSON.stringify({ seconds, failed, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
