import * as assert from 'uvu/assert';
import AjvModule from 'ajv/dist/2020.js';
import { callTool, type ToolConnection, type ToolOutcome } from '../../src/agent-tools/call-tool.js';
import { formatTools, type JsonSchema } from '../../src/agent-tools/definitions.js';
import { PROFILES, toolsFor } from '../../src/agent-tools/profiles.js';
import { STACK_LINE } from './tool-outcome.js';

/*
 * The advertised schemas of every tool of every profile, compiled with ajv
 * (draft 2020-12, strict), and a call through callTool whose structured
 * content is held to its tool's outputSchema, as the MCP SDK's client holds
 * it. Keyed by profile and name: read_file is two tools.
 */

// ajv is CommonJS: node hands its module.exports to the default import, whose `default` is the class again.
const Ajv2020 = AjvModule.default;

export type Validator = ((data: unknown) => boolean) & { errors?: unknown };

export interface Compiled {
  input: Validator;
  output: Validator;
}

/** Every tool of every profile (apply included), its input and output schema compiled strictly. */
export function compileAll(): Map<string, Compiled> {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const out = new Map<string, Compiled>();
  for (const profile of PROFILES) {
    const defs = formatTools('mcp', toolsFor([profile], { allowApply: true })) as Array<{
      name: string;
      inputSchema: JsonSchema;
      outputSchema: JsonSchema;
    }>;
    for (const d of defs)
      out.set(`${profile}:${d.name}`, {
        input: ajv.compile(d.inputSchema) as Validator,
        output: ajv.compile(d.outputSchema) as Validator,
      });
  }
  return out;
}

let compiled: Map<string, Compiled> | undefined;

/**
 * callTool, with what every outcome must be: structured content that its
 * tool's outputSchema takes, an error's code first in the text and in the
 * structured content, never a stack trace.
 */
export async function checkedCall(conn: ToolConnection, name: string, args: unknown): Promise<ToolOutcome> {
  compiled ??= compileAll();
  const r = await callTool(conn, name, args);
  const profile =
    toolsFor(conn.profiles ?? ['shadow'], { allowApply: conn.allowApply }).find((t) => t.name === name)?.profile ??
    'shadow';
  const check = compiled.get(`${profile}:${name}`);
  assert.ok(r.structured, `${name}: no structured content`);
  if (check)
    assert.ok(
      check.output(r.structured),
      `${name}: the structured content breaks the outputSchema: ${JSON.stringify(check.output.errors)}\n${JSON.stringify(r.structured).slice(0, 600)}`,
    );
  if (r.isError) {
    assert.not.match(r.text, STACK_LINE, `a stack trace from ${name}: ${r.text}`);
    const code = /^([A-Z_]+): /.exec(r.text)?.[1];
    assert.ok(code, `${name}: the error text does not start with a code: ${r.text.slice(0, 300)}`);
    assert.is((r.structured!.error as { code: string }).code, code, `${name}: the structured error's code`);
  } else assert.is(r.structured!.error, undefined, `${name}: an error in a success`);
  return r;
}
