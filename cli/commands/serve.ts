import { startServer } from '../../src/index.js';
import type { CommandContext } from '../command-context.js';
import { listenForCalls } from '../handoff/server.js';

/**
 * `shadow serve [--port N] [--allow-apply]`: runs until SIGINT or SIGTERM,
 * then removes server.json. While it runs, the `shadow` commands of callers
 * in this repository run in it (cli/handoff/). Without --allow-apply the apply endpoint only
 * answers dry runs (the person applies), as `shadow mcp` offers no apply tool.
 */
export async function serve(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const server = await startServer(sh, { port: ctx.argv.port as number | undefined, allowApply: ctx.argv['allow-apply'] === true, log: (line) => ctx.io.stderr(`${line}\n`) });
  // One-shot `shadow` commands in this repository are handed to this process while it runs.
  const calls = await listenForCalls(sh.layout.commondir, ctx.runCli);
  ctx.out.result(
    { url: server.url, port: server.port, server_json: `${sh.layout.commondir}/shadow/server.json`, cli_socket: calls?.path ?? null },
    () => `shadow serving ${server.url} (token in ${sh.layout.commondir}/shadow/server.json); stop with Ctrl-C`,
  );
  await new Promise<void>((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void Promise.all([server.close(), calls?.close()]).then(() => done());
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return 0;
}
