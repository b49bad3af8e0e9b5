/**
 * The edit hook fails closed: every outcome of the command `shadow init`
 * registers that is not an explicit answer refuses the agent's tool call in
 * the agent's own protocol (exit 2 with the reason on stderr, which Claude
 * Code and Gemini CLI both read as "refuse, for this reason"), so the
 * agent's own edit never reaches the working tree because shadow could not
 * run: an installation moved away, a node that does not start, a crash, a
 * silent exit, a server that died during the hand-off, input the hook
 * cannot read. Each test runs the exact command line read back from the
 * agent's settings, through `sh -c` as the agents run it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { failClosedCommandLine } from '../cli/agents/launch.js';
import { ClaudePreToolUseOutput, GeminiBeforeToolOutput } from './helpers/agent-schemas.js';
import { DiskRepo, SHADOW_BIN, treeHashes } from './helpers/disk-repo.js';

type Agent = 'claude' | 'gemini';
const AGENTS: Agent[] = ['claude', 'gemini'];

interface Answer {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The hook command `shadow init <agent>` (run from the executable `bin`) registered. */
function hookCommand(repo: DiskRepo, agent: Agent, bin = SHADOW_BIN): string {
  const r = spawnSync(process.execPath, [bin, 'init', agent], { cwd: repo.dir, env: repo.env, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  const settings = JSON.parse(repo.read(agent === 'claude' ? '.claude/settings.json' : '.gemini/settings.json'));
  return (agent === 'claude' ? settings.hooks.PreToolUse : settings.hooks.BeforeTool)[0].hooks[0].command;
}

/** Run a hook command line as the agents do, without blocking the event loop (a test's fake server lives in it). */
function runHook(repo: DiskRepo, command: string, input: string | Buffer | null): Promise<Answer> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], {
      cwd: repo.dir,
      env: repo.env,
      stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // A hook that refuses before reading all of a large input closes the pipe.
    child.stdin?.on('error', () => undefined);
    if (input !== null) child.stdin!.end(input);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The agent's tool call: a Write (Claude Code) or write_file (Gemini CLI) of `path`. */
function writeCall(repo: DiskRepo, agent: Agent, path: string, content: string): string {
  const [event, tool] = agent === 'claude' ? ['PreToolUse', 'Write'] : ['BeforeTool', 'write_file'];
  return JSON.stringify({
    session_id: 's',
    cwd: repo.dir,
    hook_event_name: event,
    tool_name: tool,
    tool_input: { file_path: repo.path(path), content },
  });
}

/** An answer that refuses the call in the agent's protocol; its reason. */
function refused(a: Answer, agent: Agent): string {
  if (a.status === 2) {
    assert.ok(a.stderr.trim().length > 0, 'exit 2 carries its reason on stderr');
    return a.stderr;
  }
  assert.is(a.status, 0, `neither exit 2 nor an answer: ${JSON.stringify(a)}`);
  const out = JSON.parse(a.stdout);
  if (agent === 'claude') {
    assert.ok(ClaudePreToolUseOutput.safeParse(out).success, a.stdout);
    assert.is(out.hookSpecificOutput.permissionDecision, 'deny');
    return out.hookSpecificOutput.permissionDecisionReason;
  }
  assert.ok(GeminiBeforeToolOutput.safeParse(out).success, a.stdout);
  assert.is(out.decision, 'deny');
  return out.reason;
}

const Closed = suite('the edit hook fails closed');

Closed(
  'the installation moved away: the command init wrote refuses with exit 2 and says to run init again; nothing is written',
  async () => {
    const repo = new DiskRepo({ 'README.md': 'Hello\n' });
    // A copy of the executables inside the build (node finds the bundle's dependencies above it), moved away later.
    const install = mkdtempSync(join(dirname(dirname(SHADOW_BIN)), 'moved-install-'));
    try {
      cpSync(dirname(SHADOW_BIN), join(install, 'bin'), { recursive: true });
      for (const agent of AGENTS) {
        const command = hookCommand(repo, agent, join(install, 'bin', 'shadow.cjs'));
        assert.ok(command.includes(join(install, 'bin', 'shadow.cjs')), command);
        // The control: installed, the edit lands in the draft.
        assert.match(
          refused(await runHook(repo, command, writeCall(repo, agent, `${agent}.txt`, 'x\n')), agent),
          /changed in the draft as batch/,
        );
        assert.is(repo.git('show', `refs/shadow/drafts/default:${agent}.txt`), 'x\n');
      }
      const commands = Object.fromEntries(
        AGENTS.map((a) => [a, hookCommand(repo, a, join(install, 'bin', 'shadow.cjs'))]),
      );
      const tree = treeHashes(repo.dir);
      const tip = repo.ref('refs/shadow/drafts/default');
      renameSync(install, `${install}-moved`);
      try {
        for (const agent of AGENTS) {
          const a = await runHook(repo, commands[agent]!, writeCall(repo, agent, 'new.txt', 'y\n'));
          assert.is(a.status, 2, agent);
          assert.is(a.stdout, '', agent);
          assert.match(
            a.stderr,
            new RegExp(`shadow could not run its edit hook .*batch_write.*shadow init ${agent}`),
            agent,
          );
        }
      } finally {
        renameSync(`${install}-moved`, install);
      }
      assert.equal(treeHashes(repo.dir), tree, 'the working tree is untouched');
      assert.is(repo.ref('refs/shadow/drafts/default'), tip, 'and the draft too');
    } finally {
      rmSync(install, { recursive: true, force: true });
      repo.cleanup();
    }
  },
);

Closed(
  'whatever the command cannot vouch for is exit 2 with the reason: node missing, a crash, exit 1, a signal, an exit 0 with nothing printed',
  async () => {
    const repo = new DiskRepo();
    const bin = join(repo.root, 'fake-bin');
    mkdirSync(bin);
    const script = (name: string, body: string): string => {
      writeFileSync(join(bin, name), body);
      return join(bin, name);
    };
    try {
      const cases: Array<[string, { node: string; entry: string }]> = [
        ['node missing', { node: join(bin, 'no-such-node'), entry: SHADOW_BIN }],
        ['shadow.cjs missing', { node: process.execPath, entry: join(bin, 'gone', 'shadow.cjs') }],
        ['a crash', { node: process.execPath, entry: script('crash.cjs', 'throw new Error("boom")') }],
        [
          'exit 1 after an answer',
          { node: process.execPath, entry: script('one.cjs', 'process.stdout.write("{}\\n"); process.exitCode = 1') },
        ],
        ['killed', { node: process.execPath, entry: script('killed.cjs', 'process.kill(process.pid, "SIGKILL")') }],
        ['exit 0, silent', { node: process.execPath, entry: script('silent.cjs', '') }],
      ];
      for (const [what, launch] of cases) {
        const a = await runHook(
          repo,
          failClosedCommandLine(launch, repo.dir, ['hook', 'claude-pre-tool-use'], 'refused: shadow did not run'),
          '{}',
        );
        assert.equal([a.status, a.stdout], [2, ''], what);
        assert.match(a.stderr, /refused: shadow did not run\n$/, what);
      }
      // The control: an answer with exit 0 goes through as printed.
      const answer = script(
        'answer.cjs',
        'process.stdout.write(JSON.stringify({ decision: "deny", reason: "r" }) + "\\n")',
      );
      const a = await runHook(
        repo,
        failClosedCommandLine({ node: process.execPath, entry: answer }, repo.dir, ['hook', 'x'], 'refused'),
        '{}',
      );
      assert.equal(a, { status: 0, stdout: '{"decision":"deny","reason":"r"}\n', stderr: '' });
    } finally {
      repo.cleanup();
    }
  },
);

type Death = 'before accepting' | 'after go' | 'mid-stream';

/** A server on the repository's socket that dies at `death` during every call; the number of calls it took past `go`. */
async function dyingServer(repo: DiskRepo, death: Death): Promise<{ ran: () => number; close: () => Promise<void> }> {
  const sock = repo.path('.git/shadow/run/cli.sock');
  mkdirSync(dirname(sock), { recursive: true, mode: 0o700 });
  let ran = 0;
  const server = createServer((conn) => {
    let got = '';
    conn.setEncoding('utf8');
    conn.on('data', (d: string) => {
      got += d;
      if (got.split('\n').length === 2) {
        if (death === 'before accepting') conn.destroy();
        else conn.write('{"accepted":true}\n');
      }
      if (got.includes('{"go":true}\n') && !conn.destroyed) {
        ran++;
        // Mid-stream: half an answer, then gone.
        if (death === 'mid-stream')
          conn.write(
            `${JSON.stringify({ o: Buffer.from('{"hookSpecificOutput": {"hookEv').toString('base64') })}\n`,
            () => conn.destroy(),
          );
        else conn.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(sock, resolve));
  return { ran: () => ran, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

Closed(
  'a server that dies during the hand-off refuses the edit: before it accepts (the caller takes it itself), after go, mid-stream',
  async () => {
    for (const agent of AGENTS) {
      for (const death of ['before accepting', 'after go', 'mid-stream'] as Death[]) {
        const repo = new DiskRepo({ 'README.md': 'Hello\n' });
        try {
          const command = hookCommand(repo, agent);
          const tree = treeHashes(repo.dir);
          const server = await dyingServer(repo, death);
          let a: Answer;
          try {
            a = await runHook(repo, command, writeCall(repo, agent, 'new.txt', 'n\n'));
          } finally {
            await server.close();
          }
          const what = `${agent}, ${death}`;
          const reason = refused(a, agent);
          if (death === 'before accepting') {
            assert.is(server.ran(), 0, what);
            assert.match(
              reason,
              /new\.txt changed in the draft as batch 1/,
              `${what}: nothing ran there, so the caller took the edit itself`,
            );
            assert.is(repo.git('show', 'refs/shadow/drafts/default:new.txt'), 'n\n', what);
          } else {
            assert.is(server.ran(), 1, what);
            assert.is(a.status, 2, what);
            assert.match(reason, /stopped while it took this edit, so the edit is refused/, what);
            assert.is(repo.ref('refs/shadow/drafts/default'), undefined, `${what}: not run again by the caller`);
          }
          assert.equal(treeHashes(repo.dir), tree, `${what}: the working tree is untouched`);
        } finally {
          repo.cleanup();
        }
      }
    }
  },
);

Closed('input the hook cannot read is refused: closed stdin, empty, not JSON, not an object, too large', async () => {
  const repo = new DiskRepo({ 'README.md': 'Hello\n' });
  try {
    for (const agent of AGENTS) {
      const command = hookCommand(repo, agent);
      const inputs: Array<[string, string | Buffer | null, RegExp]> = [
        ['closed stdin', null, /the hook's input is not JSON/],
        ['empty', '', /the hook's input is not JSON/],
        ['not JSON', '{"tool_name": "Write", ', /the hook's input is not JSON/],
        ['not an object', '"Write"', /not a JSON object/],
        ['too large', Buffer.alloc(64 * 1024 * 1024 + 1, 0x20), /too large|exceeds|larger/i],
      ];
      for (const [what, input, why] of inputs) {
        const reason = refused(await runHook(repo, command, input), agent);
        assert.match(reason, /could not take this edit into the draft, so it is refused/, `${agent}, ${what}`);
        assert.match(reason, why, `${agent}, ${what}`);
      }
    }
    assert.is(repo.ref('refs/shadow/drafts/default'), undefined);
  } finally {
    repo.cleanup();
  }
});

Closed.run();
