import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { PackMergeThread, pageLoginOpener, pageLoginUrl, startServer, type Shadow } from '../../src/index.js';
import type { CommandContext } from '../command-context.js';
import { listenForCalls } from '../handoff/server.js';

/**
 * `shadow serve [--port N] [--allow-apply] [--open]`: runs until SIGINT or SIGTERM,
 * then removes server.json. While it runs, the `shadow` commands of callers
 * in this repository run in it (cli/handoff/). Without --allow-apply the apply endpoint only
 * answers dry runs (the person applies), as `shadow mcp` offers no apply tool.
 * It prints a one-time URL of the review page; --open asks the OS to open it.
 */
export async function serve(ctx: CommandContext): Promise<number> {
  // Its batches' and its callers' pack merges run on one worker thread, off the event loop that answers them.
  const packMerger = new PackMergeThread();
  const sh = await ctx.open({ packMerger });
  const server = await startServer(sh, {
    port: ctx.argv.port as number | undefined,
    allowApply: ctx.argv['allow-apply'] === true,
    log: (line) => ctx.io.stderr(`${line}\n`),
  });
  // One-shot `shadow` commands in this repository are handed to this process while it runs.
  const calls = await listenForCalls(sh.layout.commondir, ctx.runCli, 'person', packMerger);
  const pageUrl = server.pageUrl();
  ctx.out.result(
    {
      url: server.url,
      port: server.port,
      server_json: `${sh.layout.commondir}/shadow/server.json`,
      cli_socket: calls?.path ?? null,
      page_url: pageUrl,
    },
    () =>
      `shadow serving ${server.url} (token in ${sh.layout.commondir}/shadow/server.json); stop with Ctrl-C\n` +
      `review page (this URL works once, within 5 minutes; shadow page prints another): ${pageUrl}`,
  );
  if (ctx.argv.open === true) await openInBrowser(sh, pageUrl, ctx);
  await new Promise<void>((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void Promise.all([server.close(), calls?.close()])
        .then(() => packMerger.close())
        .then(() => done());
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return 0;
}

/**
 * `shadow page [--open]`: a new one-time URL of the review page of the
 * `shadow serve` running on this repository (a URL from serve's start is
 * spent once opened, and good for 5 minutes). SERVER_NOT_RUNNING without one.
 */
export async function page(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const url = await pageLoginUrl(sh);
  ctx.out.result({ page_url: url }, () => `review page (this URL works once, within 5 minutes): ${url}`);
  if (ctx.argv.open === true) await openInBrowser(sh, url, ctx);
  return 0;
}

/**
 * Ask the OS to open the login URL `url` (xdg-open, or open on macOS; the
 * program `$SHADOW_BROWSER` names instead, when set), by way of a file of
 * the owner's only that leads there: the opener's arguments, which any local
 * user can read, never hold the token. The server runs on whatever happens;
 * a failure is a note.
 */
async function openInBrowser(sh: Shadow, url: string, ctx: CommandContext): Promise<void> {
  const note = (line: string): void => ctx.io.stderr(`${line}\n`);
  const failed = (why: string): void => note(`could not open the review page (${why}): open the URL above by hand`);
  let file: string;
  try {
    file = await pageLoginOpener(sh, url);
  } catch (e) {
    return failed((e as Error).message);
  }
  const browser = ctx.io.env.SHADOW_BROWSER || (process.platform === 'darwin' ? 'open' : 'xdg-open');
  const child = spawn(browser, [pathToFileURL(file).href], { detached: true, stdio: 'ignore', env: ctx.io.env });
  child.on('error', (e) => failed(e.message));
  child.on('exit', (code) => {
    if (code !== 0 && code !== null) failed(`exit status ${code}`);
  });
  child.unref();
}
