import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Profile } from '../src/agent-tools/definitions.js';
import {
  answerInitializeEarly,
  initializeAnswer,
  MCP_PROTOCOL_VERSIONS,
} from '../src/agent-tools/mcp-early-initialize.js';
import { instructions, MCP_CAPABILITIES, MCP_SERVER_NAME } from '../src/agent-tools/mcp-identity.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';

/*
 * `shadow mcp` answers `initialize` before it loads the MCP SDK. The SDK is
 * the oracle: every answer written early is the one its server writes for
 * the same request, and every request it would refuse is left to it.
 */

const SERVER = { version: '9.8.7', profiles: ['shadow', 'anthropic'] as Profile[] };

/**
 * The line the SDK's server writes in answer to `request` (configured as
 * `shadow mcp` configures it), or undefined when it refuses the message
 * without an answer (its transport reports an error).
 */
async function sdkAnswer(request: string): Promise<string | undefined> {
  const server = new Server(
    { name: MCP_SERVER_NAME, version: SERVER.version },
    { capabilities: MCP_CAPABILITIES, instructions: instructions(SERVER.profiles) },
  );
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let out = '';
  const line = new Promise<string | undefined>((resolve) => {
    stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (out.includes('\n')) resolve(out);
    });
    server.onerror = () => resolve(undefined);
  });
  await server.connect(new StdioServerTransport(stdin, stdout));
  stdin.write(`${request}\n`);
  const answer = await line;
  await server.close();
  return answer;
}

const init = (params: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params,
  ...extra,
});
const client = { name: 'Claude Code', version: '2.0.1' };

/** Requests the early answer takes: the shapes clients send. */
const TAKEN: Array<[string, unknown]> = [
  ...SUPPORTED_PROTOCOL_VERSIONS.map((v): [string, unknown] => [
    `protocol ${v}`,
    init({ protocolVersion: v, capabilities: {}, clientInfo: client }),
  ]),
  ['an unknown protocol version', init({ protocolVersion: '2099-01-01', capabilities: {}, clientInfo: client })],
  ['a string id', { ...init({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: client }), id: 'init-0' }],
  [
    'capabilities of a full client',
    init({
      protocolVersion: '2025-06-18',
      capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} },
      clientInfo: { ...client, title: 'Claude Code' },
    }),
  ],
];

/** Requests left to the SDK: the first REFUSED it refuses, the others are shapes it may take. */
const REFUSED = 7;
const LEFT: Array<[string, unknown]> = [
  ['no clientInfo', init({ protocolVersion: '2025-06-18', capabilities: {} })],
  [
    'clientInfo without a version',
    init({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x' } }),
  ],
  ['a number for a version', init({ protocolVersion: 20250618, capabilities: {}, clientInfo: client })],
  ['capabilities not an object', init({ protocolVersion: '2025-06-18', capabilities: [], clientInfo: client })],
  [
    'roots.listChanged not a boolean',
    init({ protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: 'yes' } }, clientInfo: client }),
  ],
  ['a fractional id', { ...init({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: client }), id: 1.5 }],
  [
    'not JSON-RPC 2.0',
    { ...init({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: client }), jsonrpc: '1.0' },
  ],
  ['params with _meta', init({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: client, _meta: {} })],
  [
    'clientInfo with icons',
    init({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { ...client, icons: [] } }),
  ],
  ['another method', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }],
];

const Answer = suite('the answer to initialize, against the MCP SDK');

Answer('the protocol versions are the SDK’s, newest first', () => {
  assert.equal([...MCP_PROTOCOL_VERSIONS], [...SUPPORTED_PROTOCOL_VERSIONS]);
  assert.is(MCP_PROTOCOL_VERSIONS[0], LATEST_PROTOCOL_VERSION);
});

Answer('for each request a client sends, the early answer is the SDK’s, byte for byte', async () => {
  for (const [name, request] of TAKEN) {
    const early = initializeAnswer(request, SERVER);
    assert.ok(early, `${name}: answered early`);
    assert.is(early.line, await sdkAnswer(JSON.stringify(request)), name);
  }
});

Answer('a request of any other shape is left to the SDK; the malformed ones are those the SDK refuses', async () => {
  for (const [name, request] of LEFT) assert.is(initializeAnswer(request, SERVER), undefined, name);
  for (const [name, request] of LEFT.slice(0, REFUSED)) {
    const sdk = await sdkAnswer(JSON.stringify(request));
    const refused = sdk === undefined || (JSON.parse(sdk) as { error?: unknown }).error !== undefined;
    assert.ok(refused, `${name}: the SDK refuses it`);
  }
});

const Stream = suite('answerInitializeEarly: one answer per request, the SDK reads every byte');

