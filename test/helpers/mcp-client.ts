import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DiskRepo, SHADOW_BIN } from './disk-repo.js';
import { STACK_LINE } from './tool-outcome.js';

/*
 * `shadow mcp` as an agent's runtime drives it: a real `shadow mcp` process
 * (the bundled CLI) spoken to by the MCP SDK's own Client over stdio, the
 * tools it offers, and what native git sees of its commits.
 */

/** Codes a batch may fail with when others changed the same paths first. (BUSY: the draft kept moving.) */
export const CONFLICT_CODES = ['CONFLICT', 'EDIT_NO_MATCH', 'BUSY'];
export { SHADOW_TOOL_NAMES as TOOL_NAMES } from './tool-names.js';

export interface Outcome {
  isError: boolean;
  text: string;
  /** The result's structuredContent (the SDK's client has checked it against the tool's outputSchema). */
  structured?: Record<string, unknown>;
}

/** One `shadow mcp` process and the SDK client connected to it. */
export interface Mcp {
  client: Client;
  name: string;
  stderr(): string;
  call(tool: string, args: Record<string, unknown>): Promise<Outcome>;
  close(): Promise<void>;
}

export async function connect(repo: DiskRepo, name: string, args: string[] = []): Promise<Mcp> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SHADOW_BIN, 'mcp', ...args],
    cwd: repo.dir,
    env: repo.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  // `initialize` is answered before the server has loaded the SDK and opened its socket for handed-off
  // calls (cli/commands/mcp.ts); an answer to tools/list says both are up, as tests that use the socket need.
  await client.listTools();
  return {
    client,
    name,
    stderr: () => stderr,
    async call(tool, toolArgs) {
      const r = (await client.callTool({ name: tool, arguments: toolArgs })) as {
        content: Array<{ type: string; text: string }>;
        isError?: boolean;
        structuredContent?: Record<string, unknown>;
      };
      assert.is(r.content.length, 1, `${tool}: ${JSON.stringify(r)}`);
      assert.is(r.content[0]!.type, 'text');
      const out = { isError: r.isError === true, text: r.content[0]!.text, structured: r.structuredContent };
      if (out.isError) assert.not.match(out.text, STACK_LINE, `a stack trace from ${tool}: ${out.text}`);
      return out;
    },
    close: () => client.close(),
  };
}

export interface Commit {
  oid: string;
  author: string;
  email: string;
  subject: string;
  trailers: Record<string, string>;
}

/** The commits of `range`, newest first, read by native git, with their Shadow-* trailers. */
export function commits(repo: DiskRepo, range: string): Commit[] {
  const out = repo.git('log', '--format=%H%x01%an%x01%ae%x01%B%x02', range);
  return out
    .split('\x02')
    .map((s) => s.replace(/^\n/, ''))
    .filter((s) => s.length > 0)
    .map((s) => {
      const [oid, author, email, body] = s.split('\x01') as [string, string, string, string];
      const trailers: Record<string, string> = {};
      for (const m of body.matchAll(/^(Shadow-[A-Za-z-]+): (.*)$/gm)) trailers[m[1]!] = m[2]!;
      return { oid, author, email, subject: body.split('\n')[0]!, trailers };
    });
}

/** Many files of a commit at once: `git cat-file --batch`. */
export function showAll(repo: DiskRepo, ref: string, paths: string[]): Map<string, string> {
  const r = spawnSync('git', ['cat-file', '--batch'], {
    cwd: repo.dir,
    env: repo.env,
    input: paths.map((p) => `${ref}:${p}\n`).join(''),
    maxBuffer: 64 << 20,
  });
  assert.is(r.status, 0, String(r.stderr));
  const buf = r.stdout as Buffer;
  const out = new Map<string, string>();
  let at = 0;
  for (const p of paths) {
    const nl = buf.indexOf(10, at);
    const header = buf.subarray(at, nl).toString();
    const m = /^[0-9a-f]{40} blob (\d+)$/.exec(header);
    assert.ok(m, `${p}: ${header}`);
    const size = Number(m![1]);
    out.set(p, buf.subarray(nl + 1, nl + 1 + size).toString());
    at = nl + 1 + size + 1;
  }
  return out;
}

export function fsck(repo: DiskRepo): void {
  const r = repo.gitResult('fsck', '--strict', '--no-progress', '--no-dangling');
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.is(r.stderr.trim(), '', r.stderr);
}
