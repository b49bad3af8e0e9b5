import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import AjvModule from 'ajv/dist/2020.js';
import { openShadow, type Shadow } from '../src/index.js';
import { formatTools, offeredTools } from '../src/agent-tools/definitions.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';

/*
 * `shadow mcp` as an agent's runtime drives it: real `shadow mcp` processes
 * (the bundled CLI) on real repositories, spoken to by the MCP SDK's own
 * Client over stdio; and `shadow tools`. Every outcome is checked through the
 * tools and through native git. Clients are reused across the tests of a
 * suite: a node process costs about 0.3 s to start.
 */

const Ajv2020 = AjvModule.default;
const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const TOKEN = 'ghp_' + 'k7Q2mZ9xR4tB8wN1vC6yL3pH5sD0fJ2gA9eU'; // made up, shaped like a classic GitHub token
const STACK_LINE = /^\s+at /m;
/** Codes a batch may fail with when others changed the same paths first. (BUSY: the draft kept moving.) */
const CONFLICT_CODES = ['CONFLICT', 'EDIT_NO_MATCH', 'BUSY'];
const TOOL_NAMES = [
  'batch_write', 'read_file', 'list_files', 'search', 'begin_write', 'append_content', 'finalize_write',
  'diff', 'log', 'status', 'checkpoint', 'rollback', 'propose', 'apply_status',
];

interface Outcome {
  isError: boolean;
  text: string;
}

/** One `shadow mcp` process and the SDK client connected to it. */
interface Mcp {
  client: Client;
  name: string;
  stderr(): string;
  call(tool: string, args: Record<string, unknown>): Promise<Outcome>;
  close(): Promise<void>;
}

async function connect(repo: DiskRepo, name: string, args: string[] = []): Promise<Mcp> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SHADOW_BIN, 'mcp', ...args],
    cwd: repo.dir,
    env: repo.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    name,
    stderr: () => stderr,
    async call(tool, toolArgs) {
      const r = (await client.callTool({ name: tool, arguments: toolArgs })) as { content: Array<{ type: string; text: string }>; isError?: boolean };
      assert.is(r.content.length, 1, `${tool}: ${JSON.stringify(r)}`);
      assert.is(r.content[0]!.type, 'text');
      const out = { isError: r.isError === true, text: r.content[0]!.text };
      if (out.isError) assert.not.match(out.text, STACK_LINE, `a stack trace from ${tool}: ${out.text}`);
      return out;
    },
    close: () => client.close(),
  };
}

function codeOf(r: Outcome): string {
  assert.ok(r.isError, `expected an error, got: ${r.text.slice(0, 500)}`);
  const m = /^([A-Z_]+): /.exec(r.text);
  assert.ok(m, `the error text does not start with a code: ${r.text.slice(0, 300)}`);
  return m![1]!;
}

function okJson(r: Outcome): any {
  assert.is(r.isError, false, r.text.slice(0, 2000));
  return JSON.parse(r.text);
}

interface Commit {
  oid: string;
  author: string;
  email: string;
  subject: string;
  trailers: Record<string, string>;
}

/** The commits of `range`, newest first, read by native git, with their Shadow-* trailers. */
function commits(repo: DiskRepo, range: string): Commit[] {
  const out = repo.git('log', '--format=%H%x01%an%x01%ae%x01%B%x02', range);
  return out
    .split('\x02')
    .map((s) => s.replace(/^\n/, ''))
    .filter((s) => s.length > 0)
    .map((s) => {
      const [oid, author, email, body] = s.split('\x01') as [string, string, string, string];
      const trailers: Record<string, string> = {};
      for (const m of body.matchAll(/^(Shadow-[A-Za-z-]+): (.*)$/gm)) trailers[m[1]!] = m[2]!;
      return { oid, author, email, subject: body.split('\n')[0]!, trailers };
    });
}

/** Many files of a commit at once: `git cat-file --batch`. */
function showAll(repo: DiskRepo, ref: string, paths: string[]): Map<string, string> {
  const r = spawnSync('git', ['cat-file', '--batch'], { cwd: repo.dir, env: repo.env, input: paths.map((p) => `${ref}:${p}\n`).join(''), maxBuffer: 64 << 20 });
  assert.is(r.status, 0, String(r.stderr));
  const buf = r.stdout as Buffer;
  const out = new Map<string, string>();
  let at = 0;
  for (const p of paths) {
    const nl = buf.indexOf(10, at);
    const header = buf.subarray(at, nl).toString();
    const m = /^[0-9a-f]{40} blob (\d+)$/.exec(header);
    assert.ok(m, `${p}: ${header}`);
    const size = Number(m![1]);
    out.set(p, buf.subarray(nl + 1, nl + 1 + size).toString());
    at = nl + 1 + size + 1;
  }
  return out;
}

function fsck(repo: DiskRepo): void {
  const r = repo.gitResult('fsck', '--strict', '--no-progress', '--no-dangling');
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.is(r.stderr.trim(), '', r.stderr);
}

