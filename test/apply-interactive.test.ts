import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { handedOff } from '../cli/handoff/client.js';
import { AnswerReader } from '../cli/hunk-prompt/answer-reader.js';
import { notApplying, knownBase } from '../cli/hunk-prompt/base-check.js';
import { chooseEditor } from '../cli/hunk-prompt/editor.js';
import { parseDiff } from '../cli/hunk-prompt/parse-diff.js';
import { parseGitColour, promptColours } from '../cli/hunk-prompt/prompt-colours.js';
import { chosen, reassemble } from '../cli/hunk-prompt/reassemble.js';
import { walkFile, type WalkIO } from '../cli/hunk-prompt/walk-file.js';

/*
 * The parts of `shadow apply -p` that need no terminal, in-process: the
 * walk of a file driven by answers on a stream and an editor stand-in,
 * what an edit that does not apply gets, the colours (git config
 * --get-color as the oracle) and the editor's choice. The prompt itself,
 * beside git's, is test/apply-interactive-pty.test.ts.
 */

const DIFF = [
  'diff --git a/a.txt b/a.txt',
  'index 5b2bdc1..8e0d76d 100644',
  '--- a/a.txt',
  '+++ b/a.txt',
  '@@ -1,7 +1,8 @@',
  ' 1',
  ' 2',
  '-3',
  '+THREE',
  ' 4',
  ' 5',
  '-6',
  '+SIX',
  '+SIX2',
  ' 7',
  '@@ -20,3 +21,4 @@',
  ' 20',
  ' 21',
  ' 22',
  '+after 22',
  '',
].join('\n');

const NO_COLOUR = promptColours(() => undefined, { env: {}, isTTY: false }, true).colours;

interface Walked {
  patch: string;
  screen: string;
  end: string;
  edits: string[];
}

/** Walk DIFF's one file with `answers` (lines), `edits` what the editor gives back in turn. */
async function walk(answers: string[], edits: (string | undefined)[] = []): Promise<Walked> {
  const [file] = parseDiff(DIFF);
  const input = new PassThrough();
  input.end(answers.map((a) => `${a}\n`).join(''));
  let screen = '';
  const seen: string[] = [];
  const io: WalkIO = {
    colours: NO_COLOUR,
    colourDiff: false,
    out: (s) => (screen += s),
    err: (s) => (screen += s),
    reader: new AnswerReader(input, false),
    commentChar: '#',
    edit: async (text) => {
      seen.push(text);
      const next = edits.shift();
      return typeof next === 'string' ? next : undefined;
    },
  };
  const end = await walkFile(io, file!);
  io.reader.pause();
  return { patch: chosen(file!) ? reassemble(file!, false) : '', screen, end, edits: seen };
}

const Walk = suite('apply -p: the walk of a file');

Walk('every hunk chosen gives back the diff itself; none chosen gives nothing', async () => {
  const all = await walk(['a']);
  assert.is(all.patch, DIFF);
  assert.is(all.end, 'next');
  const none = await walk(['d']);
  assert.is(none.patch, '');
});

Walk('the end of the input stops the walk as q does, keeping what was chosen', async () => {
  const r = await walk(['y']);
  assert.match(r.patch, /^@@ -1,7 \+1,8 @@$/m);
  assert.not.match(r.patch, /after 22/);
  assert.ok(r.screen.endsWith('(2/2) Apply this hunk to worktree [y,n,q,a,d,K,g,/,e,?]? \n'), r.screen);
});

