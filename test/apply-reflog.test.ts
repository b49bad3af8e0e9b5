import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { openShadow, type FileOperation } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';

/*
 * The branch moves of `apply --commit`, `apply --squash` and `unapply` in
 * git's reflogs, read back by native git: a line in the branch's log and in
 * HEAD's (this worktree's), worded and laid out as git's own commands write
 * them, so `HEAD@{1}` and `git reset --hard HEAD@{1}` mean what git users
 * expect.
 */

const DRAFT_REF = 'refs/shadow/drafts/default';

async function draft(dir: string, env: Record<string, string>, operations: FileOperation[][]): Promise<void> {
  const sh = await openShadow({ dir, env });
  try {
    for (const [i, ops] of operations.entries()) {
      const r = await sh.batch({ intent: `batch ${i + 1}`, operations: ops });
      assert.ok(r.success, JSON.stringify(r.error));
    }
  } finally {
    sh.close();
  }
}

function cli(repo: DiskRepo, args: string[], cwd?: string): any {
  const r = repo.shadow([...args, '--json'], { cwd });
  assert.is(r.status, 0, `shadow ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.json();
}

/** `git reflog -1` of `ref`: the id it moved to and its message. */
function lastMove(repo: DiskRepo, ref: string, cwd = repo.dir): string {
  return git(repo, cwd, 'reflog', '-1', '--format=%H %gs', ref).trim();
}

function git(repo: DiskRepo, cwd: string, ...args: string[]): string {
  const r = repo.gitResult('-C', cwd, ...args);
  assert.is(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function logLines(path: string): string[] {
  return fs.existsSync(path)
    ? fs
        .readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
    : [];
}

/** A reflog line with its ids, identity and time left out: what git and shadow must agree on. */
function shape(line: string): string {
  const m = /^([0-9a-f]{40}) ([0-9a-f]{40}) ([^<\t]+) <([^>\t]*)> (\d+) ([+-]\d{4})\t(.*)$/.exec(line);
  assert.ok(m, `not a reflog line in git's format: ${JSON.stringify(line)}`);
  return `<old> <new> ${m[3]} <${m[4]}> <time> ${m[6]}\t${m[7]}`;
}

/** What native git's readers make of the repository's reflogs: parsed, walked, nothing reported. */
function gitReadsReflogs(repo: DiskRepo, cwd = repo.dir): void {
  const fsck = repo.gitResult('-C', cwd, 'fsck', '--strict', '--no-progress', '--no-dangling');
  assert.is(fsck.status, 0, `git fsck --strict: ${fsck.stdout}${fsck.stderr}`);
  assert.not.match(`${fsck.stdout}${fsck.stderr}`, /error|warning|invalid|broken|missing/i);
  const expire = repo.gitResult('-C', cwd, 'reflog', 'expire', '--dry-run', '--all');
  assert.is(expire.status, 0, `git reflog expire: ${expire.stderr}`);
  assert.is(expire.stderr, '');
  for (const ref of ['HEAD', 'main']) {
    const walk = repo.gitResult('-C', cwd, 'log', '-g', '--format=%H %gd %gs', ref);
    assert.is(walk.status, 0, `git log -g ${ref}: ${walk.stderr}`);
    assert.is(walk.stderr, '');
  }
}

/** A repository on `main` with a draft of two batches (its first commit a capture of a dirty file). */
async function fixture(): Promise<{ repo: DiskRepo; root: string; tip: string }> {
  const repo = new DiskRepo({ 'README.md': 'Hello\n', 'a.txt': 'a\n', 'other.txt': 'other\n' });
  repo.write('a.txt', 'a\nlocal\n');
  await draft(repo.dir, repo.env, [
    [{ operation: 'edit', path: 'a.txt', old_content: 'local', content: 'LOCAL' }],
    [{ operation: 'write', path: 'src/new.ts', content: 'export const n = 1\n' }],
  ]);
  return { repo, root: repo.ref('main')!, tip: repo.ref(DRAFT_REF)! };
}

// ---------------------------------------------------------------- apply

const Apply = suite<{ repo: DiskRepo; root: string; tip: string }>('reflog: apply --commit and --squash');
Apply.before.each(async (ctx) => {
  Object.assign(ctx, await fixture());
});
Apply.after.each(({ repo }) => repo.cleanup());

Apply(
  "--commit (a fast-forward) logs the move in HEAD's log and the branch's, as `git merge --ff-only` does; HEAD@{1} is the commit before, and `git reset --hard HEAD@{1}` lands there",
  async ({ repo, root, tip }) => {
    const headLog = logLines(repo.path('.git/logs/HEAD')).length;
    const r = cli(repo, ['apply', '--commit']);
    assert.equal(r.branch, { ref: 'refs/heads/main', old: root, new: tip, how: 'fast-forward' });
    const expected = `${tip} merge ${DRAFT_REF}: Fast-forward`;
    assert.is(lastMove(repo, 'HEAD'), expected);
    assert.is(lastMove(repo, 'main'), expected);
    assert.is(logLines(repo.path('.git/logs/HEAD')).length, headLog + 1, "exactly one line in HEAD's log");
    assert.is(repo.ref('HEAD@{1}'), root);
    assert.is(repo.ref('main@{1}'), root);
    assert.is(fs.existsSync(repo.path('.git/HEAD.lock')), false, 'HEAD.lock is released');
    gitReadsReflogs(repo);

    // The same line git writes for the same move, in a clone of the same state.
    const scratch = new DiskRepo(null);
    try {
      scratch.git('fetch', '-q', repo.dir, `${DRAFT_REF}:${DRAFT_REF}`);
      scratch.git('reset', '-q', '--hard', root);
      scratch.git('merge', '-q', '--ff-only', DRAFT_REF);
      assert.is(
        shape(logLines(repo.path('.git/logs/HEAD')).at(-1)!),
        shape(logLines(scratch.path('.git/logs/HEAD')).at(-1)!),
      );
      assert.is(
        shape(logLines(repo.path('.git/logs/refs/heads/main')).at(-1)!),
        shape(logLines(scratch.path('.git/logs/refs/heads/main')).at(-1)!),
      );
    } finally {
      scratch.cleanup();
    }

    repo.git('reset', '-q', '--hard', 'HEAD@{1}');
    assert.is(repo.ref('HEAD'), root);
    assert.is(repo.ref('main'), root);
    assert.is(repo.read('a.txt'), 'a\n', 'the working tree is the commit before the apply');
    assert.is(repo.exists('src/new.ts'), false);
  },
);

Apply(
  '--commit on a moved HEAD (a replay) logs one move, worded as `git cherry-pick` words its last pick; HEAD@{1} is the moved HEAD',
  async ({ repo }) => {
    repo.write('other.txt', 'other, changed on main\n');
    repo.git('commit', '-q', '-m', 'user commit on main', '--', 'other.txt');
    const head = repo.ref('main')!;
    const r = cli(repo, ['apply', '--commit']);
    assert.is(r.branch.how, 'replay');
    const expected = `${r.branch.new} cherry-pick: batch 2`;
    assert.is(lastMove(repo, 'HEAD'), expected);
    assert.is(lastMove(repo, 'main'), expected);
    assert.is(repo.ref('HEAD@{1}'), head);
    gitReadsReflogs(repo);
    repo.git('reset', '-q', '--hard', 'HEAD@{1}');
    assert.is(repo.ref('main'), head);
  },
);

Apply(
  '--squash logs `commit: <subject>` in both logs, the very line `git commit` writes for the same commit (identity and time aside)',
  async ({ repo, root }) => {
    const r = cli(repo, ['apply', '--squash', '-m', 'the  whole\tdraft\n\nwith a body']);
    const expected = `${r.branch.new} commit: the whole draft`;
    assert.is(lastMove(repo, 'HEAD'), expected);
    assert.is(lastMove(repo, 'main'), expected);
    assert.is(repo.ref('HEAD@{1}'), root);
    gitReadsReflogs(repo);

    const scratch = new DiskRepo({ 'README.md': 'Hello\n' });
    try {
      scratch.write('README.md', 'changed\n');
      scratch.git('commit', '-q', '-a', '-m', 'the  whole\tdraft\n\nwith a body');
      for (const log of ['HEAD', 'refs/heads/main']) {
        const ours = logLines(repo.path(`.git/logs/${log}`)).at(-1)!;
        const theirs = logLines(scratch.path(`.git/logs/${log}`)).at(-1)!;
        assert.is(shape(ours), shape(theirs), log);
      }
    } finally {
      scratch.cleanup();
    }
  },
);

Apply(
  'unapply moves the branch back with `reset: moving to <commit>` in both logs, as `git reset` does; HEAD@{1} is the applied commit',
  async ({ repo, root, tip }) => {
    cli(repo, ['apply', '--commit']);
    const u = cli(repo, ['unapply']);
    assert.equal(u.branch, { ref: 'refs/heads/main', old: tip, new: root });
    const expected = `${root} reset: moving to ${root}`;
    assert.is(lastMove(repo, 'HEAD'), expected);
    assert.is(lastMove(repo, 'main'), expected);
    assert.is(repo.ref('HEAD@{1}'), tip);
    assert.is(repo.ref('HEAD@{2}'), root);
    gitReadsReflogs(repo);

    const scratch = new DiskRepo({ 'README.md': 'Hello\n' });
    try {
      const first = scratch.ref('main')!;
      scratch.write('README.md', 'changed\n');
      scratch.git('commit', '-q', '-a', '-m', 'second');
      scratch.git('reset', '-q', '--hard', first);
      assert.is(
        shape(logLines(repo.path('.git/logs/HEAD')).at(-1)!),
        shape(logLines(scratch.path('.git/logs/HEAD')).at(-1)!).replace(first, root),
      );
    } finally {
      scratch.cleanup();
    }
  },
);

Apply(
  "unapply with HEAD detached: only the branch's log records the move back, as `git branch -f` would; HEAD's log is left as it was",
  async ({ repo, root, tip }) => {
    cli(repo, ['apply', '--commit']);
    repo.git('checkout', '-q', '--detach');
    const headLog = logLines(repo.path('.git/logs/HEAD'));
    cli(repo, ['unapply']);
    assert.is(lastMove(repo, 'main'), `${root} reset: moving to ${root}`);
    assert.equal(logLines(repo.path('.git/logs/HEAD')), headLog);
    assert.is(repo.ref('HEAD'), tip, 'HEAD stays detached where it was');
    gitReadsReflogs(repo);
  },
);

Apply(
  'with core.logAllRefUpdates=false, as with git commit, no missing log is created; an existing one still gets its line',
  async ({ repo, root, tip }) => {
    repo.git('config', 'core.logAllRefUpdates', 'false');
    fs.rmSync(repo.path('.git/logs/refs/heads'), { recursive: true });
    const headLog = logLines(repo.path('.git/logs/HEAD'));
    cli(repo, ['apply', '--commit']);
    assert.is(repo.ref('main'), tip);
    assert.is(fs.existsSync(repo.path('.git/logs/refs/heads/main')), false);
    const after = logLines(repo.path('.git/logs/HEAD'));
    assert.equal(after.slice(0, -1), headLog);
    assert.ok(after.at(-1)!.startsWith(`${root} ${tip} `), after.at(-1));
    // git agrees: its own commit creates no branch log either.
    repo.git('commit', '-q', '--allow-empty', '-m', 'by git');
    assert.is(fs.existsSync(repo.path('.git/logs/refs/heads/main')), false);
  },
);

Apply.run();

// ---------------------------------------------------------------- first commit, linked worktree

const Other = suite("reflog: a branch's first commit, a linked worktree");

Other(
  "--squash on a branch without commits logs `commit (initial): <subject>` from the zero id, as git's first commit does",
  async () => {
    const repo = new DiskRepo(null);
    try {
      await draft(repo.dir, repo.env, [[{ operation: 'write', path: 'first.txt', content: 'first\n' }]]);
      const r = cli(repo, ['apply', '--squash', '-m', 'initial commit']);
      const line = logLines(repo.path('.git/logs/HEAD')).at(-1)!;
      assert.ok(line.startsWith(`${'0'.repeat(40)} ${r.branch.new} `), line);
      assert.is(lastMove(repo, 'HEAD'), `${r.branch.new} commit (initial): initial commit`);
      assert.is(lastMove(repo, 'main'), `${r.branch.new} commit (initial): initial commit`);
      const scratch = new DiskRepo({ 'README.md': 'Hello\n' }); // its first commit is `initial commit`
      try {
        for (const log of ['HEAD', 'refs/heads/main']) {
          assert.is(
            shape(logLines(repo.path(`.git/logs/${log}`)).at(-1)!),
            shape(logLines(scratch.path(`.git/logs/${log}`))[0]!),
            log,
          );
        }
      } finally {
        scratch.cleanup();
      }
      gitReadsReflogs(repo);
    } finally {
      repo.cleanup();
    }
  },
);

Other(
  "in a linked worktree, HEAD's log is that worktree's own: --commit and unapply write it there, never into the main worktree's",
  async () => {
    const repo = new DiskRepo({ 'README.md': 'Hello\n' });
    const wt = join(repo.root, 'wt');
    try {
      repo.git('worktree', 'add', '-q', '-b', 'feature', wt);
      const mainHeadLog = fs.readFileSync(repo.path('.git/logs/HEAD'));
      const wtHeadLog = logLines(repo.path('.git/worktrees/wt/logs/HEAD'));
      const root = git(repo, wt, 'rev-parse', 'HEAD').trim();
      await draft(wt, repo.env, [[{ operation: 'write', path: 'feature.txt', content: 'f\n' }]]);
      const r = cli(repo, ['apply', '--commit'], wt);
      assert.is(r.branch.ref, 'refs/heads/feature');
      const expected = `${r.branch.new} merge ${DRAFT_REF}: Fast-forward`;
      assert.is(lastMove(repo, 'HEAD', wt), expected);
      assert.is(lastMove(repo, 'feature', wt), expected);
      assert.is(git(repo, wt, 'rev-parse', 'HEAD@{1}').trim(), root);
      assert.is(
        logLines(repo.path('.git/worktrees/wt/logs/HEAD')).length,
        wtHeadLog.length + 1,
        "one line in the worktree's HEAD log",
      );
      assert.ok(
        fs.readFileSync(repo.path('.git/logs/HEAD')).equals(mainHeadLog),
        "the main worktree's HEAD log is untouched",
      );
      assert.is(fs.existsSync(repo.path('.git/worktrees/wt/HEAD.lock')), false);

      cli(repo, ['unapply'], wt);
      assert.is(lastMove(repo, 'HEAD', wt), `${root} reset: moving to ${root}`);
      assert.is(git(repo, wt, 'rev-parse', 'HEAD@{1}').trim(), r.branch.new);
      assert.ok(fs.readFileSync(repo.path('.git/logs/HEAD')).equals(mainHeadLog));
      gitReadsReflogs(repo, wt);
    } finally {
      repo.cleanup();
    }
  },
);

Other.run();
