import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { FileOperation } from '../src/index.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';

/*
 * `shadow rebase` on real repositories, through the CLI as people run it,
 * with git as the oracle: a merged path holds what `git merge-file` makes of
 * the same three versions, a rebase onto a branch makes the tree `git
 * rebase` makes of the same commit, the bases live in a commit git can read
 * (the rebase's second parent), conflicts stay in the draft until resolved,
 * apply refuses them meanwhile, and undo takes it all back.
 */

const lines = (n: number, f: (i: number) => string = (i) => `line ${i}`): string =>
  Array.from({ length: n }, (_, i) => `${f(i + 1)}\n`).join('');
const withLine = (text: string, n: number, line: string): string =>
  text
    .split('\n')
    .map((l, i) => (i === n - 1 ? line : l))
    .join('\n');

const BASE = lines(30);
const FILES = { 'f.txt': BASE, 'g.txt': lines(10), 'README.md': 'Hello\n' };

async function draft(repo: DiskRepo, operations: FileOperation[], name = 'default'): Promise<void> {
  await withShadow(repo, async (sh) => {
    const r = await sh.batch({ intent: 'the agent works', operations }, { draft: name });
    assert.ok(r.success, JSON.stringify(r.error));
  });
}

function cli(repo: DiskRepo, args: string[]): { status: number; json: any; stderr: string; stdout: string } {
  const r = repo.shadow([...args, '--json']);
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { status: r.status, json, stderr: r.stderr, stdout: r.stdout };
}

function gitMergeFile(repo: DiskRepo, base: string, ours: string, theirs: string, oursLabel: string): string {
  const dir = fs.mkdtempSync(join(repo.root, 'merge-'));
  fs.writeFileSync(join(dir, 'base'), base);
  fs.writeFileSync(join(dir, 'ours'), ours);
  fs.writeFileSync(join(dir, 'theirs'), theirs);
  const r = spawnSync(
    'git',
    ['merge-file', '-p', '-L', oursLabel, '-L', 'base', '-L', 'draft default', 'ours', 'base', 'theirs'],
    { cwd: dir, env: repo.env, encoding: 'utf8' },
  );
  return r.stdout;
}

const test = suite('shadow rebase');

test("onto the working tree: the person's lines and the draft's merge as git merge-file merges them; an overlap stays in the draft as a conflict, with markers", async () => {
  const repo = new DiskRepo(FILES);
  try {
    const theirs = withLine(BASE, 25, 'line 25 by the draft');
    const gTheirs = withLine(lines(10), 5, 'five by the draft');
    await draft(repo, [
      { operation: 'write', path: 'f.txt', content: theirs },
      { operation: 'write', path: 'g.txt', content: gTheirs },
    ]);
    const ours = withLine(BASE, 5, 'line 5 by the person');
    const gOurs = withLine(lines(10), 5, 'five by the person');
    repo.write('f.txt', ours);
    repo.write('g.txt', gOurs);
    const before = repo.ref('refs/shadow/drafts/default')!;

    const r = cli(repo, ['rebase']);
    assert.is(r.status, 0, r.stderr);
    assert.equal(
      r.json.paths.map((p: any) => [p.path, p.status]),
      [
        ['f.txt', 'merged'],
        ['g.txt', 'conflict'],
      ],
    );
    assert.equal(r.json.conflicts, [{ path: 'g.txt', reason: 'overlap' }]);
    const tip = repo.ref('refs/shadow/drafts/default')!;
    assert.is(r.json.tip, tip);
    // One merge commit: the old tip first, the working tree's state second.
    assert.is(repo.git('rev-parse', `${tip}^1`).trim(), before);
    assert.is(repo.git('show', `${tip}^2:f.txt`), ours);
    assert.is(repo.git('show', `${tip}^2:g.txt`), gOurs);
    assert.is(repo.git('rev-parse', `${tip}^2^`).trim(), repo.ref('HEAD'));
    // The merged bytes are git's.
    assert.is(repo.git('show', `${tip}:f.txt`), gitMergeFile(repo, BASE, ours, theirs, 'working tree'));
    assert.is(repo.git('show', `${tip}:g.txt`), gitMergeFile(repo, lines(10), gOurs, gTheirs, 'working tree'));
    assert.match(
      repo.git('show', `${tip}:g.txt`),
      /<<<<<<< working tree\nfive by the person\n=======\nfive by the draft\n>>>>>>> draft default\n/,
    );
    // The commit says it, for git log readers and for shadow reading its history back.
    const message = repo.git('log', '-1', '--format=%B', tip);
    assert.match(message, /\nconflict\toverlap\tg\.txt\n/);
    assert.match(message, /\nShadow-Rebase: [0-9a-f]{40}\n/);
    // The person's files were not touched.
    assert.is(repo.read('f.txt'), ours);
    assert.is(repo.read('g.txt'), gOurs);
    // The old tip is kept by a checkpoint, and the reflog has the move.
    assert.is(repo.git('rev-parse', `refs/shadow/checkpoints/default/${r.json.kept}^{commit}`).trim(), before);
    assert.is(
      repo.git('reflog', '-1', '--format=%gs', 'refs/shadow/drafts/default').trim(),
      'shadow: rebase onto working tree',
    );
  } finally {
    repo.cleanup();
  }
});

