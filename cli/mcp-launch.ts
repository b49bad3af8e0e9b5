import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Profile } from '../src/agent-tools/definitions.js';
import type { EarlyAnswered } from '../src/agent-tools/mcp-early-initialize.js';
import { readProfiles } from '../src/agent-tools/profile-names.js';
import { GIT_LOCATION, startDir } from './handoff/client.js';

/**
 * `shadow mcp` answers its client's `initialize` in the executable, before
 * the CLI bundle loads (its code, yargs, the repository's opening: about
 * two thirds of the server's start). The answer depends only on shadow's
 * version and the tool profiles (`--tools`), so the executable reads those
 * itself, and only from arguments whose meaning it is sure of: `mcp` and
 * the options it takes, each once, in their plain spellings (`--tools x`,
 * not `--tools=x`), where a repository is found (a `.git` above the
 * directory). Anything else, and a `--tools` value yargs would refuse, is
 * left to the command, which answers as it always did: after the
 * repository opened, so that a directory that is none gets its error
 * before an answer. An error found after the early answer (a damaged
 * repository, a draft name refused) ends the server as before; the client
 * then has its answer and sees the server close, the error on stderr.
 */

/** Options of `shadow mcp` that take a value. */
const VALUED = new Set(['-C', '--draft', '--actor', '--actor-type', '--model', '--tools']);
/** Its options without one. */
const FLAGS = new Set(['--draft-per-actor', '--allow-apply']);

/** Whether a `.git` (a directory, or a worktree's file) is at `start` or above it. */
function inRepository(start: string): boolean {
  for (let dir = start; ; dir = dirname(dir)) {
    try {
      lstatSync(join(dir, '.git'));
      return true;
    } catch {
      if (dirname(dir) === dir) return false;
    }
  }
}

/**
 * The profiles a `shadow mcp` with `args` serves, when the executable may
 * answer its `initialize` itself; undefined when the command is to.
 */
export function earlyMcpProfiles(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Profile[] | undefined {
  // Where git would look elsewhere for the repository, the command decides.
  if (GIT_LOCATION.some((k) => env[k] !== undefined)) return undefined;
  const seen = new Set<string>();
  let word = false;
  let tools: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === 'mcp' && !word) word = true;
    else if (FLAGS.has(a) && !seen.has(a)) seen.add(a);
    else if (VALUED.has(a) && !seen.has(a)) {
      const value = args[++i];
      if (value === undefined || value.startsWith('-')) return undefined;
      seen.add(a);
      if (a === '--tools') tools = value;
    } else return undefined;
  }
  // yargs refuses the two together.
  if (!word || (seen.has('--draft') && seen.has('--draft-per-actor'))) return undefined;
  const { profiles, bad } = readProfiles(tools);
  const dir = startDir(args, cwd);
  if (bad.length > 0 || dir === undefined || !inRepository(dir)) return undefined;
  return profiles;
}

/**
 * For a `shadow mcp` the executable may answer for (earlyMcpProfiles):
 * wait for the client's first message and answer it when it is an
 * `initialize` (mcp-early-initialize.ts); the connection as the command is
 * to go on with it. Undefined for any other command.
 */
export async function answerMcpEarly(
  args: readonly string[],
  io: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    stdin: () => Readable;
    stdout: (b: Buffer) => void;
    stderr: (s: string) => void;
    version: () => string;
  },
): Promise<EarlyAnswered | undefined> {
  const profiles = earlyMcpProfiles(args, io.cwd, io.env);
  if (profiles === undefined) return undefined;
  // Loaded only here: node:stream is no part of any other command's start.
  const { answerInitializeEarly } = await import('../src/agent-tools/mcp-early-initialize.js');
  return answerInitializeEarly(io.stdin(), io.stdout, { version: io.version(), profiles }, io.stderr);
}
