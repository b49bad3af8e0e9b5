import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  MARKER,
  type RecordResult,
  type Shadow,
  type ShadowError,
  type SyncResult,
  type WatchHandle,
} from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { beside, FILES, open, REF, repoSuite } from './helpers/worktree-repo.js';
import { read, snapshotTree } from './helpers/dir-snapshot.js';
import { batches, fsck, nameStatus } from './helpers/draft-commits.js';
import { waitFor } from './helpers/wait-for.js';

/*
 * `sh.worktrees.watch` (chokidar) on real directories: changes made by a
 * child process become batches; other writers' moves of the draft are
 * synced in and never echoed.
 *
 * Watching needs real file events: every wait polls an observable outcome
 * (a callback's record, a ref) under a generous limit, never a fixed sleep.
 */

/** Run a CommonJS script in a child node process (another writer, as an editor or a tool would be). */
function inChild(cwd: string, script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['-e', script], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr.on('data', (d) => (err += d));
    c.on('error', reject);
    c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

interface Watching {
  handle: WatchHandle;
  records: RecordResult[];
  syncs: SyncResult[];
  problems: ShadowError[];
}

async function startWatch(
  sh: Shadow,
  dir: string,
  options: { quietMs?: number; pollMs?: number } = {},
): Promise<Watching> {
  const w = { records: [], syncs: [], problems: [] } as unknown as Watching;
  let ready = 0;
  w.handle = await sh.worktrees.watch(dir, {
    ...options,
    onRecord: (r) => w.records.push(r),
    onSync: (r) => w.syncs.push(r),
    onProblem: (e) => w.problems.push(e),
    onReady: () => ready++,
  });
  assert.is(ready, 1, 'onReady is called once, before watch resolves');
  return w;
}

// ---------------------------------------------------------------- watch

const Watch = repoSuite('watch');

Watch(
  'a child process changes files: exactly those changes become one batch (actor watch); ignored and editor temp files never',
  async ({ repo }) => {
    const sh = await open(repo);
    const wt = beside(repo);
    let w: Watching | undefined;
    try {
      assert.ok((await sh.write('draft-only.txt', 'from the draft\n')).success);
      await sh.worktrees.add(wt);
      const before = snapshotTree(repo.dir);
      const count0 = batches(repo).length;
      w = await startWatch(sh, wt, { quietMs: 400 });
      await inChild(
        wt,
        `const fs = require('fs');
       fs.writeFileSync('a.txt', 'alpha from the child\\n');
       fs.writeFileSync('b.txt', 'new from the child\\n');
       fs.unlinkSync('c.txt');
       fs.mkdirSync('node_modules/other', { recursive: true });
       fs.writeFileSync('node_modules/other/x.js', 'ignored\\n');
       fs.writeFileSync('build.log', 'ignored\\n');
       fs.writeFileSync('.a.txt.swp', 'swap');
       fs.writeFileSync('a.txt~', 'backup');
       fs.writeFileSync('.#a.txt', 'lock');
       fs.writeFileSync('4913', 'probe');
       fs.unlinkSync('4913');`,
      );
      const r = await waitFor('the watch batch', () => w!.records[0]);
      await w.handle.close();
      assert.equal(w.problems, []);
      assert.is(w.records.length, 1, 'one burst, one batch');
      assert.equal(r.changes.map((c) => `${c.kind} ${c.path}`).sort(), ['delete c.txt', 'write a.txt', 'write b.txt']);
      const all = batches(repo);
      assert.is(all.length, count0 + 1);
      const b = all[0]!;
      assert.is(b.commit, r.batch!.commit);
      assert.is(b.author, 'watch');
      assert.match(repo.git('log', '-1', '--format=%B', b.commit), /Shadow-Actor: watch/);
      assert.match(b.subject, /^watch: /);
      for (const p of ['a.txt', 'b.txt', 'c.txt'])
        assert.ok(b.subject.includes(p), `the intent names ${p}: ${b.subject}`);
      assert.equal(nameStatus(repo, b.commit), ['A\tb.txt', 'D\tc.txt', 'M\ta.txt']);
      const tree = repo.git('ls-tree', '-r', '--name-only', REF()).split('\n');
      for (const p of ['node_modules/other/x.js', 'build.log', '.a.txt.swp', 'a.txt~', '.#a.txt', '4913', MARKER])
        assert.not.ok(tree.includes(p), `${p} is not recorded`);
      assert.is(repo.git('show', `${REF()}:a.txt`), 'alpha from the child\n');
      assert.equal(snapshotTree(repo.dir), before, 'the working tree is untouched');
      fsck(repo);
    } finally {
      if (w) await w.handle.close();
      sh.close();
    }
  },
);

Watch('a rename is recorded as a rename', async ({ repo }) => {
  const sh = await open(repo);
  const wt = beside(repo);
  let w: Watching | undefined;
  try {
    await sh.worktrees.add(wt);
    w = await startWatch(sh, wt, { quietMs: 400 });
    await inChild(wt, `require('fs').renameSync('src/x.js', 'src/renamed.js')`);
    const r = await waitFor('the rename batch', () => w!.records[0]);
    assert.equal(r.changes, [{ path: 'src/x.js', kind: 'rename', to: 'src/renamed.js' }]);
    assert.equal(nameStatus(repo, r.batch!.commit!), ['R100\tsrc/x.js\tsrc/renamed.js']);
    assert.match(batches(repo)[0]!.subject, /src\/x\.js -> src\/renamed\.js/);
  } finally {
    if (w) await w.handle.close();
    sh.close();
  }
});

Watch(
  'another writer moves the draft: the watch syncs, rollback is synced back, and shadow’s own writes are never echoed',
  async ({ repo }) => {
    const sh = await open(repo);
    const other = await open(repo);
    const wt = beside(repo);
    let w: Watching | undefined;
    try {
      await sh.worktrees.add(wt);
      w = await startWatch(sh, wt, { quietMs: 300, pollMs: 100 });

      // The user's change, recorded by the watch.
      await inChild(wt, `require('fs').writeFileSync('a.txt', 'user edit\\n')`);
      await waitFor('the first record', () => w!.records.length === 1);
      const afterUser = batches(repo).length;

      // Another writer: batch, seen by the poll and synced into the worktree.
      assert.ok(
        (
          await other.batch({
            intent: 'other writer',
            operations: [
              { operation: 'write', path: 'other.txt', content: 'other\n' },
              { operation: 'write', path: 'src/x.js', content: 'export const x = 2;\n' },
            ],
          })
        ).success,
      );
      await waitFor(
        'the sync of the other writer',
        () => fs.existsSync(join(wt, 'other.txt')) && read(wt, 'src/x.js') === 'export const x = 2;\n',
      );

      // Rollback (of the other writer's batch): synced back.
      await other.rollback('~1');
      await waitFor(
        'the sync of the rollback',
        () => !fs.existsSync(join(wt, 'other.txt')) && read(wt, 'src/x.js') === FILES['src/x.js'],
      );
      assert.is(read(wt, 'a.txt'), 'user edit\n', 'the recorded edit stays');

      // A sentinel change after the syncs: its batch holds the sentinel alone (the syncs' writes were not echoed).
      await inChild(wt, `require('fs').writeFileSync('sentinel.txt', 'after the syncs\\n')`);
      const sentinel = await waitFor('the sentinel record', () =>
        w!.records.find((r) => r.changes.some((c) => c.path === 'sentinel.txt')),
      );
      assert.equal(sentinel.changes, [{ path: 'sentinel.txt', kind: 'write' }]);
      assert.equal(
        w.records.map((r) => r.changes.map((c) => c.path)),
        [['a.txt'], ['sentinel.txt']],
        'no batch of shadow’s own writes',
      );
      assert.is(
        batches(repo).length,
        afterUser + 1,
        'the sentinel (the other writer’s batch was rolled back: a ref reset)',
      );
      assert.equal(w.problems, []);
      assert.ok(w.syncs.length >= 2);
      assert.is(repo.git('show', `${REF()}:a.txt`), 'user edit\n');
      assert.is(repo.gitResult('cat-file', '-e', `${REF()}:other.txt`).status === 0, false);
      fsck(repo);
    } finally {
      if (w) await w.handle.close();
      other.close();
      sh.close();
    }
  },
);

Watch('the worktree deleted while watching: the watch ends with WORKTREE_GONE', async ({ repo }) => {
  const sh = await open(repo);
  const wt = beside(repo);
  let w: Watching | undefined;
  try {
    await sh.worktrees.add(wt);
    w = await startWatch(sh, wt, { quietMs: 200, pollMs: 200 });
    let error: ShadowError | undefined;
    w.handle.done.then(
      () => (error = { code: 'RESOLVED' } as unknown as ShadowError),
      (e: ShadowError) => (error = e),
    );
    fs.rmSync(wt, { recursive: true, force: true });
    const e = await waitFor('the watch to end', () => error, 20_000);
    assert.is(e.code, 'WORKTREE_GONE');
    assert.is(batches(repo).length, 0, 'the deletion is not recorded as deleting every file');
  } finally {
    if (w) await w.handle.close();
    sh.close();
  }
});

Watch('10,000 files changed at once: one batch, memory bounded', async () => {
  const dirs = Array.from({ length: 50 }, (_, i) => `g${String(i).padStart(2, '0')}`);
  const files: Record<string, string> = { 'README.md': 'big\n' };
  for (const d of dirs) files[`${d}/keep.txt`] = 'keep\n';
  const repo = new DiskRepo(files);
  const sh = await open(repo);
  const wt = beside(repo);
  let w: Watching | undefined;
  try {
    await sh.worktrees.add(wt);
    // A long quiet time: 10,000 events from a child on busy cores must not split into two bursts.
    w = await startWatch(sh, wt, { quietMs: 1500 });
    const rss0 = process.memoryUsage().rss;
    const peak0 = process.resourceUsage().maxRSS * 1024;
    await inChild(
      wt,
      `const fs = require('fs'); for (let d = 0; d < 50; d++) for (let i = 0; i < 200; i++) fs.writeFileSync('g' + String(d).padStart(2, '0') + '/n' + i + '.txt', 'file ' + d + '/' + i + '\\n');`,
    );
    const r = await waitFor('the batch of 10,000 files', () => w!.records[0], 90_000);
    await w.handle.close();
    const peak = process.resourceUsage().maxRSS * 1024;
    assert.equal(w.problems, []);
    assert.is(w.records.length, 1, 'one batch');
    assert.is(r.changes.length, 10_000);
    assert.is(batches(repo).length, 1);
    const changed = repo
      .git('diff-tree', '-r', '--no-commit-id', '--name-only', `${REF()}^`, REF())
      .split('\n')
      .filter((l) => l !== '');
    assert.is(changed.length, 10_000);
    const grown = Math.max(0, peak - Math.max(peak0, rss0));
    assert.ok(grown < 400 * 2 ** 20, `peak RSS grew by ${(grown / 2 ** 20).toFixed(0)} MB`);
    fsck(repo);
  } finally {
    if (w) await w.handle.close();
    sh.close();
    repo.cleanup();
  }
});

Watch.run();
