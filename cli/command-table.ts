import type { Argv } from 'yargs';
import { AGENTS, HOOK_EVENTS } from './agents/agent-specs.js';
import { DIFF_OPTIONS } from './diff/diff-help.js';
import { REMOTE_COMMANDS } from './remote-commands.js';
import { SESSION_GROUP } from './session-commands.js';
import type { CommandGroup, CommandSpec } from './command-spec.js';

export type { CommandGroup, CommandSpec, Handler } from './command-spec.js';

const intent = (y: Argv): Argv =>
  y.option('intent', { type: 'string', alias: 'm', describe: 'what the change is for' });

/** What `approve` and `deny` share: the state the person saw, and the signature that lets other clones count the decision. */
const decision = (y: Argv): Argv =>
  y
    .option('expect', {
      type: 'string',
      describe:
        'the review fingerprint shadow review printed (review:…): refused with STALE_REVIEW, recording nothing, if the draft changed since',
    })
    .option('sign', {
      type: 'boolean',
      describe:
        'sign the decision as git signs commits (gpg.format ssh or openpgp, user.signingKey; default shadow.signApprovals): other clones then count it',
    });

/** Every command of the CLI, in the order `shadow --help` lists them. */
export const COMMANDS: Array<CommandSpec | CommandGroup> = [
  {
    usage: 'init <agent>',
    describe:
      "register shadow's MCP server, and its hook on the agent's own edits, in this project's config for an agent",
    builder: (y) =>
      y
        .positional('agent', {
          type: 'string',
          choices: [...AGENTS],
          describe: 'claude (Claude Code), codex (Codex CLI), gemini (Gemini CLI) or cursor',
        })
        .option('print', { type: 'boolean', describe: 'show what would be written, writing nothing' })
        .option('remove', { type: 'boolean', describe: 'take it out again, the files as they were' })
        .option('force', { type: 'boolean', describe: 'replace an entry named shadow that shadow init did not write' }),
    load: () => import('./commands/init.js').then((m) => m.init),
  },
  {
    usage: 'hook <event>',
    describe:
      'run by an agent before its own file edits (shadow init registers it): takes the edit on stdin into the draft',
    builder: (y) =>
      y.positional('event', { type: 'string', choices: [...HOOK_EVENTS], describe: "the agent's hook event" }),
    load: () => import('./commands/hook.js').then((m) => m.hook),
  },
  {
    usage: 'batch <file>',
    describe: 'apply a batch of file operations (JSON, "-" for stdin) as one commit',
    builder: (y) => y.positional('file', { type: 'string', describe: 'batch JSON file, or - for stdin' }),
    load: () => import('./commands/batch.js').then((m) => m.batch),
  },
  {
    usage: 'write <path>',
    describe: 'write a file from stdin (one batch)',
    builder: (y) =>
      intent(
        y
          .positional('path', { type: 'string', describe: 'the file to write, relative to the current directory' })
          .option('mode', { type: 'string', choices: ['100644', '100755'], describe: 'file mode' })
          .option('base64', {
            type: 'boolean',
            describe: 'stdin is base64 text, decoded before it is stored (without it, stdin is stored byte for byte)',
          }),
      ),
    load: () => import('./commands/batch.js').then((m) => m.write),
  },
  {
    usage: 'edit <path>',
    describe: 'replace one exact occurrence of --old with --new (one batch)',
    builder: (y) =>
      intent(
        y
          .positional('path', { type: 'string', describe: 'the file to edit, relative to the current directory' })
          .option('old', {
            type: 'string',
            demandOption: true,
            requiresArg: true,
            describe: 'the text to replace; must occur exactly once',
          })
          .option('new', { type: 'string', demandOption: true, describe: 'the replacement' }),
      ),
    load: () => import('./commands/batch.js').then((m) => m.edit),
  },
  {
    usage: 'rm <paths..>',
    describe: 'delete files (one batch)',
    builder: (y) =>
      intent(
        y.positional('paths', {
          type: 'string',
          array: true,
          describe: 'the files to delete, relative to the current directory',
        }),
      ),
    load: () => import('./commands/batch.js').then((m) => m.rm),
  },
  {
    usage: 'mv <from> <to>',
    describe: 'rename a file (one batch)',
    builder: (y) =>
      intent(
        y
          .positional('from', { type: 'string', describe: 'the file to rename' })
          .positional('to', { type: 'string', describe: 'its new path' }),
      ),
    load: () => import('./commands/batch.js').then((m) => m.mv),
  },
  {
    usage: 'apply-patch [file]',
    describe:
      "apply a patch in Codex's apply_patch format (a file, or stdin) as one batch; its paths are relative to the current directory",
    builder: (y) =>
      intent(y.positional('file', { type: 'string', default: '-', describe: 'the patch, or - for stdin' })),
    load: () => import('./commands/apply-patch.js').then((m) => m.applyPatch),
  },
  {
    name: 'draft',
    describe: 'create, list, show and drop drafts',
    commands: [
      {
        usage: 'new [name]',
        describe: 'create a draft from HEAD (or --from)',
        builder: (y) =>
          y
            .positional('name', { type: 'string', describe: 'the new draft (default --draft)' })
            .option('from', { type: 'string', requiresArg: true, describe: 'commit-ish to start from' }),
        load: () => import('./commands/draft.js').then((m) => m.draftNew),
      },
      {
        usage: 'list',
        aliases: ['ls'],
        describe: 'list drafts (--remote: those fetched from remotes, as <remote>/<draft>)',
        builder: (y) =>
          y.option('remote', {
            type: 'string',
            describe: 'the drafts fetched from remotes (a remote name: from that one only)',
          }),
        load: () => import('./commands/draft.js').then((m) => m.draftList),
      },
      {
        usage: 'show [name]',
        describe: 'show a draft',
        builder: (y) => y.positional('name', { type: 'string', describe: 'the draft (default --draft)' }),
        load: () => import('./commands/draft.js').then((m) => m.draftShow),
      },
      {
        usage: 'drop <name>',
        describe: 'drop a draft (kept under refs/shadow/archive/ unless --purge)',
        builder: (y) =>
          y
            .positional('name', { type: 'string', describe: 'the draft to drop' })
            .option('purge', { type: 'boolean', describe: 'delete for good' }),
        load: () => import('./commands/draft.js').then((m) => m.draftDrop),
      },
    ],
  },
  {
    usage: 'cat <path>',
    describe: "print a file as the draft's view shows it",
    builder: (y) => y.positional('path', { type: 'string', describe: 'relative to the current directory' }),
    load: () => import('./commands/view.js').then((m) => m.cat),
  },
  {
    usage: 'ls [dir]',
    describe: "list a directory of the draft's view",
    builder: (y) =>
      y.positional('dir', {
        type: 'string',
        default: '.',
        describe: 'relative to the current directory; :/ is the repository root',
      }),
    load: () => import('./commands/view.js').then((m) => m.ls),
  },
  {
    usage: 'log',
    describe: "list the draft's batches, newest first",
    builder: (y) => y.option('limit', { alias: 'n', type: 'number', describe: 'at most N batches' }),
    load: () => import('./commands/audit.js').then((m) => m.log),
  },
  {
    usage: 'diff [range..]',
    describe:
      'what the draft changes (against its bases), or between two points: <from>..<to>; coloured and paged on a terminal, as git diff',
    builder: (y) =>
      y
        // git's option forms (-M50%, --color=never) reach the handler as typed (cli/diff/diff-words.ts).
        .parserConfiguration({ 'unknown-options-as-args': true, 'populate--': true })
        .positional('range', {
          type: 'string',
          array: true,
          describe: 'checkpoint, batch number, ~N or commit; A..B (or A B); paths after --',
        })
        .option('name-status', { type: 'boolean', describe: 'paths with A/M/D/T, R<similarity> for renames' })
        .epilog(DIFF_OPTIONS),
    load: () => import('./commands/diff.js').then((m) => m.diff),
  },
  {
    usage: 'blame <path> [commit]',
    describe:
      "who last wrote each line of a file of the draft: batch, actor, model, time (git's blame beneath); --published: of a commit, from its Agent Trace notes",
    builder: (y) =>
      y
        .positional('path', { type: 'string', describe: 'relative to the current directory' })
        .positional('commit', { type: 'string', describe: 'with --published: the commit (default HEAD)' })
        .option('published', {
          type: 'boolean',
          describe: 'blame a commit of the branch, attributing lines by the Agent Trace notes (refs/notes/agent-trace)',
        })
        .option('at', {
          type: 'string',
          describe: 'a checkpoint, batch number, ~N or commit of the draft (default its tip)',
        })
        .option('porcelain', { type: 'boolean', describe: "git blame --porcelain's output, as git prints it" }),
    load: () => import('./commands/audit.js').then((m) => m.blame),
  },
  {
    usage: 'trace [commit]',
    describe: 'the Agent Trace record (JSON) noted on a commit, HEAD by default',
    builder: (y) => y.positional('commit', { type: 'string', describe: 'a commit, as git names it' }),
    load: () => import('./commands/audit.js').then((m) => m.trace),
  },
  {
    usage: 'status',
    describe: 'the draft: tip, batches, changed paths, paths the working tree moved',
    load: () => import('./commands/audit.js').then((m) => m.status),
  },
  {
    usage: 'checkpoint <name>',
    describe: "mark the draft's tip with a named checkpoint",
    builder: (y) =>
      y
        .positional('name', { type: 'string', describe: 'the checkpoint' })
        .option('message', { alias: 'm', type: 'string', describe: 'a note kept with it' }),
    load: () => import('./commands/checkpoint.js').then((m) => m.checkpoint),
  },
  {
    usage: 'checkpoints',
    describe: "list the draft's checkpoints",
    load: () => import('./commands/checkpoint.js').then((m) => m.checkpoints),
  },
  {
    usage: 'rollback <target>',
    describe: 'move the draft to a checkpoint, batch number, ~N or commit',
    builder: (y) =>
      y.positional('target', { type: 'string', describe: 'a checkpoint, batch number, ~N or commit of the draft' }),
    load: () => import('./commands/checkpoint.js').then((m) => m.rollback),
  },
  {
    usage: 'rebase',
    describe:
      'move the draft onto the working tree as it is now (or --onto a commit), merging each path it changed; conflicts stay in the draft',
    builder: (y) =>
      y.option('onto', {
        type: 'string',
        describe: 'a commit-ish (branch, tag, commit) to move onto instead of the working tree',
      }),
    load: () => import('./commands/rebase.js').then((m) => m.rebase),
  },
  {
    usage: 'revert <batches..>',
    describe:
      'a new batch that undoes the given batches and keeps the later ones (paths that do not merge stay in conflict)',
    builder: (y) =>
      y
        .positional('batches', { type: 'string', array: true, describe: 'batch numbers, ~N or commits of the draft' })
        .option('apply', {
          type: 'boolean',
          describe: 'then apply the reverted paths to the working tree, with every guard of apply',
        }),
    load: () => import('./commands/rebase.js').then((m) => m.revert),
  },
  {
    usage: 'split',
    describe:
      'move chosen hunks of the draft into a new draft on the same bases (as jj split); the draft keeps the rest, rollback brings them back',
    builder: (y) =>
      y
        .option('hunks', {
          type: 'string',
          array: true,
          demandOption: true,
          describe:
            'the hunks that move: <id> (shadow diff --json), <path>:<n>[,<m>|<n>-<m>]…, <path>:mode or <path> (repeatable, or comma lists)',
        })
        .option('into', { type: 'string', describe: 'the new draft (default <draft>-split, -split-2, … when taken)' })
        .option('message', { alias: 'm', type: 'string', describe: "the summary of both drafts' batches" }),
    load: () => import('./commands/split.js').then((m) => m.split),
  },
  {
    usage: 'resolve <paths..>',
    describe: 'mark paths in conflict since a rebase resolved, as the draft holds them',
    builder: (y) =>
      y.positional('paths', { type: 'string', array: true, describe: 'relative to the current directory' }),
    load: () => import('./commands/rebase.js').then((m) => m.resolve),
  },
  {
    usage: 'undo',
    describe: "reverse the draft's last move (a batch, a rollback, a rebase, an undo)",
    load: () => import('./commands/checkpoint.js').then((m) => m.undo),
  },
  {
    usage: 'apply [paths..]',
    describe:
      "publish the draft's changes into the working tree, merged with your own changes to the same files (only the given paths, when any)",
    builder: (y) =>
      y
        .positional('paths', {
          type: 'string',
          array: true,
          describe:
            'publish only these files, directories or globs (relative to the current directory); the draft keeps the rest',
        })
        .option('dry-run', { type: 'boolean', describe: 'list what would change and any conflict, writing nothing' })
        .option('commit', {
          type: 'boolean',
          describe: "also move the current branch to the draft's commits",
          conflicts: 'squash',
        })
        .option('squash', {
          type: 'boolean',
          describe: 'also make one commit on the current branch',
          implies: 'message',
        })
        .option('message', { alias: 'm', type: 'string', describe: 'the commit message for --squash' })
        .option('conflict', {
          type: 'string',
          choices: ['refuse', 'markers'],
          describe:
            'where you changed the same lines as the draft: stop (refuse, the default) or write git conflict markers',
        })
        .option('sandbox', {
          type: 'string',
          choices: ['read-only', 'workspace-write'],
          describe: 'override shadow.sandbox',
        })
        .option('expect', {
          type: 'string',
          describe:
            'the review fingerprint shadow review printed (review:…): refused with STALE_REVIEW, writing nothing, if the draft changed since',
        })
        .option('hunks', {
          type: 'string',
          array: true,
          describe:
            'publish only these hunks: <id> (shadow diff --json), <path>:<n>[,<m>|<n>-<m>]…, <path>:mode, <newpath>:rename or <path> (repeatable, or comma lists); the draft keeps the rest',
        })
        .option('patch', {
          alias: 'p',
          type: 'boolean',
          describe:
            "choose the hunks to apply at git add -p's prompt (y n q a d j J k K g / s e ?); the draft keeps the rest",
        })
        .option('color', {
          type: 'boolean',
          describe: 'with -p: --no-color shows the hunks and prompt without colour',
        }),
    load: () => import('./commands/apply.js').then((m) => m.apply),
  },
  {
    usage: 'unapply',
    describe: 'undo the last apply, keeping your later edits to the same files where they do not touch its lines',
    builder: (y) =>
      y
        .option('dry-run', {
          type: 'boolean',
          describe: 'list what would be put back (clean, merged with your later edits, or conflict), writing nothing',
        })
        .option('conflict', {
          type: 'string',
          choices: ['refuse', 'markers'],
          describe:
            'where you changed the lines the apply wrote: stop (refuse, the default) or write git conflict markers',
        })
        .option('sandbox', {
          type: 'string',
          choices: ['read-only', 'workspace-write'],
          describe: 'override shadow.sandbox',
        }),
    load: () => import('./commands/apply.js').then((m) => m.unapply),
  },
  {
    usage: 'recover',
    describe: 'finish an apply that a crash interrupted (also done by every command)',
    load: () => import('./commands/apply.js').then((m) => m.recover),
  },
  SESSION_GROUP,
  {
    usage: 'serve',
    describe: 'the HTTP API and the review page on 127.0.0.1 (port and token in .git/shadow/server.json)',
    builder: (y) =>
      y
        .option('port', { type: 'number', describe: 'port (default: a free one)' })
        .option('allow-apply', {
          type: 'boolean',
          describe: 'serve a real apply too (by default the apply endpoint only answers dry runs)',
        })
        .option('open', { type: 'boolean', describe: "open the review page's one-time URL in a browser" }),
    load: () => import('./commands/serve.js').then((m) => m.serve),
  },
  {
    usage: 'page',
    describe: 'a new one-time URL of the review page of the running shadow serve',
    builder: (y) => y.option('open', { type: 'boolean', describe: 'open it in a browser' }),
    load: () => import('./commands/serve.js').then((m) => m.page),
  },
  {
    name: 'worktree',
    describe: "materialized worktrees: the draft's view as a real directory",
    commands: [
      {
        usage: 'add <dir>',
        describe: "materialize the draft's view into a new (or empty) directory",
        builder: (y) =>
          y.positional('dir', { type: 'string', describe: "the worktree's directory" }).option('git', {
            type: 'boolean',
            describe:
              "a git worktree at the draft's tip instead, with node_modules & co. linked in: git and builds work there",
          }),
        load: () => import('./commands/worktree.js').then((m) => m.add),
      },
      {
        usage: 'sync <dir>',
        describe: "bring it to the draft's tip (only the paths that differ)",
        builder: (y) => y.positional('dir', { type: 'string', describe: "the worktree's directory" }),
        load: () => import('./commands/worktree.js').then((m) => m.sync),
      },
      {
        usage: 'record <dir>',
        describe: 'record what changed there as one batch',
        builder: (y) =>
          y
            .positional('dir', { type: 'string', describe: "the worktree's directory" })
            .option('message', { alias: 'm', type: 'string', describe: 'the intent of the batch' }),
        load: () => import('./commands/worktree.js').then((m) => m.record),
      },
      {
        usage: 'list',
        describe: 'the worktrees, their drafts, and whether they are behind',
        load: () => import('./commands/worktree.js').then((m) => m.list),
      },
      {
        usage: 'remove <dir>',
        describe: 'delete the directory and forget it (refused while it holds changes not recorded)',
        builder: (y) =>
          y
            .positional('dir', { type: 'string', describe: "the worktree's directory" })
            .option('force', { type: 'boolean', describe: 'discard changes not recorded' }),
        load: () => import('./commands/worktree.js').then((m) => m.remove),
      },
    ],
  },
  {
    usage: 'watch <dir>',
    describe: 'record every settled burst of changes in a worktree as one batch (and sync it when the draft moves)',
    builder: (y) =>
      y
        .positional('dir', { type: 'string', describe: "the worktree's directory" })
        .option('quiet-ms', { type: 'number', describe: 'quiet time that ends a burst (default 300)' }),
    load: () => import('./commands/worktree.js').then((m) => m.watch),
  },
  {
    usage: 'exec',
    describe:
      "run a command (after --) in the draft's kept git worktree (dependencies linked from yours); the working tree is never touched",
    builder: (y) =>
      y
        .option('record', { type: 'boolean', describe: 'record what the command changed as one batch' })
        .option('record-on-success', { type: 'boolean', describe: 'record only when the command exits 0' })
        .option('worktree', { type: 'string', describe: "run in this worktree instead of the draft's exec worktree" })
        .option('keep', { type: 'boolean', describe: 'say where the exec worktree stays (it is always kept)' })
        .option('message', { alias: 'm', type: 'string', describe: 'the intent of the recorded batch' }),
    load: () => import('./commands/worktree.js').then((m) => m.exec),
  },
  {
    usage: 'mcp',
    describe: 'an MCP server over stdio: the draft tools for an agent (apply stays with you)',
    builder: (y) =>
      y
        .option('draft-per-actor', {
          type: 'boolean',
          describe: 'give each client (actor) a draft of its own: agent-<actor>',
        })
        .option('allow-apply', { type: 'boolean', describe: 'offer the apply tool too (by default only you apply)' })
        .option('tools', {
          type: 'string',
          default: 'shadow',
          describe:
            "the shapes of tools to serve: shadow, anthropic (the text editor tool), filesystem (the MCP filesystem server's), all; a comma list",
        })
        .conflicts('draft-per-actor', 'draft'),
    load: () => import('./commands/mcp.js').then((m) => m.mcp),
  },
  {
    usage: 'tools',
    describe: 'print the tool definitions (names, descriptions, JSON Schemas) for an agent runtime',
    builder: (y) =>
      y
        .option('format', {
          type: 'string',
          choices: ['openai', 'anthropic', 'mcp'],
          default: 'mcp',
          describe: 'the shape of the definitions',
        })
        .option('allow-apply', { type: 'boolean', describe: 'include the apply tool' })
        .option('tools', {
          type: 'string',
          default: 'shadow',
          describe: 'the shapes of tools: shadow, anthropic, filesystem, all; a comma list',
        }),
    load: () => import('./commands/mcp.js').then((m) => m.tools),
  },
  {
    usage: 'run <plan>',
    describe: 'run a plan: its batches in order, each one commit; stops cleanly between batches',
    builder: (y) =>
      y
        .positional('plan', { type: 'string', describe: 'plan file (JSON or JSON Lines), or - for stdin' })
        .option('from', { type: 'number', describe: 'start at this batch' }),
    load: () => import('./commands/plan.js').then((m) => m.run),
  },
  {
    usage: 'resume [plan]',
    describe: "continue the draft's plan after its last batch on the draft",
    builder: (y) =>
      y
        .positional('plan', { type: 'string', describe: 'the plan, if not the file the run began with' })
        .option('force', { type: 'boolean', describe: 'run a plan file that changed since the run began' })
        .option('skip', { type: 'boolean', describe: 'skip the batch that failed' }),
    load: () => import('./commands/plan.js').then((m) => m.resume),
  },
  {
    usage: 'stop',
    describe: "ask the draft's running plan to stop after its current batch",
    load: () => import('./commands/plan.js').then((m) => m.stop),
  },
  {
    usage: 'propose',
    describe: "freeze the draft's diff as a proposal for review",
    builder: (y) => y.option('message', { alias: 'm', type: 'string', describe: 'what the proposal is for' }),
    load: () => import('./commands/review.js').then((m) => m.propose),
  },
  {
    usage: 'review [name]',
    describe:
      'the diff, the findings (secrets, protected paths, deletions) and the approvals apply needs (of --draft, or of the draft named, origin/<draft> too)',
    builder: (y) =>
      y
        .positional('name', {
          type: 'string',
          describe: 'the draft (default --draft); a fetched one as <remote>/<draft>',
        })
        .option('stat', { type: 'boolean', describe: 'file list instead of the full diff' }),
    load: () => import('./commands/review.js').then((m) => m.review),
  },
  {
    usage: 'approve <id>',
    describe: 'approve what an approval id asks for (this version of the draft only)',
    builder: (y) =>
      decision(
        y
          .positional('id', { type: 'string', describe: 'the approval id shadow review lists (ap-…)' })
          .option('reason', { type: 'string', describe: 'why' }),
      ),
    load: () => import('./commands/review.js').then((m) => m.approve),
  },
  {
    usage: 'deny <id>',
    describe: 'deny it: apply then fails fast until the draft changes',
    builder: (y) =>
      decision(
        y
          .positional('id', { type: 'string', describe: 'the approval id shadow review lists (ap-…)' })
          .option('reason', { type: 'string', describe: 'why', demandOption: true }),
      ),
    load: () => import('./commands/review.js').then((m) => m.deny),
  },
  {
    usage: 'events',
    describe: "the draft's ledger (--json: one event a line)",
    builder: (y) =>
      y
        .option('follow', { alias: 'f', type: 'boolean', describe: 'keep printing new events' })
        .option('verify', { type: 'boolean', describe: 'check the hash chain and report the first broken line' }),
    load: () => import('./commands/review.js').then((m) => m.events),
  },
  ...REMOTE_COMMANDS,
];

/** The first word of a command string. */
export function commandName(spec: CommandSpec): string {
  return spec.usage.split(' ')[0]!;
}

/** The command named by the words `path` (`['draft', 'new']`), aliases included. */
export function findCommand(path: readonly string[]): CommandSpec | undefined {
  const [first, second] = path;
  for (const entry of COMMANDS) {
    if ('commands' in entry) {
      if (entry.name !== first) continue;
      return entry.commands.find((c) => commandName(c) === second || c.aliases?.includes(second ?? ''));
    }
    if (commandName(entry) === first || entry.aliases?.includes(first ?? '')) return entry;
  }
  return undefined;
}