Walk("a key it does not know prints git's help, with only the keys this hunk allows", async () => {
  const r = await walk(['x', 'q']);
  const help = r.screen.slice(r.screen.indexOf('y - apply'), r.screen.indexOf('@@', r.screen.indexOf('y - apply')));
  assert.is(
    help,
    [
      'y - apply this hunk to worktree',
      'n - do not apply this hunk to worktree',
      'q - quit; do not apply this hunk or any of the remaining ones',
      'a - apply this hunk and all later hunks in the file',
      'd - do not apply this hunk or any of the later hunks in the file',
      'j - leave this hunk undecided, see next undecided hunk',
      'J - leave this hunk undecided, see next hunk',
      'g - select a hunk to go to',
      '/ - search for a hunk matching the given regex',
      's - split the current hunk into smaller hunks',
      'e - manually edit the current hunk',
      '? - print help',
      '',
    ].join('\n'),
  );
});

Walk('split, the second part chosen: its header counts the first part as context left unchanged', async () => {
  const r = await walk(['s', 'n', 'y', 'n']);
  assert.match(r.screen, /\? Split into 2 hunks\.\n/);
  assert.is(
    r.patch,
    DIFF.slice(0, DIFF.indexOf('@@')) + ['@@ -4,4 +4,5 @@', ' 4', ' 5', '-6', '+SIX', '+SIX2', ' 7', ''].join('\n'),
  );
});

Walk("an edit whose header does not parse: git's error and question; n leaves the hunk as it was", async () => {
  const r = await walk(['e', 'n', 'n', 'n'], ['@@ nonsense @@\n 1\n']);
  assert.match(r.screen, /\? error: could not parse hunk header\n/);
  assert.match(r.screen, /\nYour edited hunk does not apply\. Edit again \(saying "no" discards!\) \[y\/n\]\? /);
  assert.is(r.patch, '');
});

Walk('an edit with every line removed gives up: the hunk is asked about again, unchanged', async () => {
  const r = await walk(['e', 'y', 'n'], ['# only a comment\n']);
  assert.is(r.edits.length, 1);
  assert.ok(r.edits[0]!.startsWith('# Manual hunk edit mode -- see bottom for a quick guide.\n@@ -1,7 +1,8 @@\n 1\n'));
  assert.match(
    r.edits[0]!,
    /^# If the patch applies cleanly, the edited hunk will immediately be marked for applying\.$/m,
  );
  assert.is(r.screen.split('(1/2) Apply this hunk').length - 1, 2, 'asked twice');
  assert.match(r.patch, /^\+THREE$/m);
});

Walk("an editor that fails is a failed edit: git's question, y runs it again", async () => {
  const edited = '@@ -1,7 +1,7 @@\n 1\n 2\n-3\n+Three\n 4\n 5\n 6\n 7\n';
  const r = await walk(['e', 'y', 'y'], [undefined, edited]);
  assert.is(r.edits.length, 2);
  assert.match(r.screen, /Edit again \(saying "no" discards!\) \[y\/n\]\? /);
  assert.match(r.patch, /^@@ -20,3 \+20,4 @@$/m);
  // The edited hunk keeps 6 as it is and is recounted: the next hunk no longer follows an added line.
  assert.ok(r.patch.includes('@@ -1,7 +1,7 @@\n 1\n 2\n-3\n+Three\n 4\n 5\n 6\n 7\n@@ -20,3 +20,4 @@\n'), r.patch);
});

Walk('an edit that adds a line moves the next chosen hunk by one', async () => {
  const edited = '@@ -1,7 +1,7 @@\n 1\n 2\n-3\n+THREE\n+3b\n 4\n 5\n-6\n+SIX\n+SIX2\n 7\n';
  const r = await walk(['e', 'y'], [edited]);
  assert.match(r.patch, /^@@ -1,7 \+1,9 @@$/m);
  assert.match(r.patch, /^@@ -20,3 \+22,4 @@$/m);
});

Walk('a hunk left out that adds a line moves the next chosen hunk back by one', async () => {
  const r = await walk(['n', 'y']);
  assert.match(r.patch, /^@@ -20,3 \+20,4 @@$/m);
  assert.not.match(r.patch, /THREE/);
});

const Handoff = suite('apply -p: the prompt stays with the caller');

