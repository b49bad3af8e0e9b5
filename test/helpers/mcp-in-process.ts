import { PassThrough, type Readable, type Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Shadow } from '../../src/index.js';
import { serveMcp, type McpOptions } from '../../src/agent-tools/mcp-server.js';
import type { Outcome } from './mcp-client.js';

/*
 * `shadow mcp` in-process: serveMcp on a Shadow handle (memfs or disk) and
 * the MCP SDK's own Client, joined by two in-memory streams carrying the
 * stdio transport's framing; no process to spawn.
 */

/** The client's end of the stdio framing over a pair of streams. */
class StreamClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly from: Readable,
    private readonly to: Writable,
  ) {}

  async start(): Promise<void> {
    this.from.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let m = this.buffer.readMessage(); m !== null; m = this.buffer.readMessage()) this.onmessage?.(m);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.to.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.to.end();
    this.onclose?.();
  }
}

export interface InProcessMcp {
  client: Client;
  call(tool: string, args: Record<string, unknown>): Promise<Outcome>;
  /** Closes the client, then waits for the server to finish. */
  close(): Promise<void>;
}

export async function connectInProcess(
  sh: Shadow,
  name: string,
  options: Omit<McpOptions, 'stdin' | 'stdout' | 'version'>,
): Promise<InProcessMcp> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const served = serveMcp(sh, { ...options, version: '0.0.0-test', stdin: toServer, stdout: toClient });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamClientTransport(toClient, toServer));
  return {
    client,
    async call(tool, args) {
      const r = (await client.callTool({ name: tool, arguments: args })) as {
        content: Array<{ type: string; text: string }>;
        isError?: boolean;
        structuredContent?: Record<string, unknown>;
      };
      return {
        isError: r.isError === true,
        text: r.content.map((c) => c.text).join(''),
        structured: r.structuredContent,
      };
    },
    async close() {
      await client.close();
      await served;
    },
  };
}
