import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { treeHashes, type DiskRepo } from './helpers/disk-repo.js';
import { draftRepo } from './helpers/hunk-corpus.js';

/*
 * `shadow apply -p` as a command, without a terminal (answers on stdin, a
 * line each, as git add -p reads them there): what it refuses before
 * asking anything, and the runs that end with nothing to apply, which
 * write nothing.
 */

type Ctx = { repo: DiskRepo };
const Cli = suite<Ctx>('cli: apply -p');
Cli.before(async (ctx) => {
  ctx.repo = await draftRepo();
});
Cli.after((ctx) => ctx.repo.cleanup());

const REFUSED: [string[], RegExp][] = [
  [['--commit'], /not with --commit or --squash/],
  [['--squash', '-m', 'msg'], /not with --commit or --squash/],
  [['--json'], /has no --json form/],
];
for (const [words, what] of REFUSED) {
  Cli(`-p ${words.join(' ')} is refused with USAGE before a question is asked`, ({ repo }) => {
    const before = treeHashes(repo.dir);
    const r = repo.shadow(['apply', '-p', ...words], { input: 'y\ny\ny\n' });
    assert.is(r.status, 2, r.stdout + r.stderr);
    assert.not.match(r.stdout, /Apply this hunk/);
    if (words.includes('--json')) assert.is(JSON.parse(r.stdout).error.code, 'USAGE');
    else assert.match(r.stderr, what);
    assert.match(words.includes('--json') ? JSON.parse(r.stdout).error.hint : r.stderr, /--hunks|git/);
    assert.equal(treeHashes(repo.dir), before);
  });
}

Cli("every hunk answered n: git's questions, then No changes., exit 0, nothing written", ({ repo }) => {
  const before = treeHashes(repo.dir);
  const r = repo.shadow(['apply', '-p'], { input: 'n\n'.repeat(7) });
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^diff --git a\/a\.txt b\/a\.txt$/m);
  assert.match(r.stdout, /\(1\/2\) Apply this hunk to worktree \[y,n,q,a,d,j,J,g,\/,s,e,\?\]\? /);
  assert.match(r.stdout, /\(1\/2\) Apply mode change to worktree \[y,n,q,a,d,j,J,g,\/,\?\]\? /);
  assert.match(r.stdout, /\(1\/1\) Apply deletion to worktree \[y,n,q,a,d,\?\]\? /);
  assert.match(r.stdout, /\(1\/1\) Apply addition to worktree \[y,n,q,a,d,e,\?\]\? /);
  assert.not.match(r.stdout, /\x1b\[/, 'no colour off a terminal');
  assert.is(r.stderr, 'No changes.\n');
  assert.equal(treeHashes(repo.dir), before);
});

Cli('q at the first question: nothing asked after it, nothing written', ({ repo }) => {
  const before = treeHashes(repo.dir);
  const r = repo.shadow(['apply', '-p'], { input: 'q\n' });
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.is(r.stdout.split('Apply ').length - 1, 1);
  assert.is(r.stderr, 'No changes.\n');
  assert.equal(treeHashes(repo.dir), before);
});

Cli('pathspecs limit the files asked about, relative to the current directory', ({ repo }) => {
  const r = repo.shadow(['apply', '-p', 'b.txt', 'e.txt'], { input: 'n\nn\n' });
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.equal(
    [...r.stdout.matchAll(/^diff --git a\/(\S+)/gm)].map((m) => m[1]),
    ['b.txt', 'e.txt'],
  );
});

Cli("a draft that changes nothing the pathspec matches: git's No changes. and no question", ({ repo }) => {
  const r = repo.shadow(['apply', '-p', 'nothing-here.txt'], { input: '' });
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.is(r.stdout, '');
  assert.is(r.stderr, 'No changes.\n');
});

Cli("only binary files changed: git's words for it, no question, nothing written", ({ repo }) => {
  const before = treeHashes(repo.dir);
  const r = repo.shadow(['apply', '-p', 'g.bin'], { input: 'y\n' });
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.not.match(r.stdout, /Apply /);
  assert.is(r.stderr, 'Only binary files changed.\n');
  assert.equal(treeHashes(repo.dir), before);
});

Cli.run();
