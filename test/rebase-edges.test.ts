import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import { ShadowError, type FileOperation, type Shadow } from '../src/index.js';
import { takeProcessLock } from '../src/durable/process-lock.js';
import { planLockPath } from '../src/state/draft-meta.js';
import { conflictLines, parseConflictLines, parseResolvedLines, resolvedLines } from '../src/drafts/conflict-lines.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';

/*
 * A rebase's edges, through the library on real repositories: a path the
 * person deleted, a file that became a directory (in the working tree, and
 * in the commit moved onto), a plan running (BUSY), batches racing the
 * rebase for the ref (compare-and-swap: one wins, the other goes again),
 * conflicts read back from the commits alone, and the bases of a draft
 * applied before its rebase.
 */

const FILES = { 'f.txt': 'one\ntwo\nthree\n', 'g.txt': 'g\n', 'README.md': 'Hello\n' };

async function batch(sh: Shadow, operations: FileOperation[], draft = 'default'): Promise<void> {
  const r = await sh.batch({ intent: 'work', operations }, { draft });
  assert.ok(r.success, JSON.stringify(r.error));
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, ShadowError);
    return (e as ShadowError).code;
  }
  return 'no error';
}

const test = suite('rebase edges');

test('conflict lines keep any path, quoted where git would quote it', () => {
  const paths = ['plain.txt', 'tab\there.txt', 'quote"d.txt', 'back\\slash', 'new\nline', 'ünï cödé.txt'];
  const conflicts = new Map(paths.map((p) => [p, 'overlap' as const]));
  const message = `rebase\n\n${conflictLines(conflicts).join('\n')}\n\n${resolvedLines(paths).join('\n')}\n`;
  assert.equal([...parseConflictLines(message).keys()], paths);
  assert.equal(parseResolvedLines(message), paths);
  // Free text never reads as a conflict: a line without the tab, an unknown reason.
  assert.equal(parseConflictLines('conflict overlap a.txt\nconflict\tnope\ta.txt\n').size, 0);
});

test('a path the person deleted and the draft edited: delete/modify, the draft keeps its version; a delete resolves it', async () => {
  const repo = new DiskRepo(FILES);
  try {
    await withShadow(repo, async (sh) => {
      await batch(sh, [{ operation: 'write', path: 'f.txt', content: 'one\nTWO\nthree\n' }]);
      fs.rmSync(repo.path('f.txt'));
      const r = await sh.rebase();
      assert.equal(r.conflicts, [{ path: 'f.txt', reason: 'delete/modify' }]);
      assert.is(repo.git('show', `${r.tip}:f.txt`), 'one\nTWO\nthree\n');
      assert.is(repo.gitResult('cat-file', '-e', `${r.tip}^2:f.txt`).status, 128, 'the new base has no f.txt');
      assert.is(await code(sh.apply()), 'UNRESOLVED_CONFLICT');
      assert.not.ok(repo.exists('f.txt'));
      await batch(sh, [{ operation: 'delete', path: 'f.txt' }]);
      const st = await sh.status();
      assert.equal(st.conflicts, []);
      assert.equal(st.changed, []);
    });
  } finally {
    repo.cleanup();
  }
});

test('a file that became a directory in the working tree: a type conflict, the draft keeps its file; onto a commit where it is a directory, the directory stays', async () => {
  const repo = new DiskRepo(FILES);
  try {
    await withShadow(repo, async (sh) => {
      await batch(sh, [{ operation: 'write', path: 'f.txt', content: 'draft\n' }]);
      fs.rmSync(repo.path('f.txt'));
      repo.write('f.txt/inside.txt', 'inside\n');
      const r = await sh.rebase();
      assert.equal(r.conflicts, [{ path: 'f.txt', reason: 'type' }]);
      assert.is(repo.git('show', `${r.tip}:f.txt`), 'draft\n');
      assert.is(repo.read('f.txt/inside.txt'), 'inside\n');
      await sh.undo();
      // The person commits the directory; the draft moves onto that commit.
      repo.git('add', '-A');
      repo.git('commit', '-qm', 'f.txt is a directory now');
      const onto = await sh.rebase({ onto: 'main' });
      assert.equal(onto.conflicts, [{ path: 'f.txt', reason: 'type' }]);
      assert.is(repo.git('cat-file', '-t', `${onto.tip}:f.txt`).trim(), 'tree');
      assert.is(repo.git('show', `${onto.tip}:f.txt/inside.txt`), 'inside\n');
      await sh.resolve(['f.txt']);
      assert.equal((await sh.status()).conflicts, []);
    });
  } finally {
    repo.cleanup();
  }
});

