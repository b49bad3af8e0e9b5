import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { openShadow, type Shadow } from '../src/index.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';
import { commits, CONFLICT_CODES, connect, fsck, showAll, TOOL_NAMES, type Mcp } from './helpers/mcp-client.js';
import { codeOf, okJson, STACK_LINE } from './helpers/tool-outcome.js';

/*
 * `shadow mcp` over stdio: one client on the default draft (the protocol, a
 * batch, read-back, a 2 MB write, rollback), and the raw JSON-RPC channel.
 * Every outcome is checked through the tools and through native git. The
 * client is reused across the tests of a suite: a node process costs about
 * 0.3 s to start.
 */

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

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
  assert.is(
    server.version,
    PACKAGE_VERSION,
    `the server says version ${server.version}; the package is ${PACKAGE_VERSION}`,
  );
});

Main('initialize: capabilities and instructions', ({ mcp }) => {
  assert.ok(mcp.client.getServerCapabilities()?.tools, 'no tools capability');
  assert.match(mcp.client.getInstructions() ?? '', /draft.*batch_write.*propose/s);
});

Main(
  'tools/list: the 14 tools (no apply), exactly as `shadow tools --format mcp` prints them',
  async ({ repo, mcp }) => {
    const listed = (await mcp.client.listTools()).tools;
    assert.equal(
      listed.map((t) => t.name),
      TOOL_NAMES,
    );
    const printed = repo.shadow(['tools', '--format', 'mcp']);
    assert.is(printed.status, 0, printed.stderr);
    const defs = printed.json() as any[];
    assert.equal(
      defs.map((d) => d.name),
      TOOL_NAMES,
    );
    listed.forEach((t, i) => {
      assert.equal(
        {
          name: t.name,
          title: t.title,
          description: t.description,
          inputSchema: t.inputSchema,
          outputSchema: t.outputSchema,
          annotations: t.annotations,
        },
        defs[i],
        t.name,
      );
      assert.is(t.inputSchema.type, 'object');
    });
  },
);

Main(
  'batch_write: the seed batch is one commit by the client (its name is the actor); read back by read_file and native git; the working tree untouched',
  async ({ repo, mcp }) => {
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
    assert.equal(
      [c!.oid, c!.subject, c!.author, c!.email],
      [r.commit, 'add greeting', 'Claude Code', 'claude-code@shadow.invalid'],
    );
    const { 'Shadow-Ops': fingerprint, ...named } = c!.trailers;
    assert.equal(named, {
      'Shadow-Draft': 'default',
      'Shadow-Batch': '1',
      'Shadow-Actor': 'Claude Code',
      'Shadow-Actor-Type': 'ai',
    });
    assert.match(fingerprint!, /^[0-9a-f]{64}$/);
    assert.is(repo.git('show', 'refs/shadow/drafts/default:src/hello.ts'), 'export const hi = 1\n');
    assert.is(repo.git('show', 'refs/shadow/drafts/default:README.md'), 'Hello, world\n');
    assert.is(repo.gitResult('cat-file', '-e', 'refs/shadow/drafts/default:old.txt').status, 128);
    assert.is(
      (await mcp.call('read_file', { path: 'src/hello.ts' })).text,
      'src/hello.ts (from the draft): lines 1-1 of 1\n     1\texport const hi = 1',
    );
    assert.is(
      (await mcp.call('read_file', { path: 'README.md' })).text,
      'README.md (from the draft): lines 1-1 of 1\n     1\tHello, world',
    );
    assert.is(codeOf(await mcp.call('read_file', { path: 'old.txt' })), 'NOT_FOUND');
    assert.is(repo.read('README.md'), 'Hello\n');
    assert.is(repo.read('old.txt'), 'old\n');
    assert.is(repo.exists('src/hello.ts'), false);
    assert.is(repo.git('status', '--porcelain'), '');
    fsck(repo);
  },
);

Main(
  'bad batches: isError with the code the library gives; a cut-off operations string is INVALID_JSON; EDIT_NO_MATCH shows the closest lines; nothing written',
  async ({ repo, mcp, sh }) => {
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
    const cut = JSON.stringify([
      { operation: 'write', path: 'big.md', content: 'the transport cut this off somewhere in the mid' },
    ]).slice(0, -10);
    const truncated = await mcp.call('batch_write', { intent: 'cut', operations: cut });
    assert.is(codeOf(truncated), 'INVALID_JSON');
    assert.match(truncated.text, /cut off/);
    assert.match(truncated.text, /truncated/);
    const noMatch = await mcp.call('batch_write', {
      operations: [{ operation: 'edit', path: 'src/app.js', old_content: '  return "hello " + name;', content: 'x' }],
    });
    assert.is(codeOf(noMatch), 'EDIT_NO_MATCH');
    assert.ok(noMatch.text.includes('return \\"hi \\" + name;'), noMatch.text);
    assert.match(noMatch.text, /line 2/);
    assert.is(repo.ref('refs/shadow/drafts/default'), tip);
  },
);

