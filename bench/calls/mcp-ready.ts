/**
 * How soon a `shadow mcp` an agent starts is ready: from spawn to its
 * answer to `initialize`, and to its answer to the `tools/list` that
 * follows, against `node -e 0` spawned in the same rounds (interleaved).
 * The server is started as agent configs start it: node on shadow.cjs.
 */
import { spawn, spawnSync } from 'node:child_process';

export interface McpReady {
  node: number[];
  initialize: number[];
  toolsList: number[];
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
};
const MESSAGES = `${[
  INITIALIZE,
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
]
  .map((m) => JSON.stringify(m))
  .join('\n')}\n`;

/** One server: milliseconds from spawn to the first answer, and to the second. */
function once(bin: string, cwd: string, env: Record<string, string>): Promise<[number, number]> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [bin, 'mcp'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    const at: number[] = [];
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      while (at.length < (out.match(/\n/g) ?? []).length) at.push(performance.now() - t0);
      if (at.length >= 2) {
        child.stdin.end();
        resolve([at[0]!, at[1]!]);
      }
    });
    child.once('exit', () => at.length < 2 && reject(new Error(`shadow mcp exited early: ${out}`)));
    child.stdin.write(MESSAGES);
  });
}

/** `rounds` rounds (after one untimed), each a `node -e 0` and a `shadow mcp` started, asked and closed. */
export async function measureMcpReady(
  bin: string,
  cwd: string,
  env: Record<string, string>,
  rounds: number,
): Promise<McpReady> {
  const r: McpReady = { node: [], initialize: [], toolsList: [] };
  for (let i = -1; i < rounds; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { cwd, env });
    const node = performance.now() - t0;
    const [init, tools] = await once(bin, cwd, env);
    if (i < 0) continue;
    r.node.push(node);
    r.initialize.push(init);
    r.toolsList.push(tools);
  }
  return r;
}
