import { PassThrough, type Readable } from 'node:stream';
import type { Profile } from './definitions.js';
import { instructions, MCP_CAPABILITIES, MCP_SERVER_NAME } from './mcp-identity.js';

/**
 * `shadow mcp` answers the client's `initialize` before it loads the MCP
 * SDK: loading the SDK (and the schema library under it) is most of the
 * server's start, and a client waits for that answer before anything else.
 *
 * The answer is the one the SDK's server gives (the same protocol version
 * negotiation, capabilities, server info and instructions), written only for
 * a request whose shape the SDK surely accepts; anything else is left to the
 * SDK. The request is then handed to the SDK all the same, so that it knows
 * the client as it always did (its name becomes the actor), and the SDK's own
 * answer to it is dropped: the client hears one answer per request.
 */

/**
 * The protocol versions the SDK's server accepts, newest first (the SDK's
 * `SUPPORTED_PROTOCOL_VERSIONS`; test/start-up-mcp.test.ts holds them equal).
 */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const onlyKeys = (o: Json, keys: readonly string[]): boolean => Object.keys(o).every((k) => keys.includes(k));

/** A client's `clientInfo` in its plain form: name and version, with optional text fields (no icons). */
function plainClientInfo(info: unknown): boolean {
  if (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') return false;
  return (
    onlyKeys(info, ['name', 'version', 'title', 'websiteUrl', 'description']) &&
    Object.values(info).every((v) => typeof v === 'string')
  );
}

/** Capabilities whose values are objects holding only objects and booleans (what clients send; anything odder goes to the SDK). */
function plainCapabilities(caps: unknown): boolean {
  return (
    isObject(caps) &&
    Object.values(caps).every(
      (c) => isObject(c) && Object.values(c).every((v) => typeof v === 'boolean' || isObject(v)),
    )
  );
}

/**
 * The line (JSON and a newline) the SDK's server would write in answer to
 * `message`, when it is an `initialize` request of a shape the SDK accepts;
 * undefined for anything else (the SDK answers it).
 */
export function initializeAnswer(
  message: unknown,
  server: { version: string; profiles: readonly Profile[] },
): { id: string | number; line: string } | undefined {
  if (!isObject(message) || message.jsonrpc !== '2.0' || message.method !== 'initialize') return undefined;
  if (!onlyKeys(message, ['jsonrpc', 'id', 'method', 'params'])) return undefined;
  const id = message.id;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isInteger(id))) return undefined;
  const params = message.params;
  if (!isObject(params) || !onlyKeys(params, ['protocolVersion', 'capabilities', 'clientInfo'])) return undefined;
  if (typeof params.protocolVersion !== 'string' || !plainCapabilities(params.capabilities)) return undefined;
  if (!plainClientInfo(params.clientInfo)) return undefined;
  const protocolVersion = MCP_PROTOCOL_VERSIONS.includes(params.protocolVersion)
    ? params.protocolVersion
    : MCP_PROTOCOL_VERSIONS[0];
  const result = {
    protocolVersion,
    capabilities: MCP_CAPABILITIES,
    serverInfo: { name: MCP_SERVER_NAME, version: server.version },
    instructions: instructions(server.profiles),
  };
  return { id, line: `${JSON.stringify({ result, jsonrpc: '2.0', id })}\n` };
}

/** The connection as the SDK is to see it after the early answer. */
export interface EarlyAnswered {
  /** Everything the client sent, from its first byte (the `initialize` request included). */
  stdin: Readable;
  /** Writes the SDK's output on, less its answer to the request already answered. */
  write: (chunk: Buffer) => void;
}

/** Read `stdin` up to its first newline (or its end); resolves to what was read, and whether it ended. */
function readFirstLine(stdin: Readable): Promise<{ read: Buffer; ended: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = (ended: boolean): void => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onEnd);
      stdin.pause();
      resolve({ read: Buffer.concat(chunks), ended });
    };
    const onData = (chunk: Buffer | string): void => {
      const b = Buffer.from(chunk);
      chunks.push(b);
      if (b.includes(10)) done(false);
    };
    const onEnd = (): void => done(true);
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    stdin.once('error', onEnd);
  });
}

/**
 * Wait for the client's first message; when it is an `initialize` the SDK
 * would accept, write the SDK's answer to it with `write` at once. Returns
 * the connection to give the SDK: the same bytes from the start, and an
 * output that drops the SDK's own answer to that request.
 */
export async function answerInitializeEarly(
  stdin: Readable,
  write: (chunk: Buffer) => void,
  server: { version: string; profiles: readonly Profile[] },
  warn: (s: string) => void,
): Promise<EarlyAnswered> {
  const { read, ended } = await readFirstLine(stdin);
  const replay = new PassThrough();
  replay.write(read);
  if (ended) replay.end();
  else {
    stdin.on('error', (e) => replay.destroy(e));
    stdin.pipe(replay);
  }
  const nl = read.indexOf(10);
  let first: unknown;
  try {
    first = nl < 0 ? undefined : JSON.parse(read.subarray(0, nl).toString('utf8').replace(/\r$/, ''));
  } catch {
    first = undefined;
  }
  const answer = initializeAnswer(first, server);
  if (answer === undefined) return { stdin: replay, write };
  write(Buffer.from(answer.line));
  let dropped = false;
  return {
    stdin: replay,
    write: (chunk) => {
      if (!dropped) {
        let message: unknown;
        try {
          message = JSON.parse(chunk.toString('utf8'));
        } catch {
          message = undefined;
        }
        if (isObject(message) && message.id === answer.id && !('method' in message)) {
          dropped = true;
          if (JSON.stringify(message) !== answer.line.trimEnd())
            warn(
              `shadow mcp: the MCP SDK's answer to initialize differs from the one sent: ${JSON.stringify(message)}\n`,
            );
          return;
        }
      }
      write(chunk);
    },
  };
}
