import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { isShadowError, openShadow, type Shadow } from '../src/index.js';
import { EXIT, exitStatusFor } from './exit-status.js';
import type { CliIO } from './io.js';
import { Output } from './output.js';

/** Everything a command handler gets. */
export interface CommandContext {
  argv: Record<string, unknown>;
  io: CliIO;
  out: Output;
  /** The directory the command runs in: the working directory, or `-C`. Relative paths resolve from here. */
  dir: string;
  /** Open the repository (lazily: `--help` never touches the disk). */
  open(): Promise<Shadow>;
  draft: string | undefined;
  actor: string | undefined;
}

type Handler = (ctx: CommandContext) => Promise<number | void>;
type Loader = () => Promise<Handler>;

const commands = {
  batch: () => import('./commands/batch.js').then((m) => m.batch),
  write: () => import('./commands/batch.js').then((m) => m.write),
  edit: () => import('./commands/batch.js').then((m) => m.edit),
  rm: () => import('./commands/batch.js').then((m) => m.rm),
  mv: () => import('./commands/batch.js').then((m) => m.mv),
  draftNew: () => import('./commands/draft.js').then((m) => m.draftNew),
  draftList: () => import('./commands/draft.js').then((m) => m.draftList),
  draftShow: () => import('./commands/draft.js').then((m) => m.draftShow),
  draftDrop: () => import('./commands/draft.js').then((m) => m.draftDrop),
  cat: () => import('./commands/view.js').then((m) => m.cat),
  ls: () => import('./commands/view.js').then((m) => m.ls),
  log: () => import('./commands/audit.js').then((m) => m.log),
  diff: () => import('./commands/audit.js').then((m) => m.diff),
  status: () => import('./commands/audit.js').then((m) => m.status),
  checkpoint: () => import('./commands/checkpoint.js').then((m) => m.checkpoint),
  checkpoints: () => import('./commands/checkpoint.js').then((m) => m.checkpoints),
  rollback: () => import('./commands/checkpoint.js').then((m) => m.rollback),
  undo: () => import('./commands/checkpoint.js').then((m) => m.undo),
} satisfies Record<string, Loader>;

/**
 * Run the CLI with `args`; resolves to the exit status. Errors never escape
 * as stack traces: a ShadowError prints its message and hint (or one JSON
 * document), anything else prints as INTERNAL (stack only with SHADOW_DEBUG).
 */
