import * as assert from 'uvu/assert';
import type { ToolOutcome } from '../../src/agent-tools/call-tool.js';

/*
 * What a tool call answered (in-process or over MCP): an error's code, a
 * result's JSON, and the line that would betray a stack trace.
 */

export const STACK_LINE = /^\s+at /m;

/** The code an error text starts with (`CODE: message`). */
export function codeOf(r: ToolOutcome): string {
  assert.ok(r.isError, `expected an error, got: ${r.text.slice(0, 500)}`);
  const m = /^([A-Z_]+): /.exec(r.text);
  assert.ok(m, `the error text does not start with a code: ${r.text.slice(0, 300)}`);
  return m![1]!;
}

export function okJson(r: ToolOutcome): any {
  assert.is(r.isError, false, r.text.slice(0, 2000));
  return JSON.parse(r.text);
}
