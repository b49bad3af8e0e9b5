/**
 * `shadow init <agent>`: the config it writes for Claude Code, Codex CLI,
 * Gemini CLI and Cursor holds to each agent's documented format
 * (helpers/agent-schemas.ts), starts shadow's MCP server from any directory
 * by absolute paths (an MCP client does initialize and tools/list through
 * it), merges into the person's config keeping every other key, is written
 * once however often init runs, and --remove gives back the very bytes.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse as parseToml } from 'smol-toml';
import type { ZodType } from 'zod';
import { ClaudeMcpJson, ClaudeSettings, CodexConfig, CursorMcpJson, GeminiSettings } from './helpers/agent-schemas.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';
import { snapshotTree } from './helpers/dir-snapshot.js';

type Agent = 'claude' | 'codex' | 'gemini' | 'cursor';
const AGENTS: Agent[] = ['claude', 'codex', 'gemini', 'cursor'];

/** The files each agent's init writes, with the schema each is held to. */
const FILES: Record<Agent, Array<{ path: string; schema: ZodType }>> = {
  claude: [
    { path: '.mcp.json', schema: ClaudeMcpJson },
    { path: '.claude/settings.json', schema: ClaudeSettings },
  ],
  codex: [{ path: '.codex/config.toml', schema: CodexConfig }],
  gemini: [{ path: '.gemini/settings.json', schema: GeminiSettings }],
  cursor: [{ path: '.cursor/mcp.json', schema: CursorMcpJson }],
};

const ENTRY = realpathSync(SHADOW_BIN);

function load(repo: DiskRepo, path: string): Record<string, any> {
  const text = repo.read(path);
  return (path.endsWith('.toml') ? parseToml(text) : JSON.parse(text)) as Record<string, any>;
}

/** The MCP server entry `shadow init <agent>` wrote. */
function server(repo: DiskRepo, agent: Agent): { command: string; args: string[] } {
  const path = FILES[agent][0]!.path;
  const doc = load(repo, path);
  return (agent === 'codex' ? doc.mcp_servers : doc.mcpServers).shadow;
}

function init(repo: DiskRepo, args: string[]): ReturnType<DiskRepo['shadow']> {
  return repo.shadow(['init', ...args]);
}

function ok(r: ReturnType<DiskRepo['shadow']>): void {
  assert.is(r.status, 0, r.stdout + r.stderr);
}

const Init = suite('shadow init');

Init(
  'each agent: the config holds to its documented format, with absolute paths to node, shadow and the repository',
  () => {
    for (const agent of AGENTS) {
      const repo = new DiskRepo();
      try {
        const r = init(repo, [agent, '--json']);
        ok(r);
        const doc = r.json();
        assert.equal(
          doc.files.map((f: { path: string; change: string }) => [f.path, f.change]),
          FILES[agent].map((f) => [f.path, 'create']),
          agent,
        );
        assert.ok(doc.written && doc.notes.length > 0, agent);
        for (const f of FILES[agent]) {
          const check = f.schema.safeParse(load(repo, f.path));
          assert.ok(check.success, `${agent} ${f.path}: ${JSON.stringify(check.error?.issues)}`);
        }
        assert.equal(server(repo, agent).command, process.execPath, agent);
        assert.equal(server(repo, agent).args, [ENTRY, '-C', realpathSync(repo.dir), 'mcp'], agent);
      } finally {
        repo.cleanup();
      }
    }
  },
);

