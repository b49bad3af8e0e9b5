import { failClosedCommandLine, shadowArgs, type Launch } from './launch.js';

/**
 * What `shadow init <agent>` adds to each agent's project config: the MCP
 * server, and where the agent has a hook that runs before its own file
 * edits, the hook that takes those edits into the draft. Each agent's
 * format is written to its documentation (see docs/agents.md, and the
 * schemas test/agent-init.test.ts checks the written files against).
 */
export const AGENTS = ['claude', 'codex', 'gemini', 'cursor'] as const;
export type AgentName = (typeof AGENTS)[number];

/** The hook subcommands (`shadow hook <event>`), by agent. */
export const HOOK_EVENTS = ['claude-pre-tool-use', 'gemini-before-tool'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** The name the server is registered under: Claude Code then calls its tools `mcp__shadow__<tool>`. */
export const SERVER_NAME = 'shadow';

/**
 * One change to a config document: a member of an object (`mcpServers.shadow`)
 * or an element of an array (a hook group in `hooks.PreToolUse`). `owns`
 * recognises what an earlier `shadow init` wrote, from this installation or
 * another (a moved checkout, another node): that is replaced, never added twice,
 * and `--remove` takes it away; anything else is the person's.
 */
export type ConfigEdit =
  | {
      kind: 'member';
      at: readonly string[];
      key: string;
      value: Record<string, unknown>;
      owns: (v: unknown) => boolean;
    }
  | { kind: 'element'; at: readonly string[]; value: Record<string, unknown>; owns: (v: unknown) => boolean };

export interface ConfigFile {
  /** Relative to the project's root. */
  path: string;
  format: 'json' | 'toml';
  edits: ConfigEdit[];
}

export interface AgentSetup {
  agent: AgentName;
  title: string;
  files: ConfigFile[];
  /** What the person still has to do, or should know. */
  notes: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An MCP server entry an earlier `shadow init` wrote: shadow.cjs (shadow.mjs before) started with `mcp`. */
function ownsServer(v: unknown): boolean {
  if (!isObject(v) || !Array.isArray(v.args)) return false;
  const args = v.args as unknown[];
  return typeof args[0] === 'string' && /(^|[\\/])shadow\.[cm]js$/.test(args[0]) && args.includes('mcp');
}

/**
 * A hook group whose command runs `shadow … hook <event>`: the plain command
 * earlier versions wrote (ending in the event) and the fail-closed one.
 */
function ownsHook(event: HookEvent): (v: unknown) => boolean {
  const runs = new RegExp(`shadow\\.[cm]js['"]? .* hook ${event}(?![\\w-])`);
  const isOurs = (h: unknown): boolean => isObject(h) && typeof h.command === 'string' && runs.test(h.command);
  return (v) => isObject(v) && Array.isArray(v.hooks) && v.hooks.some(isOurs);
}

/** What the agent is told when its hook command could not run shadow at all (launch.ts). */
function hookRefusal(agent: string, write: string): string {
  return (
    'shadow could not run its edit hook (moved or removed since shadow init?), so this edit is refused and nothing was written. ' +
    `Make the change with ${write}, and ask the person to run: shadow init ${agent}`
  );
}

function server(launch: Launch, root: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...extra, command: launch.node, args: shadowArgs(launch, root, ['mcp']) };
}

function mcpServers(launch: Launch, root: string, extra?: Record<string, unknown>): ConfigEdit {
  return { kind: 'member', at: ['mcpServers'], key: SERVER_NAME, value: server(launch, root, extra), owns: ownsServer };
}

/** The config `shadow init <agent>` writes in the project at `root`. */
export function agentSetup(agent: AgentName, root: string, launch: Launch): AgentSetup {
  const hook = (event: HookEvent, refusal: string): string =>
    failClosedCommandLine(launch, root, ['hook', event], refusal);
  switch (agent) {
    case 'claude':
      return {
        agent,
        title: 'Claude Code',
        files: [
          // https://code.claude.com/docs/en/mcp (project scope: .mcp.json)
          { path: '.mcp.json', format: 'json', edits: [mcpServers(launch, root, { type: 'stdio' })] },
          // https://code.claude.com/docs/en/hooks (PreToolUse, matched on the tool's name)
          {
            path: '.claude/settings.json',
            format: 'json',
            edits: [
              {
                kind: 'element',
                at: ['hooks', 'PreToolUse'],
                value: {
                  matcher: 'Write|Edit|MultiEdit|NotebookEdit',
                  hooks: [
                    {
                      type: 'command',
                      command: hook('claude-pre-tool-use', hookRefusal('claude', 'mcp__shadow__batch_write')),
                    },
                  ],
                },
                owns: ownsHook('claude-pre-tool-use'),
              },
            ],
          },
        ],
        notes: [
          'Claude Code asks once before it starts the servers of a project\'s .mcp.json: approve "shadow" (or run `claude mcp list`).',
          'Write, Edit and MultiEdit on files of this repository now land in the draft (the hook answers the model with the batch, or with why not; NotebookEdit is refused with what to use instead); your files change only when you run `shadow apply`.',
        ],
      };
    case 'codex':
      return {
        agent,
        title: 'Codex CLI',
        // https://developers.openai.com/codex/config-basic (project .codex/config.toml, trusted projects only),
        // https://developers.openai.com/codex/mcp ([mcp_servers.<name>]: command, args)
        files: [
          {
            path: '.codex/config.toml',
            format: 'toml',
            edits: [
              { kind: 'member', at: ['mcp_servers'], key: SERVER_NAME, value: server(launch, root), owns: ownsServer },
            ],
          },
        ],
        notes: [
          'Codex reads .codex/config.toml only in a project it trusts: say yes when it asks, or set `[projects."<this directory>"] trust_level = "trusted"` in $CODEX_HOME/config.toml (~/.codex).',
          "Codex's own apply_patch still writes to your files: ask it to use shadow's batch_write tool.",
        ],
      };
    case 'gemini':
      return {
        agent,
        title: 'Gemini CLI',
        files: [
          {
            path: '.gemini/settings.json',
            format: 'json',
            edits: [
              // https://geminicli.com/docs/tools/mcp-server (mcpServers: command, args)
              mcpServers(launch, root),
              // https://geminicli.com/docs/hooks/reference (BeforeTool, matched on the tool's name)
              {
                kind: 'element',
                at: ['hooks', 'BeforeTool'],
                value: {
                  matcher: 'write_file|replace',
                  hooks: [
                    {
                      type: 'command',
                      name: 'shadow',
                      description: "takes the edit into shadow's draft",
                      command: hook(
                        'gemini-before-tool',
                        hookRefusal('gemini', 'the batch_write tool of the shadow MCP server'),
                      ),
                    },
                  ],
                },
                owns: ownsHook('gemini-before-tool'),
              },
            ],
          },
        ],
        notes: [
          'Gemini CLI reads .gemini/settings.json only in a folder it trusts: trust this one when it asks.',
          'write_file and replace on files of this repository now land in the draft; your files change only when you run `shadow apply`.',
        ],
      };
    case 'cursor':
      return {
        agent,
        title: 'Cursor',
        // https://cursor.com/docs/mcp (project .cursor/mcp.json: mcpServers, command, args)
        files: [{ path: '.cursor/mcp.json', format: 'json', edits: [mcpServers(launch, root)] }],
        notes: [
          'Cursor lists the server under Settings > MCP: switch "shadow" on there.',
          "Cursor has no hook before its own edits: they still go to your files; ask the agent to use shadow's batch_write tool.",
        ],
      };
  }
}
