import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Shadow } from '../shadow.js';
import { callTool, draftForActor, type ToolConnection } from './call-tool.js';
import { formatTools, type Profile } from './definitions.js';
import { MCP_CAPABILITIES, MCP_SERVER_NAME, instructions } from './mcp-identity.js';
import { toolsFor } from './profiles.js';

/**
 * `shadow mcp`: the tools over the Model Context Protocol (the official
 * SDK's low-level server, stdio transport). The SDK's high-level server
 * would check arguments itself and answer a bad batch with its own generic
 * message; shadow checks them, so a model gets the codes and hints the
 * library gives (INVALID_BATCH with every problem, EDIT_NO_MATCH with the
 * closest lines).
 */

export interface McpOptions {
  /** Pin the connection to this draft. */
  draft?: string;
  /** Give each actor a draft of its own (`agent-<actor>`). */
  draftPerActor?: boolean;
  /** The actor; default the client's name (from its initialize request). */
  actor?: string;
  /** Offer `apply` too (by default the person applies). */
  allowApply?: boolean;
  /** The shapes of tools to serve (default shadow's own). */
  profiles?: readonly Profile[];
  /** Who the client is: `ai` unless told otherwise (an MCP client is an agent), and its model. */
  actorType?: string;
  model?: string;
  version: string;
  /** The connection: the CLI passes its own stdin and stdout. */
  stdin: Readable;
  stdout: Writable;
}

/** Serve the tools until the client closes the connection. */
export async function serveMcp(sh: Shadow, options: McpOptions): Promise<void> {
  const profiles = options.profiles ?? ['shadow'];
  // An MCP client is an agent: its batches are an AI's, with the model it was told to name.
  sh.useIdentity({
    actorType: options.actorType ?? sh.context.env.SHADOW_ACTOR_TYPE ?? 'ai',
    model: options.model ?? sh.context.env.SHADOW_MODEL,
  });
  const server = new Server(
    { name: MCP_SERVER_NAME, version: options.version },
    { capabilities: MCP_CAPABILITIES, instructions: instructions(profiles) },
  );
  let conn: ToolConnection | undefined;
  // Decided at the first call, once the client has said who it is.
  const connection = (): ToolConnection => {
    if (conn) return conn;
    const client = server.getClientVersion()?.name;
    const actor = options.actor ?? (client ? client : sh.actor());
    const draft = options.draft ?? (options.draftPerActor ? draftForActor(actor) : sh.draftName());
    conn = { sh, draft, actor, allowApply: options.allowApply, profiles };
    return conn;
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: formatTools('mcp', toolsFor(profiles, { allowApply: options.allowApply })) as never,
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const out = await callTool(connection(), req.params.name, req.params.arguments ?? {});
    // The text is for the model; the structured content, checked against the tool's outputSchema, for the client.
    return {
      content: (out.content ?? [{ type: 'text' as const, text: out.text }]) as never,
      structuredContent: out.structured ?? { text: out.text },
      isError: out.isError,
    };
  });

  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const closed = new Promise<void>((done) => {
    server.onclose = () => done();
  });
  await server.connect(transport);
  // Requests read and not yet answered, counted where the transport hands
  // them over: a client may write its requests and close stdin at once.
  let unanswered = 0;
  let whenAnswered: (() => void) | undefined;
  const receive = transport.onmessage;
  transport.onmessage = (message) => {
    if ('method' in message && 'id' in message) unanswered++;
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message) => {
    try {
      await send(message);
    } finally {
      if (!('method' in message) && 'id' in message && --unanswered === 0) whenAnswered?.();
    }
  };
  // stdin ending (the client went away) closes the transport, once every request it sent is answered.
  options.stdin.once('end', () => {
    const close = (): void => void server.close();
    if (unanswered === 0) close();
    else whenAnswered = close;
  });
  await closed;
}
