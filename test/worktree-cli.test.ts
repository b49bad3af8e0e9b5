import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { SHADOW_BIN } from './helpers/disk-repo.js';
import { beside, cli, REF, repoSuite } from './helpers/worktree-repo.js';
import { read, treeHash } from './helpers/dir-snapshot.js';
import { batches, fsck } from './helpers/draft-commits.js';
import { waitFor } from './helpers/wait-for.js';

/*
 * `shadow worktree …` and `shadow watch` as users run them: exit statuses,
 * JSON, and commands run inside a worktree finding their repository.
 * Every wait polls a line on stdout under a generous limit, never a fixed
 * sleep.
 */

// ---------------------------------------------------------------- CLI smoke

const Cmd = repoSuite('shadow worktree / watch (CLI)');

Cmd(
  'add, list, record, sync, remove: exit statuses and JSON; commands run inside find the repository and draft by the marker',
  async ({ repo }) => {
    const before = treeHash(repo.dir);
    const add = cli(repo, ['worktree', 'add', '../wt', '--draft', 'feat', '--json']);
    assert.is(add.status, 0, add.stderr);
    const wt = beside(repo);
    assert.equal(
      { dir: add.json.dir, draft: add.json.draft, files: add.json.files },
      { dir: wt, draft: 'feat', files: 8 },
    );
    const again = cli(repo, ['worktree', 'add', '../wt', '--json']);
    assert.is(again.status, 1);
    assert.is(again.json.error.code, 'ALREADY_EXISTS');
    const inside = cli(repo, ['worktree', 'add', 'sub/wt', '--json']);
    assert.is(inside.status, 1);
    assert.is(inside.json.error.code, 'INVALID_TARGET');
    const text = cli(repo, ['worktree', 'add', 'sub/wt']);
    assert.is(text.status, 1);
    assert.match(text.stderr, /inside the repository's working tree/);

    const list = cli(repo, ['worktree', 'list', '--json']);
    assert.is(list.status, 0);
    assert.equal(
      list.json.worktrees.map((w: { dir: string; draft: string; behind: boolean }) => [w.dir, w.draft, w.behind]),
      [[wt, 'feat', false]],
    );

    // Inside the worktree: the marker names the repository and the draft.
    fs.writeFileSync(join(wt, 'a.txt'), 'edited in the worktree\n');
    const rec = cli(repo, ['worktree', 'record', '.', '-m', 'from inside', '--json'], { cwd: wt });
    assert.is(rec.status, 0, rec.stderr);
    assert.is(rec.json.batch.batch, 1);
    assert.is(batches(repo, 'feat')[0]!.subject, 'from inside');
    const cat = cli(repo, ['cat', '../a.txt'], { cwd: join(wt, 'src') });
    assert.is(cat.status, 0, cat.stderr);
    assert.is(cat.stdout, 'edited in the worktree\n');
    const write = cli(repo, ['edit', 'c.txt', '--old', 'charlie', '--new', 'CHARLIE'], { cwd: wt });
    assert.is(write.status, 0, write.stderr);
    assert.is(repo.git('show', `${REF('feat')}:c.txt`), 'CHARLIE\n');
    assert.is(repo.ref(REF()), undefined, 'the default draft is not touched');

    assert.ok(cli(repo, ['worktree', 'list', '--json']).json.worktrees[0].behind);
    const sync = cli(repo, ['worktree', 'sync', wt, '--json']);
    assert.is(sync.status, 0, sync.stderr);
    assert.equal(sync.json.written, ['c.txt']);
    assert.is(read(wt, 'c.txt'), 'CHARLIE\n');

    // A conflict: sync exits 1 and says which path.
    fs.writeFileSync(join(wt, 'c.txt'), 'mine\n');
    assert.is(cli(repo, ['edit', 'c.txt', '--old', 'CHARLIE', '--new', 'theirs'], { cwd: wt }).status, 0);
    const conflict = cli(repo, ['worktree', 'sync', wt]);
    assert.is(conflict.status, 1);
    assert.match(conflict.stdout + conflict.stderr, /conflict: c\.txt/);
    assert.is(read(wt, 'c.txt'), 'mine\n');

    const dirty = cli(repo, ['worktree', 'remove', wt]);
    assert.is(dirty.status, 1);
    assert.match(dirty.stderr, /not recorded/);
    const rm = cli(repo, ['worktree', 'remove', wt, '--force', '--json']);
    assert.is(rm.status, 0, rm.stderr);
    assert.equal(
      rm.json.discarded.map((d: { path: string }) => d.path),
      ['c.txt'],
    );
    assert.not.ok(fs.existsSync(wt));
    assert.equal(cli(repo, ['worktree', 'list', '--json']).json.worktrees, []);
    assert.is(cli(repo, ['worktree', 'sync', wt, '--json']).json.error.code, 'NOT_FOUND');
    assert.is(treeHash(repo.dir), before, 'the working tree is byte-identical');
    fsck(repo);
  },
);

Cmd('shadow watch <dir> --quiet-ms: ready, a change recorded, SIGTERM ends it with 0', async ({ repo }) => {
  const wt = beside(repo);
  assert.is(cli(repo, ['worktree', 'add', wt]).status, 0);
  const child = spawn(process.execPath, [SHADOW_BIN, 'watch', wt, '--quiet-ms', '200', '--json'], {
    cwd: repo.dir,
    env: repo.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const events = (): Array<{ type: string; [k: string]: unknown }> =>
    out
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
  try {
    await waitFor(`watch/ready (stderr: ${err})`, () => events().find((e) => e.type === 'watch/ready'), 30_000);
    fs.writeFileSync(join(wt, 'watched.txt'), 'seen by shadow watch\n');
    const rec = await waitFor('watch/record', () => events().find((e) => e.type === 'watch/record'), 30_000);
    assert.equal(rec.changes, [{ path: 'watched.txt', kind: 'write' }]);
    assert.is(repo.git('show', `${REF()}:watched.txt`), 'seen by shadow watch\n');
    assert.is(repo.git('log', '-1', '--format=%an', REF()).trim(), 'watch');
  } finally {
    child.kill('SIGTERM');
  }
  assert.is(await exited, 0, err);
  assert.not.ok(
    events().some((e) => e.type === 'watch/problem'),
    out,
  );
});

Cmd.run();
