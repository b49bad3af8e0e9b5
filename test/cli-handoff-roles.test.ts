import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';
import { runNode, type Run } from './helpers/run-node.js';
import { askSocket } from './helpers/handoff-socket.js';
import { connect as connectMcp } from './helpers/mcp-client.js';
import { exited, serveChild } from './helpers/session-http.js';

/*
 * A server's role limits what it runs for others (cli/handoff/): an agent's
 * `shadow mcp` runs for a caller only what the agent may do itself, and
 * what decides or publishes (approve, deny, apply, unapply, draft drop)
 * runs in the caller; the person's `shadow serve` runs them. Either runs a
 * call only in its own repository.
 *
 * Proof of where a command ran: the caller is a copy of the executable
 * (shadow.cjs) with no CLI bundle beside it, which cannot run a command
 * itself (it fails naming shadow-cli.cjs); a command the server ran
 * succeeds.
 */

/** Where the bundle-less caller's command ran. */
function ranIn(r: Run): 'server' | 'caller' {
  if (/shadow-cli\.cjs/.test(r.stderr)) return 'caller';
  return 'server';
}

const DECIDES: string[][] = [['apply'], ['unapply'], ['approve', 'p1'], ['deny', 'p1'], ['draft', 'drop', 'other']];
const AGENT_MAY: Array<{ args: string[]; input?: string }> = [
  {
    args: ['batch', '-'],
    input: JSON.stringify({ operations: [{ operation: 'write', path: 'b.txt', content: 'beta\n' }] }),
  },
  { args: ['cat', 'b.txt'] },
  { args: ['checkpoint', 'one'] },
  { args: ['status', '--json'] },
  { args: ['draft', 'new', 'other'] },
  { args: ['draft', 'list'] },
  { args: ['rollback', 'one'] },
  { args: ['propose'] },
];

const Roles = suite<{ repo: DiskRepo; bare: string }>("a server's role limits what it runs for others");
Roles.before.each((c) => {
  c.repo = new DiskRepo({ 'a.txt': 'alpha\n', 'src/app.js': 'x\n' });
  c.bare = join(c.repo.root, 'bare-bin');
  mkdirSync(c.bare);
  copyFileSync(SHADOW_BIN, join(c.bare, 'shadow.cjs'));
});
Roles.after.each((c) => c.repo.cleanup());

Roles(
  "an agent's server (shadow mcp) runs batches, reads, checkpoints and rollbacks for a caller; apply, unapply, approve, deny and draft drop run in the caller",
  async ({ repo, bare }) => {
    // Started as an agent starts it; --allow-apply lets its own agent apply, never a caller on the socket.
    const mcp = await connectMcp(repo, 'agent', ['--allow-apply']);
    try {
      for (const step of AGENT_MAY) {
        const r = await runNode(join(bare, 'shadow.cjs'), step.args, {
          cwd: repo.dir,
          env: repo.env,
          input: step.input,
        });
        assert.is(ranIn(r), 'server', `shadow ${step.args.join(' ')}: ${r.stderr}`);
        assert.is(r.status, 0, `shadow ${step.args.join(' ')}: ${r.stderr}`);
      }
      for (const args of DECIDES) {
        const r = await runNode(join(bare, 'shadow.cjs'), args, { cwd: repo.dir, env: repo.env });
        assert.is(ranIn(r), 'caller', `shadow ${args.join(' ')}: ${r.stdout}${r.stderr}`);
        assert.is.not(r.status, 0);
      }
      // A caller with the CLI runs apply itself, with its own authority: the file reaches the working tree.
      const apply = await runNode(SHADOW_BIN, ['apply', '--json'], { cwd: repo.dir, env: repo.env });
      assert.is(apply.status, 0, apply.stdout + apply.stderr);
      assert.is(repo.read('b.txt'), 'beta\n');
    } finally {
      await mcp.close();
    }
  },
);

