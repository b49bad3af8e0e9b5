import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { findMarker, isShadowError, nodeContext, openShadow, type SharedCaches, type Shadow } from '../src/index.js';
import { COMMANDS, commandName, findCommand, type CommandGroup, type CommandSpec } from './command-table.js';
import { commandWords } from './command-words.js';
import { EXIT, exitStatusFor } from './exit-status.js';
import { GLOBAL_OPTIONS, SHADOW_SUMMARY } from './global-options.js';
import { helpAsked, showHelp } from './help-command.js';
import type { CommandContext } from './command-context.js';
import type { CliIO } from './io.js';
import { Output } from './output.js';
import { repoPath } from './repo-path.js';

/** The table entry the arguments invoke (a command, or a group such as `draft`), if any. */
function invokedEntry(words: readonly string[]): CommandSpec | CommandGroup | undefined {
  return COMMANDS.find(
    (e) =>
      ('commands' in e ? e.name : commandName(e)) === words[0] ||
      (!('commands' in e) && e.aliases?.includes(words[0] ?? '')),
  );
}

/**
 * The name of the command (or command group) `args` invoke, for the code
 * cache of the command (see code-cache.ts): a name from the command table,
 * or undefined for help and unknown words.
 */
export function commandKey(args: readonly string[]): string | undefined {
  const entry = invokedEntry(commandWords(args));
  return entry === undefined ? undefined : 'commands' in entry ? entry.name : commandName(entry);
}

function register(y: Argv, entry: CommandSpec | CommandGroup): Argv {
  if ('commands' in entry) {
    return y.command(entry.name, entry.describe, (g) => {
      for (const c of entry.commands)
        g.command(c.aliases ? [c.usage, ...c.aliases] : c.usage, c.describe, c.builder ?? {});
      return g.demandCommand(1, `name a ${entry.name} command: ${entry.commands.map(commandName).join(', ')}`);
    });
  }
  return y.command(entry.aliases ? [entry.usage, ...entry.aliases] : entry.usage, entry.describe, entry.builder ?? {});
}

type FailHandler = (msg: string | undefined, err: Error | undefined) => void;

/** The options every command takes, the invoked command (or, for help and unknown words, every one), and how a usage error is reported. */
function buildParser(
  y: Argv,
  invoked: CommandSpec | CommandGroup | undefined,
  helpShown: boolean,
  onFail: FailHandler,
): Argv {
  let cli: Argv = y.scriptName('shadow').locale('en').usage(`shadow <command> [options]\n\n${SHADOW_SUMMARY}`);
  for (const { key, options } of GLOBAL_OPTIONS) cli = cli.option(key, { ...options, global: true });
  for (const entry of invoked ? [invoked] : COMMANDS) cli = register(cli, entry);
  return (
    cli
      .demandCommand(1, 'name a command (shadow --help lists them)')
      .parserConfiguration({ 'populate--': true })
      .strict()
      .version(false)
      .help()
      .alias('h', 'help')
      .exitProcess(false)
      // Unwrapped, yargs' help layout costs a third of the time where it
      // still runs (the bundle drops the one it made after every command:
      // PARSE_PATCHES in cli/bundle.mjs). Help that is shown is wrapped.
      .wrap(helpShown ? Math.min(110, process.stdout.columns || 100) : null)
      .fail((msg, err) => onFail(msg, err))
  );
}

/** Parsers kept for reuse by the server whose calls share `SharedCaches`, by command; each reports usage errors to its current call. */
const reusable = new WeakMap<SharedCaches, Map<string, Argv>>();
const parserFailures = new WeakMap<Argv, FailHandler>();

/**
 * The parser of `entry`'s command, built once per server: yargs parses
 * again on the same instance (it freezes and restores its state around a
 * parse), and no handler runs inside it, so a parse runs to its end before
 * another call's begins.
 */
function reusableParser(
  shared: SharedCaches,
  entry: CommandSpec | CommandGroup,
  yargs: (args?: string[]) => Argv,
): Argv {
  let byCommand = reusable.get(shared);
  if (!byCommand) reusable.set(shared, (byCommand = new Map()));
  const key = 'commands' in entry ? entry.name : commandName(entry);
  let parser = byCommand.get(key);
  if (!parser) {
    const made: Argv = buildParser(yargs(), entry, false, (msg, err) => parserFailures.get(made)?.(msg, err));
    parser = made;
    byCommand.set(key, parser);
  }
  return parser;
}

/**
 * Run the CLI with `args`; resolves to the exit status. Errors never escape
 * as stack traces: a ShadowError prints its message and hint (or one JSON
 * document), anything else prints as INTERNAL (stack only with SHADOW_DEBUG).
 *
 * Commands are registered without yargs handlers and dispatched after the
 * parse: yargs renders the whole help text on every command it runs itself
 * (about 7 ms). Only the invoked command is registered; unknown commands
 * get the full table. Help is laid out from the table without yargs
 * (help-command.ts).
 */
