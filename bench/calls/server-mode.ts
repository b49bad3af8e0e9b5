/**
 * bench/calls' server mode: `shadow serve`'s HTTP API as an agent runtime
 * that keeps one process uses it. One client sending k=1 batches one after
 * another (p50, p99), then 16 clients at once on one draft, sent by a load
 * generator in a process of its own (calls/load-clients.ts): batches a
 * second over several rounds, the CPU the server and the clients spent a
 * batch, and every batch accounted for in the draft's history. The same
 * rounds again with node's `fetch` as the clients, for what an agent
 * runtime's usual client costs on the same cores.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median, ms, quantile } from '../helpers/stats.js';

const LOAD_CLIENTS = fileURLToPath(new URL('./load-clients.js', import.meta.url));

/** 16 clients' rounds on one draft, by one kind of client. */
export interface Concurrent {
  /** `http`: node's own, the load generator; `fetch`: node's fetch (undici). */
  client: 'http' | 'fetch';
  clients: number;
  /** Batches a round (clients × per client). */
  batches: number;
  /** Batches a second of each round. */
  rates: number[];
  failed: number;
  /** Batches of these rounds in the draft's history (each of its own draft). */
  inHistory: number;
  /** CPU ms a batch, medians of the rounds: the server's (undefined where /proc is not), the clients'. */
  serverCpu: number | undefined;
  clientCpu: number;
}

export interface ServerMode {
  sequential: number[];
  /** The same batches sent to the bare durable server (calls/floors.ts), alternating with shadow's. */
  floor: number[];
  /** By the load generator (the target's figure), then by fetch. */
  concurrent: Concurrent[];
}

/** CPU ms process `pid` has used, user and system, from /proc (undefined elsewhere). */
function cpuOf(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, in clock ticks: 100 a second on every Linux node runs on.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

async function post(port: number, token: string, draft: string, path: string, text: string): Promise<boolean> {
  const r = await fetch(
    token === '' ? `http://127.0.0.1:${port}/` : `http://127.0.0.1:${port}/api/batch?draft=${draft}`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operations: [{ operation: 'write', path, content: text }] }),
    },
  );
  await r.arrayBuffer();
  return r.status === 200;
}

/**
 * `calls` sequential batches, each followed by the same request to the bare
 * durable server on `floorPort`, then rounds of `clients` × `perClient`
 * concurrent ones: five by the load generator, three by fetch, each kind on
 * a draft of its own.
 */
export async function measureServerMode(
  server: { port: number; token: string; pid: number },
  floorPort: number,
  dir: string,
  env: Record<string, string>,
  calls: number,
  clients: number,
  perClient: number,
): Promise<ServerMode> {
  const sequential: number[] = [];
  const floor: number[] = [];
  for (let i = -20; i < calls; i++) {
    let t = performance.now();
    if (!(await post(server.port, server.token, 'server-seq', `seq/f${i % 50}.txt`, `call ${i}\n`)))
      throw new Error('a sequential batch failed');
    if (i >= 0) sequential.push(performance.now() - t);
    t = performance.now();
    if (!(await post(floorPort, '', '', `seq/f${i % 50}.txt`, `call ${i}\n`)))
      throw new Error('the bare durable server failed');
    if (i >= 0) floor.push(performance.now() - t);
  }
  const concurrent = (['http', 'fetch'] as const).map((client) =>
    measureConcurrent(server, dir, env, client, clients, perClient, client === 'http' ? 5 : 3),
  );
  return { sequential, floor, concurrent };
}

/**
 * `rounds` of `clients` × `perClient` batches by one kind of client, on the
 * draft `server-par-<client>`, each round a run of the load generator.
 */
export function measureConcurrent(
  server: { port: number; token: string; pid: number },
  dir: string,
  env: Record<string, string>,
  client: 'http' | 'fetch',
  clients: number,
  perClient: number,
  rounds: number,
): Concurrent {
  const draft = `server-par-${client}`;
  const rates: number[] = [];
  const serverCpu: number[] = [];
  const clientCpu: number[] = [];
  let failed = 0;
  for (let round = 0; round < rounds; round++) {
    const before = cpuOf(server.pid);
    const r = spawnSync(
      process.execPath,
      [LOAD_CLIENTS, String(server.port), server.token, draft, String(clients), String(perClient), `r${round}`, client],
      { encoding: 'utf8' },
    );
    const after = cpuOf(server.pid);
    if (r.status !== 0) throw new Error(`the load generator failed: ${r.stderr}`);
    const out = JSON.parse(r.stdout) as { seconds: number; failed: number; cpuMs: number };
    const batches = clients * perClient;
    rates.push(batches / out.seconds);
    failed += out.failed;
    clientCpu.push(out.cpuMs / batches);
    if (before !== undefined && after !== undefined) serverCpu.push((after - before) / batches);
  }
  const log = spawnSync('git', ['rev-list', '--count', `refs/shadow/drafts/${draft}`], {
    cwd: dir,
    env,
    encoding: 'utf8',
  });
  const base = spawnSync('git', ['rev-list', '--count', 'HEAD'], { cwd: dir, env, encoding: 'utf8' });
  return {
    client,
    clients,
    batches: clients * perClient,
    rates,
    failed,
    inHistory: Number(log.stdout.trim()) - Number(base.stdout.trim()),
    serverCpu: serverCpu.length === rounds ? median(serverCpu) : undefined,
    clientCpu: median(clientCpu),
  };
}

/** One kind of client's rounds, as the bench prints them. */
export function concurrentLine(c: Concurrent): string {
  const by =
    c.client === 'http'
      ? "the load generator (node's http, a kept-alive socket a client; calls/load-clients.ts)"
      : "node's fetch (undici)";
  const cpu = `CPU a batch: the server ${c.serverCpu === undefined ? '-' : ms(c.serverCpu)} ms, the clients ${ms(c.clientCpu)} ms`;
  return (
    `${c.clients} clients at once on one draft, by ${by}: ${c.rates.length} rounds of ${c.batches} batches, ` +
    `${c.rates.map((r) => r.toFixed(0)).join(', ')} batches/s (median ${median(c.rates).toFixed(0)}); ${cpu}; ` +
    `${c.failed} failed, ${c.inHistory} of ${c.rates.length * c.batches} in the draft's history`
  );
}

export const p99 = (xs: readonly number[]): number => quantile(xs, 0.99);