test('a rebase while a plan runs on the draft is BUSY, and the draft does not move', async () => {
  const repo = new DiskRepo(FILES);
  try {
    await withShadow(repo, async (sh) => {
      await batch(sh, [{ operation: 'write', path: 'f.txt', content: 'one\ntwo\nthree by the draft\n' }]);
      repo.write('f.txt', 'one by the person\ntwo\nthree\n');
      const tip = repo.ref('refs/shadow/drafts/default');
      const lock = takeProcessLock(sh.context, planLockPath(`${repo.dir}/.git/shadow`, 'default'), 'shadow run plan');
      try {
        assert.is(await code(sh.rebase()), 'BUSY');
      } finally {
        lock.release();
      }
      assert.is(repo.ref('refs/shadow/drafts/default'), tip);
      assert.is((await sh.rebase()).batch, 2);
    });
  } finally {
    repo.cleanup();
  }
});

test('a batch that lands while the rebase writes: the rebase loses the compare-and-swap, goes again on the new tip, and keeps the batch', async () => {
  const repo = new DiskRepo(FILES);
  try {
    await withShadow(repo, async (sh) => {
      await batch(sh, [{ operation: 'write', path: 'f.txt', content: 'one\ntwo\nthree by the draft\n' }]);
      repo.write('f.txt', 'one by the person\ntwo\nthree\n');
      const refs = (sh as unknown as { ws: { repo: { refs: { update: (u: { ref: string }) => Promise<void> } } } }).ws
        .repo.refs;
      const update = refs.update.bind(refs);
      let raced = false;
      refs.update = async (u) => {
        if (!raced && u.ref === 'refs/shadow/drafts/default') {
          raced = true;
          // Another writer (its own handle) commits first.
          await withShadow(repo, (other) => batch(other, [{ operation: 'write', path: 'h.txt', content: 'h\n' }]));
        }
        return update(u);
      };
      const r = await sh.rebase();
      refs.update = update;
      assert.ok(raced);
      assert.is(repo.git('show', `${r.tip}:h.txt`), 'h\n');
      assert.is(repo.git('show', `${r.tip}:f.txt`), 'one by the person\ntwo\nthree by the draft\n');
      assert.is(repo.git('log', '-1', '--format=%s', `${r.tip}^1`).trim(), 'work');
      assert.is(r.from, repo.git('rev-parse', `${r.tip}^1`).trim());
    });
  } finally {
    repo.cleanup();
  }
});

test('a batch that loses to a rebase goes again on top of it: an edit of other lines commits, an edit of what the rebase changed is CONFLICT', async () => {
  const repo = new DiskRepo(FILES);
  try {
    await withShadow(repo, async (sh) => {
      await batch(sh, [
        { operation: 'write', path: 'f.txt', content: 'one\ntwo\nthree by the draft\n' },
        { operation: 'write', path: 'g.txt', content: 'g by the draft\n' },
      ]);
      repo.write('f.txt', 'one by the person\ntwo\nthree\n');
      const refs = (sh as unknown as { ws: { repo: { refs: { update: (u: { ref: string }) => Promise<void> } } } }).ws
        .repo.refs;
      const update = refs.update.bind(refs);
      let raced = 0;
      refs.update = async (u) => {
        if (raced === 0 && u.ref === 'refs/shadow/drafts/default') {
          raced++;
          await withShadow(repo, (other) => other.rebase());
        }
        return update(u);
      };
      const r = await sh.batch({
        intent: 'more',
        operations: [{ operation: 'edit', path: 'g.txt', old_content: 'g by the draft\n', content: 'g again\n' }],
      });
      assert.ok(r.success, JSON.stringify(r.error));
      assert.match(repo.git('log', '-1', '--format=%s', 'refs/shadow/drafts/default~1'), /^rebase onto/);
      // The person changes the first line again; a batch written against the draft before the next rebase loses to it.
      repo.write('f.txt', 'one by the person again\ntwo\nthree\n');
      raced = 0;
      const lost = await sh.batch({
        intent: 'stale',
        operations: [{ operation: 'edit', path: 'f.txt', old_content: 'one by the person\n', content: 'ONE\n' }],
      });
      refs.update = update;
      assert.is(lost.success, false);
      assert.is(lost.error?.code, 'CONFLICT');
    });
  } finally {
    repo.cleanup();
  }
});