Init('the hooks are on the tools that edit files, and run shadow hook by absolute paths', () => {
  const repo = new DiskRepo();
  try {
    ok(init(repo, ['claude']));
    ok(init(repo, ['gemini']));
    const claude = load(repo, '.claude/settings.json').hooks.PreToolUse[0];
    const gemini = load(repo, '.gemini/settings.json').hooks.BeforeTool[0];
    const matches = (matcher: string, tool: string): boolean => new RegExp(`^(?:${matcher})$`).test(tool);
    for (const tool of ['Write', 'Edit', 'MultiEdit', 'NotebookEdit']) assert.ok(matches(claude.matcher, tool), tool);
    for (const tool of ['Read', 'Bash', 'Glob']) assert.not.ok(matches(claude.matcher, tool), tool);
    for (const tool of ['write_file', 'replace']) assert.ok(matches(gemini.matcher, tool), tool);
    assert.not.ok(matches(gemini.matcher, 'read_file'));
    // shadow run by absolute paths, inside a wrapper that turns any failure or silence into exit 2 with a reason (agent-hooks.test.ts runs it).
    const failClosed = (event: string, refusal: RegExp): RegExp =>
      new RegExp(
        `^out=\\$\\(${process.execPath} ${ENTRY} -C ${realpathSync(repo.dir)} hook ${event}\\) && \\[ -n "\\$out" \\] && printf '%s\\\\n' "\\$out" \\|\\| \\{ echo '${refusal.source}' >&2; exit 2; \\}$`,
      );
    assert.match(
      claude.hooks[0].command,
      failClosed(
        'claude-pre-tool-use',
        /shadow could not run its edit hook [^']*mcp__shadow__batch_write[^']*shadow init claude/,
      ),
    );
    assert.match(
      gemini.hooks[0].command,
      failClosed('gemini-before-tool', /shadow could not run its edit hook [^']*batch_write[^']*shadow init gemini/),
    );
  } finally {
    repo.cleanup();
  }
});

Init(
  'the written command starts the MCP server from another directory, never a shadow on PATH: initialize and tools/list',
  async () => {
    const repo = new DiskRepo();
    // A `shadow` and an `npx` first on PATH that fail: the config must not need either.
    const decoys = join(repo.root, 'decoys');
    mkdirSync(decoys);
    for (const name of ['shadow', 'npx']) {
      writeFileSync(join(decoys, name), '#!/bin/sh\nexit 97\n');
      chmodSync(join(decoys, name), 0o755);
    }
    try {
      for (const agent of AGENTS) {
        ok(init(repo, [agent]));
        const { command, args } = server(repo, agent);
        const transport = new StdioClientTransport({
          command,
          args,
          cwd: repo.home,
          env: { ...repo.env, PATH: `${decoys}:${repo.env.PATH}` },
          stderr: 'pipe',
        });
        const client = new Client({ name: `${agent}-test`, version: '1.0.0' });
        await client.connect(transport);
        try {
          assert.is(client.getServerVersion()?.name, 'shadow', agent);
          const names = (await client.listTools()).tools.map((t) => t.name);
          for (const name of ['batch_write', 'read_file'])
            assert.ok(names.includes(name), `${agent}: ${names.join(', ')}`);
        } finally {
          await client.close();
        }
      }
    } finally {
      repo.cleanup();
    }
  },
);

/** Configs the person had: other servers, other keys, their own layout. */
const BEFORE: Record<Agent, Record<string, string>> = {
  claude: {
    '.mcp.json':
      '{\n\t"mcpServers": {\n\t\t"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"TOKEN": "${GITHUB_TOKEN}"}}\n\t}\n}',
    '.claude/settings.json':
      '{\r\n  "permissions": {"allow": ["Bash(npm test)"]},\r\n  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo 1"}]}], "Stop": []},\r\n  "model": "opus"\r\n}\r\n',
  },
  codex: {
    '.codex/config.toml':
      '# my settings\nmodel = "o3"  # the model\n\n[mcp_servers.docs]\ncommand = "docs-server"\nargs = ["--port", "4000"]\n\n[mcp_servers.docs.env]\nKEY = "v"\n\n[profiles.fast]\nmodel = "gpt-4.1"\n',
  },
  gemini: {
    '.gemini/settings.json':
      '{"theme": "Dracula", "mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"]}}, "hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./check.sh"}]}]}}',
  },
  cursor: {
    '.cursor/mcp.json':
      '{\n    "mcpServers": {\n        "time": {"command": "uvx", "args": ["mcp-server-time"]}\n    },\n    "other": [1, 2.5, "x"]\n}\n',
  },
};

function writeBefore(repo: DiskRepo, agent: Agent): Map<string, Buffer> {
  const bytes = new Map<string, Buffer>();
  for (const [path, text] of Object.entries(BEFORE[agent])) {
    repo.write(path, text);
    bytes.set(path, readFileSync(repo.path(path)));
  }
  return bytes;
}