test('a conflict is draft state: status and diff show it (U), apply refuses it (UNRESOLVED_CONFLICT, exit 1, nothing written), a batch resolves it, then apply publishes', async () => {
  const repo = new DiskRepo(FILES);
  try {
    await draft(repo, [
      { operation: 'write', path: 'g.txt', content: withLine(lines(10), 5, 'five by the draft') },
      { operation: 'write', path: 'new.txt', content: 'new\n' },
    ]);
    const gOurs = withLine(lines(10), 5, 'five by the person');
    repo.write('g.txt', gOurs);
    assert.is(cli(repo, ['rebase']).status, 0);

    const st = cli(repo, ['status']);
    assert.equal(st.json.conflicts, [{ path: 'g.txt', reason: 'overlap' }]);
    assert.equal(
      st.json.changed.map((c: any) => [c.status, c.path]),
      [
        ['U', 'g.txt'],
        ['A', 'new.txt'],
      ],
    );
    assert.is(repo.shadow(['diff', '--name-status']).stdout, 'U\tg.txt\nA\tnew.txt\n');
    assert.equal(cli(repo, ['review']).json.conflicts, [{ path: 'g.txt', reason: 'overlap' }]);
    assert.match(repo.shadow(['review', '--stat']).stdout, /  U g\.txt/);

    const dry = cli(repo, ['apply', '--dry-run']);
    assert.is(dry.status, 1);
    assert.is(dry.json.error.code, 'UNRESOLVED_CONFLICT');
    const refused = cli(repo, ['apply']);
    assert.is(refused.status, 1);
    assert.is(refused.json.error.code, 'UNRESOLVED_CONFLICT');
    assert.equal(refused.json.error.data.paths, ['g.txt']);
    assert.not.ok(repo.exists('new.txt'));
    assert.is(repo.read('g.txt'), gOurs);
    // A partial apply of other paths goes on.
    assert.is(cli(repo, ['apply', 'new.txt']).status, 0);
    assert.is(repo.read('new.txt'), 'new\n');
    // Another rebase waits for the conflict too.
    assert.is(cli(repo, ['rebase']).json.error.code, 'UNRESOLVED_CONFLICT');

    const settled = withLine(lines(10), 5, 'five by both');
    await draft(repo, [{ operation: 'write', path: 'g.txt', content: settled }]);
    assert.equal(cli(repo, ['status']).json.conflicts, []);
    assert.match(repo.git('log', '-1', '--format=%B', 'refs/shadow/drafts/default'), /\nresolved\tg\.txt\n/);
    const applied = cli(repo, ['apply']);
    assert.is(applied.status, 0, applied.stderr);
    assert.is(repo.read('g.txt'), settled);
  } finally {
    repo.cleanup();
  }
});