Roles("the person's server (shadow serve) runs apply and unapply for a caller", async ({ repo, bare }) => {
  const server = await serveChild(repo);
  try {
    const batch = await runNode(join(bare, 'shadow.cjs'), ['batch', '-'], {
      cwd: repo.dir,
      env: repo.env,
      input: AGENT_MAY[0]!.input,
    });
    assert.is(batch.status, 0, batch.stderr);
    const apply = await runNode(join(bare, 'shadow.cjs'), ['apply', '--json'], { cwd: repo.dir, env: repo.env });
    assert.is(ranIn(apply), 'server', apply.stderr);
    assert.is(apply.status, 0, apply.stdout + apply.stderr);
    assert.is(repo.read('b.txt'), 'beta\n');
    const unapply = await runNode(join(bare, 'shadow.cjs'), ['unapply', '--json'], { cwd: repo.dir, env: repo.env });
    assert.is(ranIn(unapply), 'server', unapply.stderr);
    assert.is(unapply.status, 0, unapply.stdout + unapply.stderr);
    assert.not.ok(repo.exists('b.txt'));
  } finally {
    server.child.kill('SIGTERM');
    await exited(server.child);
  }
});

/** One raw call on the socket at `sock`: what the server answered. */
Roles(
  'a server runs a call only in its own repository: another one named by the cwd or by -C in any spelling is declined',
  async ({ repo }) => {
    const other = new DiskRepo({ 'o.txt': 'other\n' });
    const build = /BUILD_ID="([0-9a-f]{16})"/.exec(readFileSync(SHADOW_BIN, 'utf8'))![1]!;
    const request = (over: Record<string, unknown>): string =>
      JSON.stringify({
        v: 1,
        build,
        args: ['status', '--json'],
        cwd: repo.dir,
        env: repo.env,
        umask: process.umask(),
        ...over,
      });
    const sock = repo.path('.git/shadow/run/cli.sock');
    for (const start of ['mcp', 'serve'] as const) {
      const mcp = start === 'mcp' ? await connectMcp(repo, 'agent') : undefined;
      const server = start === 'serve' ? await serveChild(repo) : undefined;
      try {
        const declined = /^\{"fallback":"another repository"\}\n$/;
        assert.match(await askSocket(sock, request({ cwd: other.dir })), declined, `${start}: cwd`);
        assert.match(await askSocket(sock, request({ args: ['-C', other.dir, 'status'] })), declined, `${start}: -C`);
        // Spellings of -C a caller does not read itself: declined, for one reason or another, never run.
        for (const args of [
          [`-C=${other.dir}`, 'status'],
          [`-C${other.dir}`, 'status'],
          ['--C', other.dir, 'status'],
          [`--C=${other.dir}`, 'status'],
          ['-C', repo.dir, '-C', other.dir, 'status'],
        ]) {
          assert.match(
            await askSocket(sock, request({ args })),
            /^\{"fallback":"[^"]+"\}\n$/,
            `${start}: ${args.join(' ')}`,
          );
        }
        // A directory in no repository at all.
        assert.match(await askSocket(sock, request({ cwd: repo.root })), declined, `${start}: outside`);
        // The control: its own repository, from a subdirectory or by -C.
        assert.match(
          await askSocket(sock, request({ cwd: repo.path('src') })),
          /^\{"accepted":true\}\n[^]*"exit":0\}\n$/,
          start,
        );
        assert.match(
          await askSocket(sock, request({ cwd: other.dir, args: ['-C', repo.dir, 'status'] })),
          /^\{"accepted":true\}\n[^]*"exit":0\}\n$/,
          start,
        );
        // The role is checked as well: an agent's server declines apply whatever the repository.
        const apply = await askSocket(sock, request({ args: ['apply'] }));
        if (start === 'mcp')
          assert.match(apply, /^\{"fallback":"a command an agent's server does not run for others"\}\n$/);
        else assert.match(apply, /^\{"accepted":true\}\n/);
      } finally {
        await mcp?.close();
        if (server) {
          server.child.kill('SIGTERM');
          await exited(server.child);
        }
      }
    }
    other.cleanup();
  },
);

Roles.run();