Stream(
  'the answer goes out at once; the SDK reads the same bytes; its own answer to initialize is dropped',
  async () => {
    const request = JSON.stringify(TAKEN[1]![1]);
    const stdin = new PassThrough();
    const written: string[] = [];
    const warnings: string[] = [];
    stdin.write(`${request}\r\n{"jsonrpc":"2.0","id":2,`);
    const early = await answerInitializeEarly(
      stdin,
      (b) => written.push(b.toString('utf8')),
      SERVER,
      (s) => warnings.push(s),
    );
    assert.equal(written, [initializeAnswer(TAKEN[1]![1], SERVER)!.line], 'answered before the SDK is involved');
    let replayed = '';
    early.stdin.on('data', (d: Buffer) => (replayed += d.toString('utf8')));
    stdin.end('"method":"tools/list"}\n');
    await new Promise((r) => early.stdin.once('end', r));
    assert.is(replayed, `${request}\r\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n`, 'every byte, in order');
    // What the SDK writes: its answer to initialize (dropped), then the rest.
    early.write(Buffer.from((await sdkAnswer(request))!));
    early.write(Buffer.from('{"result":{"tools":[]},"jsonrpc":"2.0","id":2}\n'));
    early.write(Buffer.from('{"result":{},"jsonrpc":"2.0","id":1}\n'));
    assert.is(written.length, 3);
    assert.is(written[1], '{"result":{"tools":[]},"jsonrpc":"2.0","id":2}\n');
    assert.is(written[2], '{"result":{},"jsonrpc":"2.0","id":1}\n', 'only the first answer to that id is dropped');
    assert.equal(warnings, [], 'the SDK answered as the early answer did');
  },
);

Stream('a first message that is not an initialize it takes: nothing is written early, nothing dropped', async () => {
  for (const first of ['not json', JSON.stringify(LEFT[0]![1])]) {
    const stdin = new PassThrough();
    const written: string[] = [];
    stdin.end(`${first}\n`);
    const early = await answerInitializeEarly(
      stdin,
      (b) => written.push(b.toString('utf8')),
      SERVER,
      () => {},
    );
    assert.equal(written, []);
    early.write(Buffer.from('{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}\n'));
    assert.is(written.length, 1, first);
  }
});

Stream('stdin that ends before a newline: the bytes go to the SDK, which sees the end', async () => {
  const stdin = new PassThrough();
  stdin.end('{"jsonrpc"');
  const early = await answerInitializeEarly(
    stdin,
    () => assert.unreachable('nothing to answer'),
    SERVER,
    () => {},
  );
  let replayed = '';
  early.stdin.on('data', (d: Buffer) => (replayed += d.toString('utf8')));
  await new Promise((r) => early.stdin.once('end', r));
  assert.is(replayed, '{"jsonrpc"');
});

const Process = suite<{ repo: DiskRepo }>('shadow mcp: initialize is answered before the SDK loads');
Process.before((c) => {
  c.repo = new DiskRepo({ 'a.txt': 'a\n' });
});
Process.after((c) => c.repo.cleanup());

Process(
  'the answer is on stdout before the SDK is required; then tools/list is answered, once per id',
  async ({ repo }) => {
    // A probe preloaded into the server: it writes a line on stdout (synchronously, in order with the
    // protocol) when the MCP SDK is first required.
    const probe = join(repo.root, 'probe.cjs');
    writeFileSync(
      probe,
      [
        "const Module = require('node:module');",
        "const fs = require('node:fs');",
        'const load = Module._load;',
        'let seen = false;',
        // The SDK by its package name (from the sources), or as the bundle's file apart (cli/bundle.mjs).
        "const sdk = (r) => r.startsWith('@modelcontextprotocol/sdk') || /(^|\\/)mcp-sdk\\.cjs$/.test(r);",
        'Module._load = function (request, ...rest) {',
        '  if (!seen && sdk(request)) { seen = true; fs.writeSync(1, \'{"probe":"sdk"}\\n\'); }',
        '  return load.call(this, request, ...rest);',
        '};',
      ].join('\n'),
    );
    const child = spawn(process.execPath, ['--require', probe, SHADOW_BIN, 'mcp'], {
      cwd: repo.dir,
      env: repo.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    // Every line up to the answer to tools/list (id 2): whatever the probe saw or missed, the wait ends there.
    const lines = (): Promise<string[]> =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const ls = out.split('\n').slice(0, -1).filter(Boolean);
          if (ls.some((l) => (JSON.parse(l) as { id?: unknown }).id === 2)) resolve(ls);
        };
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString('utf8');
          check();
        });
        child.once('exit', () => reject(new Error(`shadow mcp exited: ${err}`)));
        check();
      });
    const request = TAKEN[1]![1] as Record<string, unknown>;
    child.stdin.write(`${JSON.stringify(request)}\n`);
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    child.stdin.write('{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}\n');
    const got = await lines();
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
    const messages = got.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(
      messages[0],
      JSON.parse(
        initializeAnswer(request, {
          version: (messages[0] as { result: { serverInfo: { version: string } } }).result.serverInfo.version,
          profiles: ['shadow'],
        })!.line,
      ),
    );
    assert.equal(messages[1], { probe: 'sdk' }, 'the SDK loads after the answer');
    assert.is(messages[2]!.id, 2);
    assert.ok(Array.isArray((messages[2]!.result as { tools: unknown[] }).tools));
    assert.is(out.split('\n').filter(Boolean).length, 3, 'no second answer to initialize');
    assert.is(err, '');
  },
);

Answer.run();
Stream.run();
Process.run();
