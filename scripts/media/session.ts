/**
 * What the terminal recording of docs/media shows, as data: the demo
 * project a newcomer starts from, the agent's batch, and the commands typed
 * one after another. make-media.ts records them; test/media.test.ts holds
 * the committed recording to this list and every command to the current CLI.
 */

/** The recording's terminal, in columns and rows. */
export const TERMINAL = { cols: 100, rows: 28 } as const;

/** Where the person stands: the project's directory, as the prompt shows it. */
export const PROJECT = 'my-project';

/** The project's files, committed once as "initial commit" before anything is recorded. */
export const PROJECT_FILES: Readonly<Record<string, string>> = {
  'README.md': '# my-project\n\nHello\n',
  'old.txt': 'obsolete\n',
  'src/app.ts': 'export function main(): number {\n  return 0;\n}\n',
  '.github/workflows/ci.yml':
    'on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/setup-node@v4\n' +
    '        with:\n          node-version: 18\n      - run: npm test\n',
};

/** Where the agent's batch is, relative to the project: beside it, outside the repository. */
export const AGENT_BATCH_FILE = '../agent-batch.json';

/** The batch the agent sends, as the file AGENT_BATCH_FILE holds it. */
export const AGENT_BATCH = {
  intent: 'add a greeting',
  operations: [
    { operation: 'write', path: 'src/hello.ts', content: "export const greeting = 'Hello';\n" },
    { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, world' },
    { operation: 'edit', path: '.github/workflows/ci.yml', old_content: '18', content: '22' },
    { operation: 'delete', path: 'old.txt' },
  ],
};

/** The batch file's text: one operation a line, so that `cat` shows it whole on the screen. */
export function agentBatchText(): string {
  const ops = AGENT_BATCH.operations.map((op) => `    ${JSON.stringify(op)}`).join(',\n');
  return `{\n  "intent": ${JSON.stringify(AGENT_BATCH.intent)},\n  "operations": [\n${ops}\n  ]\n}\n`;
}

/** Stands for the id of the approval the batch asks for, known only once `shadow review` has run. */
export const APPROVAL = '{approval}';

export interface Step {
  /** A line said before the command, shown as a shell comment. */
  say?: string;
  /** The command's words as typed; `APPROVAL` stands for the pending approval's id. */
  argv: readonly string[];
  /** Set for this command only, unseen (the agent's name on its batch). */
  env?: Readonly<Record<string, string>>;
  /** The exit status it must end with (0 unless said). */
  exit?: number;
  /** Seconds to leave its output on screen. */
  pause: number;
}

/** The first session: an agent's batch, what the person sees of it, the decision, the apply. */
export const SESSION: readonly Step[] = [
  { say: 'an agent sends one batch: four file operations', argv: ['cat', AGENT_BATCH_FILE], pause: 1.5 },
  { argv: ['shadow', 'batch', AGENT_BATCH_FILE], env: { SHADOW_ACTOR: 'agent' }, pause: 0.8 },
  { say: 'one commit on a draft; your files wait', argv: ['shadow', 'status'], pause: 0.8 },
  { argv: ['shadow', 'diff'], pause: 1.8 },
  { say: 'a CI file changed: apply asks you first', argv: ['shadow', 'review', '--stat'], pause: 1.8 },
  { argv: ['shadow', 'apply'], exit: 3, pause: 1.5 },
  { argv: ['shadow', 'approve', APPROVAL, '--reason', 'node 22 is fine'], pause: 0.8 },
  { argv: ['shadow', 'apply'], pause: 1.2 },
  { say: 'what the agent did, and your files now', argv: ['shadow', 'log'], pause: 1.2 },
  { argv: ['git', 'status', '--short'], pause: 1.8 },
];

/** A word as a POSIX shell would need it typed. */
export function shellQuote(word: string): string {
  return /^[\w./~=@:{}-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line as typed. */
export const typed = (argv: readonly string[]): string => argv.map(shellQuote).join(' ');
