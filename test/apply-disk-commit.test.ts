import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import { DiskRepo } from './helpers/disk-repo.js';
import { BASE_FILES, cli, draft, fsckClean, journals, scan, status } from './helpers/apply-disk-repo.js';

/*
 * `shadow apply --commit` and `--squash` on real directories, against
 * native git: the branch, the index and the user's staged and unstaged work.
 */

// ---------------------------------------------------------------- --commit and --squash

interface CommitFixture {
  repo: DiskRepo;
  /** The paths the draft publishes. */
  set: string[];
  root: string;
}

/** A repository with the user's staged, unstaged and untracked changes, and a draft of two batches (the first captures a dirty file). */
async function commitFixture(): Promise<CommitFixture> {
  const repo = new DiskRepo({
    ...BASE_FILES,
    'dirty.txt': 'committed\n',
    'staged.txt': 'committed\n',
    'other.txt': 'other\n',
  });
  repo.write('a.txt', 'a\nlocal\n'); // dirty, then taken by the draft: captured first
  await draft(repo, [
    [
      { operation: 'edit', path: 'a.txt', old_content: 'local', content: 'LOCAL' },
      { operation: 'write', path: 'src/new/feature.ts', content: 'f\n' },
    ],
    [
      { operation: 'write', path: 'src/app.ts', content: 'export const app = 2\n' },
      { operation: 'delete', path: 'old/gone.txt' },
    ],
  ]);
  repo.write('dirty.txt', 'committed\nunstaged\n');
  repo.write('staged.txt', 'staged\n');
  repo.git('add', 'staged.txt');
  repo.write('untracked.txt', 'u\n');
  return { repo, set: ['a.txt', 'old/gone.txt', 'src/app.ts', 'src/new/feature.ts'], root: repo.ref('main')! };
}

function assertUserStateKept(repo: DiskRepo): void {
  const s = status(repo);
  assert.is(s['staged.txt'], 'M ', 'the staged change stays staged');
  assert.is(repo.git('show', ':staged.txt'), 'staged\n');
  assert.is(s['dirty.txt'], ' M', 'the unstaged change stays unstaged');
  assert.is(repo.read('dirty.txt'), 'committed\nunstaged\n');
  assert.is(s['untracked.txt'], '??');
}

const Commit = suite<{ fx: CommitFixture }>('apply on disk: --commit and --squash');
Commit.before.each(async (ctx) => {
  ctx.fx = await commitFixture();
});
Commit.after.each(({ fx }) => fx.repo.cleanup());

Commit(
  '--commit with HEAD at the draft root fast-forwards to the draft tip (captures included); git status is clean for the published paths',
  async ({ fx }) => {
    const { repo, set, root } = fx;
    const tip = repo.ref('refs/shadow/drafts/default')!;
    const r = cli(repo, ['apply', '--commit']);
    assert.is(r.status, 0, r.stderr);
    assert.equal(r.json.branch, { ref: 'refs/heads/main', old: root, new: tip, how: 'fast-forward' });
    assert.is(repo.ref('main'), tip);
    assert.equal(repo.git('log', '--format=%s', `${root}..main`).trim().split('\n'), [
      'batch 2',
      'batch 1',
      'capture working tree state of 1 path before batch 1',
    ]);
    const s = status(repo);
    for (const p of set) assert.is(s[p], undefined, `git status shows ${p}: ${s[p]}`);
    assertUserStateKept(repo);
    assert.is(repo.read('a.txt'), 'a\nLOCAL\n');
    assert.is(repo.exists('old'), false);
    fsckClean(repo);
  },
);

const MOVED_HEAD: Array<{ args: string[]; how: string; subjects: string[] }> = [
  {
    args: ['apply', '--commit'],
    how: 'replay',
    subjects: ['batch 2', 'batch 1', 'capture working tree state of 1 path before batch 1'],
  },
  {
    args: ['apply', '--squash', '-m', 'squashed on a moved HEAD'],
    how: 'squash',
    subjects: ['squashed on a moved HEAD'],
  },
];

for (const m of MOVED_HEAD) {
  Commit(
    `HEAD moved on other paths: ${m.args.slice(1, 2).join(' ')} ${m.how === 'replay' ? "replays the draft's commits on it" : 'makes one commit on it'}`,
    async ({ fx }) => {
      const { repo, set } = fx;
      repo.write('other.txt', 'other, changed on main\n');
      repo.git('commit', '-q', '-m', 'user commit on main', '--', 'other.txt');
      const head = repo.ref('main')!;
      const r = cli(repo, m.args);
      assert.is(r.status, 0, `${m.how}: ${r.stdout}${r.stderr}`);
      assert.is(r.json.branch.how, m.how);
      assert.is(r.json.branch.old, head);
      assert.equal(repo.git('log', '--format=%s', `${head}..main`).trim().split('\n'), m.subjects, m.how);
      assert.is(repo.git('rev-parse', `main~${m.subjects.length}`), `${head}\n`, `${m.how}: on top of the moved HEAD`);
      assert.is(repo.git('show', 'main:other.txt'), 'other, changed on main\n');
      assert.is(repo.git('show', 'main:src/app.ts'), 'export const app = 2\n');
      assert.is(repo.git('show', 'main:a.txt'), 'a\nLOCAL\n');
      const s = status(repo);
      for (const p of set) assert.is(s[p], undefined, `${m.how}: git status shows ${p}: ${s[p]}`);
      assertUserStateKept(repo);
      fsckClean(repo);
    },
  );
}

