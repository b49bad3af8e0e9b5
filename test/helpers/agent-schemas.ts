import { z } from 'zod';

/*
 * Each agent's config and hook formats as its documentation gives them,
 * for what `shadow init` writes and `shadow hook` answers. The entries
 * shadow writes are held strictly (a key the agent does not document is a
 * failure); the files around them loosely (the person's other keys are
 * theirs).
 */

const strings = z.array(z.string());
const env = z.record(z.string(), z.string());

/**
 * Claude Code, project scope `.mcp.json`: `{mcpServers: {<name>: {type?:
 * "stdio", command, args?, env?} | {type: "http" | "sse", url, headers?}}}`.
 * https://code.claude.com/docs/en/mcp ("Project scope", "Add a local stdio server").
 */
const claudeServer = z.union([
  z.strictObject({
    type: z.literal('stdio').optional(),
    command: z.string().min(1),
    args: strings.optional(),
    env: env.optional(),
  }),
  z.strictObject({ type: z.enum(['http', 'sse']), url: z.string(), headers: env.optional() }),
]);
export const ClaudeMcpJson = z.looseObject({ mcpServers: z.record(z.string(), claudeServer) });

/**
 * Claude Code, `.claude/settings.json` hooks: `{hooks: {<event>: [{matcher?,
 * hooks: [{type: "command", command, timeout?}]}]}}`.
 * https://code.claude.com/docs/en/hooks ("Configuration", "Structure").
 */
const CLAUDE_EVENTS = [
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'Notification',
  'UserPromptSubmit',
  'Stop',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'SessionStart',
  'SessionEnd',
] as const;
const claudeHookGroup = z.strictObject({
  matcher: z.string().optional(),
  hooks: z
    .array(
      z.strictObject({
        type: z.literal('command'),
        command: z.string().min(1),
        timeout: z.number().positive().optional(),
      }),
    )
    .min(1),
});
export const ClaudeSettings = z.looseObject({
  hooks: z.partialRecord(z.enum(CLAUDE_EVENTS), z.array(claudeHookGroup)).optional(),
});

/**
 * Claude Code, a PreToolUse hook's JSON output (exit 0): `hookSpecificOutput`
 * with `hookEventName: "PreToolUse"`, `permissionDecision` allow | deny |
 * ask, and `permissionDecisionReason` (for deny: shown to Claude); every
 * field is optional, and `{}` decides nothing (the call goes on as it would).
 * https://code.claude.com/docs/en/hooks ("PreToolUse decision control").
 */
export const ClaudePreToolUseOutput = z.strictObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  hookSpecificOutput: z
    .strictObject({
      hookEventName: z.literal('PreToolUse'),
      permissionDecision: z.enum(['allow', 'deny', 'ask']),
      permissionDecisionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});

/**
 * Codex CLI, `config.toml` (`$CODEX_HOME/config.toml`, or `.codex/config.toml`
 * in a trusted project): `[mcp_servers.<name>]` with `command`, `args?`,
 * `env?`, `env_vars?`, `cwd?`, `startup_timeout_sec?`, `tool_timeout_sec?`,
 * `enabled?`, `enabled_tools?`, `disabled_tools?`.
 * https://github.com/openai/codex/blob/main/docs/config.md ("mcp_servers", "STDIO"),
 * https://developers.openai.com/codex/config-basic (project config files, trusted projects only).
 */
const codexServer = z.strictObject({
  command: z.string().min(1),
  args: strings.optional(),
  env: env.optional(),
  env_vars: strings.optional(),
  cwd: z.string().optional(),
  startup_timeout_sec: z.number().optional(),
  tool_timeout_sec: z.number().optional(),
  enabled: z.boolean().optional(),
  enabled_tools: strings.optional(),
  disabled_tools: strings.optional(),
});
export const CodexConfig = z.looseObject({ mcp_servers: z.record(z.string(), codexServer) });

/**
 * Gemini CLI, `.gemini/settings.json`: `mcpServers.<name>` with `command`,
 * `args?`, `env?`, `cwd?` (stdio) or `url` / `httpUrl`, and `timeout?`,
 * `trust?`, `description?`, `includeTools?`, `excludeTools?`.
 * https://geminicli.com/docs/tools/mcp-server ("Configuration properties").
 * Hooks: `hooks.<event>: [{matcher?, sequential?, hooks: [{type: "command",
 * command, name?, timeout?, description?}]}]`.
 * https://geminicli.com/docs/hooks/reference ("Configuration schema").
 */
const geminiServer = z.strictObject({
  command: z.string().min(1).optional(),
  args: strings.optional(),
  env: env.optional(),
  cwd: z.string().optional(),
  url: z.string().optional(),
  httpUrl: z.string().optional(),
  headers: env.optional(),
  timeout: z.number().optional(),
  trust: z.boolean().optional(),
  description: z.string().optional(),
  includeTools: strings.optional(),
  excludeTools: strings.optional(),
});
const GEMINI_EVENTS = [
  'BeforeTool',
  'AfterTool',
  'BeforeAgent',
  'AfterAgent',
  'BeforeModel',
  'AfterModel',
  'BeforeToolSelection',
  'SessionStart',
  'SessionEnd',
  'PreCompress',
  'Notification',
] as const;
const geminiHookGroup = z.strictObject({
  matcher: z.string().optional(),
  sequential: z.boolean().optional(),
  hooks: z
    .array(
      z.strictObject({
        type: z.literal('command'),
        command: z.string().min(1),
        name: z.string().optional(),
        timeout: z.number().optional(),
        description: z.string().optional(),
      }),
    )
    .min(1),
});
export const GeminiSettings = z.looseObject({
  mcpServers: z.record(z.string(), geminiServer),
  hooks: z.partialRecord(z.enum(GEMINI_EVENTS), z.array(geminiHookGroup)).optional(),
});

/**
 * Gemini CLI, a BeforeTool hook's stdout: `decision` allow | deny (alias
 * block), `reason` (required when denied: sent to the agent), and the
 * common fields. https://geminicli.com/docs/hooks/reference ("Common output fields", "BeforeTool").
 */
export const GeminiBeforeToolOutput = z
  .strictObject({
    systemMessage: z.string().optional(),
    suppressOutput: z.boolean().optional(),
    continue: z.boolean().optional(),
    stopReason: z.string().optional(),
    decision: z.enum(['allow', 'deny', 'block']).optional(),
    reason: z.string().optional(),
    hookSpecificOutput: z.looseObject({ tool_input: z.record(z.string(), z.unknown()).optional() }).optional(),
  })
  .refine((o) => o.decision !== 'deny' || (o.reason ?? '') !== '', 'a deny needs a reason');

/**
 * Cursor, project `.cursor/mcp.json`: `{mcpServers: {<name>: {command, args?,
 * env?, envFile?} | {url, headers?}}}`. https://cursor.com/docs/mcp ("Configuration").
 */
const cursorServer = z.union([
  z.strictObject({
    type: z.literal('stdio').optional(),
    command: z.string().min(1),
    args: strings.optional(),
    env: env.optional(),
    envFile: z.string().optional(),
  }),
  z.strictObject({ url: z.string(), headers: env.optional() }),
]);
export const CursorMcpJson = z.looseObject({ mcpServers: z.record(z.string(), cursorServer) });
