import type { Options } from 'yargs';

/** An option every command takes. */
export interface GlobalOption {
  key: string;
  /** What its value is called in help: `-C <dir>`. */
  value?: string;
  options: Options;
}

/** The options every command takes (run.ts gives them to yargs; the reference and `shadow --help` list them). */
export const GLOBAL_OPTIONS: readonly GlobalOption[] = [
  {
    key: 'C',
    value: 'dir',
    options: { type: 'string', describe: 'run as if shadow was started in <dir>', requiresArg: true },
  },
  {
    key: 'draft',
    value: 'name',
    options: {
      type: 'string',
      describe: 'the draft to use (default: $SHADOW_DRAFT, else "default")',
      requiresArg: true,
    },
  },
  {
    key: 'actor',
    value: 'who',
    options: {
      type: 'string',
      describe: 'who is acting (default: $SHADOW_ACTOR, else git user.name)',
      requiresArg: true,
    },
  },
  {
    key: 'model',
    value: 'model',
    options: {
      type: 'string',
      describe: 'the model an AI actor runs (default: $SHADOW_MODEL); recorded on its batches',
      requiresArg: true,
    },
  },
  {
    key: 'actor-type',
    value: 'ai|human',
    options: {
      type: 'string',
      choices: ['ai', 'human'],
      describe: 'who the actor is (default: $SHADOW_ACTOR_TYPE, else ai when a model is named)',
      requiresArg: true,
    },
  },
  { key: 'json', options: { type: 'boolean', describe: 'print one JSON document (errors too)' } },
];

/** What shadow is, in the words that head `shadow --help`. */
export const SHADOW_SUMMARY =
  'A transactional staging layer between an agent and your working tree: every write lands in a draft (commits on refs/shadow/drafts/<name>), never in your files.';