Main(
  'apply is neither listed nor callable: INVALID_ARGUMENT, and the working tree stays as it was',
  async ({ repo, mcp }) => {
    const r = await mcp.call('apply', {});
    assert.is(codeOf(r), 'INVALID_ARGUMENT');
    assert.match(r.text, /shadow apply/);
    assert.is(repo.read('README.md'), 'Hello\n');
    assert.is(repo.exists('src/hello.ts'), false);
  },
);

Main(
  'reads over MCP: list_files recursive skips ignored files, search, diff (patch and stat), log, status',
  async ({ repo, mcp }) => {
    repo.write('debug.log', 'greet in an ignored log\n');
    repo.write('notes.txt', 'greet, untracked\n');
    const files = (await mcp.call('list_files', { recursive: true })).text.split('\n');
    assert.equal(files, [
      '5 files; * marks what the draft changed',
      '.gitignore',
      'README.md  *',
      'notes.txt',
      'src/app.js',
      'src/hello.ts  *',
    ]);
    assert.is(
      (await mcp.call('search', { pattern: 'greet' })).text,
      '2 matching lines in 5 files searched\nnotes.txt:1: greet, untracked\nsrc/app.js:1: function greet(name) {',
    );
    assert.is(
      (await mcp.call('search', { pattern: 'GREE+T\\b', regex: true, case_sensitive: false, path: 'src' })).text,
      '1 matching line in 2 files searched\nsrc/app.js:1: function greet(name) {',
    );
    assert.is(codeOf(await mcp.call('search', { pattern: '[z-a]', regex: true })), 'INVALID_ARGUMENT');
    assert.is(
      (await mcp.call('diff', { stat: true })).text,
      'M         README.md  +1 -1\nD         old.txt  +0 -1\nA         src/hello.ts  +1 -0',
    );
    const patch = (await mcp.call('diff', {})).text;
    assert.ok(patch.includes('--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-Hello\n+Hello, world\n'), patch);
    const log = okJson(await mcp.call('log', {}));
    assert.equal(
      log.map((b: any) => [b.batch, b.actor, b.intent]),
      [[1, 'Claude Code', 'add greeting']],
    );
    const status = okJson(await mcp.call('status', {}));
    assert.equal([status.draft, status.batches, status.tip], ['default', 1, repo.ref('refs/shadow/drafts/default')]);
  },
);

Main(
  'a 2 MB file through begin_write / append_content / finalize_write: one commit, byte for byte; then rolled back and forward',
  async ({ repo, mcp }) => {
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
    const b = okJson(
      await mcp.call('begin_write', { target_file: 'data/big.txt', operation: 'create', intent: 'a big file' }),
    );
    assert.is(b.stage, 'awaiting_content');
    // Pieces of ~100 KB that cut lines in the middle.
    const PIECE = 100_003;
    let pieces = 0;
    for (let at = 0; at < content.length; at += PIECE) {
      const r = okJson(
        await mcp.call('append_content', { session_id: b.session_id, content: content.slice(at, at + PIECE) }),
      );
      assert.is(r.session_id, b.session_id);
      pieces++;
    }
    assert.ok(pieces >= 20, `${pieces} pieces`);
    const f = okJson(await mcp.call('finalize_write', { session_id: b.session_id }));
    assert.equal([f.success, f.batch], [true, 2]);
    assert.is(repo.ref('refs/shadow/drafts/default'), f.commit);
    const blob = spawnSync('git', ['cat-file', 'blob', 'refs/shadow/drafts/default:data/big.txt'], {
      cwd: repo.dir,
      env: repo.env,
      maxBuffer: 64 << 20,
    }).stdout as Buffer;
    assert.is(blob.length, Buffer.byteLength(content));
    assert.is(createHash('sha256').update(blob).digest('hex'), createHash('sha256').update(content).digest('hex'));
    const [c] = commits(repo, 'refs/shadow/drafts/default');
    assert.equal(
      [c!.subject, c!.trailers['Shadow-Session'], c!.trailers['Shadow-Actor']],
      ['a big file', b.session_id, 'Claude Code'],
    );
    assert.is(existsSync(repo.path(`.git/shadow/sessions/${b.session_id}`)), false);
    const part = (await mcp.call('read_file', { path: 'data/big.txt', start_line: 2001, end_line: 2002 })).text;
    assert.is(
      part,
      `data/big.txt (from the draft): lines 2001-2002 of ${lines.length}; more with start_line 2003\n  2001\t${lines[2000]!.slice(0, -1)}\n  2002\t${lines[2001]!.slice(0, -1)}`,
    );
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
    assert.match(
      (await mcp.call('read_file', { path: 'data/big.txt', start_line: lines.length })).text,
      new RegExp(`lines ${lines.length}-${lines.length} of ${lines.length}\\n`),
    );
    fsck(repo);
  },
);