/* ------------------------------------------------------------------------------------------------
 * One client on the default draft: the protocol, a batch, read-back, a 2 MB write, rollback.
 * ---------------------------------------------------------------------------------------------- */

interface MainCtx {
  repo: DiskRepo;
  mcp: Mcp;
  sh: Shadow;
}

const Main = suite<MainCtx>('shadow mcp over stdio');
Main.before(async (c) => {
  c.repo = new DiskRepo({
    'README.md': 'Hello\n',
    'old.txt': 'old\n',
    'src/app.js': 'function greet(name) {\n  return "hi " + name;\n}\n',
    '.gitignore': '*.log\n',
  });
  c.mcp = await connect(c.repo, 'Claude Code');
  c.sh = await openShadow({ dir: c.repo.dir, env: {} });
});
Main.after(async (c) => {
  await c.mcp.close();
  c.sh.close();
  c.repo.cleanup();
});

Main('initialize: the server names itself shadow, with the package version', ({ mcp }) => {
  const server = mcp.client.getServerVersion()!;
  assert.is(server.name, 'shadow');
  assert.is(server.version, PACKAGE_VERSION, `the server says version ${server.version}; the package is ${PACKAGE_VERSION}`);
});

Main('initialize: capabilities and instructions', ({ mcp }) => {
  assert.ok(mcp.client.getServerCapabilities()?.tools, 'no tools capability');
  assert.match(mcp.client.getInstructions() ?? '', /draft.*batch_write.*propose/s);
});

Main('tools/list: the 14 tools (no apply), exactly as `shadow tools --format mcp` prints them', async ({ repo, mcp }) => {
  const listed = (await mcp.client.listTools()).tools;
  assert.equal(listed.map((t) => t.name), TOOL_NAMES);
  const printed = repo.shadow(['tools', '--format', 'mcp']);
  assert.is(printed.status, 0, printed.stderr);
  const defs = printed.json() as any[];
  assert.equal(defs.map((d) => d.name), TOOL_NAMES);
  listed.forEach((t, i) => {
    assert.equal({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations }, defs[i], t.name);
    assert.is(t.inputSchema.type, 'object');
  });
});

