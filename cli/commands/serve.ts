import { startServer } from '../../src/index.js';
import type { CommandContext } from '../command-context.js';

/**
 * `shadow serve [--port N] [--allow-apply]`: runs until SIGINT or SIGTERM,
 * then removes server.json. Without --allow-apply the apply endpoint only
 * answers dry runs (the person applies), as `shadow mcp` offers no apply tool.
 */
export async function serve(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const server = await startServer(sh, { port: ctx.argv.port as number | undefined, allowApply: ctx.argv['allow-apply'] === true, log: (line) => ctx.io.stderr(`${line}\n`) });
  ctx.out.result({ url: server.url, port: server.port, server_json: `${sh.layout.commondir}/shadow/server.json` }, () => `shadow serving ${server.url} (token in ${sh.layout.commondir}/shadow/server.json); stop with Ctrl-C`);
  await new Promise<void>((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void server.close().then(done);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return 0;
}