export async function run(args: string[], io: CliIO): Promise<number> {
  const json = args.includes('--json');
  const out = new Output(io, json);
  // Help is laid out from the table itself, without yargs (help-command.ts).
  const asked = helpAsked(args);
  if (asked) return showHelp(asked, out);
  const { default: yargs } = await import('yargs');
  let usageError = false;

  const words = commandWords(args);
  const helpShown = args.includes('--help') || args.includes('-h') || words.length === 0;
  const invoked = invokedEntry(words);
  const onFail: FailHandler = (msg, err) => {
    if (err && err.name !== 'YError') throw err;
    if (usageError) return;
    usageError = true;
    out.error({
      code: 'USAGE',
      message: msg ?? err?.message ?? 'bad usage',
      hint: 'run `shadow --help` for the commands and their options',
    });
  };
  // A server's handed-off calls reuse the parser of their command (built once: 1 to 2 ms a call); help is laid out afresh.
  const reused =
    io.shared !== undefined && !helpShown && invoked !== undefined
      ? reusableParser(io.shared, invoked, yargs)
      : undefined;
  const cli = reused ?? buildParser(yargs(), invoked, helpShown, onFail);
  if (reused) parserFailures.set(reused, onFail);
  let shadow: Shadow | undefined;
  try {
    const argv = (await cli.parseAsync(args)) as Record<string, unknown> & { _: Array<string | number> };
    if (usageError) return EXIT.usage;
    if (argv.help) return EXIT.ok;
    const spec = findCommand(argv._.map(String));
    if (!spec) return EXIT.usage;
    const dir = resolve(io.cwd, (argv.C as string | undefined) ?? '.');
    // Inside a materialized worktree: its repository, and its draft unless one is named.
    const inWorktree = findMarker(nodeContext({ env: io.env }), dir);
    const ctx: CommandContext = {
      argv,
      io,
      out,
      draft:
        (argv.draft as string | undefined) ??
        (inWorktree && io.env.SHADOW_DRAFT === undefined ? inWorktree.marker.draft : undefined),
      actor: argv.actor as string | undefined,
      dir,
      worktreeRoot: inWorktree?.root,
      runCli: run,
      open: async (options) => {
        if (shadow) return shadow;
        // The caller's environment, not this process's: a server runs commands for callers (handoff/).
        const opened = await openShadow({
          dir: inWorktree ? inWorktree.marker.repository : ctx.dir,
          env: io.env,
          shared: io.shared,
          packMerger: options?.packMerger,
        });
        shadow = opened;
        if (argv.model !== undefined || argv['actor-type'] !== undefined)
          opened.useIdentity({
            model: argv.model as string | undefined,
            actorType: argv['actor-type'] as string | undefined,
          });
        const done = opened.recovered?.finished ?? [];
        if (done.length > 0 && spec.usage !== 'recover') {
          out.note(
            `recovered ${done.length === 1 ? 'an interrupted apply' : `${done.length} interrupted applies`} first (shadow recover)`,
          );
        }
        // Write sessions a crash left: offered for resume or finalize (older ones are cleaned up).
        if (words[0] !== 'session') {
          const orphans = opened.sessions.orphans().resumable;
          if (orphans.length > 0)
            out.note(
              `${orphans.length} write session${orphans.length === 1 ? '' : 's'} left by an earlier run: resume, finalize or drop ${orphans.length === 1 ? 'it' : 'them'} with \`shadow session recover\``,
            );
        }
        return opened;
      },
      repoPath: async (arg) => {
        const { gitdir, commondir, worktree } = (await ctx.open()).layout;
        return repoPath(arg, { cwd: dir, top: inWorktree?.root ?? worktree, gitDirs: [gitdir, commondir] });
      },
    };
    const handler = await spec.load();
    return (await handler(ctx)) ?? EXIT.ok;
  } catch (e) {
    return usageError ? EXIT.usage : reportError(e, out, io);
  } finally {
    shadow?.close();
  }
}

function reportError(e: unknown, out: Output, io: CliIO): number {
  if (isShadowError(e)) {
    out.error(e.toJSON());
    return exitStatusFor(e.code);
  }
  const message = e instanceof Error ? e.message : String(e);
  out.error({
    code: 'INTERNAL',
    message: `internal error: ${message}`,
    hint: 'this is a bug in shadow; rerun with SHADOW_DEBUG=1 for the stack and report it',
  });
  if (io.env.SHADOW_DEBUG && e instanceof Error && e.stack) io.stderr(`${e.stack}\n`);
  return EXIT.error;
}