Main(
  'parallel tool calls from one client (as models make them): 20 batches at once, all land, one commit each',
  async ({ repo, mcp }) => {
    const before = repo.ref('refs/shadow/drafts/default')!;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, k) =>
        mcp.call('batch_write', {
          intent: `parallel ${k}`,
          operations: [{ operation: 'write', path: `par/${k}.txt`, content: `${k}\n` }],
        }),
      ),
    );
    const out = results.map(okJson);
    assert.equal(
      out.map((r) => r.batch).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, k) => 3 + k),
    );
    const tip = repo.ref('refs/shadow/drafts/default')!;
    const log = commits(repo, `${before}..${tip}`);
    assert.is(log.length, 20);
    assert.equal(new Set(log.map((c) => c.oid)), new Set(out.map((r) => r.commit)));
    const files = showAll(
      repo,
      tip,
      Array.from({ length: 20 }, (_, k) => `par/${k}.txt`),
    );
    for (let k = 0; k < 20; k++) assert.is(files.get(`par/${k}.txt`), `${k}\n`);
    // And on one file at once: each lands or conflicts; the file holds the newest landed write.
    const same = await Promise.all(
      Array.from({ length: 8 }, (_, k) =>
        mcp.call('batch_write', {
          intent: `same ${k}`,
          operations: [{ operation: 'write', path: 'par/same.txt', content: `${k}\n` }],
        }),
      ),
    );
    const won = same.flatMap((r, k) => (r.isError ? [] : [k]));
    for (const r of same) if (r.isError) assert.ok(CONFLICT_CODES.includes(codeOf(r)), r.text.slice(0, 300));
    assert.ok(won.length >= 1);
    const newest = commits(repo, `${tip}..refs/shadow/drafts/default`);
    assert.is(newest.length, won.length);
    assert.is(repo.git('show', 'refs/shadow/drafts/default:par/same.txt'), `${newest[0]!.subject.split(' ')[1]}\n`);
    fsck(repo);
  },
);

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
  const child = spawn(process.execPath, [SHADOW_BIN, 'mcp'], {
    cwd: repo.dir,
    env: repo.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const send = (m: unknown): boolean => child.stdin.write(`${JSON.stringify(m)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-client', version: '0' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  send({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: {
      name: 'batch_write',
      arguments: { operations: [{ operation: 'write', path: 'raw.txt', content: 'raw\n' }] },
    },
  });
  child.stdin.end();
  assert.is(await exited, 0, stderr);
  // Requests are served concurrently: answers may come in any order.
  const messages = stdout
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l))
    .sort((a, b) => a.id - b.id);
  assert.equal(
    messages.map((m) => m.id),
    [1, 2, 3],
  );
  for (const m of messages) assert.is(m.jsonrpc, '2.0');
  assert.is(messages[0].result.serverInfo.name, 'shadow');
  assert.equal(
    messages[1].result.tools.map((t: any) => t.name),
    TOOL_NAMES,
  );
  assert.is(messages[2].result.isError, false, JSON.stringify(messages[2]));
  assert.is(JSON.parse(messages[2].result.content[0].text).batch, 1);
  assert.is(repo.git('show', 'refs/shadow/drafts/default:raw.txt'), 'raw\n');
  assert.is(commits(repo, 'refs/shadow/drafts/default')[0]!.trailers['Shadow-Actor'], 'raw-client');
  assert.is(stderr, '');
});

Raw('outside a repository: exit 1, the reason on stderr, nothing on the protocol channel', ({ repo }) => {
  const r = spawnSync(process.execPath, [SHADOW_BIN, 'mcp'], {
    cwd: repo.root,
    env: repo.env,
    input: '',
    encoding: 'utf8',
  });
  assert.is(r.status, 1, r.stderr);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /repository/i);
  assert.not.match(r.stderr, STACK_LINE);
});

Raw.run();
