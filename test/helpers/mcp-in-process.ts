import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { serveMcp, type McpOptions } from '../../src/agent-tools/mcp-server.js';
import type { Shadow } from '../../src/index.js';

/*
 * `shadow mcp`'s server in this process, spoken to by the SDK's own Client
 * over a pair of in-memory streams carrying the stdio framing (one JSON
 * message a line): the same server code and wire format as the command,
 * without starting a process.
 */

class StreamClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}

  async start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let m = this.buffer.readMessage(); m !== null; m = this.buffer.readMessage()) this.onmessage?.(m);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
  }
}

/** A client connected to serveMcp on `sh`; close() ends the server too. */
export async function connectInProcess(sh: Shadow, name: string, options: Omit<McpOptions, 'stdin' | 'stdout' | 'version'>): Promise<{ client: Client; close(): Promise<void> }> {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const served = serveMcp(sh, { ...options, version: '0.0.0-test', stdin: toServer, stdout: fromServer });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamClientTransport(toServer, fromServer));
  return {
    client,
    async close() {
      await client.close();
      await served;
    },
  };
}
