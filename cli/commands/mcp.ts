import { Writable } from 'node:stream';
import { formatTools, type ToolFormat } from '../../src/agent-tools/definitions.js';
import { answerInitializeEarly } from '../../src/agent-tools/mcp-early-initialize.js';
import { parseProfiles, toolsFor } from '../../src/agent-tools/profiles.js';
import type { CommandContext } from '../command-context.js';
import { PackMergeThread } from '../../src/index.js';
import { listenForCalls } from '../handoff/server.js';
import { shadowVersion } from '../version.js';

/**
 * `shadow mcp [--tools shadow|anthropic|filesystem|all] [--draft <d> | --draft-per-actor] [--actor <who>] [--allow-apply]`:
 * an MCP server over stdin/stdout until the client closes it. Notes go to
 * stderr; stdout carries the protocol only.
 */
export async function mcp(ctx: CommandContext): Promise<number> {
  const profiles = parseProfiles(ctx.argv.tools as string | undefined);
  // Pack merges run on a worker thread, off the event loop that answers the client (and the hand-offs).
  const packMerger = new PackMergeThread();
  const sh = await ctx.open({ packMerger });
  const version = shadowVersion();
  // The client's `initialize` is answered before the MCP SDK loads (most of the start); the SDK then reads it too.
  // The executable has answered it already when it could (cli/mcp-launch.ts: before this bundle loaded).
  const early =
    ctx.io.mcpEarly ??
    (await answerInitializeEarly(
      ctx.io.stdin,
      (b) => ctx.io.stdout(b),
      { version, profiles },
      (s) => ctx.io.stderr(s),
    ));
  const { serveMcp } = await import('../../src/agent-tools/mcp-server.js');
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, done) {
      early.write(chunk);
      done();
    },
  });
  // One-shot `shadow` commands in this repository (an agent's hooks, its shell) are handed to this process while it runs.
  const calls = await listenForCalls(sh.layout.commondir, ctx.runCli, 'agent', packMerger);
  try {
    await serveMcp(sh, {
      draft: ctx.draft,
      draftPerActor: ctx.argv['draft-per-actor'] === true,
      actor: ctx.actor,
      actorType: ctx.argv['actor-type'] as string | undefined,
      model: ctx.argv.model as string | undefined,
      allowApply: ctx.argv['allow-apply'] === true,
      profiles,
      version,
      stdin: early.stdin,
      stdout,
    });
  } finally {
    await calls?.close();
    await packMerger.close();
  }
  return 0;
}

/** `shadow tools --format openai|anthropic|mcp [--tools <profiles>] [--allow-apply]`: the tool definitions as JSON. */
export async function tools(ctx: CommandContext): Promise<void> {
  const format = (ctx.argv.format as ToolFormat | undefined) ?? 'mcp';
  const defs = formatTools(
    format,
    toolsFor(parseProfiles(ctx.argv.tools as string | undefined), { allowApply: ctx.argv['allow-apply'] === true }),
  );
  ctx.io.stdout(`${JSON.stringify(defs, null, 2)}\n`);
}