Main('batch_write: the seed batch is one commit by the client (its name is the actor); read back by read_file and native git; the working tree untouched', async ({ repo, mcp }) => {
  const r = okJson(
    await mcp.call('batch_write', {
      intent: 'add greeting',
      operations: [
        { operation: 'write', path: 'src/hello.ts', content: 'export const hi = 1\n' },
        { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, world' },
        { operation: 'delete', path: 'old.txt' },
      ],
    }),
  );
  assert.equal([r.success, r.batch, r.draft], [true, 1, 'default']);
  assert.is(repo.ref('refs/shadow/drafts/default'), r.commit);
  const [c] = commits(repo, 'refs/shadow/drafts/default');
  assert.equal([c!.oid, c!.subject, c!.author, c!.email], [r.commit, 'add greeting', 'Claude Code', 'claude-code@shadow.invalid']);
  const { 'Shadow-Ops': fingerprint, ...named } = c!.trailers;
  assert.equal(named, { 'Shadow-Draft': 'default', 'Shadow-Batch': '1', 'Shadow-Actor': 'Claude Code' });
  assert.match(fingerprint!, /^[0-9a-f]{64}$/);
  assert.is(repo.git('show', 'refs/shadow/drafts/default:src/hello.ts'), 'export const hi = 1\n');
  assert.is(repo.git('show', 'refs/shadow/drafts/default:README.md'), 'Hello, world\n');
  assert.is(repo.gitResult('cat-file', '-e', 'refs/shadow/drafts/default:old.txt').status, 128);
  assert.is((await mcp.call('read_file', { path: 'src/hello.ts' })).text, 'src/hello.ts (from the draft): lines 1-1 of 1\n     1\texport const hi = 1');
  assert.is((await mcp.call('read_file', { path: 'README.md' })).text, 'README.md (from the draft): lines 1-1 of 1\n     1\tHello, world');
  assert.is(codeOf(await mcp.call('read_file', { path: 'old.txt' })), 'NOT_FOUND');
  assert.is(repo.read('README.md'), 'Hello\n');
  assert.is(repo.read('old.txt'), 'old\n');
  assert.is(repo.exists('src/hello.ts'), false);
  assert.is(repo.git('status', '--porcelain'), '');
  fsck(repo);
});

Main('bad batches: isError with the code the library gives; a cut-off operations string is INVALID_JSON; EDIT_NO_MATCH shows the closest lines; nothing written', async ({ repo, mcp, sh }) => {
  const tip = repo.ref('refs/shadow/drafts/default');
  const bad: unknown[] = [
    { intent: 'no operations' },
    { operations: [{ operation: 'frobnicate', path: 'a.txt' }] },
    { operations: [{ operation: 'write', path: 'a.txt' }] },
    { operations: [{ operation: 'write', path: '/etc/passwd', content: 'x' }] },
    { operations: [{ operation: 'write', path: '../outside.txt', content: 'x' }] },
    { operations: [{ operation: 'write', path: '.git/x', content: 'x' }] },
  ];
  for (const b of bad) {
    const lib = await sh.batch(b);
    assert.is(lib.success, false);
    const r = await mcp.call('batch_write', b as Record<string, unknown>);
    assert.is(codeOf(r), lib.error!.code, JSON.stringify(b));
    assert.is(codeOf(r), 'INVALID_BATCH');
  }
  const cut = JSON.stringify([{ operation: 'write', path: 'big.md', content: 'the transport cut this off somewhere in the mid' }]).slice(0, -10);
  const truncated = await mcp.call('batch_write', { intent: 'cut', operations: cut });
  assert.is(codeOf(truncated), 'INVALID_JSON');
  assert.match(truncated.text, /cut off/);
  assert.match(truncated.text, /truncated/);
  const noMatch = await mcp.call('batch_write', { operations: [{ operation: 'edit', path: 'src/app.js', old_content: '  return "hello " + name;', content: 'x' }] });
  assert.is(codeOf(noMatch), 'EDIT_NO_MATCH');
  assert.ok(noMatch.text.includes('return \\"hi \\" + name;'), noMatch.text);
  assert.match(noMatch.text, /line 2/);
  assert.is(repo.ref('refs/shadow/drafts/default'), tip);
});

Main('apply is neither listed nor callable: INVALID_ARGUMENT, and the working tree stays as it was', async ({ repo, mcp }) => {
  const r = await mcp.call('apply', {});
  assert.is(codeOf(r), 'INVALID_ARGUMENT');
  assert.match(r.text, /shadow apply/);
  assert.is(repo.read('README.md'), 'Hello\n');
  assert.is(repo.exists('src/hello.ts'), false);
});

Main('reads over MCP: list_files recursive skips ignored files, search, diff (patch and stat), log, status', async ({ repo, mcp }) => {
  repo.write('debug.log', 'greet in an ignored log\n');
  repo.write('notes.txt', 'greet, untracked\n');
  const files = (await mcp.call('list_files', { recursive: true })).text.split('\n');
  assert.equal(files, ['5 files; * marks what the draft changed', '.gitignore', 'README.md  *', 'notes.txt', 'src/app.js', 'src/hello.ts  *']);
  assert.is((await mcp.call('search', { pattern: 'greet' })).text, '2 matching lines in 5 files searched\nnotes.txt:1: greet, untracked\nsrc/app.js:1: function greet(name) {');
  assert.is((await mcp.call('search', { pattern: 'GREE+T\\b', regex: true, case_sensitive: false, path: 'src' })).text, '1 matching line in 2 files searched\nsrc/app.js:1: function greet(name) {');
  assert.is(codeOf(await mcp.call('search', { pattern: '[z-a]', regex: true })), 'INVALID_ARGUMENT');
  assert.is((await mcp.call('diff', { stat: true })).text, 'M         README.md  +1 -1\nD         old.txt  +0 -1\nA         src/hello.ts  +1 -0');
  const patch = (await mcp.call('diff', {})).text;
  assert.ok(patch.includes('--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-Hello\n+Hello, world\n'), patch);
  const log = okJson(await mcp.call('log', {}));
  assert.equal(log.map((b: any) => [b.batch, b.actor, b.intent]), [[1, 'Claude Code', 'add greeting']]);
  const status = okJson(await mcp.call('status', {}));
  assert.equal([status.draft, status.batches, status.tip], ['default', 1, repo.ref('refs/shadow/drafts/default')]);
});

Main('a 2 MB file through begin_write / append_content / finalize_write: one commit, byte for byte; then rolled back and forward', async ({ repo, mcp }) => {
  const cp = okJson(await mcp.call('checkpoint', { name: 'before-big', message: 'just the greeting' }));
  assert.is(repo.ref('refs/shadow/checkpoints/default/before-big^{commit}'), cp.commit);

  const lines: string[] = [];
  let size = 0;
  for (let n = 1; size < 2 * 1024 * 1024; n++) {
    const line = `${String(n).padStart(6, '0')} ${'lorem ipsum dolor sit amet '.repeat(2)}${n % 7 === 0 ? 'DONE is not alone on this line' : ''}\n`;
    lines.push(line);
    size += line.length;
  }
  const content = lines.join('');
  const b = okJson(await mcp.call('begin_write', { target_file: 'data/big.txt', operation: 'create', intent: 'a big file' }));
  assert.is(b.stage, 'awaiting_content');
  // Pieces of ~100 KB that cut lines in the middle.
  const PIECE = 100_003;
  let pieces = 0;
  for (let at = 0; at < content.length; at += PIECE) {
    const r = okJson(await mcp.call('append_content', { session_id: b.session_id, content: content.slice(at, at + PIECE) }));
    assert.is(r.session_id, b.session_id);
    pieces++;
  }
  assert.ok(pieces >= 20, `${pieces} pieces`);
  const f = okJson(await mcp.call('finalize_write', { session_id: b.session_id }));
  assert.equal([f.success, f.batch], [true, 2]);
  assert.is(repo.ref('refs/shadow/drafts/default'), f.commit);
  const blob = spawnSync('git', ['cat-file', 'blob', 'refs/shadow/drafts/default:data/big.txt'], { cwd: repo.dir, env: repo.env, maxBuffer: 64 << 20 }).stdout as Buffer;
  assert.is(blob.length, Buffer.byteLength(content));
  assert.is(createHash('sha256').update(blob).digest('hex'), createHash('sha256').update(content).digest('hex'));
  const [c] = commits(repo, 'refs/shadow/drafts/default');
  assert.equal([c!.subject, c!.trailers['Shadow-Session'], c!.trailers['Shadow-Actor']], ['a big file', b.session_id, 'Claude Code']);
  assert.is(existsSync(repo.path(`.git/shadow/sessions/${b.session_id}`)), false);
  const part = (await mcp.call('read_file', { path: 'data/big.txt', start_line: 2001, end_line: 2002 })).text;
  assert.is(part, `data/big.txt (from the draft): lines 2001-2002 of ${lines.length}; more with start_line 2003\n  2001\t${lines[2000]!.slice(0, -1)}\n  2002\t${lines[2001]!.slice(0, -1)}`);
  assert.is(repo.exists('data/big.txt'), false);

  // Roll back to the checkpoint: the ref moves, the file is gone from the view, the tip left is kept.
  const back = okJson(await mcp.call('rollback', { target: 'before-big' }));
  assert.equal([back.from, back.to], [f.commit, cp.commit]);
  assert.is(repo.ref('refs/shadow/drafts/default'), cp.commit);
  assert.is(codeOf(await mcp.call('read_file', { path: 'data/big.txt' })), 'NOT_FOUND');
  assert.is(repo.ref(`refs/shadow/checkpoints/default/${back.kept}^{commit}`), f.commit);
  // Forward again by batch number.
  okJson(await mcp.call('rollback', { target: '2' }));
  assert.is(repo.ref('refs/shadow/drafts/default'), f.commit);
  assert.match((await mcp.call('read_file', { path: 'data/big.txt', start_line: lines.length })).text, new RegExp(`lines ${lines.length}-${lines.length} of ${lines.length}\\n`));
  fsck(repo);
});

Main('parallel tool calls from one client (as models make them): 20 batches at once, all land, one commit each', async ({ repo, mcp }) => {
  const before = repo.ref('refs/shadow/drafts/default')!;
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, k) => mcp.call('batch_write', { intent: `parallel ${k}`, operations: [{ operation: 'write', path: `par/${k}.txt`, content: `${k}\n` }] })),
  );
  const out = results.map(okJson);
  assert.equal(out.map((r) => r.batch).sort((a, b) => a - b), Array.from({ length: 20 }, (_, k) => 3 + k));
  const tip = repo.ref('refs/shadow/drafts/default')!;
  const log = commits(repo, `${before}..${tip}`);
  assert.is(log.length, 20);
  assert.equal(new Set(log.map((c) => c.oid)), new Set(out.map((r) => r.commit)));
  const files = showAll(repo, tip, Array.from({ length: 20 }, (_, k) => `par/${k}.txt`));
  for (let k = 0; k < 20; k++) assert.is(files.get(`par/${k}.txt`), `${k}\n`);
  // And on one file at once: each lands or conflicts; the file holds the newest landed write.
  const same = await Promise.all(
    Array.from({ length: 8 }, (_, k) => mcp.call('batch_write', { intent: `same ${k}`, operations: [{ operation: 'write', path: 'par/same.txt', content: `${k}\n` }] })),
  );
  const won = same.flatMap((r, k) => (r.isError ? [] : [k]));
  for (const r of same) if (r.isError) assert.ok(CONFLICT_CODES.includes(codeOf(r)), r.text.slice(0, 300));
  assert.ok(won.length >= 1);
  const newest = commits(repo, `${tip}..refs/shadow/drafts/default`);
  assert.is(newest.length, won.length);
  assert.is(repo.git('show', 'refs/shadow/drafts/default:par/same.txt'), `${newest[0]!.subject.split(' ')[1]}\n`);
  fsck(repo);
});

