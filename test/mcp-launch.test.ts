import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initializeAnswer } from '../src/agent-tools/mcp-early-initialize.js';
import type { Profile } from '../src/agent-tools/definitions.js';
import { earlyMcpProfiles } from '../cli/mcp-launch.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';

/**
 * `shadow mcp` answers `initialize` in the executable, before the CLI bundle
 * loads (cli/mcp-launch.ts), for the arguments it is sure of; for any other
 * it leaves the answer to the command, which refuses what it must before
 * anything is written.
 */

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1.0.0' } },
};

type Dirs = { repo: DiskRepo; outside: string };

/** Each suite's repository, and a directory that is in none. */
function withDirs(s: ReturnType<typeof suite<Dirs>>): void {
  s.before((c) => {
    c.repo = new DiskRepo({ 'a.txt': 'a\n' });
    c.outside = mkdtempSync(join(tmpdir(), 'shadow-no-repo-'));
  });
  s.after((c) => {
    c.repo.cleanup();
    rmSync(c.outside, { recursive: true, force: true });
  });
}

const Args = suite<Dirs>('which arguments the executable answers for');
withDirs(Args);

Args('the plain forms, as agent configs start it (-C <root> mcp), with the profiles --tools names', ({ repo }) => {
  const env = {};
  const at = (args: string[], cwd = repo.dir): Profile[] | undefined => earlyMcpProfiles(args, cwd, env);
  assert.equal(at(['mcp']), ['shadow']);
  assert.equal(at(['-C', repo.dir, 'mcp'], '/'), ['shadow']);
  assert.equal(at(['mcp', '--tools', 'filesystem,anthropic']), ['anthropic', 'filesystem']);
  assert.equal(at(['mcp', '--tools', 'all', '--draft', 'x', '--actor', 'a', '--allow-apply']), [
    'shadow',
    'anthropic',
    'filesystem',
  ]);
  assert.equal(at(['mcp', '--draft-per-actor', '--model', 'm', '--actor-type', 'agent']), ['shadow']);
  assert.equal(at(['mcp'], repo.path('.')), ['shadow'], 'a directory below the top');
});

Args('anything else is the command’s to answer', ({ repo, outside }) => {
  const at = (args: string[], cwd = repo.dir, env: NodeJS.ProcessEnv = {}): Profile[] | undefined =>
    earlyMcpProfiles(args, cwd, env);
  const cases: Array<[string[], string?, NodeJS.ProcessEnv?]> = [
    [['serve']],
    [['mcp', '--tools', 'bogus']],
    [['mcp', '--tools=shadow']],
    [['mcp', '--tools', 'shadow', '--tools', 'all']],
    [['mcp', '--draft', 'x', '--draft-per-actor']],
    [['mcp', '--draft']],
    [['mcp', '--draft', '--allow-apply']],
    [['mcp', '--json']],
    [['mcp', 'extra']],
    [['mcp', '--help']],
    [['-Cx', 'mcp']],
    [['mcp'], outside],
    [['-C', outside, 'mcp']],
    [['mcp'], undefined, { GIT_DIR: join(repo.dir, '.git') }],
  ];
  for (const [args, cwd, env] of cases) assert.is(at(args, cwd, env), undefined, args.join(' '));
});

/** Start `shadow mcp` with a probe that writes a line on stdout when the CLI bundle is first read; what it wrote, its stderr and exit status once stdin is closed. */
function run(
  repo: DiskRepo,
  args: string[],
  cwd: string,
): Promise<{ lines: Array<Record<string, unknown>>; err: string; status: number | null }> {
  const probe = join(repo.root, 'probe.cjs');
  writeFileSync(
    probe,
    [
      "const fs = require('node:fs');",
      'const read = fs.readFileSync;',
      'let seen = false;',
      'fs.readFileSync = function (path, ...rest) {',
      '  if (!seen && /shadow-cli\\.cjs$/.test(String(path))) { seen = true; fs.writeSync(1, \'{"probe":"cli"}\\n\'); }',
      '  return read.call(this, path, ...rest);',
      '};',
    ].join('\n'),
  );
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--require', probe, SHADOW_BIN, ...args], {
      cwd,
      env: repo.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.stdin.on('error', () => undefined);
    child.stdin.end(`${JSON.stringify(INITIALIZE)}\n`);
    child.once('close', (status) =>
      resolve({
        lines: out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
        err,
        status,
      }),
    );
  });
}

const Process = suite<Dirs>('shadow mcp: initialize answered before the CLI loads');
withDirs(Process);

Process(
  'the answer is on stdout before the CLI bundle is read, and it is the one the command gives',
  async ({ repo }) => {
    for (const [args, profiles] of [
      [['-C', repo.dir, 'mcp'], ['shadow']],
      [
        ['mcp', '--tools', 'anthropic,filesystem'],
        ['anthropic', 'filesystem'],
      ],
    ] as Array<[string[], Profile[]]>) {
      const r = await run(repo, args, args[0] === '-C' ? '/' : repo.dir);
      assert.is(r.status, 0, r.err);
      const version = (r.lines[0] as { result: { serverInfo: { version: string } } }).result.serverInfo.version;
      assert.equal(r.lines[0], JSON.parse(initializeAnswer(INITIALIZE, { version, profiles })!.line), args.join(' '));
      assert.equal(r.lines[1], { probe: 'cli' }, `${args.join(' ')}: the CLI loads after the answer`);
      assert.is(r.lines.length, 2, 'one answer to initialize');
    }
    // Where the executable does not answer, the command does, once the CLI has loaded (and the repository opened).
    const late = await run(repo, ['mcp', '--actor=me'], repo.dir);
    assert.is(late.status, 0, late.err);
    assert.equal(late.lines[0], { probe: 'cli' });
    assert.is((late.lines[1] as { id: number }).id, 1);
  },
);

Process(
  'no answer where the command refuses: not a repository, an unknown profile, options yargs refuses together',
  async ({ repo, outside }) => {
    const cases: Array<[string[], string, number, RegExp]> = [
      [['mcp'], outside, 1, /is not inside a git repository/],
      [['mcp', '--tools', 'bogus'], repo.dir, 2, /unknown tool profile: bogus/],
      [['mcp', '--draft', 'x', '--draft-per-actor'], repo.dir, 2, /mutually exclusive|conflict/i],
    ];
    for (const [args, cwd, status, message] of cases) {
      const r = await run(repo, args, cwd);
      assert.is(r.status, status, `${args.join(' ')}: ${r.err}`);
      assert.equal(r.lines, [{ probe: 'cli' }], `${args.join(' ')}: nothing answered`);
      assert.match(r.err, message);
    }
  },
);

Args.run();
Process.run();