export async function run(args: string[], io: CliIO): Promise<number> {
  const { default: yargs } = await import('yargs');
  const json = args.includes('--json');
  const out = new Output(io, json);
  let status: number = EXIT.ok;
  let shadow: Shadow | undefined;
  let usageError = false;

  const dispatch = (name: keyof typeof commands) => async (argv: Record<string, unknown>) => {
    // yargs reports a usage error through fail() and may still call the handler.
    if (usageError) return;
    const ctx: CommandContext = {
      argv,
      io,
      out,
      draft: argv.draft as string | undefined,
      actor: argv.actor as string | undefined,
      dir: resolve(io.cwd, (argv.C as string | undefined) ?? '.'),
      open: async () => (shadow ??= await openShadow({ dir: ctx.dir })),
    };
    try {
      const handler = await commands[name]();
      status = (await handler(ctx)) ?? EXIT.ok;
    } catch (e) {
      status = reportError(e, out, io);
    }
  };

  const cli: Argv = yargs(args)
    .scriptName('shadow')
    .locale('en')
    .usage('shadow <command> [options]\n\nA transactional staging layer between an agent and your working tree: every write lands in a draft (commits on refs/shadow/drafts/<name>), never in your files.')
    .option('C', { type: 'string', describe: 'run as if shadow was started in <dir>', global: true, requiresArg: true })
    .option('draft', { type: 'string', describe: 'the draft to use (default: $SHADOW_DRAFT, else "default")', global: true, requiresArg: true })
    .option('actor', { type: 'string', describe: 'who is acting (default: $SHADOW_ACTOR, else git user.name)', global: true, requiresArg: true })
    .option('json', { type: 'boolean', describe: 'print one JSON document (errors too)', global: true })
    .command('batch <file>', 'apply a batch of file operations (JSON, "-" for stdin) as one commit', (y) => y.positional('file', { type: 'string', describe: 'batch JSON file, or - for stdin' }), dispatch('batch'))
    .command('write <path>', 'write a file from stdin (one batch)', (y) =>
      y
        .positional('path', { type: 'string' })
        .option('mode', { type: 'string', choices: ['100644', '100755'], describe: 'file mode' })
        .option('base64', { type: 'boolean', describe: 'stdin is binary: store it byte for byte' })
        .option('intent', { type: 'string', alias: 'm', describe: 'what the change is for' }),
      dispatch('write'))
    .command('edit <path>', 'replace one exact occurrence of --old with --new (one batch)', (y) =>
      y
        .positional('path', { type: 'string' })
        .option('old', { type: 'string', demandOption: true, requiresArg: true, describe: 'the text to replace; must occur exactly once' })
        .option('new', { type: 'string', demandOption: true, describe: 'the replacement' })
        .option('intent', { type: 'string', alias: 'm' }),
      dispatch('edit'))
    .command('rm <paths..>', 'delete files (one batch)', (y) => y.positional('paths', { type: 'string', array: true }).option('intent', { type: 'string', alias: 'm' }), dispatch('rm'))
    .command('mv <from> <to>', 'rename a file (one batch)', (y) => y.positional('from', { type: 'string' }).positional('to', { type: 'string' }).option('intent', { type: 'string', alias: 'm' }), dispatch('mv'))
    .command('draft', 'create, list, show and drop drafts', (y) =>
      y
        .command('new [name]', 'create a draft from HEAD (or --from)', (z) => z.positional('name', { type: 'string' }).option('from', { type: 'string', requiresArg: true, describe: 'commit-ish to start from' }), dispatch('draftNew'))
        .command(['list', 'ls'], 'list drafts', {}, dispatch('draftList'))
        .command('show [name]', 'show a draft', (z) => z.positional('name', { type: 'string' }), dispatch('draftShow'))
        .command('drop <name>', 'drop a draft (kept under refs/shadow/archive/ unless --purge)', (z) => z.positional('name', { type: 'string' }).option('purge', { type: 'boolean', describe: 'delete for good' }), dispatch('draftDrop'))
        .demandCommand(1, 'name a draft command: new, list, show or drop'))
    .command('cat <path>', "print a file as the draft's view shows it", (y) => y.positional('path', { type: 'string' }), dispatch('cat'))
    .command('ls [dir]', "list a directory of the draft's view", (y) => y.positional('dir', { type: 'string', default: '' }), dispatch('ls'))
    .command('log', "list the draft's batches, newest first", (y) => y.option('limit', { alias: 'n', type: 'number', describe: 'at most N batches' }), dispatch('log'))
    .command('diff [range]', 'what the draft changes (against its bases), or between two points: <from>..<to>', (y) =>
      y
        .positional('range', { type: 'string', describe: 'checkpoint, batch number, ~N or commit; A..B' })
        .option('stat', { type: 'boolean', describe: 'lines added and removed per file' })
        .option('name-status', { type: 'boolean', describe: 'paths with A/M/D/T' }),
      dispatch('diff'))
    .command('status', 'the draft: tip, batches, changed paths, paths the working tree moved', {}, dispatch('status'))
    .command('checkpoint <name>', "mark the draft's tip with a named checkpoint", (y) => y.positional('name', { type: 'string' }).option('message', { alias: 'm', type: 'string' }), dispatch('checkpoint'))
    .command('checkpoints', "list the draft's checkpoints", {}, dispatch('checkpoints'))
    .command('rollback <target>', 'move the draft to a checkpoint, batch number, ~N or commit', (y) => y.positional('target', { type: 'string' }), dispatch('rollback'))
    .command('undo', "reverse the draft's last move (a batch, a rollback, an undo)", {}, dispatch('undo'))
    .demandCommand(1, 'name a command (shadow --help lists them)')
    .strict()
    .version(false)
    .help()
    .alias('h', 'help')
    .exitProcess(false)
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((msg, err) => {
      if (err && err.name !== 'YError') throw err;
      if (usageError) return;
      usageError = true;
      status = EXIT.usage;
      out.error({ code: 'USAGE', message: msg ?? err?.message ?? 'bad usage', hint: 'run `shadow --help` for the commands and their options' });
    });

  try {
    await cli.parseAsync();
  } catch (e) {
    if (!usageError) status = reportError(e, out, io);
  } finally {
    shadow?.close();
  }
  return status;
}

function reportError(e: unknown, out: Output, io: CliIO): number {
  if (isShadowError(e)) {
    out.error(e.toJSON());
    return exitStatusFor(e.code);
  }
  const message = e instanceof Error ? e.message : String(e);
  out.error({ code: 'INTERNAL', message: `internal error: ${message}`, hint: 'this is a bug in shadow; rerun with SHADOW_DEBUG=1 for the stack and report it' });
  if (io.env.SHADOW_DEBUG && e instanceof Error && e.stack) io.stderr(`${e.stack}\n`);
  return EXIT.error;
}
