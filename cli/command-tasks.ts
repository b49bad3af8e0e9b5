/**
 * The commands by task, as `git help` groups git's: the headings of
 * `shadow --help` and of the reference (docs/cli.md), in the order a
 * draft is lived. Each name of the command table (command-table.ts) is in
 * exactly one task (a test holds it).
 */
export interface CommandTask {
  title: string;
  commands: readonly string[];
}

export const COMMAND_TASKS: readonly CommandTask[] = [
  { title: 'start and manage drafts', commands: ['draft'] },
  { title: 'write to a draft', commands: ['batch', 'write', 'edit', 'rm', 'mv', 'apply-patch', 'session'] },
  { title: 'look at a draft', commands: ['status', 'cat', 'ls', 'log', 'diff', 'blame', 'trace'] },
  {
    title: 'history and undo',
    commands: ['checkpoint', 'checkpoints', 'rollback', 'undo', 'rebase', 'revert', 'resolve', 'split'],
  },
  { title: 'review and decide', commands: ['propose', 'review', 'approve', 'deny', 'events'] },
  { title: 'publish into the working tree', commands: ['apply', 'unapply', 'recover'] },
  { title: 'share drafts through git remotes', commands: ['push', 'fetch', 'pull'] },
  { title: 'the draft as a real directory', commands: ['worktree', 'watch', 'exec'] },
  { title: 'plans', commands: ['run', 'resume', 'stop'] },
  { title: 'agents and servers', commands: ['init', 'hook', 'mcp', 'tools', 'serve', 'page'] },
];
