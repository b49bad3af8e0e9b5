/**
 * Partial apply: `shadow apply <pathspec>…` publishes only the paths its
 * pathspecs match (relative to the current directory, as git's are); the
 * draft keeps the rest as changes, approvals and the secret guard look only
 * at what is published, and `unapply` undoes exactly that publish.
 */
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './helpers/disk-repo.js';

const FILES = { 'src/a.ts': 'a\n', 'src/b.ts': 'b\n', 'docs/d.md': 'd\n', '.github/workflows/ci.yml': 'on: push\n' };

const Paths = suite<{ repo: DiskRepo }>('apply <pathspec>');
Paths.before.each((ctx) => {
  ctx.repo = new DiskRepo(FILES);
  const batch = {
    intent: 'everywhere',
    operations: [
      { operation: 'write', path: 'src/a.ts', content: 'A\n' },
      { operation: 'write', path: 'src/b.ts', content: 'B\n' },
      { operation: 'write', path: 'docs/d.md', content: 'D\n' },
      { operation: 'write', path: '.github/workflows/ci.yml', content: 'on: [push, pull_request]\n' },
    ],
  };
  const r = ctx.repo.shadow(['batch', '-', '--json'], { input: JSON.stringify(batch) });
  assert.is(r.status, 0, r.stdout + r.stderr);
});
Paths.after.each((ctx) => ctx.repo.cleanup());

const bytes = (repo: DiskRepo): Record<string, string> =>
  Object.fromEntries(Object.keys(FILES).map((p) => [p, repo.read(p)]));

Paths(
  "paths relative to the current directory publish only what they match; the rest stays the draft's, and unapply undoes exactly that publish",
  ({ repo }) => {
    const r = repo.shadow(['apply', 'b.ts', '../docs', '--json'], { cwd: join(repo.dir, 'src') });
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.equal(
      r.json().paths.map((p: { path: string }) => p.path),
      ['docs/d.md', 'src/b.ts'],
    );
    assert.equal(bytes(repo), {
      'src/a.ts': 'a\n',
      'src/b.ts': 'B\n',
      'docs/d.md': 'D\n',
      '.github/workflows/ci.yml': 'on: push\n',
    });
    // What was published is no longer a change of the draft; what was not still is.
    const status = repo.shadow(['status', '--json']).json();
    assert.equal(status.changed.map((c: { path: string }) => c.path).sort(), ['.github/workflows/ci.yml', 'src/a.ts']);
    assert.is(repo.git('status', '--porcelain', '--', 'src/a.ts'), '');

    const u = repo.shadow(['unapply', '--json']);
    assert.is(u.status, 0, u.stdout + u.stderr);
    assert.equal(bytes(repo), FILES);
  },
);

Paths(
  'a glob and a directory match the paths below them; approvals are asked only for what is published',
  ({ repo }) => {
    // The whole draft touches CI config: a protected path, so a whole apply waits for an approval (exit 3).
    const whole = repo.shadow(['apply', '--json']);
    assert.is(whole.status, 3, whole.stdout + whole.stderr);
    assert.equal(bytes(repo), FILES);

    const r = repo.shadow(['apply', 'src/*.ts', '--json']);
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.equal(r.json().pendingApprovals, []);
    assert.equal(bytes(repo), { ...FILES, 'src/a.ts': 'A\n', 'src/b.ts': 'B\n' });

    const ci = repo.shadow(['apply', '.github', '--json']);
    assert.is(ci.status, 3, ci.stdout + ci.stderr);
    assert.equal(
      ci.json().pendingApprovals.map((a: { kind: string }) => a.kind),
      ['protected_path'],
    );
    assert.is(repo.read('.github/workflows/ci.yml'), 'on: push\n');
  },
);

Paths("a pathspec that matches none of the draft's changes is refused, and nothing is written", ({ repo }) => {
  const r = repo.shadow(['apply', 'src/b.ts', 'nothing/here', '--json']);
  assert.is.not(r.status, 0);
  const e = JSON.parse(r.stdout).error;
  assert.is(e.code, 'INVALID_ARGUMENT');
  assert.match(e.message, /pathspec 'nothing\/here' did not match any path the draft changes/);
  assert.equal(bytes(repo), FILES);
});

Paths(
  '--commit publishes whole commits: with paths it is refused, and neither the files nor the branch move',
  ({ repo }) => {
    const head = repo.git('rev-parse', 'HEAD');
    const r = repo.shadow(['apply', 'src/b.ts', '--commit', '--json']);
    assert.is.not(r.status, 0);
    assert.is(JSON.parse(r.stdout).error.code, 'INVALID_ARGUMENT');
    assert.equal(bytes(repo), FILES);
    assert.is(repo.git('rev-parse', 'HEAD'), head);
  },
);

Paths.run();