test('shadow resolve keeps a conflicted path as the draft holds it; a path not in conflict is NOT_IN_CONFLICT', async () => {
  const repo = new DiskRepo(FILES);
  try {
    await draft(repo, [{ operation: 'write', path: 'g.txt', content: withLine(lines(10), 5, 'five by the draft') }]);
    repo.write('g.txt', withLine(lines(10), 5, 'five by the person'));
    cli(repo, ['rebase']);
    const held = repo.git('show', 'refs/shadow/drafts/default:g.txt');
    const bad = cli(repo, ['resolve', 'README.md']);
    assert.is(bad.status, 1);
    assert.is(bad.json.error.code, 'NOT_IN_CONFLICT');
    const r = cli(repo, ['resolve', 'g.txt']);
    assert.is(r.status, 0, r.stderr);
    assert.equal(r.json.resolved, ['g.txt']);
    assert.is(repo.git('show', 'refs/shadow/drafts/default:g.txt'), held);
    assert.equal(cli(repo, ['status']).json.conflicts, []);
  } finally {
    repo.cleanup();
  }
});

test("--onto a branch the person committed to: the same tree git rebase makes of the draft's commit; apply --commit then replays it on the branch", async () => {
  const repo = new DiskRepo(FILES);
  try {
    await draft(repo, [
      { operation: 'write', path: 'f.txt', content: withLine(BASE, 25, 'line 25 by the draft') },
      { operation: 'write', path: 'added.txt', content: 'added\n' },
    ]);
    const batchCommit = repo.ref('refs/shadow/drafts/default')!;
    repo.write('f.txt', withLine(BASE, 3, 'line 3 upstream'));
    repo.write('up.txt', 'upstream\n');
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'upstream work');
    const main = repo.ref('main')!;

    const st = cli(repo, ['status']);
    assert.ok(st.json.behind, 'HEAD moved: the draft is behind');
    assert.is(st.json.behind.head, main);
    assert.match(repo.shadow(['status']).stdout, /shadow rebase/);

    const r = cli(repo, ['rebase', '--onto', 'main']);
    assert.is(r.status, 0, r.stderr);
    assert.is(r.json.onto, main);
    const tip = repo.ref('refs/shadow/drafts/default')!;
    assert.is(repo.git('rev-parse', `${tip}^2`).trim(), main);

    // git rebase of the draft's batch commit onto main, in a worktree of its own.
    const wt = join(repo.root, 'oracle');
    repo.git('worktree', 'add', '-q', '--detach', wt, batchCommit);
    const g = spawnSync('git', ['rebase', '-q', 'main'], { cwd: wt, env: repo.env, encoding: 'utf8' });
    assert.is(g.status, 0, g.stderr);
    const gitTree = spawnSync('git', ['rev-parse', 'HEAD^{tree}'], {
      cwd: wt,
      env: repo.env,
      encoding: 'utf8',
    }).stdout.trim();
    assert.is(repo.git('rev-parse', `${tip}^{tree}`).trim(), gitTree);

    const st2 = cli(repo, ['status']);
    assert.not.ok(st2.json.behind);
    assert.equal(
      st2.json.changed.map((c: any) => c.path),
      ['added.txt', 'f.txt'],
    );
    const applied = cli(repo, ['apply', '--commit']);
    assert.is(applied.status, 0, applied.stderr);
    assert.is(applied.json.branch.how, 'replay');
    assert.is(repo.git('rev-parse', 'HEAD^{tree}').trim(), gitTree);
    assert.is(repo.git('rev-parse', 'HEAD~1').trim(), main);
    assert.is(repo.git('status', '--porcelain'), '');
  } finally {
    repo.cleanup();
  }
});

