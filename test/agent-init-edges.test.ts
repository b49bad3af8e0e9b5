/**
 * `shadow init` on what it must not damage: an agent it does not know, a
 * config that does not parse (nothing written, not even the agent's other
 * file), an entry named shadow that is the person's own, a config the
 * person changed after init, and an entry an earlier init wrote from
 * another installation.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo, withRepo } from './helpers/disk-repo.js';
import { snapshotTree } from './helpers/dir-snapshot.js';

function ok(r: ReturnType<DiskRepo['shadow']>): void {
  assert.is(r.status, 0, r.stdout + r.stderr);
}

const Edges = suite("shadow init: bad input and other people's entries");

Edges('an agent it does not know is a usage error that lists the agents', () => {
  withRepo((repo) => {
    const r = repo.shadow(['init', 'vim', '--json']);
    assert.is(r.status, 2);
    assert.is(r.json().error.code, 'USAGE');
    for (const agent of ['claude', 'codex', 'gemini', 'cursor'])
      assert.ok(r.json().error.message.includes(`"${agent}"`), r.stdout);
    assert.is(repo.shadow(['init']).status, 2);
    assert.is(repo.shadow(['hook', 'vim-pre-save']).status, 2);
  });
});

Edges(
  'a config that is not JSON, or not TOML, or not UTF-8: INVALID_CONFIG naming it, and nothing written at all',
  () => {
    withRepo((repo) => {
      // .mcp.json would merge; .claude/settings.json does not parse: neither is written.
      repo.write('.claude/settings.json', '{"hooks": {,}}\n');
      const tree = snapshotTree(repo.dir, []);
      const r = repo.shadow(['init', 'claude', '--json']);
      assert.is(r.status, 1);
      assert.is(r.json().error.code, 'INVALID_CONFIG');
      assert.is(r.json().error.data.path, '.claude/settings.json');
      assert.match(r.json().error.message, /^\.claude\/settings\.json is not valid JSON: .*nothing was written$/);
      assert.equal(snapshotTree(repo.dir, []), tree);

      repo.write('.codex/config.toml', 'model = "o3"\n[mcp_servers\n');
      const toml = repo.shadow(['init', 'codex', '--json']);
      assert.is(toml.status, 1);
      assert.is(toml.json().error.code, 'INVALID_CONFIG');
      assert.is(toml.json().error.data.line, 2);
      assert.match(toml.json().error.message, /^\.codex\/config\.toml is not valid TOML: /);

      repo.write('.cursor/mcp.json', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]));
      const bytes = repo.shadow(['init', 'cursor', '--json']);
      assert.is(bytes.json().error.code, 'INVALID_CONFIG');
      assert.match(bytes.json().error.message, /not UTF-8/);

      repo.write('.gemini/settings.json', '[1, 2]');
      assert.match(repo.shadow(['init', 'gemini', '--json']).json().error.message, /the document is not an object/);
      repo.write('.gemini/settings.json', '{"mcpServers": []}');
      assert.match(repo.shadow(['init', 'gemini', '--json']).json().error.message, /mcpServers is not an object/);
      assert.is(repo.read('.gemini/settings.json'), '{"mcpServers": []}');
      assert.not.ok(repo.exists('.mcp.json'));
      assert.not.ok(existsSync(join(repo.dir, '.git', 'shadow', 'agents')), 'no record of an init that wrote nothing');
    });
  },
);

Edges('in a bare repository there is no project to write into', () => {
  const repo = new DiskRepo(null, { bare: true });
  try {
    const r = repo.shadow(['init', 'claude', '--json']);
    assert.is(r.status, 1);
    assert.is(r.json().error.code, 'INVALID_ARGUMENT');
  } finally {
    repo.cleanup();
  }
});

Edges(
  'an entry named shadow that init did not write: ALREADY_EXISTS; --force replaces it, and --remove puts it back',
  () => {
    withRepo((repo) => {
      const mine = '{"mcpServers": {"shadow": {"command": "npx", "args": ["shadow", "mcp"]}}}\n';
      repo.write('.cursor/mcp.json', mine);
      const r = repo.shadow(['init', 'cursor', '--json']);
      assert.is(r.status, 1);
      assert.is(r.json().error.code, 'ALREADY_EXISTS');
      assert.match(r.json().error.hint, /--force/);
      assert.is(repo.read('.cursor/mcp.json'), mine);
      ok(repo.shadow(['init', 'cursor', '--force']));
      assert.is(JSON.parse(repo.read('.cursor/mcp.json')).mcpServers.shadow.command, process.execPath);
      ok(repo.shadow(['init', 'cursor', '--remove']));
      assert.is(repo.read('.cursor/mcp.json'), mine);

      const toml = '[mcp_servers.shadow]\ncommand = "shadow"\nargs = ["mcp"]\n';
      repo.write('.codex/config.toml', toml);
      assert.is(repo.shadow(['init', 'codex', '--json']).json().error.code, 'ALREADY_EXISTS');
      ok(repo.shadow(['init', 'codex', '--force']));
      assert.not.match(repo.read('.codex/config.toml'), /command = "shadow"/);
      ok(repo.shadow(['init', 'codex', '--remove']));
      assert.is(repo.read('.codex/config.toml'), toml);
    });
  },
);

Edges('a config changed after init: --remove takes out only what shadow added, and keeps the change', () => {
  withRepo((repo) => {
    repo.write('.mcp.json', '{"mcpServers": {"a": {"command": "a"}}}\n');
    ok(repo.shadow(['init', 'claude']));
    const mcp = JSON.parse(repo.read('.mcp.json'));
    mcp.mcpServers.b = { command: 'b' };
    repo.write('.mcp.json', `${JSON.stringify(mcp, null, 2)}\n`);
    const settings = JSON.parse(repo.read('.claude/settings.json'));
    settings.model = 'sonnet';
    repo.write('.claude/settings.json', JSON.stringify(settings));
    ok(repo.shadow(['init', 'claude', '--remove']));
    assert.equal(JSON.parse(repo.read('.mcp.json')), { mcpServers: { a: { command: 'a' }, b: { command: 'b' } } });
    // init made .claude/settings.json: what is left is the person's own key.
    assert.equal(JSON.parse(repo.read('.claude/settings.json')), { model: 'sonnet' });

    ok(repo.shadow(['init', 'codex']));
    repo.write('.codex/config.toml', `${repo.read('.codex/config.toml')}\n[profiles.x]\nmodel = "o3" # mine\n`);
    ok(repo.shadow(['init', 'codex', '--remove']));
    assert.is(repo.read('.codex/config.toml'), '[profiles.x]\nmodel = "o3" # mine\n');
  });
});

Edges('an entry an earlier init wrote from another installation is replaced in place, never added twice', () => {
  withRepo((repo) => {
    const old = (cmd: string): string => `/old/node /old/dist/bin/shadow.mjs -C /old/repo hook ${cmd}`;
    // The plain command of versions before the fail-closed one, from this very installation: upgraded to the wrapper.
    const plain = (agent: 'claude' | 'gemini', event: string): string => {
      ok(repo.shadow(['init', agent]));
      const path = agent === 'claude' ? '.claude/settings.json' : '.gemini/settings.json';
      const doc = JSON.parse(repo.read(path));
      const group = (agent === 'claude' ? doc.hooks.PreToolUse : doc.hooks.BeforeTool)[0];
      const wrapped = group.hooks[0].command as string;
      group.hooks[0].command = /^out=\$\((.*)\) && /.exec(wrapped)![1];
      assert.ok(group.hooks[0].command.endsWith(` hook ${event}`), group.hooks[0].command);
      repo.write(path, JSON.stringify(doc));
      ok(repo.shadow(['init', agent]));
      const after = JSON.parse(repo.read(path));
      const groups = agent === 'claude' ? after.hooks.PreToolUse : after.hooks.BeforeTool;
      assert.is(groups.length, 1, `${agent}: replaced, not added`);
      ok(repo.shadow(['init', agent, '--remove']));
      return groups[0].hooks[0].command;
    };
    for (const [agent, event] of [
      ['claude', 'claude-pre-tool-use'],
      ['gemini', 'gemini-before-tool'],
    ] as const) {
      assert.match(plain(agent, event), /^out=\$\(.* \|\| \{ echo .* >&2; exit 2; \}$/, agent);
    }
    repo.write(
      '.claude/settings.json',
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: 'x' }] },
            { matcher: 'Write|Edit|MultiEdit', hooks: [{ type: 'command', command: old('claude-pre-tool-use') }] },
          ],
        },
      }),
    );
    repo.write(
      '.mcp.json',
      JSON.stringify({
        mcpServers: {
          shadow: { type: 'stdio', command: '/old/node', args: ['/old/dist/bin/shadow.mjs', '-C', '/old/repo', 'mcp'] },
        },
      }),
    );
    const before = readFileSync(repo.path('.claude/settings.json'));
    ok(repo.shadow(['init', 'claude']));
    const groups = JSON.parse(repo.read('.claude/settings.json')).hooks.PreToolUse;
    assert.is(groups.length, 2);
    assert.is(groups[0].matcher, 'Bash');
    assert.ok(groups[1].hooks[0].command.startsWith(`out=$(${process.execPath} `));
    assert.is(JSON.parse(repo.read('.mcp.json')).mcpServers.shadow.command, process.execPath);
    ok(repo.shadow(['init', 'claude', '--remove']));
    assert.ok(readFileSync(repo.path('.claude/settings.json')).equals(before));
  });
});

Edges.run();
