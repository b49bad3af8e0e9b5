/**
 * bench/calls' server mode: `shadow serve`'s HTTP API as an agent runtime
 * that keeps one process uses it. One client sending k=1 batches one after
 * another (p50, p99), then 16 clients at once on one draft (batches a
 * second, and every batch accounted for in the draft's history).
 */
import { spawnSync } from 'node:child_process';
import { quantile } from '../helpers/stats.js';

export interface ServerMode {
  sequential: number[];
  /** The same batches sent to the bare durable server (calls/floors.ts), alternating with shadow's. */
  floor: number[];
  concurrent: { clients: number; batches: number; seconds: number; failed: number; inHistory: number };
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
 * durable server on `floorPort`, then `clients` × `perClient` concurrent
 * ones, on drafts of their own.
 */
export async function measureServerMode(
  server: { port: number; token: string },
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
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; i < perClient; i++)
        if (!(await post(server.port, server.token, 'server-par', `par/c${c}/f${i}.txt`, `client ${c} batch ${i}\n`)))
          failed++;
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const log = spawnSync('git', ['rev-list', '--count', 'refs/shadow/drafts/server-par'], {
    cwd: dir,
    env,
    encoding: 'utf8',
  });
  const base = spawnSync('git', ['rev-list', '--count', 'HEAD'], { cwd: dir, env, encoding: 'utf8' });
  const inHistory = Number(log.stdout.trim()) - Number(base.stdout.trim());
  return { sequential, floor, concurrent: { clients, batches: clients * perClient, seconds, failed, inHistory } };
}

export const p99 = (xs: readonly number[]): number => quantile(xs, 0.99);