test('after the person commits what the draft published, status says behind, and the rebase leaves nothing to publish', async () => {
  const repo = new DiskRepo(FILES);
  try {
    await draft(repo, [
      { operation: 'write', path: 'f.txt', content: withLine(BASE, 2, 'two') },
      { operation: 'write', path: 'g.txt', content: 'g by the draft\n' },
    ]);
    // The person takes one change by hand: the draft no longer lists it.
    repo.write('g.txt', 'g by the draft\n');
    const st = cli(repo, ['status']);
    assert.equal(
      st.json.changed.map((c: any) => c.path),
      ['f.txt'],
    );
    assert.equal(st.json.in_worktree, ['g.txt']);
    assert.equal(st.json.drifted, []);
    assert.is(cli(repo, ['apply']).status, 0);
    repo.git('commit', '-qam', "take the agent's work");
    assert.ok(cli(repo, ['status']).json.behind);
    const r = cli(repo, ['rebase']);
    assert.is(r.status, 0, r.stderr);
    assert.equal(r.json.paths, []);
    const after = cli(repo, ['status']);
    assert.not.ok(after.json.behind);
    assert.equal(after.json.changed, []);
    // Nothing moved: a second rebase makes no commit.
    const again = cli(repo, ['rebase']);
    assert.is(again.json.unchanged, true);
    assert.is(again.json.tip, r.json.tip);
  } finally {
    repo.cleanup();
  }
});

test('undo reverses a rebase: the old tip, its bases and no conflicts', async () => {
  const repo = new DiskRepo(FILES);
  try {
    await draft(repo, [{ operation: 'write', path: 'g.txt', content: withLine(lines(10), 5, 'five by the draft') }]);
    const before = repo.ref('refs/shadow/drafts/default')!;
    repo.write('g.txt', withLine(lines(10), 5, 'five by the person'));
    cli(repo, ['rebase']);
    assert.equal(cli(repo, ['status']).json.conflicts.length, 1);
    const u = cli(repo, ['undo']);
    assert.is(u.status, 0, u.stderr);
    assert.is(repo.ref('refs/shadow/drafts/default'), before);
    const st = cli(repo, ['status']);
    assert.equal(st.json.conflicts, []);
    assert.equal(
      st.json.drifted.map((d: any) => d.path),
      ['g.txt'],
    );
    assert.is(st.json.changed[0].old.oid, repo.git('rev-parse', 'HEAD:g.txt').trim());
  } finally {
    repo.cleanup();
  }
});

test('bad targets: an unrelated commit is DIVERGED, an unknown one INVALID_TARGET, a missing draft DRAFT_NOT_FOUND; the draft does not move', async () => {
  const repo = new DiskRepo(FILES);
  try {
    await draft(repo, [{ operation: 'write', path: 'g.txt', content: 'x\n' }]);
    const tip = repo.ref('refs/shadow/drafts/default');
    repo.git('checkout', '-q', '--orphan', 'other');
    repo.git('rm', '-rqf', '.');
    repo.write('o.txt', 'o\n');
    repo.git('add', 'o.txt');
    repo.git('commit', '-qm', 'unrelated');
    repo.git('checkout', '-q', 'main');
    const d = cli(repo, ['rebase', '--onto', 'other']);
    assert.is(d.status, 1);
    assert.is(d.json.error.code, 'DIVERGED');
    assert.is(cli(repo, ['rebase', '--onto', 'no-such-branch']).json.error.code, 'INVALID_TARGET');
    assert.is(cli(repo, ['rebase', '--draft', 'nope']).json.error.code, 'DRAFT_NOT_FOUND');
    assert.is(repo.ref('refs/shadow/drafts/default'), tip);
    assert.not.match(d.stderr, /at .*\.js/);
  } finally {
    repo.cleanup();
  }
});

test.run();
