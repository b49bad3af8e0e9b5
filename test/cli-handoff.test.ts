import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';
import { runNode, type Run } from './helpers/run-node.js';
import { askSocket } from './helpers/handoff-socket.js';
import { exited, serveChild, spawnShadow } from './helpers/session-http.js';

/*
 * A one-shot command handed to a running shadow process (cli/handoff/): the
 * same bytes, exit statuses and refs as running it in the caller; a caller
 * that falls back to itself whenever the server is not there, not ours or
 * not of its build; and a server that stops mid-command costing nothing
 * but an honest error.
 *
 * Proof that a command was handed off: the caller is a copy of the
 * executable (shadow.cjs) with no CLI bundle beside it, which cannot run a
 * command itself.
 */

/** Object ids and times differ between two repositories doing the same work; everything else must not. */
function normalized(r: Run): Run {
  const n = (s: string): string =>
    s
      .replace(/\b[0-9a-f]{40}\b/g, '<oid>')
      .replace(/\b[0-9a-f]{12}\b/g, '<short>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
      .replace(/\d{4}-\d\d-\d\d \d\d:\d\d/g, '<time>')
      .replace(/shadow-test-[A-Za-z0-9]+/g, '<tmp>');
  return { status: r.status, stdout: n(r.stdout), stderr: n(r.stderr) };
}

const H = suite<{ repo: DiskRepo; twin: DiskRepo; bare: string }>('hand-off to a running shadow process');
H.before.each((c) => {
  const files = { 'a.txt': 'alpha\n', 'src/app.js': 'export const x = 1;\n' };
  c.repo = new DiskRepo(files);
  c.twin = new DiskRepo(files);
  // The caller without a CLI bundle: it can only hand off.
  c.bare = join(c.repo.root, 'bare-bin');
  mkdirSync(c.bare);
  copyFileSync(SHADOW_BIN, join(c.bare, 'shadow.cjs'));
});
H.after.each((c) => {
  c.repo.cleanup();
  c.twin.cleanup();
});

H(
  'with shadow serve running: stdin, cwd, -C, env, errors, usage and --json give the same bytes and exit statuses as a caller running them itself',
  async ({ repo, twin, bare }) => {
    const server = await serveChild(repo);
    try {
      const steps: Array<{ args: string[]; input?: string; sub?: string; env?: Record<string, string> }> = [
        {
          args: ['batch', '-'],
          input: JSON.stringify({
            operations: [
              { operation: 'write', path: 'b.txt', content: 'beta\n' },
              { operation: 'write', path: 'src/new.js', content: 'new\n' },
            ],
          }),
        },
        {
          args: ['write', 'notes.md'],
          input: 'written from a subdirectory\n',
          sub: 'src',
          env: { SHADOW_ACTOR: 'carol' },
        },
        { args: ['cat', 'notes.md', '--json'], sub: 'src' },
        { args: ['status'] },
        { args: ['diff'] },
        { args: ['log', '--json'] },
        { args: ['batch', '-'], input: '{"operations": [' },
        { args: ['batch', '-', '--json'], input: '{"operations": [{"operation": "write"}]}' },
        { args: ['batch', '--no-such-option', 'x.json'] },
        {
          args: ['--model', 'gpt-x', '--actor-type', 'ai', 'batch', '-'],
          input: JSON.stringify({ operations: [{ operation: 'write', path: 'm.txt', content: 'model\n' }] }),
        },
        { args: ['checkpoint', 'one'] },
        { args: ['rm', 'a.txt'] },
        { args: ['rollback', 'one', '--json'] },
        { args: ['ls', '.'] },
      ];
      for (const step of steps) {
        const cwd = (r: DiskRepo): string => (step.sub ? r.path(step.sub) : r.dir);
        const handed = await runNode(join(bare, 'shadow.cjs'), step.args, {
          cwd: cwd(repo),
          env: { ...repo.env, ...step.env },
          input: step.input,
        });
        const itself = await runNode(SHADOW_BIN, step.args, {
          cwd: cwd(twin),
          env: { ...twin.env, ...step.env, SHADOW_HANDOFF: '0' },
          input: step.input,
        });
        assert.equal(normalized(handed), normalized(itself), `shadow ${step.args.join(' ')}`);
      }
      // -C from outside the repository.
      const outside = await runNode(join(bare, 'shadow.cjs'), ['-C', repo.dir, 'cat', 'b.txt'], {
        cwd: repo.root,
        env: repo.env,
      });
      assert.equal([outside.status, outside.stdout], [0, 'beta\n']);
      // The same trees, and the actor the caller's environment named.
      assert.is(
        repo.git('rev-parse', 'refs/shadow/drafts/default^{tree}'),
        twin.git('rev-parse', 'refs/shadow/drafts/default^{tree}'),
      );
      assert.match(repo.git('log', '--format=%an', 'refs/shadow/drafts/default'), /^carol$/m, 'the write carol made');
      // A command that is never handed off needs the caller's own bundle.
      const session = await runNode(join(bare, 'shadow.cjs'), ['session', 'list'], { cwd: repo.dir, env: repo.env });
      assert.is.not(session.status, 0);
      assert.match(session.stderr, /shadow-cli\.cjs/);
    } finally {
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
    // Gone with its server: the socket is removed and the caller must run the command itself.
    assert.throws(() => lstatSync(repo.path('.git/shadow/run/cli.sock')));
    const after = await runNode(join(bare, 'shadow.cjs'), ['status'], { cwd: repo.dir, env: repo.env });
    assert.is.not(after.status, 0);
  },
);

H('a handed-off call loads none of node:crypto, node:vm, node:module or the CLI', async ({ repo, bare }) => {
  const probe = join(repo.root, 'modules-probe.cjs');
  writeFileSync(
    probe,
    [
      "process.on('exit', () => {",
      "  for (const m of ['crypto', 'vm', 'module'])",
      "    if (process.moduleLoadList.includes('NativeModule ' + m)) process._rawDebug(m + ' loaded');",
      '});',
    ].join('\n'),
  );
  const server = await serveChild(repo);
  try {
    // The bare executable has no CLI beside it: an answer at all means the call was handed off.
    const handed = await runNode('--require', [probe, join(bare, 'shadow.cjs'), 'cat', 'a.txt'], {
      cwd: repo.dir,
      env: repo.env,
    });
    assert.equal([handed.status, handed.stdout, handed.stderr], [0, 'alpha\n', '']);
  } finally {
    server.child.kill('SIGTERM');
    await exited(server.child);
  }
});

H(
  'a socket left by a killed server: callers run commands themselves, and the next server takes its place',
  async ({ repo, bare }) => {
    const first = await serveChild(repo);
    const sock = repo.path('.git/shadow/run/cli.sock');
    assert.is(statSync(dirname(sock)).mode & 0o777, 0o700, 'only its owner reaches the socket');
    first.child.kill('SIGKILL');
    await exited(first.child);
    const stale = lstatSync(sock);
    assert.ok(stale.isSocket(), 'SIGKILL leaves the socket');
    const itself = repo.shadow(['batch', '-'], {
      input: JSON.stringify({ operations: [{ operation: 'write', path: 'k.txt', content: 'k\n' }] }),
    });
    assert.is(itself.status, 0, itself.stderr);
    assert.is(repo.git('show', 'refs/shadow/drafts/default:k.txt'), 'k\n');
    const second = await serveChild(repo);
    try {
      const handed = await runNode(join(bare, 'shadow.cjs'), ['cat', 'k.txt'], { cwd: repo.dir, env: repo.env });
      assert.equal([handed.status, handed.stdout], [0, 'k\n']);
      // Another long-running process on the same repository (an agent's `shadow mcp`) leaves the live socket alone.
      const mcp = spawnShadow(repo, ['mcp']);
      mcp.child.stdin!.end();
      assert.equal(await exited(mcp.child), { code: 0, signal: null }, mcp.stderr.text);
      // Had it taken the socket, its exit would have removed it: the server still answers.
      const again = await runNode(join(bare, 'shadow.cjs'), ['cat', 'a.txt'], { cwd: repo.dir, env: repo.env });
      assert.equal([again.status, again.stdout], [0, 'alpha\n']);
    } finally {
      second.child.kill('SIGTERM');
      await exited(second.child);
    }
  },
);

H(
  'what is not a server of ours is never used: a plain file, SHADOW_HANDOFF=0, a terminal caller',
  async ({ repo, bare }) => {
    mkdirSync(repo.path('.git/shadow/run'), { recursive: true, mode: 0o700 });
    writeFileSync(repo.path('.git/shadow/run/cli.sock'), 'not a socket');
    const r = repo.shadow(['status', '--json']);
    assert.is(r.status, 0, r.stderr);
    assert.is(r.json().draft, 'default');
    const server = await serveChild(repo);
    try {
      assert.ok(lstatSync(repo.path('.git/shadow/run/cli.sock')).isSocket(), 'the server replaced the file');
      const off = await runNode(join(bare, 'shadow.cjs'), ['status'], {
        cwd: repo.dir,
        env: { ...repo.env, SHADOW_HANDOFF: '0' },
      });
      assert.is.not(off.status, 0, 'SHADOW_HANDOFF=0: the caller runs it (and has no bundle)');
      const help = await runNode(join(bare, 'shadow.cjs'), ['status', '--help'], { cwd: repo.dir, env: repo.env });
      assert.is.not(help.status, 0, 'help is laid out for the caller, by the caller');
      const follow = await runNode(join(bare, 'shadow.cjs'), ['--draft', 'x', 'events', '--follow'], {
        cwd: repo.dir,
        env: repo.env,
      });
      assert.is.not(follow.status, 0, 'a command that runs until stopped stays with the caller');
      const located = await runNode(join(bare, 'shadow.cjs'), ['status'], {
        cwd: repo.dir,
        env: { ...repo.env, GIT_DIR: repo.path('.git') },
      });
      assert.is.not(located.status, 0, 'GIT_DIR: the caller finds the repository itself');
      const zone = await runNode(join(bare, 'shadow.cjs'), ['status'], {
        cwd: repo.dir,
        env: { ...repo.env, TZ: 'America/Denver' },
      });
      assert.is.not(zone.status, 0, 'another time zone: the caller runs it (commit times carry its offset)');
    } finally {
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
  },
);

H(
  'the server declines another build, another protocol, a command it does not run and a malformed request: the caller runs it',
  async ({ repo }) => {
    const server = await serveChild(repo);
    const ask = (line: string): Promise<string> => askSocket(repo.path('.git/shadow/run/cli.sock'), line);
    try {
      const request = (over: Record<string, unknown>): string =>
        JSON.stringify({
          v: 1,
          build: 'unbundled',
          args: ['status'],
          cwd: repo.dir,
          env: repo.env,
          umask: process.umask(),
          ...over,
        });
      const build = /BUILD_ID="([0-9a-f]{16})"/.exec(readFileSync(SHADOW_BIN, 'utf8'))![1]!;
      assert.match(await ask(request({ build: 'another-build' })), /^\{"fallback":"another build of shadow"\}\n$/);
      assert.match(
        await ask(request({ build, args: ['serve'] })),
        /^\{"fallback":"a command the caller runs itself"\}\n$/,
      );
      assert.match(
        await ask(request({ build, args: ['status'], env: { ...repo.env, GIT_DIR: '/elsewhere' } })),
        /^\{"fallback":"a command the caller runs itself"\}\n$/,
      );
      assert.match(
        await ask(request({ build, args: ['status'], env: { ...repo.env, TZ: 'Asia/Tokyo' } })),
        /^\{"fallback":"another umask or time zone"\}\n$/,
      );
      assert.match(
        await ask(request({ build, args: ['status'], umask: 0o077 })),
        /^\{"fallback":"another umask or time zone"\}\n$/,
      );
      // The control: the same request with this build runs.
      assert.match(
        await ask(request({ build, args: ['status', '--json'] })),
        /^\{"accepted":true\}\n[^]*"exit":0\}\n$/,
      );
      assert.match(await ask(request({ v: 99 })), /^\{"fallback":"another build of shadow"\}\n$/);
      assert.match(await ask('{"v": 1, "args": "status"}'), /^\{"fallback":"not a request"\}\n$/);
      assert.match(await ask('not json'), /^\{"fallback":"not a request"\}\n$/);
      assert.match(await ask(request({ cwd: 'relative/dir' })), /^\{"fallback":"not a request"\}\n$/);
    } finally {
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
  },
);

H(
  'a server that stops mid-command: a read is run again by the caller; a write reports SERVER_GONE, exit 1, and is not retried',
  async ({ repo }) => {
    const sock = repo.path('.git/shadow/run/cli.sock');
    mkdirSync(dirname(sock), { recursive: true, mode: 0o700 });
    let calls = 0;
    // Accepts the command, then dies as a server killed during it would: no frame after `go`.
    const fake = createServer((conn) => {
      let got = '';
      conn.setEncoding('utf8');
      conn.on('data', (d: string) => {
        got += d;
        if (got.split('\n').length === 2) conn.write('{"accepted":true}\n');
        if (got.includes('{"go":true}\n')) {
          calls++;
          conn.destroy();
        }
      });
    });
    await new Promise<void>((resolve) => fake.listen(sock, resolve));
    try {
      const status = await runNode(SHADOW_BIN, ['status', '--json'], { cwd: repo.dir, env: repo.env });
      assert.is(status.status, 0, status.stderr);
      assert.is(JSON.parse(status.stdout).draft, 'default', 'run again by the caller');
      const batchFile = repo.path('../w.json');
      writeFileSync(batchFile, JSON.stringify({ operations: [{ operation: 'write', path: 'w.txt', content: 'w\n' }] }));
      const batch = await runNode(SHADOW_BIN, ['batch', batchFile], { cwd: repo.dir, env: repo.env });
      assert.is(batch.status, 1);
      assert.match(
        batch.stderr,
        /^error: the shadow process serving this repository stopped during `shadow batch`; whether it took effect is not known\nhint: .*shadow status/,
      );
      const json = await runNode(SHADOW_BIN, ['batch', batchFile, '--json'], { cwd: repo.dir, env: repo.env });
      assert.is(json.status, 1);
      assert.is(JSON.parse(json.stdout).error.code, 'SERVER_GONE');
      assert.is(repo.ref('refs/shadow/drafts/default'), undefined, 'nothing ran the batch twice, or at all');
      assert.is(calls, 3);
    } finally {
      await new Promise<void>((resolve) => fake.close(() => resolve()));
    }
  },
);

H(
  'a stopped server (Ctrl-Z): the caller runs the command itself after a wait, and the server, resumed, never runs it too',
  async ({ repo }) => {
    const server = await serveChild(repo);
    try {
      for (const n of [1, 2]) {
        const r = repo.shadow(['batch', '-'], {
          input: JSON.stringify({ operations: [{ operation: 'write', path: `n${n}.txt`, content: `${n}\n` }] }),
        });
        assert.is(r.status, 0, r.stderr);
      }
      const two = repo.ref('refs/shadow/drafts/default')!;
      server.child.kill('SIGSTOP');
      // Undo, run twice, would go back two batches.
      const undo = await runNode(SHADOW_BIN, ['undo', '--json'], { cwd: repo.dir, env: repo.env });
      assert.is(undo.status, 0, undo.stderr);
      const one = repo.ref('refs/shadow/drafts/default')!;
      assert.is(repo.git('rev-parse', `${two}~1`).trim(), one, 'one batch undone, by the caller');
      server.child.kill('SIGCONT');
      // Handed to the resumed server, after it has read the abandoned call.
      const log = await runNode(SHADOW_BIN, ['log', '--json'], { cwd: repo.dir, env: repo.env });
      assert.is(log.status, 0, log.stderr);
      assert.is(repo.ref('refs/shadow/drafts/default'), one, 'the server did not undo it again');
    } finally {
      server.child.kill('SIGCONT');
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
  },
);

H(
  'the launcher: node starts without NODE_EXTRA_CA_CERTS, and what shadow starts gets it back (and not the thread pool size shadow takes)',
  ({ repo }) => {
    const dir = mkdtempSync(join(tmpdir(), 'shadow-launch-'));
    try {
      // As a package manager puts it on the PATH: a symlink to dist/bin/shadow.
      const link = join(dir, 'shadow');
      spawnSync('ln', ['-s', join(dirname(SHADOW_BIN), 'shadow'), link]);
      const env = { ...repo.env, NODE_EXTRA_CA_CERTS: join(dir, 'missing-ca.pem') };
      const direct = spawnSync(process.execPath, [SHADOW_BIN, '--version'], { env, encoding: 'utf8' });
      assert.match(direct.stderr, /Ignoring extra certs/, 'node reads the file when started on shadow.cjs');
      const launched = spawnSync(link, ['--version'], { env, encoding: 'utf8' });
      assert.equal([launched.status, launched.stderr], [0, '']);
      assert.match(launched.stdout, /^shadow \d+\.\d+\.\d+\n$/);
      repo.write('.gitignore', '');
      const child = spawnSync(
        link,
        [
          'exec',
          '--',
          'sh',
          '-c',
          'printf "%s|%s|%s" "$NODE_EXTRA_CA_CERTS" "${SHADOW_NODE_EXTRA_CA_CERTS-unset}" "${UV_THREADPOOL_SIZE-unset}"',
        ],
        { cwd: repo.dir, env, encoding: 'utf8' },
      );
      assert.is(child.status, 0, child.stderr);
      assert.is(
        child.stdout,
        `${join(dir, 'missing-ca.pem')}|unset|unset`,
        'the thread pool size shadow gives itself is not passed on',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

H.run();
