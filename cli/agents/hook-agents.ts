import type { HookEvent } from './agent-specs.js';
import { unsupported, type EditOp, type Intake, type ToolNames, type Verdict } from './hook-route.js';

/**
 * Each agent's hook protocol: the tool call it sends on stdin, and the
 * answer it reads on stdout. Every answer, a pass included, is a JSON
 * document: the command `shadow init` registers refuses the call when the
 * hook printed nothing (launch.ts), so silence can never mean "go ahead".
 *
 * Claude Code, PreToolUse (https://code.claude.com/docs/en/hooks): stdin
 * `{hook_event_name, cwd, tool_name, tool_input}`; Write takes
 * `{file_path, content}`, Edit `{file_path, old_string, new_string,
 * replace_all?}`, MultiEdit `{file_path, edits: [...]}`. Exit 0 with
 * `{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision:
 * "deny", permissionDecisionReason}}` refuses the call and shows the reason
 * to the model; exit 0 with `{}` lets the call go on as it would. NotebookEdit
 * takes `{notebook_path, cell_id?, new_source, cell_type?, edit_mode?}`.
 *
 * Gemini CLI, BeforeTool (https://geminicli.com/docs/hooks/reference):
 * stdin `{hook_event_name, cwd, tool_name, tool_input}`; write_file takes
 * `{file_path, content}`, replace `{file_path, old_string, new_string,
 * expected_replacements?}`. `{decision: "deny", reason}` refuses the call
 * and sends the reason to the model; `{}` lets it go on.
 */

export interface HookProtocol {
  /** Who the batches are by, as the agent's MCP client names itself. */
  actor: string;
  names: ToolNames;
  intake(input: Record<string, unknown>): Intake;
  answer(v: Verdict): string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === 'string';

function badInput(tool: string, names: ToolNames): Intake {
  return unsupported(tool, 'its arguments are not the ones this hook knows', names);
}

const CLAUDE_NAMES: ToolNames = { read: 'mcp__shadow__read_file', write: 'mcp__shadow__batch_write' };

function claudeIntake(input: Record<string, unknown>): Intake {
  const tool = String(input.tool_name ?? '');
  const a = isObject(input.tool_input) ? input.tool_input : {};
  if (tool === 'NotebookEdit') {
    // A cell edit rewrites the notebook's JSON as Jupyter lays it out: not an edit shadow can express, so a whole-file write is asked for.
    if (!str(a.notebook_path)) return badInput(tool, CLAUDE_NAMES);
    return {
      kind: 'untakeable',
      tool,
      filePath: a.notebook_path,
      why: 'a notebook cell edit; write the whole .ipynb file instead',
    };
  }
  if (!['Write', 'Edit', 'MultiEdit'].includes(tool)) return { kind: 'pass' };
  if (!str(a.file_path)) return badInput(tool, CLAUDE_NAMES);
  if (tool === 'Write')
    return str(a.content)
      ? { kind: 'edit', tool, filePath: a.file_path, ops: [{ operation: 'write', content: a.content }] }
      : badInput(tool, CLAUDE_NAMES);
  const edits = tool === 'Edit' ? [a] : Array.isArray(a.edits) ? a.edits : [];
  const ops: EditOp[] = [];
  for (const e of edits) {
    if (!isObject(e) || !str(e.old_string) || !str(e.new_string)) return badInput(tool, CLAUDE_NAMES);
    // shadow's edit replaces the one occurrence; every occurrence is a write or a patch.
    if (e.replace_all === true) return unsupported(tool, 'replace_all', CLAUDE_NAMES);
    ops.push({ operation: 'edit', old_content: e.old_string, content: e.new_string });
  }
  return ops.length === 0 ? badInput(tool, CLAUDE_NAMES) : { kind: 'edit', tool, filePath: a.file_path, ops };
}

// Gemini CLI names an MCP tool that clashes with one of its own `<server>__<tool>`.
const GEMINI_NAMES: ToolNames = {
  read: "shadow's read_file tool (shadow__read_file)",
  write: "shadow's batch_write tool",
};

function geminiIntake(input: Record<string, unknown>): Intake {
  const tool = String(input.tool_name ?? '');
  const a = isObject(input.tool_input) ? input.tool_input : {};
  if (tool !== 'write_file' && tool !== 'replace') return { kind: 'pass' };
  if (!str(a.file_path)) return badInput(tool, GEMINI_NAMES);
  if (tool === 'write_file')
    return str(a.content)
      ? { kind: 'edit', tool, filePath: a.file_path, ops: [{ operation: 'write', content: a.content }] }
      : badInput(tool, GEMINI_NAMES);
  if (!str(a.old_string) || !str(a.new_string)) return badInput(tool, GEMINI_NAMES);
  if (typeof a.expected_replacements === 'number' && a.expected_replacements !== 1)
    return unsupported(tool, `expected_replacements ${a.expected_replacements}`, GEMINI_NAMES);
  return {
    kind: 'edit',
    tool,
    filePath: a.file_path,
    ops: [{ operation: 'edit', old_content: a.old_string, content: a.new_string }],
  };
}

export const HOOKS: Record<HookEvent, HookProtocol> = {
  'claude-pre-tool-use': {
    actor: 'claude-code',
    names: CLAUDE_NAMES,
    intake: claudeIntake,
    answer: (v) =>
      v.kind === 'pass'
        ? '{}\n'
        : `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: v.reason } })}\n`,
  },
  'gemini-before-tool': {
    actor: 'gemini-cli',
    names: GEMINI_NAMES,
    intake: geminiIntake,
    answer: (v) => `${JSON.stringify(v.kind === 'pass' ? {} : { decision: 'deny', reason: v.reason })}\n`,
  },
};