Commit(
  '--commit after HEAD changed a path of the draft: STALE_BASE, nothing written, the branch stays',
  async ({ fx }) => {
    const { repo } = fx;
    // main changes src/app.ts; the working tree keeps the draft's base of it, so only the branch check can object.
    repo.write('src/app.ts', 'export const main = 1\n');
    repo.git('commit', '-q', '-m', 'main changes app.ts', '--', 'src/app.ts');
    repo.write('src/app.ts', 'export {}\n');
    const head = repo.ref('main');
    const before = scan(repo.dir);
    const r = cli(repo, ['apply', '--commit']);
    assert.is(r.status, 1);
    assert.is(r.json.error.code, 'STALE_BASE', r.stdout);
    assert.match(r.json.error.message, /src\/app\.ts/);
    assert.is(repo.ref('main'), head);
    assert.equal(scan(repo.dir).content, before.content);
    assert.equal(journals(repo), []);
  },
);

Commit(
  '--squash makes exactly one commit with the published paths; unapply moves the branch back and restores the index',
  async ({ fx }) => {
    const { repo, set, root } = fx;
    const statusBefore = status(repo);
    const before = scan(repo.dir);
    const r = cli(repo, ['apply', '--squash', '-m', 'the whole draft']);
    assert.is(r.status, 0, r.stderr);
    assert.is(r.json.branch.how, 'squash');
    assert.is(repo.git('rev-list', '--count', `${root}..main`), '1\n');
    assert.is(repo.git('log', '-1', '--format=%s', 'main'), 'the whole draft\n');
    assert.is(repo.git('rev-parse', 'main^'), `${root}\n`);
    assert.equal(repo.git('diff', '--name-only', root, 'main').trim().split('\n'), set);
    const s = status(repo);
    for (const p of set) assert.is(s[p], undefined, `git status shows ${p}: ${s[p]}`);
    assertUserStateKept(repo);
    fsckClean(repo);

    const u = cli(repo, ['unapply']);
    assert.is(u.status, 0, u.stderr);
    assert.is(repo.ref('main'), root, 'the branch moves back');
    assert.equal(scan(repo.dir).content, before.content);
    assert.equal(status(repo), statusBefore, 'git status is as before the apply');
  },
);

Commit('unapply after --commit moves the branch back; apply --commit again lands the same tip', async ({ fx }) => {
  const { repo, root } = fx;
  const tip = repo.ref('refs/shadow/drafts/default')!;
  const statusBefore = status(repo);
  assert.is(cli(repo, ['apply', '--commit']).status, 0);
  const u = cli(repo, ['unapply']);
  assert.is(u.status, 0, u.stderr);
  assert.equal(u.json.branch, { ref: 'refs/heads/main', old: tip, new: root });
  assert.is(repo.ref('main'), root);
  // An index written well after the files: git trusts an entry whose stat
  // data matches its file instead of comparing contents (a.txt's entry is
  // the committed one again, while the file holds the user's change).
  const later = new Date(Date.now() + 10_000);
  fs.utimesSync(repo.path('.git/index'), later, later);
  assert.equal(status(repo), statusBefore);
  const again = cli(repo, ['apply', '--commit']);
  assert.is(again.status, 0, again.stderr);
  assert.is(repo.ref('main'), tip);
  fsckClean(repo);
});

const REFUSED: Array<{ name: string; make(repo: DiskRepo): void; code: string; message: RegExp }> = [
  {
    name: 'native git holds index.lock',
    make: (r) => fs.writeFileSync(r.path('.git/index.lock'), ''),
    code: 'LOCKED',
    message: /index\.lock/,
  },
  {
    name: 'HEAD is detached',
    make: (r) => r.git('checkout', '-q', '--detach'),
    code: 'NO_BRANCH',
    message: /detached/,
  },
  {
    name: 'the draft root is not an ancestor of HEAD',
    make: (r) => r.git('commit', '-q', '--amend', '-m', 'rewritten', '--', 'README.md'),
    code: 'DIVERGED',
    message: /ancestor/,
  },
];

for (const c of REFUSED) {
  Commit(`--commit refused before any write when ${c.name}: ${c.code}`, async ({ fx }) => {
    const { repo } = fx;
    c.make(repo);
    const head = repo.gitResult('rev-parse', 'HEAD').stdout;
    const before = scan(repo.dir);
    const index = fs.readFileSync(repo.path('.git/index'));
    const r = cli(repo, ['apply', '--commit']);
    assert.is(r.status, 1);
    assert.is(r.json?.error?.code, c.code, r.stdout);
    assert.match(r.json.error.message, c.message);
    assert.equal(scan(repo.dir).content, before.content, 'the working tree changed');
    assert.is(repo.gitResult('rev-parse', 'HEAD').stdout, head);
    assert.ok(fs.readFileSync(repo.path('.git/index')).equals(index), 'the index changed');
    assert.equal(journals(repo), []);
    if (c.code === 'LOCKED') assert.ok(fs.existsSync(repo.path('.git/index.lock')), "git's lock is left alone");
  });
}

Commit.run();
