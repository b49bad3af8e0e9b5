import type { Readable } from 'node:stream';
import type { EarlyAnswered } from '../src/agent-tools/mcp-early-initialize.js';
import type { SharedCaches } from '../src/index.js';

/** What a CLI run may touch: injected so a command can run in-process in tests. */
export interface CliIO {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  stdout: (s: string | Uint8Array) => void;
  stderr: (s: string) => void;
  stdin: Readable;
  isTTY: boolean;
  /** The terminal's width when standard output is one (asked only by a command that lays out to it). */
  columns?: () => number | undefined;
  /** What a server shares between the commands it runs for callers (handoff/server.ts); none in a process of its own. */
  shared?: SharedCaches;
  /** `shadow mcp` whose client's `initialize` the executable answered (cli/mcp-launch.ts): the connection to go on with. */
  mcpEarly?: EarlyAnswered;
}