Main('the server said nothing on stderr', ({ mcp }) => {
  assert.is(mcp.stderr(), '');
});

Main.run();

/* ------------------------------------------------------------------------------------------------
 * The raw protocol: stdout carries JSON-RPC only; the server ends when its stdin does.
 * ---------------------------------------------------------------------------------------------- */

const Raw = suite<{ repo: DiskRepo }>('shadow mcp, the raw stdio protocol');
Raw.before((c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n' });
});
Raw.after((c) => c.repo.cleanup());

Raw('JSON-RPC lines only on stdout, answers to each request, exit 0 once stdin ends', async ({ repo }) => {
  const child = spawn(process.execPath, [SHADOW_BIN, 'mcp'], { cwd: repo.dir, env: repo.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const send = (m: unknown): boolean => child.stdin.write(`${JSON.stringify(m)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-client', version: '0' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'batch_write', arguments: { operations: [{ operation: 'write', path: 'raw.txt', content: 'raw\n' }] } } });
  child.stdin.end();
  assert.is(await exited, 0, stderr);
  // Requests are served concurrently: answers may come in any order.
  const messages = stdout.split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l)).sort((a, b) => a.id - b.id);
  assert.equal(messages.map((m) => m.id), [1, 2, 3]);
  for (const m of messages) assert.is(m.jsonrpc, '2.0');
  assert.is(messages[0].result.serverInfo.name, 'shadow');
  assert.equal(messages[1].result.tools.map((t: any) => t.name), TOOL_NAMES);
  assert.is(messages[2].result.isError, false, JSON.stringify(messages[2]));
  assert.is(JSON.parse(messages[2].result.content[0].text).batch, 1);
  assert.is(repo.git('show', 'refs/shadow/drafts/default:raw.txt'), 'raw\n');
  assert.is(commits(repo, 'refs/shadow/drafts/default')[0]!.trailers['Shadow-Actor'], 'raw-client');
  assert.is(stderr, '');
});

Raw('outside a repository: exit 1, the reason on stderr, nothing on the protocol channel', ({ repo }) => {
  const r = spawnSync(process.execPath, [SHADOW_BIN, 'mcp'], { cwd: repo.root, env: repo.env, input: '', encoding: 'utf8' });
  assert.is(r.status, 1, r.stderr);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /repository/i);
  assert.not.match(r.stderr, STACK_LINE);
});

Raw.run();

/* ------------------------------------------------------------------------------------------------
 * Four clients on one draft at once.
 * ---------------------------------------------------------------------------------------------- */

const NAMES = ['claude', 'codex', 'cursor', 'gemini'];
const BATCHES = 25;

interface ConcCtx {
  repo: DiskRepo;
  clients: Mcp[];
  root: string;
  phase1Tip: string;
}

const Conc = suite<ConcCtx>('four MCP clients, one draft');
Conc.before(async (c) => {
  c.repo = new DiskRepo({
    'README.md': 'Hello\n',
    'shared/lines.txt': NAMES.map((n) => `${n}=0\n`).join(''),
    'shared/turn.txt': 'turn=0\n',
    'shared/claim.txt': 'unclaimed\n',
  });
  c.root = c.repo.ref('HEAD')!;
  c.clients = await Promise.all(NAMES.map((n) => connect(c.repo, n, ['--draft', 'conc'])));
});
Conc.after(async (c) => {
  await Promise.all(c.clients.map((m) => m.close()));
  c.repo.cleanup();
});

Conc('25 batches each, at once, on distinct files: 100 batch commits, none lost, each with its actor', async (c) => {
  const { repo, clients } = c;
  const results = await Promise.all(
    clients.map(async (m, i) => {
      const out: any[] = [];
      for (let j = 1; j <= BATCHES; j++) {
        out.push(okJson(await m.call('batch_write', { intent: `${NAMES[i]} ${j}`, operations: [{ operation: 'write', path: `${NAMES[i]}/f${j}.txt`, content: `${NAMES[i]} wrote batch ${j}\n` }] })));
      }
      return out;
    }),
  );
  const all = results.flat();
  assert.is(all.length, 100);
  assert.equal(all.map((r) => r.batch).sort((a, b) => a - b), Array.from({ length: 100 }, (_, i) => i + 1));
  const tip = repo.ref('refs/shadow/drafts/conc')!;
  c.phase1Tip = tip;
  assert.is(repo.git('rev-list', '--count', `${c.root}..${tip}`).trim(), '100');
  const log = commits(repo, `${c.root}..${tip}`);
  assert.equal(new Set(log.map((x) => x.oid)), new Set(all.map((r) => r.commit)));
  const perActor = new Map<string, number>();
  for (const x of log) {
    const [actor, j] = x.subject.split(' ') as [string, string];
    assert.ok(NAMES.includes(actor), x.subject);
    assert.is(x.trailers['Shadow-Actor'], actor, x.subject);
    assert.is(x.author, actor, x.subject);
    assert.is(x.trailers['Shadow-Draft'], 'conc');
    assert.ok(Number(j) >= 1 && Number(j) <= BATCHES);
    perActor.set(actor, (perActor.get(actor) ?? 0) + 1);
  }
  assert.equal([...perActor.entries()].sort(), NAMES.map((n) => [n, BATCHES]));
  // Every file, as native git reads it.
  const paths = NAMES.flatMap((n) => Array.from({ length: BATCHES }, (_, j) => `${n}/f${j + 1}.txt`));
  const contents = showAll(repo, tip, paths);
  for (const p of paths) {
    const [n, f] = p.split('/') as [string, string];
    assert.is(contents.get(p), `${n} wrote batch ${f.slice(1, -4)}\n`, p);
  }
  // And as each client reads another's files.
  for (let i = 0; i < clients.length; i++) {
    const other = NAMES[(i + 1) % NAMES.length]!;
    assert.is((await clients[i]!.call('read_file', { path: `${other}/f${BATCHES}.txt` })).text, `${other}/f${BATCHES}.txt (from the draft): lines 1-1 of 1\n     1\t${other} wrote batch ${BATCHES}`);
  }
  assert.is(repo.ref('refs/shadow/drafts/default'), undefined);
  fsck(repo);
});

Conc('the same files at once: each batch lands or fails with a conflict code; the draft holds exactly what the landed batches say', async (c) => {
  const { repo, clients } = c;
  interface Landed {
    who: number;
    j: number;
    commit: string;
    turn: string;
  }
  const landed: Landed[] = [];
  const failures = new Map<string, number>();
  const values = NAMES.map(() => 0);
  await Promise.all(
    clients.map(async (m, i) => {
      for (let j = 1; j <= BATCHES; j++) {
        const operations: unknown[] = [
          // This client's own line: only it changes it, so the edit merges whoever moved the tip.
          { operation: 'edit', path: 'shared/lines.txt', old_content: `${NAMES[i]}=${values[i]}\n`, content: `${NAMES[i]}=${j}\n` },
          // Everyone's counter: lands, is already there, or no longer matches.
          { operation: 'edit', path: 'shared/turn.txt', old_content: `turn=${j - 1}\n`, content: `turn=${j}\n` },
          // A whole-file write: conflicts with a write that landed while this batch was in flight.
          { operation: 'write', path: 'shared/last.txt', content: `${NAMES[i]} ${j}\n` },
        ];
        // One claim for four claimants: at most one lands.
        if (j === 1) operations.push({ operation: 'edit', path: 'shared/claim.txt', old_content: 'unclaimed', content: `claimed by ${NAMES[i]}` });
        const r = await m.call('batch_write', { intent: `shared ${NAMES[i]} ${j}`, operations });
        if (r.isError) {
          const code = codeOf(r);
          assert.ok(CONFLICT_CODES.includes(code), r.text.slice(0, 500));
          assert.match(r.text, /Nothing was written/);
          failures.set(code, (failures.get(code) ?? 0) + 1);
          continue;
        }
        const out = JSON.parse(r.text);
        assert.is(out.success, true);
        values[i] = j;
        landed.push({ who: i, j, commit: out.commit, turn: out.results[1].status });
      }
    }),
  );
  const failed = [...failures.values()].reduce((a, b) => a + b, 0);
  assert.is(landed.length + failed, 100);
  assert.ok(failed >= 3, `only ${failed} failures: three of the four claims must fail`);
  assert.ok(landed.length >= 1);

  // Native git: exactly the landed batches, each by its actor, nothing else.
  const tip = repo.ref('refs/shadow/drafts/conc')!;
  const log = commits(repo, `${c.phase1Tip}..${tip}`);
  assert.is(log.length, landed.length);
  assert.equal(new Set(log.map((x) => x.oid)), new Set(landed.map((l) => l.commit)));
  assert.equal(new Set(log.map((x) => x.subject)), new Set(landed.map((l) => `shared ${NAMES[l.who]} ${l.j}`)));
  for (const x of log) {
    const actor = x.subject.split(' ')[1]!;
    assert.is(x.trailers['Shadow-Actor'], actor);
    assert.is(x.author, actor);
  }
  const batchNumbers = log.map((x) => Number(x.trailers['Shadow-Batch']));
  assert.equal([...batchNumbers].sort((a, b) => a - b), Array.from({ length: log.length }, (_, k) => 101 + k));

  // The final content follows from the landed batches alone.
  const newest = log[0]!.subject.split(' ');
  const claims = landed.filter((l) => l.j === 1);
  assert.ok(claims.length <= 1, `${claims.length} claims landed`);
  const expected: Record<string, string> = {
    'shared/lines.txt': NAMES.map((n, i) => `${n}=${values[i]}\n`).join(''),
    'shared/turn.txt': `turn=${landed.filter((l) => l.turn === 'updated').length}\n`,
    'shared/last.txt': `${newest[1]} ${newest[2]}\n`,
    'shared/claim.txt': claims.length === 1 ? `claimed by ${NAMES[claims[0]!.who]}\n` : 'unclaimed\n',
  };
  const git = showAll(repo, tip, Object.keys(expected));
  for (const [path, text] of Object.entries(expected)) {
    assert.is(git.get(path), text, path);
    const lines = text.slice(0, -1).split('\n');
    const view = (await clients[0]!.call('read_file', { path })).text;
    assert.is(view, `${path} (from the draft): lines 1-${lines.length} of ${lines.length}\n${lines.map((l, k) => `${String(k + 1).padStart(6)}\t${l}`).join('\n')}`);
  }
  // The working tree was never touched.
  assert.is(repo.git('status', '--porcelain'), '');
  fsck(repo);
});

Conc('the ledger of the draft is an intact chain after four writers', ({ repo }) => {
  const r = repo.shadow(['events', '--verify', '--draft', 'conc']);
  assert.is(r.status, 0, r.stdout + r.stderr);
});

Conc.run();

/* ------------------------------------------------------------------------------------------------
 * Which draft, which actor: --draft-per-actor, --draft, --actor.
 * ---------------------------------------------------------------------------------------------- */

const Drafts = suite<{ repo: DiskRepo }>('shadow mcp: --draft-per-actor, --draft, --actor');
Drafts.before((c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n' });
});
Drafts.after((c) => c.repo.cleanup());

Drafts('each client its own draft agent-<name>; --draft pins; --actor overrides the client\'s name', async ({ repo }) => {
  const setups: Array<{ name: string; args: string[]; draft: string; actor: string }> = [
    { name: 'Claude Code', args: ['--draft-per-actor'], draft: 'agent-claude-code', actor: 'Claude Code' },
    { name: 'Cursor Agent/2', args: ['--draft-per-actor'], draft: 'agent-cursor-agent-2', actor: 'Cursor Agent/2' },
    { name: 'Claude Code', args: ['--draft-per-actor', '--actor', 'Bob Smith'], draft: 'agent-bob-smith', actor: 'Bob Smith' },
    { name: 'pin-client', args: ['--draft', 'pinned'], draft: 'pinned', actor: 'pin-client' },
    { name: 'pin-client', args: ['--draft', 'pinned-as-alice', '--actor', 'alice'], draft: 'pinned-as-alice', actor: 'alice' },
  ];
  const clients = await Promise.all(setups.map((s) => connect(repo, s.name, s.args)));
  try {
    // All at once, all on the same path: each lands on its own draft.
    const results = await Promise.all(clients.map((m, k) => m.call('batch_write', { intent: `notes of ${k}`, operations: [{ operation: 'write', path: 'notes.md', content: `# notes of ${setups[k]!.actor}\n` }] })));
    for (let k = 0; k < setups.length; k++) {
      const s = setups[k]!;
      const r = okJson(results[k]!);
      assert.equal([r.draft, r.batch], [s.draft, 1], s.draft);
      assert.is(repo.ref(`refs/shadow/drafts/${s.draft}`), r.commit);
      assert.is(repo.git('show', `refs/shadow/drafts/${s.draft}:notes.md`), `# notes of ${s.actor}\n`);
      const [c] = commits(repo, `refs/shadow/drafts/${s.draft}`);
      assert.equal([c!.author, c!.trailers['Shadow-Actor'], c!.trailers['Shadow-Draft']], [s.actor, s.actor, s.draft]);
      assert.is(okJson(await clients[k]!.call('status', {})).draft, s.draft);
      assert.is((await clients[k]!.call('read_file', { path: 'notes.md' })).text, `notes.md (from the draft): lines 1-1 of 1\n     1\t# notes of ${s.actor}`);
      assert.is(okJson(await clients[k]!.call('log', {}))[0].actor, s.actor);
    }
    assert.is(repo.ref('refs/shadow/drafts/default'), undefined);
    assert.equal(readdirSync(repo.path('.git/refs/shadow/drafts')).sort(), setups.map((s) => s.draft).sort());
    assert.is(repo.exists('notes.md'), false);
  } finally {
    await Promise.all(clients.map((m) => m.close()));
  }
});

Drafts('--draft with --draft-per-actor is a usage error (exit 2)', ({ repo }) => {
  const r = repo.shadow(['mcp', '--draft', 'x', '--draft-per-actor'], { input: '' });
  assert.is(r.status, 2, r.stdout + r.stderr);
  assert.is(r.stdout, '');
});

Drafts.run();

/* ------------------------------------------------------------------------------------------------
 * --allow-apply: the person lets the agent publish; approvals still hold.
 * ---------------------------------------------------------------------------------------------- */

const Apply = suite<{ repo: DiskRepo; mcp: Mcp }>('shadow mcp --allow-apply');
Apply.before(async (c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n' });
  c.mcp = await connect(c.repo, 'applier', ['--allow-apply']);
});
Apply.after(async (c) => {
  await c.mcp.close();
  c.repo.cleanup();
});

Apply('apply is listed (destructive) only with --allow-apply', async ({ mcp }) => {
  const tools = (await mcp.client.listTools()).tools;
  assert.equal(tools.map((t) => t.name), [...TOOL_NAMES, 'apply']);
  assert.is(tools.at(-1)!.annotations?.destructiveHint, true);
});

Apply('a secret: apply_status lists the pending approval (redacted); propose freezes it; nothing is written', async ({ repo, mcp }) => {
  okJson(await mcp.call('batch_write', { intent: 'config', operations: [{ operation: 'write', path: 'src/config.ts', content: `export const token = "${TOKEN}";\n` }] }));
  const r = await mcp.call('apply_status', {});
  const s = okJson(r);
  assert.is(s.can_apply, false);
  assert.equal(s.pending_approvals.map((a: any) => [a.kind, a.paths]), [['secrets_override', ['src/config.ts']]]);
  assert.not.ok(r.text.includes(TOKEN.slice(4)));
  const p = okJson(await mcp.call('propose', { message: 'add config' }));
  assert.is(p.contains_secret_introductions, true);
  assert.is(repo.ref('refs/shadow/proposals/default'), p.commit);
  assert.is(repo.exists('src/config.ts'), false);
  assert.is(repo.git('status', '--porcelain'), '');
});

Apply('apply while approvals are pending writes nothing and is an error naming them', async ({ repo, mcp }) => {
  const review = repo.shadow(['review', '--json']).json();
  const id = review.approvals[0].id as string;
  const r = await mcp.call('apply', {});
  assert.is(repo.exists('src/config.ts'), false);
  assert.ok(r.text.includes(id), r.text.slice(0, 500));
  assert.not.ok(r.text.includes(TOKEN.slice(4)));
  assert.is(r.isError, true, `apply wrote nothing but returned a success result:\n${r.text.slice(0, 300)}`);
});

Apply('approved by the person (shadow approve), apply publishes into the working tree', async ({ repo, mcp }) => {
  const review = repo.shadow(['review', '--json']).json();
  const id = review.approvals[0].id as string;
  const a = repo.shadow(['approve', id, '--reason', 'test fixture', '--actor', 'the person']);
  assert.is(a.status, 0, a.stdout + a.stderr);
  const r = okJson(await mcp.call('apply', {}));
  assert.equal([r.ok, r.applied], [true, true]);
  assert.is(repo.read('src/config.ts'), `export const token = "${TOKEN}";\n`);
  assert.is(repo.read('README.md'), 'Hello\n');
  assert.is(mcp.stderr(), '');
});

Apply.run();

/* ------------------------------------------------------------------------------------------------
 * shadow tools --format openai|anthropic|mcp
 * ---------------------------------------------------------------------------------------------- */

const Tools = suite<{ repo: DiskRepo }>('shadow tools');
Tools.before((c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n' });
});
Tools.after((c) => c.repo.cleanup());

Tools('--format openai: [{type: "function", function: {name, description, parameters}}], exit 0', ({ repo }) => {
  const r = repo.shadow(['tools', '--format', 'openai']);
  assert.is(r.status, 0, r.stderr);
  const defs = r.json() as any[];
  assert.equal(defs, formatTools('openai', offeredTools()));
  assert.equal(defs.map((d) => d.function.name), TOOL_NAMES);
  for (const d of defs) {
    assert.equal(Object.keys(d).sort(), ['function', 'type']);
    assert.is(d.type, 'function');
    assert.equal(Object.keys(d.function).sort(), ['description', 'name', 'parameters']);
    assert.is(d.function.parameters.type, 'object');
  }
});

Tools('--format anthropic: [{name, description, input_schema}], exit 0; --allow-apply adds apply', ({ repo }) => {
  const r = repo.shadow(['tools', '--format', 'anthropic']);
  assert.is(r.status, 0, r.stderr);
  const defs = r.json() as any[];
  assert.equal(defs, formatTools('anthropic', offeredTools()));
  for (const d of defs) {
    assert.equal(Object.keys(d).sort(), ['description', 'input_schema', 'name']);
    assert.is(d.input_schema.type, 'object');
  }
  const withApply = repo.shadow(['tools', '--format', 'anthropic', '--allow-apply']);
  assert.is(withApply.status, 0);
  assert.equal((withApply.json() as any[]).map((d) => d.name), [...TOOL_NAMES, 'apply']);
});

Tools('a bad --format exits 2 and prints no definitions', ({ repo }) => {
  const r = repo.shadow(['tools', '--format', 'gemini']);
  assert.is(r.status, 2);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /gemini/);
});

Tools('the printed mcp schemas (ajv, draft 2020-12) take the seed batch and refuse what the engine refuses', ({ repo }) => {
  const r = repo.shadow(['tools', '--format', 'mcp']);
  assert.is(r.status, 0, r.stderr);
  const defs = r.json() as any[];
  assert.equal(defs, formatTools('mcp', offeredTools()));
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const check = new Map(defs.map((d) => [d.name as string, ajv.compile(d.inputSchema)]));
  const batch = check.get('batch_write')!;
  const seed = {
    operations: [
      { operation: 'write', path: 'src/hello.ts', content: 'export const hi = 1\n' },
      { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, world' },
      { operation: 'delete', path: 'old.txt' },
    ],
  };
  assert.ok(batch(seed), JSON.stringify(batch.errors));
  assert.ok(check.get('read_file')!({ path: 'README.md', start_line: 1, end_line: 10 }));
  assert.ok(check.get('begin_write')!({ target_file: 'a.md', operation: 'create' }));
  assert.ok(check.get('status')!({}));
  const refused = (b: unknown): boolean => !batch(b);
  assert.ok(refused({}), 'missing operations');
  assert.ok(refused({ operations: [{ operation: 'frobnicate', path: 'a.txt' }] }), 'unknown operation');
  assert.ok(refused({ operations: [{ operation: 'write', path: 'a.txt' }] }), 'missing content');
  const unsafe = ['/etc/passwd', '../outside.txt', '.git/x'].filter((p) => !refused({ operations: [{ operation: 'write', path: p, content: 'x' }] }));
  assert.equal(unsafe, [], `the printed schema accepts these paths: ${unsafe.join(', ')}`);
});

Tools.run();
