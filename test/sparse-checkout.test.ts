import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import { DiskRepo, type CliResult, treeHashes } from './helpers/disk-repo.js';

/*
 * Paths git keeps out of the working tree (outside the sparse-checkout cone,
 * or `git update-index --skip-worktree`) read as git's index holds them: a
 * first touch takes the index's blob as its base (never a capture that
 * deletes the file), diff shows a modification, status no drift; apply and
 * its dry run refuse them (SPARSE_PATH) before writing anything, and work
 * once git lets the path into the working tree again.
 */

const DRAFT = 'refs/shadow/drafts/default';
const EDIT = JSON.stringify({
  intent: 'edit x',
  operations: [{ operation: 'edit', path: 'b/x.txt', old_content: 'X', content: 'Y' }],
});

interface Variant {
  name: string;
  /** Keep b/x.txt out of the working tree, git's way. */
  keepOut(repo: DiskRepo): void;
  /** Let it back in, git's way. */
  letIn(repo: DiskRepo): void;
  /** What the hint must name. */
  hint: RegExp;
}

const letBackFlag = (repo: DiskRepo): void => {
  repo.git('update-index', '--no-skip-worktree', 'b/x.txt');
  repo.git('checkout', '--', 'b/x.txt');
};

const VARIANTS: Variant[] = [
  {
    name: 'outside the sparse cone',
    keepOut: (r) => r.git('sparse-checkout', 'set', '--cone', 'a'),
    letIn: (r) => r.git('sparse-checkout', 'add', 'b'),
    hint: /git sparse-checkout add b/,
  },
  {
    name: 'outside the cone of a sparse index',
    keepOut: (r) => r.git('sparse-checkout', 'set', '--cone', '--sparse-index', 'a'),
    letIn: (r) => r.git('sparse-checkout', 'add', 'b'),
    hint: /git sparse-checkout add b/,
  },
  {
    name: 'skip-worktree, the file removed',
    keepOut: (r) => {
      r.git('update-index', '--skip-worktree', 'b/x.txt');
      fs.unlinkSync(r.path('b/x.txt'));
    },
    letIn: letBackFlag,
    hint: /git update-index --no-skip-worktree -- b\/x\.txt/,
  },
  {
    name: 'skip-worktree, the file kept with a local edit git ignores',
    keepOut: (r) => {
      r.git('update-index', '--skip-worktree', 'b/x.txt');
      r.write('b/x.txt', 'local X\n');
    },
    letIn: letBackFlag,
    hint: /git update-index --no-skip-worktree -- b\/x\.txt/,
  },
];

function ok(r: CliResult, what: string): any {
  assert.is(r.status, 0, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  return r.stdout.trimStart().startsWith('{') ? r.json() : r.stdout;
}

const S = suite<{ repo: DiskRepo }>('sparse checkout and skip-worktree');
S.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'a/f.txt': 'A\n', 'b/x.txt': 'X\n', 'b/y.txt': 'other\n' });
});
S.after.each((ctx) => ctx.repo.cleanup());

for (const v of VARIANTS) {
  S(
    `${v.name}: read from the index, captured as its blob, shown modified; apply refused with SPARSE_PATH until git lets it in`,
    ({ repo }) => {
      const root = repo.ref('HEAD')!;
      v.keepOut(repo);
      const [mode, oid] = repo.git('ls-files', '-s', '--', 'b/x.txt').trim().split(/\s+/);
      assert.is(ok(repo.shadow(['cat', 'b/x.txt']), 'cat'), 'X\n', "the view shows the index's content");

      const batch = ok(repo.shadow(['batch', '-', '--json'], { input: EDIT }), 'batch');
      assert.is(batch.captured, undefined, 'no capture commit');
      // git's own history of the draft: one commit, a modification, nothing deleted.
      assert.is(repo.git('rev-list', '--count', `${root}..${DRAFT}`).trim(), '1');
      assert.is(repo.git('diff', '--name-status', root, DRAFT).trim(), 'M\tb/x.txt');
      assert.is(repo.git('log', '--diff-filter=D', '--format=%H', DRAFT).trim(), '');
      assert.is(repo.git('show', `${DRAFT}:b/x.txt`), 'Y\n');

      const diff = ok(repo.shadow(['diff', '--json']), 'diff').files;
      assert.equal(
        diff.map((f: any) => [f.path, f.status, f.old]),
        [['b/x.txt', 'M', { mode, oid }]],
        'the base is git ls-files -s b/x.txt',
      );
      assert.equal(ok(repo.shadow(['status', '--json']), 'status').drifted, [], 'never drifted nor deleted');

      const before = treeHashes(repo.dir);
      for (const args of [['apply', '--dry-run'], ['apply'], ['apply', '--commit']]) {
        const r = repo.shadow([...args, '--json']);
        assert.is(r.status, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
        const e = r.json().error;
        assert.is(e.code, 'SPARSE_PATH', r.stdout);
        assert.match(e.message, /b\/x\.txt/);
        assert.match(e.hint, v.hint);
        assert.equal(e.data.paths, ['b/x.txt']);
        assert.equal(treeHashes(repo.dir), before, `${args.join(' ')} wrote nothing`);
        assert.is(repo.git('status', '--porcelain'), '', 'git sees nothing changed');
        assert.is(repo.ref('main'), root);
      }

      v.letIn(repo);
      const applied = ok(repo.shadow(['apply', '--json']), 'apply once git lets the path in');
      assert.is(applied.applied, true);
      assert.is(repo.read('b/x.txt'), 'Y\n');
      assert.is(repo.git('status', '--porcelain', '--', 'b/x.txt'), ' M b/x.txt\n');
    },
  );
}

S(
  'a path inside the cone of a sparse checkout is an ordinary path: captured from the working tree and applied',
  ({ repo }) => {
    repo.git('sparse-checkout', 'set', '--cone', 'a');
    repo.write('a/f.txt', 'user edit\n');
    const batch = ok(
      repo.shadow(['batch', '-', '--json'], {
        input: JSON.stringify({
          operations: [{ operation: 'edit', path: 'a/f.txt', old_content: 'user', content: 'agent' }],
        }),
      }),
      'batch',
    );
    assert.equal(batch.captured, ['a/f.txt'], "the user's edit is captured");
    ok(repo.shadow(['apply', '--json']), 'apply');
    assert.is(repo.read('a/f.txt'), 'agent edit\n');
    assert.is(repo.exists('b/x.txt'), false, 'the sparse path stays out');
  },
);

S.run();
