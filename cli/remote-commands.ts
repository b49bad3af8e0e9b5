/**
 * The commands that share drafts through git remotes, kept apart from the
 * main table (command-table.ts spreads them in). They run in the caller,
 * never handed to a running server: git asks the caller's terminal for
 * credentials, and the network time is the caller's.
 */
import type { CommandSpec } from './command-spec.js';

export const REMOTE_COMMANDS: CommandSpec[] = [
  {
    usage: 'push [remote] [drafts..]',
    describe:
      'send drafts (default: the current one) to a git remote (default origin): tip, checkpoints, proposal, metadata and ledger, atomically; refused if the remote moved since the last fetch',
    builder: (y) =>
      y
        .positional('remote', { type: 'string', describe: 'a remote of `git remote -v` (default origin)' })
        .positional('drafts', { type: 'string', array: true, describe: 'the drafts to push' })
        .option('all', { type: 'boolean', describe: 'every draft' }),
    load: () => import('./commands/remote.js').then((m) => m.push),
  },
  {
    usage: 'fetch [remote]',
    describe:
      "bring a remote's drafts here as <remote>/<draft> (refs/shadow/remotes/<remote>/), never touching local drafts",
    builder: (y) =>
      y.positional('remote', { type: 'string', describe: 'a remote of `git remote -v` (default origin)' }),
    load: () => import('./commands/remote.js').then((m) => m.fetch),
  },
  {
    usage: 'pull [remote] [drafts..]',
    describe:
      "fetch, then bring local drafts (default: every one the remote has too) up to the remote's: fast-forward, and join its ledger (denies made there hold here; approvals when signed); refused when both moved (DIVERGED)",
    builder: (y) =>
      y
        .positional('remote', { type: 'string', describe: 'a remote of `git remote -v` (default origin)' })
        .positional('drafts', { type: 'string', array: true, describe: 'the local drafts to pull' }),
    load: () => import('./commands/remote.js').then((m) => m.pull),
  },
];
