import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { withAssistedBy } from '../src/publish/commit-modes.js';
import { trailerBlock } from '../src/git/format/trailer-block.js';
import { DiskRepo } from './helpers/disk-repo.js';

/*
 * The `Assisted-by` trailers `apply --squash -m` adds join the message's own
 * trailer block, as git finds it, so that git reads every trailer of the
 * commit as one block. Git is the oracle: `git interpret-trailers --parse`
 * of shadow's message lists what it lists for `git interpret-trailers
 * --trailer` adding the same trailer, and git's own rewrite of shadow's
 * message is git's message. `--no-divider`: a commit's trailers are read so
 * (`git log --format=%(trailers)`), a line `---` being text there.
 *
 * The cases marked t7513 are inputs of git's t/t7513-interpret-trailers.sh
 * (git/git at 000023961a0c02d6e21dc51ea3484ff71abf1c74), with a subject line
 * put before those that start with an empty title.
 */

const CLAUDE = 'Assisted-by: claude:anthropic/claude-x';
const CODEX = 'Assisted-by: codex:openai/gpt-5';
const SOB = 'Signed-off-by: Ana <ana@example.com>';
const NOT = 'this is not a trailer\n';

const MESSAGES: Array<[string, string]> = [
  ['a subject alone', 'add greeting'],
  ['a body without trailers', 'add greeting\n\nthe greeting says hello'],
  ['a Signed-off-by block', `add greeting\n\nthe greeting says hello\n\n${SOB}`],
  ['a block of several trailers', `add greeting\n\nbody\n\n${SOB}\nReviewed-by: Bo <bo@example.com>\nCloses: #12`],
  ['a trailer continued on an indented line', `add greeting\n\nbody\n\n${SOB}\n  and a continuation`],
  ['a Signed-off-by block with free text under it', `add greeting\n\nbody\n\n${SOB}\nfree text`],
  ['free text above a Signed-off-by', `add greeting\n\nbody\n\nFixes #12\n${SOB}`],
  ['spaces before the colon', 'add greeting\n\nbody\n\nSigned-off-by : Ana <ana@example.com>'],
  ['no space after the colon', 'add greeting\n\nbody\n\nSigned-off-by:Ana'],
  ['a trailer already there', `add greeting\n\nbody\n\n${SOB}\n${CLAUDE}`],
  ['a title that looks like a trailer', 'area: change'],
  ['a trailing comment', `add greeting\n\nbody\n\n${SOB}\n# a comment`],
  ['a --- line in the body', `add greeting\n\nbody\n---\nnot a patch\n\n${SOB}`],
  ['a paragraph that only looks like trailers past 25%', `add greeting\n\nbody\n\n${NOT.repeat(4)}Key: value`],
  ['t7513: with multiline title in the message', 'place of\ncode: change'],
  [
    't7513: with non-trailer lines mixed with Signed-off-by',
    `subject\n\n${NOT}${NOT}Signed-off-by: a <a@example.com>\n${NOT}`,
  ],
  [
    't7513: with non-trailer lines mixed with cherry picked from',
    `subject\n\n${NOT}${NOT}(cherry picked from commit x)\n${NOT}`,
  ],
  [
    't7513: with non-trailer lines mixed with a non-configured trailer',
    `subject\n\n${NOT}${NOT}I-am-not-configured: x\n${NOT}`,
  ],
  ['t7513: with all non-configured trailers', 'subject\n\nI-am-not-configured: x\nI-am-also-not-configured: x'],
  ['t7513: with non-trailer lines only', 'subject\n\nthis is not a trailer'],
  ['t7513: line with leading whitespace is not trailer', 'subject\n\n\ttoken: value'],
  [
    't7513: multiline field treated as one trailer for 25% check',
    `subject\n\nSigned-off-by: a <a@example.com>\nname: value on\n\tmultiple lines\n${NOT.repeat(6)}`,
  ],
  [
    't7513: with message that has comments',
    'subject\n\nbody\n# comment\n\n# other comment\nCc: x\n# yet another comment\nReviewed-by: Johan\n# last comment\n',
  ],
];