Handoff('apply -p and apply --patch are never handed to a server; apply is', () => {
  assert.not.ok(handedOff(['apply', '-p'], {}));
  assert.not.ok(handedOff(['apply', '--patch', 'src/'], {}));
  assert.ok(handedOff(['apply', 'src/'], {}));
});

const Check = suite('apply -p: does an edited hunk still apply to the base');

Check('context and removed lines must be base lines, at their place or near it; else where git says it failed', () => {
  const [file] = parseDiff(DIFF);
  const known = knownBase(file!);
  const head = DIFF.slice(0, DIFF.indexOf('@@'));
  assert.is(notApplying(DIFF, known), undefined);
  assert.is(notApplying(`${head}@@ -1,2 +1,2 @@\n 2\n-3\n+x\n`, known), undefined, 'one line off');
  assert.is(notApplying(`${head}@@ -1,2 +1,2 @@\n two\n-3\n+x\n`, known), 1, 'a context line the base has not');
  assert.is(notApplying(`${head}@@ -1,3 +1,2 @@\n 2\n-3\n+x\n`, known), 1, 'counts that do not match');
});

const Colours = suite('apply -p: colours');

Colours("git's colour values read as git config --get-color reads them", () => {
  for (const value of [
    'bold blue',
    'red',
    'bold red',
    'green black ul',
    'brightyellow',
    '208',
    '#ff8000',
    'reverse dim',
    'normal',
    'no-bold cyan',
  ]) {
    const git = spawnSync('git', ['config', '--get-color', '', value], { encoding: 'utf8' });
    assert.is(parseGitColour(value), git.stdout, value);
  }
});

Colours(
  "on a terminal: git's prompt, help and error colours; color.interactive=never keeps the diff's; --no-color none",
  () => {
    const tty = { env: {}, isTTY: true };
    const on = promptColours(() => undefined, tty, false);
    assert.is(on.colours.prompt, '\x1b[1;34m');
    assert.is(on.colours.help, '\x1b[1;31m');
    assert.is(on.colours.error, '\x1b[1;31m');
    assert.is(on.colours.header, '\x1b[1m');
    assert.ok(on.colourDiff);
    const config = (name: string): string | undefined =>
      ({ 'color.interactive': 'never', 'color.interactive.prompt': 'green' })[name];
    const never = promptColours(config, tty, false);
    assert.is(never.colours.prompt, '');
    assert.ok(never.colourDiff);
    const slot = promptColours((n) => (n === 'color.interactive.prompt' ? 'green' : undefined), tty, false);
    assert.is(slot.colours.prompt, '\x1b[32m');
    const off = promptColours(() => undefined, tty, true);
    assert.is(off.colours.prompt, '');
    assert.not.ok(off.colourDiff);
    assert.not.ok(promptColours(() => undefined, { env: { NO_COLOR: '1' }, isTTY: true }, false).colourDiff);
  },
);

const Editor = suite('apply -p: the editor');

Editor('chosen as git chooses it: GIT_EDITOR, core.editor, VISUAL (not on a dumb terminal), EDITOR, vi', () => {
  const config = (v?: string) => (name: string) => (name === 'core.editor' ? v : undefined);
  const term = { TERM: 'xterm' };
  assert.is(chooseEditor({ ...term, GIT_EDITOR: 'g', VISUAL: 'v', EDITOR: 'e' }, config('c')), 'g');
  assert.is(chooseEditor({ ...term, VISUAL: 'v', EDITOR: 'e' }, config('c')), 'c');
  assert.is(chooseEditor({ ...term, VISUAL: 'v', EDITOR: 'e' }, config()), 'v');
  assert.is(chooseEditor({ TERM: 'dumb', VISUAL: 'v', EDITOR: 'e' }, config()), 'e');
  assert.is(chooseEditor(term, config()), 'vi');
  assert.is(chooseEditor({ TERM: 'dumb' }, config()), undefined);
});

Walk.run();
Handoff.run();
Check.run();
Colours.run();
Editor.run();