/** A parsed config without what shadow adds: its server, and its hook groups. */
function withoutShadow(doc: Record<string, any>): Record<string, any> {
  const copy = structuredClone(doc);
  for (const servers of [copy.mcpServers, copy.mcp_servers]) if (servers) delete servers.shadow;
  for (const groups of Object.values(copy.hooks ?? {}) as any[][]) {
    for (let i = groups.length - 1; i >= 0; i--)
      if (groups[i].hooks.some((h: any) => / hook [a-z-]+(\)|$)/.test(h.command))) groups.splice(i, 1);
  }
  return JSON.parse(JSON.stringify(copy));
}

Init(
  'merging keeps every key the person had; Codex keeps its comments and layout; --remove gives back the very bytes',
  () => {
    for (const agent of AGENTS) {
      const repo = new DiskRepo();
      try {
        const before = writeBefore(repo, agent);
        ok(init(repo, [agent]));
        for (const [path, bytes] of before) {
          const was = path.endsWith('.toml') ? parseToml(bytes.toString()) : JSON.parse(bytes.toString());
          assert.equal(withoutShadow(load(repo, path)), JSON.parse(JSON.stringify(was)), `${agent} ${path}`);
          if (path.endsWith('.toml'))
            assert.ok(repo.read(path).startsWith(bytes.toString()), 'the TOML is appended to, never rewritten');
        }
        for (const f of FILES[agent]) assert.ok(f.schema.safeParse(load(repo, f.path)).success, `${agent} ${f.path}`);
        ok(init(repo, [agent, '--remove']));
        for (const [path, bytes] of before)
          assert.ok(
            readFileSync(repo.path(path)).equals(bytes),
            `${agent} ${path}: ${JSON.stringify(repo.read(path))}`,
          );
        for (const f of FILES[agent])
          assert.is(existsSync(repo.path(f.path)), before.has(f.path), `${agent} ${f.path}`);
      } finally {
        repo.cleanup();
      }
    }
  },
);

Init('--remove deletes the files and directories init made, and nothing else', () => {
  for (const agent of AGENTS) {
    const repo = new DiskRepo();
    try {
      const tree = snapshotTree(repo.dir);
      ok(init(repo, [agent]));
      const r = init(repo, [agent, '--remove', '--json']);
      ok(r);
      assert.ok(
        r.json().files.every((f: { change: string }) => f.change === 'delete'),
        r.stdout,
      );
      assert.equal(snapshotTree(repo.dir), tree, agent);
      assert.equal(
        init(repo, [agent, '--remove', '--json'])
          .json()
          .files.map((f: { change: string }) => f.change),
        FILES[agent].map(() => 'unchanged'),
      );
    } finally {
      repo.cleanup();
    }
  }
});

Init('--print writes nothing and shows the bytes init then writes; init twice changes nothing the second time', () => {
  for (const agent of AGENTS) {
    const repo = new DiskRepo();
    try {
      writeBefore(repo, agent);
      const tree = snapshotTree(repo.dir, []);
      const printed = init(repo, [agent, '--print', '--json']);
      ok(printed);
      assert.equal(snapshotTree(repo.dir, []), tree, `${agent}: --print wrote (the git directory included)`);
      assert.is(printed.json().written, false);
      assert.ok(init(repo, [agent, '--print']).stdout.includes('would update'), agent);
      ok(init(repo, [agent]));
      for (const f of printed.json().files as Array<{ path: string; content: string }>)
        assert.is(repo.read(f.path), f.content, `${agent} ${f.path}`);
      const once = snapshotTree(repo.dir, []);
      const again = init(repo, [agent, '--json']);
      ok(again);
      assert.is(again.json().written, false);
      assert.equal(snapshotTree(repo.dir, []), once, `${agent}: the second init wrote`);
      // And --remove after two inits still gives back the person's bytes.
      ok(init(repo, [agent, '--remove']));
      for (const [path, text] of Object.entries(BEFORE[agent])) assert.is(repo.read(path), text, `${agent} ${path}`);
    } finally {
      repo.cleanup();
    }
  }
});

Init.run();