function git(args: string[], input: string): string {
  // Outside any repository, and without any config: no trailer.* setting changes what git finds.
  const env = {
    PATH: process.env.PATH!,
    GIT_CONFIG_NOSYSTEM: '1',
    HOME: '/nonexistent',
    GIT_CEILING_DIRECTORIES: tmpdir(),
  };
  const r = spawnSync('git', args, { input, encoding: 'utf8', cwd: tmpdir(), env });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const parse = (message: string): string => git(['interpret-trailers', '--parse', '--no-divider'], message);
/** git adding `trailers` as `apply --squash` adds them: at the end of the block, once. */
const gitAdds = (message: string, trailers: readonly string[]): string =>
  git(
    [
      'interpret-trailers',
      '--no-divider',
      '--if-exists',
      'addIfDifferent',
      ...trailers.flatMap((t) => ['--trailer', t]),
    ],
    message,
  );

const test = suite('Assisted-by trailers in a squashed commit message');

for (const [name, message] of MESSAGES) {
  test(`${name}: git reads the same trailers as after git interpret-trailers --trailer, and rewrites shadow's message into git's`, () => {
    // The draft's commits: what the squash carries their Assisted-by trailers from.
    const drafts = [
      `write f.txt\n\nShadow-Draft: default\n${CLAUDE}\n`,
      `write g.txt\n\nShadow-Draft: default\n${CODEX}\n${CLAUDE}\n`,
    ];
    const ours = withAssistedBy(message, drafts);
    const theirs = gitAdds(`${message.trim()}\n`, [CLAUDE, CODEX]);
    assert.is(parse(ours), parse(theirs));
    assert.is(gitAdds(ours, []), theirs);
    assert.ok(parse(ours).includes(`${CLAUDE}\n`) && parse(ours).includes(`${CODEX}\n`));
  });
}

test("the block git finds: none in a title alone; the paragraph's start and the end before trailing comments", () => {
  assert.equal(trailerBlock('area: change\n'), { start: 13, end: 13 });
  const m = `s\n\nbody\n\n${SOB}\n# comment\n\n`;
  assert.equal(trailerBlock(m), { start: 9, end: 9 + SOB.length + 1 });
  assert.equal(trailerBlock('s\n\nbody\n'), { start: 8, end: 8 });
});

test('apply --squash -m with a message ending in Signed-off-by: one trailer block, the Assisted-by trailers in it, as git log reads them', () => {
  const repo = new DiskRepo({ 'f.txt': 'base\n' });
  try {
    const batch = (path: string, content: string, who: string[]): void => {
      const r = repo.shadow(['batch', '-', ...who], {
        input: JSON.stringify({ operations: [{ operation: 'write', path, content }] }),
      });
      assert.is(r.status, 0, r.stderr);
    };
    batch('f.txt', 'base\nclaude\n', ['--actor', 'claude', '--model', 'anthropic/claude-x']);
    batch('g.txt', 'codex\n', ['--actor', 'codex', '--model', 'openai/gpt-5']);
    const message = `add greeting\n\nthe greeting says hello\n\n${SOB}\nReviewed-by: Bo <bo@example.com>`;
    const r = repo.shadow(['apply', '--squash', '-m', message, '--json']);
    assert.is(r.status, 0, r.stderr);
    const body = repo.git('log', '-1', '--format=%B');
    assert.is(body, `${message}\n${CLAUDE}\n${CODEX}\n\n`);
    assert.is(
      repo.git('log', '-1', '--format=%(trailers:only)'),
      `${SOB}\nReviewed-by: Bo <bo@example.com>\n${CLAUDE}\n${CODEX}\n\n`,
    );
    assert.is(parse(body), parse(gitAdds(`${message}\n`, [CLAUDE, CODEX])));
  } finally {
    repo.cleanup();
  }
});

test.run();
