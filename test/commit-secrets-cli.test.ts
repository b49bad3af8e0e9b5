import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './helpers/disk-repo.js';

/**
 * A secret an agent wrote and then took out again is still in the commit
 * that added it: `apply --commit` must not put that commit on the branch
 * unless someone overrides the guard for it. Native git is the oracle of
 * what reached the branch.
 */

const TOKEN = 'ghp_' + 'k7Q2mZ9xR4tB8wN1vC6yL3pH5sD0fJ2gA9eU'; // made up, shaped like a classic GitHub token

const WITH_TOKEN = JSON.stringify({
  intent: 'add github client',
  operations: [{ operation: 'write', path: 'src/gh.ts', content: `export const token = "${TOKEN}";\n` }],
});
const WITHOUT = JSON.stringify({
  intent: 'read the token from the environment',
  operations: [{ operation: 'write', path: 'src/gh.ts', content: 'export const token = process.env.GITHUB_TOKEN;\n' }],
});

const Cli = suite<{ repo: DiskRepo }>('secrets in published commits');
Cli.before.each((c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n' });
});
Cli.after.each((c) => c.repo.cleanup());

/** The agent writes the token, then replaces it: returns the commit that added it. */
function tokenThenFix(repo: DiskRepo, deny: boolean): string {
  assert.is(repo.shadow(['batch', '-'], { input: WITH_TOKEN }).status, 0);
  const added = repo.ref('refs/shadow/drafts/default')!;
  if (deny) {
    const first = repo.shadow(['review', '--json']).json();
    const files = first.approvals;
    assert.equal(
      files.map((a: { kind: string }) => a.kind),
      ['secrets_override'],
    );
    assert.is(repo.shadow(['deny', files[0].id, '--reason', 'no tokens in the repository']).status, 0);
  }
  assert.is(repo.shadow(['batch', '-'], { input: WITHOUT }).status, 0);
  return added;
}

function logOfMain(repo: DiskRepo): string {
  return repo.git('log', '-p', 'main');
}

Cli(
  'a denied token removed by a later batch: apply --commit is DENIED naming the commit, the branch never sees it; --squash publishes',
  ({ repo }) => {
    const added = tokenThenFix(repo, true);
    const main = repo.ref('main');
    const review = repo.shadow(['review', '--json']).json();
    assert.equal(review.secrets, [], 'the final diff holds no secret');
    assert.equal(review.approvals, [], 'plain apply needs nothing');
    const forCommit = review.branch_approvals.filter((a: { when?: string }) => a.when === 'commit');
    assert.equal(
      forCommit.map((a: { commit: string; status: string }) => [a.commit, a.status]),
      [[added, 'denied']],
      'the deny sticks to the commit that added the token',
    );
    assert.match(repo.shadow(['review']).stdout, /apply --commit only/);

    for (const mode of [['--commit'], ['--commit', '--dry-run']]) {
      const r = repo.shadow(['apply', ...mode, '--json']);
      assert.is(r.status, 1, r.stdout);
      const error = r.json().error;
      assert.is(error.code, 'DENIED');
      assert.match(error.message, added.slice(0, 12));
      assert.match(error.hint, /--squash/);
      assert.not.match(r.stdout, TOKEN.slice(8));
    }
    assert.is(repo.ref('main'), main, 'the branch did not move');
    assert.not.match(logOfMain(repo), 'ghp_');
    assert.is(repo.exists('src/gh.ts'), false, 'nothing was written');
    assert.is(
      repo.shadow(['approve', forCommit[0].id, '--json']).json().error.code,
      'DENIED',
      'approving after the deny is refused',
    );

    const s = repo.shadow(['apply', '--squash', '-m', 'github client', '--json']);
    assert.is(s.status, 0, s.stdout + s.stderr);
    assert.is(s.json().branch.how, 'squash');
    assert.not.match(logOfMain(repo), 'ghp_');
    assert.is(repo.git('show', 'main:src/gh.ts'), 'export const token = process.env.GITHUB_TOKEN;\n');
    assert.is(repo.git('rev-parse', 'main~1').trim(), main);
    assert.is(repo.git('status', '--porcelain'), '');
  },
);

Cli(
  'without a deny: apply --commit waits for a secrets_override naming the commit (exit 3); approved, it fast-forwards over both',
  ({ repo }) => {
    const added = tokenThenFix(repo, false);
    const main = repo.ref('main');
    assert.equal(repo.shadow(['review', '--json']).json().approvals, [], 'the final diff needs nothing');
    const r = repo.shadow(['apply', '--commit', '--json']);
    assert.is(r.status, 3, r.stdout + r.stderr);
    const pending = r.json().pendingApprovals;
    assert.equal(
      pending.map((a: { kind: string; commit: string; fingerprint: string }) => [a.kind, a.commit, a.fingerprint]),
      [['secrets_override', added, `commit:${added}`]],
    );
    assert.match(pending[0].reason, added.slice(0, 12));
    assert.match(pending[0].reason, /--squash/);
    assert.equal(
      r.json().findings.commits.map((c: { commit: string }) => c.commit),
      [added],
    );
    const text = repo.shadow(['apply', '--commit']);
    assert.is(text.status, 3);
    assert.match(text.stdout, /--squash/);
    assert.not.match(text.stdout, TOKEN.slice(8));
    assert.is(repo.ref('main'), main);
    assert.not.match(logOfMain(repo), 'ghp_');

    // Files only: no commit reaches the branch, so no commit needs the override.
    const plain = repo.shadow(['apply', '--dry-run', '--json']);
    assert.equal(plain.json().pendingApprovals, []);

    const ok = repo.shadow(['approve', pending[0].id, '--reason', 'test fixture token']);
    assert.is(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, added.slice(0, 12));
    const done = repo.shadow(['apply', '--commit', '--json']);
    assert.is(done.status, 0, done.stdout + done.stderr);
    assert.is(done.json().branch.how, 'fast-forward');
    assert.is(repo.ref('main'), repo.ref('refs/shadow/drafts/default'));
    assert.match(logOfMain(repo), TOKEN, 'overridden explicitly: the commit is on the branch as it was');
  },
);

Cli.run();
