import type { CommandGroup } from './command-spec.js';

/** `shadow session …`: write sessions, kept apart from the main table (command-table.ts lists the group). */
export const SESSION_GROUP: CommandGroup = {
  name: 'session',
  describe: 'write sessions: large content as plain text, committed as one batch',
  commands: [
    {
      usage: 'begin',
      describe: 'begin a session (metadata only); prints its id and instructions',
      builder: (y) =>
        y
          .option('target', { type: 'string', demandOption: true, requiresArg: true, describe: 'the file to write' })
          .option('op', {
            type: 'string',
            choices: ['create', 'overwrite', 'append'],
            demandOption: true,
            describe: 'what to do to it',
          })
          .option('intent', { type: 'string', describe: 'what the content is for' })
          .option('binary', { type: 'boolean', describe: 'the content is bytes, not UTF-8 text (no DONE line)' }),
      load: () => import('./commands/session.js').then((m) => m.begin),
    },
    {
      usage: 'feed <id>',
      describe: 'stream stdin into the session until a DONE line or the end, then finalize',
      builder: (y) => y.positional('id', { type: 'string', describe: 'the session id session begin printed' }),
      load: () => import('./commands/session.js').then((m) => m.feed),
    },
    {
      usage: 'finalize <id>',
      describe: 'validate and commit a session whose content is all there',
      builder: (y) => y.positional('id', { type: 'string', describe: 'the session id session begin printed' }),
      load: () => import('./commands/session.js').then((m) => m.finalize),
    },
    {
      usage: 'status <id>',
      describe: 'bytes, lines, last save, age',
      builder: (y) => y.positional('id', { type: 'string', describe: 'the session id session begin printed' }),
      load: () => import('./commands/session.js').then((m) => m.status),
    },
    {
      usage: 'list',
      describe: 'active and orphaned sessions',
      load: () => import('./commands/session.js').then((m) => m.list),
    },
    {
      usage: 'cancel <id>',
      describe: 'drop a session and its files',
      builder: (y) => y.positional('id', { type: 'string', describe: 'the session id session begin printed' }),
      load: () => import('./commands/session.js').then((m) => m.cancel),
    },
    {
      usage: 'recover',
      describe: 'sessions a crash left: list them, or --finalize / --discard them',
      builder: (y) =>
        y
          .option('finalize', { type: 'boolean', describe: 'commit each one whose content is all there' })
          .option('discard', { type: 'boolean', describe: 'drop them and their files' }),
      load: () => import('./commands/session.js').then((m) => m.recover),
    },
    {
      usage: 'clean',
      describe: 'remove expired, failed and old orphaned sessions now',
      load: () => import('./commands/session.js').then((m) => m.clean),
    },
  ],
};
