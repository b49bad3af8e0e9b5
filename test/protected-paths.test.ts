import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import { DEFAULT_PROTECT, protectGlobs, splitProtectGlobs } from '../src/review/protected-paths.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';

// ---------------------------------------------------------------- the globs

const Globs = suite('protect globs');

Globs(
  'the defaults come first, configured globs after; turned off, only the configured ones; `!` marks an exception',
  () => {
    assert.equal(protectGlobs(['docs/**'], true), [...DEFAULT_PROTECT, 'docs/**']);
    assert.equal(protectGlobs(['docs/**'], false), ['docs/**']);
    assert.equal(splitProtectGlobs(['*.pem', 'ci/**', '!.env.example', '!']), {
      protect: ['**/*.pem', 'ci/**'],
      except: ['**/.env.example'],
    });
  },
);

Globs.run();

// ---------------------------------------------------------------- the policy apply is checked against

const Policy = suite<{ repo: MemRepo }>('protected paths by default');
Policy.before.each(async (c) => {
  c.repo = await memRepo({ 'README.md': 'Hello\n', '.github/workflows/ci.yml': 'on: push\n' });
});

async function protectedBy(repo: MemRepo, paths: string[], config: Record<string, string[]> = {}): Promise<string[]> {
  for (const [key, values] of Object.entries(config)) {
    for (const value of values) await git.setConfig({ fs: repo.fs, dir: repo.dir, path: key, value, append: true });
  }
  const sh = await repo.open();
  const b = await sh.batch({
    operations: paths.map((path) => ({ operation: 'write' as const, path, content: 'x\n' })),
  });
  assert.ok(b.success, JSON.stringify(b));
  const r = await sh.apply({ dryRun: true });
  return r.pendingApprovals.filter((a) => a.kind === 'protected_path').flatMap((a) => a.paths);
}

const SAMPLES = [
  '.github/workflows/ci.yml',
  '.gitlab-ci.yml',
  '.circleci/config.yml',
  'Jenkinsfile',
  'azure-pipelines.yml',
  'deploy/tls/server.pem',
  'certs/site.key',
  'keys/id_ed25519.pub',
  'config/.env',
  '.env.local',
  '.npmrc',
  'pip.conf',
  '.gitmodules',
  '.gitattributes',
  '.husky/pre-commit',
];
const FREE = [
  '.env.example',
  'src/key.ts',
  'docs/env.md',
  '.github/ISSUE_TEMPLATE/bug.md',
  '.gitignore',
  'src/keys/index.ts',
];

/** What decides an agent's reach or runs when an editor opens the folder. */
const AGENT_CONFIGS = [
  '.mcp.json',
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.claude/commands/ship.md',
  '.codex/config.toml',
  '.gemini/settings.json',
  '.cursor/mcp.json',
  '.cursor/rules/style.mdc',
  '.cursorrules',
  '.vscode/tasks.json',
  '.vscode/settings.json',
  '.vscode/launch.json',
  '.envrc',
  'AGENTS.md',
  'CLAUDE.md',
  'CLAUDE.local.md',
  'GEMINI.md',
  'packages/api/CLAUDE.md',
  'packages/api/AGENTS.md',
  'packages/api/.claude/settings.json',
  'packages/web/.vscode/tasks.json',
];
/** Their look-alikes, which nothing runs or reads as configuration. */
const AGENT_FREE = [
  'docs/claude.md.txt',
  '.claude-notes',
  'docs/CLAUDE.md.bak',
  'src/mcp.json',
  '.vscode/extensions.json',
  'notes/claude/settings.json',
  'AGENTS.md.orig',
  '.envrc.example',
];
/** The same files in another case: one file on a case-folding file system. */
const FOLDED = [
  '.MCP.json',
  '.Claude/Settings.json',
  'claude.md',
  'Agents.md',
  '.VSCode/Tasks.json',
  '.CURSOR/rules/a.mdc',
  '.GitHub/Workflows/ci.yml',
  'ID_RSA',
];

Policy(
  'with no configuration, CI, keys, env files, registry config and git files need an approval; templates and look-alikes do not',
  async ({ repo }) => {
    assert.equal(await protectedBy(repo, [...SAMPLES, ...FREE]), [...SAMPLES].sort());
  },
);

Policy(
  'with no configuration, agent settings, MCP server lists, instruction files (at any depth), editor tasks and .envrc need an approval; look-alikes do not',
  async ({ repo }) => {
    assert.equal(await protectedBy(repo, [...AGENT_CONFIGS, ...AGENT_FREE]), [...AGENT_CONFIGS].sort());
  },
);

Policy(
  'protection ignores case, as a case-folding file system does; an exception frees only the case it names',
  async ({ repo }) => {
    assert.equal(
      await protectedBy(repo, [...FOLDED, '.ENV.EXAMPLE', 'Docs/Claude.md.txt']),
      [...FOLDED, '.ENV.EXAMPLE'].sort(),
    );
  },
);

