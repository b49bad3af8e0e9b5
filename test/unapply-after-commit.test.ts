import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { failsJson, ok } from './helpers/cli-repo.js';
import { snapshotTree } from './helpers/dir-snapshot.js';
import { statusFor } from '../src/http/http-errors.js';

/*
 * `shadow unapply` after `apply --commit` or `--squash`, once the person
 * committed on top: moving the branch back would drop their commit, and
 * undoing the files alone would leave the apply's commits in the branch
 * with the index staging their undoing (the person's own change to the
 * same file with it). So unapply refuses (BRANCH_MOVED, dry run too) and
 * writes nothing: working tree, index, refs and reflogs as they were. The
 * apply's commits are then undone as git undoes commits under later ones.
 */

const F = 'one\ntwo\nthree\nfour\nfive\n';

/** Everything unapply could have written: the working tree, the index's bytes, every ref, HEAD, the reflogs. */
function state(repo: DiskRepo): unknown {
  return {
    tree: snapshotTree(repo.dir),
    index: readFileSync(repo.path('.git/index')).toString('base64'),
    refs: repo.git('for-each-ref', '--format=%(refname) %(objectname)'),
    head: repo.git('symbolic-ref', 'HEAD'),
    reflogs: repo.git('reflog', 'show', '--all', '--format=%H %gs'),
  };
}

const CASES = [
  {
    mode: ['--commit'],
    name: '--commit, then the person commits on the file the apply wrote',
    person: (r: DiskRepo) => r.write('f.txt', F.replace('four', 'four by the person').replace('one', 'ONE')),
  },
  {
    mode: ['--squash', '-m', 'the draft'],
    name: '--squash, then the person commits another file',
    person: (r: DiskRepo) => r.write('g.txt', 'g by the person\n'),
  },
];

const test = suite('unapply after the person committed on the applied branch');

for (const c of CASES) {
  test(`${c.name}: BRANCH_MOVED, nothing written; git revert of the apply's commits keeps the person's`, async () => {
    const repo = new DiskRepo({ 'f.txt': F, 'g.txt': 'g\n' });
    try {
      await withShadow(repo, async (sh) => {
        const operations = [{ operation: 'write' as const, path: 'f.txt', content: F.replace('one', 'ONE') }];
        const r = await sh.batch({ intent: 'the agent', operations });
        assert.ok(r.success, JSON.stringify(r.error));
      });
      const root = repo.ref('main')!;
      const applied = ok(repo.shadow(['apply', ...c.mode, '--json']), 'apply');
      const tip = applied.branch.new as string;
      assert.is(repo.ref('main'), tip);
      c.person(repo);
      repo.git('commit', '-qam', 'the person');
      const person = repo.ref('main')!;

      const before = state(repo);
      for (const args of [['unapply'], ['unapply', '--dry-run']]) {
        const e = failsJson(repo.shadow([...args, '--json']), 'BRANCH_MOVED', args.join(' '));
        assert.equal(e.data, { draft: 'default', ref: 'refs/heads/main', applied: tip, now: person, before: root });
        assert.match(e.hint, /git revert/);
        assert.equal(state(repo), before, `${args.join(' ')} wrote nothing`);
      }
      assert.is(repo.ref('main'), person, "the person's commit stays on the branch");

      // The way the hint gives: git undoes the apply's commits under the person's.
      repo.git('revert', '--no-edit', `${root}..${tip}`);
      assert.is(repo.git('rev-parse', 'HEAD~1'), `${person}\n`);
      assert.is(repo.read('f.txt'), c.mode[0] === '--commit' ? F.replace('four', 'four by the person') : F);
    } finally {
      repo.cleanup();
    }
  });
}

test('BRANCH_MOVED is a state conflict over HTTP (409)', () => {
  assert.is(statusFor('BRANCH_MOVED'), 409);
});

test.run();