test('the conflicts and bases come back from the commits alone when draft.json is lost', async () => {
  const repo = new DiskRepo(FILES);
  try {
    const before = await withShadow(repo, async (sh) => {
      await batch(sh, [
        { operation: 'write', path: 'f.txt', content: 'one\nTWO draft\nthree\n' },
        { operation: 'write', path: 'g.txt', content: 'g draft\n' },
      ]);
      repo.write('f.txt', 'one\nTWO person\nthree\n');
      repo.write('g.txt', 'g\nmore by the person\n');
      await sh.rebase();
      return sh.status();
    });
    fs.rmSync(repo.path('.git/shadow/drafts/default/draft.json'));
    const after = await withShadow(repo, (sh) => sh.status());
    assert.equal(after.conflicts, before.conflicts);
    // Both overlap: g.txt's changes touch (git's merge-file calls adjacent changes a conflict too).
    assert.equal(
      after.conflicts.map((c) => c.path),
      ['f.txt', 'g.txt'],
    );
    assert.equal(after.changed, before.changed);
    assert.equal(after.drifted, []);
  } finally {
    repo.cleanup();
  }
});

test('a draft applied before its rebase: the rebase takes in what the apply wrote, and later applies still move the bases', async () => {
  const repo = new DiskRepo(FILES);
  try {
    await withShadow(repo, async (sh) => {
      await batch(sh, [{ operation: 'write', path: 'f.txt', content: 'one\ntwo\nthree\nfour\nfive\nsix draft\n' }]);
      await sh.apply();
      repo.write('f.txt', 'one person\ntwo\nthree\nfour\nfive\nsix draft\n');
      await batch(sh, [{ operation: 'edit', path: 'f.txt', old_content: 'four\n', content: 'four draft\n' }]);
      await sh.rebase();
      const st = await sh.status();
      assert.equal(st.drifted, []);
      assert.equal(
        st.changed.map((c) => c.path),
        ['f.txt'],
      );
      assert.is(st.changed[0]!.old!.oid, repo.git('hash-object', 'f.txt').trim());
      await sh.apply();
      assert.is(repo.read('f.txt'), 'one person\ntwo\nthree\nfour draft\nfive\nsix draft\n');
      const done = await sh.status();
      assert.equal(done.changed, []);
      assert.equal(done.drifted, []);
    });
  } finally {
    repo.cleanup();
  }
});

test('undo after a move killed between its reflog line and its ref: the phantom line is passed over, the last real move undone', async () => {
  const repo = new DiskRepo(FILES);
  try {
    await withShadow(repo, async (sh) => {
      await batch(sh, [{ operation: 'write', path: 'f.txt', content: 'one\n' }]);
      const first = repo.ref('refs/shadow/drafts/default')!;
      await batch(sh, [{ operation: 'write', path: 'f.txt', content: 'two\n' }]);
      const second = repo.ref('refs/shadow/drafts/default')!;
      // What a rebase killed after its reflog line and before its rename leaves: a line to a tip the ref never took.
      const log = repo.path('.git/logs/refs/shadow/drafts/default');
      const line = fs.readFileSync(log, 'utf8').trimEnd().split('\n').pop()!;
      fs.appendFileSync(
        log,
        `${line.replace(/^[0-9a-f]{40} [0-9a-f]{40}/, `${second} ${'1'.repeat(40)}`).replace(/\t.*$/, '\tshadow: rebase onto working tree')}\n`,
      );
      const u = await sh.undo();
      assert.is(u.to, first);
      assert.is(repo.ref('refs/shadow/drafts/default'), first);
    });
  } finally {
    repo.cleanup();
  }
});

test.run();