Policy('shadow.protectDefaults false turns the defaults off; configured globs still count', async ({ repo }) => {
  assert.equal(
    await protectedBy(repo, [...SAMPLES, 'secret/plan.md'], {
      'shadow.protectDefaults': ['false'],
      'shadow.protect': ['secret/**'],
    }),
    ['secret/plan.md'],
  );
});

Policy(
  'shadow.protect adds to the defaults (repeated or comma-separated); a `!glob` frees what it matches',
  async ({ repo }) => {
    const got = await protectedBy(
      repo,
      ['.github/workflows/ci.yml', '.github/workflows/docs.yml', 'secret/plan.md', 'db/schema.sql', 'a.txt'],
      {
        'shadow.protect': ['secret/**, db/*.sql', '!.github/workflows/docs.yml'],
      },
    );
    assert.equal(got, ['.github/workflows/ci.yml', 'db/schema.sql', 'secret/plan.md']);
  },
);

Policy.run();

// ---------------------------------------------------------------- from the command line, with real git

const Cli = suite<{ repo: DiskRepo }>('a CI edit from the command line');
Cli.before.each((c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n', '.github/workflows/ci.yml': 'on: push\njobs: {}\n' });
});
Cli.after.each((c) => c.repo.cleanup());

const EDIT = ['edit', '.github/workflows/ci.yml', '--old', 'on: push', '--new', 'on: [push, pull_request]'];

Cli(
  'an agent edit to .github/workflows/ci.yml waits for a protected_path approval (exit 3, nothing written) until approved',
  ({ repo }) => {
    assert.is(repo.shadow(EDIT).status, 0);
    for (let i = 0; i < 2; i++) {
      const r = repo.shadow(['apply', '--commit', '--json']);
      assert.is(r.status, 3, r.stdout + r.stderr);
      assert.equal(
        r.json().pendingApprovals.map((a: { kind: string; paths: string[] }) => [a.kind, a.paths]),
        [['protected_path', ['.github/workflows/ci.yml']]],
      );
    }
    assert.is(repo.read('.github/workflows/ci.yml'), 'on: push\njobs: {}\n');
    assert.is(repo.git('log', '--oneline', 'main').trim().split('\n').length, 1);
    const id = repo.shadow(['review', '--json']).json().approvals[0].id;
    assert.is(repo.shadow(['approve', id, '--reason', 'CI on pull requests too']).status, 0);
    const done = repo.shadow(['apply', '--commit', '--json']);
    assert.is(done.status, 0, done.stdout + done.stderr);
    assert.is(repo.git('show', 'main:.github/workflows/ci.yml'), 'on: [push, pull_request]\njobs: {}\n');
    assert.is(repo.git('status', '--porcelain'), '');
  },
);

Cli(
  'an agent rewriting its own MCP servers, settings, instructions and editor tasks waits for a protected_path approval: exit 3, nothing written, the branch unmoved',
  ({ repo }) => {
    const configs = [
      '.mcp.json',
      '.claude/settings.json',
      '.codex/config.toml',
      '.gemini/settings.json',
      '.cursor/rules/style.mdc',
      '.vscode/tasks.json',
      'CLAUDE.md',
      'docs/AGENTS.md',
    ];
    for (const p of configs) repo.write(p, 'as the person left it\n');
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'configs');
    const head = repo.ref('main');
    const ops = configs.map((path) => ({
      operation: 'write',
      path,
      content: '{"mcpServers": {"shadow": {"args": ["--allow-apply"]}}}\n',
    }));
    assert.is(
      repo.shadow(['batch', '-'], { input: JSON.stringify({ intent: 'widen my reach', operations: ops }) }).status,
      0,
    );
    for (const mode of [[], ['--commit']]) {
      const r = repo.shadow(['apply', ...mode, '--json']);
      assert.is(r.status, 3, r.stdout + r.stderr);
      assert.equal(
        r.json().pendingApprovals.map((a: { kind: string; paths: string[] }) => [a.kind, a.paths]),
        [['protected_path', [...configs].sort()]],
      );
    }
    for (const p of configs) assert.is(repo.read(p), 'as the person left it\n', p);
    assert.is(repo.ref('main'), head);
    assert.is(repo.git('status', '--porcelain'), '');
  },
);

Cli('with shadow.protectDefaults false the same edit applies at once', ({ repo }) => {
  repo.git('config', 'shadow.protectDefaults', 'false');
  assert.is(repo.shadow(EDIT).status, 0);
  const r = repo.shadow(['apply', '--json']);
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.is(repo.read('.github/workflows/ci.yml'), 'on: [push, pull_request]\njobs: {}\n');
});

Cli.run();
