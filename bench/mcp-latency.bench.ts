/**
 * bench/mcp-latency.bench.ts: what one MCP tool call costs an agent, end to
 * end, over stdio: the MCP SDK's client (as an agent's runtime uses it)
 * against a real `shadow mcp --tools all` child process on a generated
 * repository, one call at a time, for a few tools of each shape:
 *
 *   read_file       shadow's read (numbered lines)
 *   read_text_file  the filesystem server's read
 *   view            the text editor's view
 *   list_directory  the filesystem server's listing
 *   str_replace     the text editor's edit: one commit on the draft
 *   write_file      the filesystem server's write: one commit
 *   batch_write     shadow's one-write batch: one commit
 *
 * against two baselines measured in the same run, interleaved call by call
 * with the others so that the machine's load weighs on all alike:
 *
 *   echo            the same SDK client and stdio transport to a trivial
 *                   server (this file, run with --echo-server) whose one
 *                   tool returns its argument: the protocol's own round trip
 *   git cat-file    `git cat-file -p HEAD:<path>` spawned per read: what a
 *                   tool that shells out to git pays for one read
 *
 * Prints per series the p50 and p90 ms of a call and the p50 over echo's
 * (shadow's own work). Before the calls, how soon a server is ready: spawn
 * to `initialize` answered, and to `tools/list` answered, against `node -e
 * 0` in the same rounds (calls/mcp-ready.ts). Targets: a read's p50 within
 * 5 ms of echo's; a write's p50 (a commit, fsynced) under 50 ms;
 * `initialize` answered within 2x `node -e 0`; exits 1 when one fails.
 *
 *   node dist/bench/mcp-latency.bench.js [--calls 200] [--warm 20] [--files 500]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { measureMcpReady } from './calls/mcp-ready.js';
import { positiveInt, readFlags } from './helpers/flags.js';
import { loadAverage, machineLine } from './helpers/machine.js';
import { gitEnv, run } from './helpers/repo.js';
import { median, ms, p90, table } from './helpers/stats.js';
import { printVerdicts, verdict } from './helpers/targets.js';
import { content, prng } from './helpers/workload.js';

const HERE = fileURLToPath(import.meta.url);
const SHADOW_BIN = fileURLToPath(new URL('../bin/shadow.cjs', import.meta.url));

if (process.argv.includes('--echo-server')) await echoServer();
else await main();

/** The baseline server: the SDK's low-level server on stdio, one tool that answers with its argument. */
async function echoServer(): Promise<void> {
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { CallToolRequestSchema, ListToolsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const server = new Server({ name: 'echo', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'echo',
        description: 'returns its text',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const text = String((req.params.arguments as { text?: unknown } | undefined)?.text ?? '');
    return { content: [{ type: 'text' as const, text }], structuredContent: { text } };
  });
  await server.connect(new StdioServerTransport());
}

async function main(): Promise<void> {
  let calls = 200;
  let warm = 20;
  let files = 500;
  readFlags(process.argv.slice(2), 'usage: node dist/bench/mcp-latency.bench.js [--calls N] [--warm N] [--files N]\n', {
    '--calls': (v) => (calls = positiveInt(v(), '--calls')),
    '--warm': (v) => (warm = positiveInt(v(), '--warm')),
    '--files': (v) => (files = positiveInt(v(), '--files')),
  });
  const scratch = mkdtempSync(join(tmpdir(), 'shadow-bench-mcp-'));
  const home = join(scratch, 'home');
  mkdirSync(home);
  const env = gitEnv(home);
  const dir = join(scratch, 'repo');
  const paths = makeRepo(dir, files, env);
  const started = performance.now();
  console.log('shadow MCP call latency (bench/mcp-latency.bench.ts)');
  console.log(machineLine(run('git', ['--version']).trim()));
  console.log(`load average at the start: ${loadAverage()}`);
  console.log(
    `${files} files; ${calls} measured calls per series after ${warm} warm-up rounds, the series interleaved call by call; one client, one call at a time\n`,
  );

  const ready = await measureMcpReady(SHADOW_BIN, dir, env, Math.min(calls, 20));
  const nodeP50 = median(ready.node);
  const readyRatio = median(ready.initialize) / nodeP50;
  console.log(
    table(
      ['from spawn to', 'p50 ms', 'p90 ms', 'ratio'],
      [
        ['node -e 0 exits', ms(nodeP50), ms(p90(ready.node)), '1.00x'],
        ['initialize answered', ms(median(ready.initialize)), ms(p90(ready.initialize)), `${readyRatio.toFixed(2)}x`],
        [
          'tools/list answered',
          ms(median(ready.toolsList)),
          ms(p90(ready.toolsList)),
          `${(median(ready.toolsList) / nodeP50).toFixed(2)}x`,
        ],
      ],
      2,
    ),
  );
  console.log('');

  const connect = async (args: string[], cwd: string): Promise<Client> => {
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args, cwd, env, stderr: 'ignore' }));
    await client.listTools(); // the client keeps the output schemas it checks results against
    return client;
  };
  const shadow = await connect([SHADOW_BIN, 'mcp', '--tools', 'all'], dir);
  const echo = await connect([HERE, '--echo-server'], dir);
  const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<void> => {
    const r = (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    if (r.isError) throw new Error(`${name}: ${r.content[0]?.text}`);
  };

  const rand = prng(11);
  const pick = (): string => paths[Math.floor(rand() * paths.length)]!;
  const dirs = [...new Set(paths.map((p) => dirname(p)))];
  // The text editor's str_replace needs its file viewed (or made) first; each edit then moves a counter on.
  await call(shadow, 'str_replace_based_edit_tool', {
    command: 'create',
    path: 'bench/edit.txt',
    file_text: 'value 0\n',
  });
  let counter = 0;
  const series: Array<{ name: string; kind: 'baseline' | 'read' | 'write'; run: (i: number) => Promise<void> | void }> =
    [
      { name: 'echo', kind: 'baseline', run: () => call(echo, 'echo', { text: 'x'.repeat(2000) }) },
      {
        name: 'git cat-file',
        kind: 'baseline',
        run: () => void run('git', ['cat-file', '-p', `HEAD:${pick()}`], { cwd: dir, env }),
      },
      { name: 'read_file', kind: 'read', run: () => call(shadow, 'read_file', { path: pick() }) },
      { name: 'read_text_file', kind: 'read', run: () => call(shadow, 'read_text_file', { path: join(dir, pick()) }) },
      {
        name: 'view',
        kind: 'read',
        run: () => call(shadow, 'str_replace_based_edit_tool', { command: 'view', path: join(dir, pick()) }),
      },
      {
        name: 'list_directory',
        kind: 'read',
        run: () => call(shadow, 'list_directory', { path: dirs[Math.floor(rand() * dirs.length)]! }),
      },
      {
        name: 'str_replace',
        kind: 'write',
        run: () =>
          call(shadow, 'str_replace_based_edit_tool', {
            command: 'str_replace',
            path: 'bench/edit.txt',
            old_str: `value ${counter}\n`,
            new_str: `value ${++counter}\n`,
          }),
      },
      {
        name: 'write_file',
        kind: 'write',
        run: (i) => call(shadow, 'write_file', { path: `bench/write-${i % 50}.txt`, content: `write ${i}\n` }),
      },
      {
        name: 'batch_write',
        kind: 'write',
        run: (i) =>
          call(shadow, 'batch_write', {
            operations: [{ operation: 'write', path: `bench/batch-${i % 50}.txt`, content: `batch ${i}\n` }],
          }),
      },
    ];
  const times = new Map(series.map((s) => [s.name, [] as number[]]));
  for (let i = 0; i < warm + calls; i++) {
    for (const s of series) {
      const t0 = performance.now();
      await s.run(i);
      if (i >= warm) times.get(s.name)!.push(performance.now() - t0);
    }
  }
  await Promise.all([shadow.close(), echo.close()]);
  const commits = Number(
    run('git', ['rev-list', '--count', 'main..refs/shadow/drafts/default'], { cwd: dir, env }).trim(),
  );
  rmSync(scratch, { recursive: true, force: true });

  const echoP50 = median(times.get('echo')!);
  const signed = (x: number): string => `${x >= 0 ? '+' : '-'}${ms(Math.abs(x))}`;
  const rows = series.map((s) => {
    const t = times.get(s.name)!;
    return [
      s.name,
      s.kind,
      String(t.length),
      ms(median(t)),
      ms(p90(t)),
      s.name === 'echo' ? '' : signed(median(t) - echoP50),
    ];
  });
  console.log(table(['call', 'kind', 'calls', 'p50 ms', 'p90 ms', 'p50 - echo'], rows, 2));
  console.log(`\n${commits} commits on the draft: one per write (3 a round, and the file the edits work on)`);

  const reads = series
    .filter((s) => s.kind === 'read')
    .map((s) => ({ name: s.name, over: median(times.get(s.name)!) - echoP50 }));
  const writes = series
    .filter((s) => s.kind === 'write')
    .map((s) => ({ name: s.name, p50: median(times.get(s.name)!) }));
  console.log('\n=== targets');
  printVerdicts(
    [
      verdict(
        'a read: p50 within 5 ms of the SDK echo round trip',
        reads.map((r) => ({ ok: r.over <= 5, text: `${r.name} ${signed(r.over)}` })),
        'no reads',
      ),
      verdict(
        'shadow mcp ready (initialize answered) within 2x node -e 0',
        [{ ok: readyRatio <= 2, text: `${readyRatio.toFixed(2)}x` }],
        '',
      ),
      verdict(
        'a write (one commit, fsynced): p50 under 50 ms',
        writes.map((w) => ({ ok: w.p50 < 50, text: `${w.name} ${ms(w.p50)}` })),
        'no writes',
      ),
    ],
    started,
  );
  const failed = [...reads.filter((r) => r.over > 5), ...writes.filter((w) => w.p50 >= 50)];
  process.exitCode = failed.length > 0 || readyRatio > 2 ? 1 : 0;
}

/** A repository of `n` generated files in directories of 25, committed on main; their paths. */
function makeRepo(dir: string, n: number, env: Record<string, string>): string[] {
  mkdirSync(dir);
  const git = (...args: string[]): string => run('git', args, { cwd: dir, env });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Bench');
  git('config', 'user.email', 'bench@example.com');
  const rand = prng(7);
  const paths: string[] = [];
  for (let i = 0; i < n; i++) {
    const path = `src/d${String(Math.floor(i / 25)).padStart(2, '0')}/f${String(i).padStart(4, '0')}.ts`;
    mkdirSync(join(dir, dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), content(rand, `// ${path}`));
    paths.push(path);
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'files');
  spawnSync('git', ['gc', '-q'], { cwd: dir, env });
  return paths;
}
