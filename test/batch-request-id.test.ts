import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';

/*
 * Retries by identity: a batch carrying a client's `request_id` and sent
 * again returns the first one's commit and batch number without committing,
 * from another process, after other batches, after a restart that lost
 * draft.json, and when both copies race; a new id is a new request.
 */

const test = suite('batch request_id');
const REF = 'refs/shadow/drafts/default';
const input = (id: string, content: string): string =>
  JSON.stringify({ intent: 'step', request_id: id, operations: [{ operation: 'write', path: 'a.txt', content }] });

test('sent again by another process, after other batches: the first commit and batch number, nothing committed', async () => {
  const repo = new DiskRepo({ 'README.md': 'hi\n' });
  try {
    const first = repo.shadow(['batch', '-', '--json'], { input: input('req-1', 'one\n') });
    assert.is(first.status, 0, first.stderr);
    const f = first.json();
    assert.match(repo.git('log', '-1', '--format=%B', REF), /\nShadow-Request: req-1\n/);
    assert.is(repo.shadow(['batch', '-', '--json'], { input: input('req-2', 'two\n') }).status, 0);
    const tip = repo.ref(REF);
    const again = repo.shadow(['batch', '-', '--json'], { input: input('req-1', 'one\n') });
    assert.is(again.status, 0, again.stderr);
    const a = again.json();
    assert.equal([a.success, a.commit, a.batch, a.request_id, a.unchanged], [true, f.commit, f.batch, 'req-1', true]);
    assert.equal(
      a.results.map((r: any) => r.status),
      ['already_applied'],
    );
    assert.is(repo.ref(REF), tip, 'no commit');
    assert.is(repo.git('show', `${REF}:a.txt`), 'two\n', 'the later batch stands');
  } finally {
    repo.cleanup();
  }
});

test('recognised from the commits alone when draft.json is lost; a rollback past it forgets it; a new id is a new request', async () => {
  const repo = new DiskRepo({ 'README.md': 'hi\n' });
  try {
    await withShadow(repo, async (sh) => {
      const r1 = await sh.batch(JSON.parse(input('req-1', 'one\n')));
      await sh.batch(JSON.parse(input('req-2', 'two\n')));
      fs.rmSync(repo.path('.git/shadow/drafts/default/draft.json'));
      return r1;
    });
    await withShadow(repo, async (sh) => {
      const tip = repo.ref(REF);
      const again = await sh.batch(JSON.parse(input('req-1', 'one\n')));
      assert.is(again.request_id, 'req-1');
      assert.is(again.batch, 1);
      assert.is(repo.ref(REF), tip);
      await sh.rollback('~2');
      const redo = await sh.batch(JSON.parse(input('req-1', 'one\n')));
      assert.is(redo.request_id, undefined, 'rolled back: the request is made again');
      assert.is(redo.batch, 3);
      const other = await sh.batch(JSON.parse(input('req-3', 'three\n')));
      assert.is(other.batch, 4);
      assert.is(repo.git('show', `${REF}:a.txt`), 'three\n');
    });
  } finally {
    repo.cleanup();
  }
});

test('two copies of one request racing from two handles: one commit, both answers name it', async () => {
  const repo = new DiskRepo({ 'README.md': 'hi\n' });
  try {
    await withShadow(repo, (sh) => sh.batch(JSON.parse(input('warm', 'zero\n'))));
    const [a, b] = await Promise.all([
      withShadow(repo, (sh) => sh.batch(JSON.parse(input('race', 'raced\n')))),
      withShadow(repo, (sh) => sh.batch(JSON.parse(input('race', 'raced\n')))),
    ]);
    assert.ok(a.success && b.success);
    assert.is(a.commit, b.commit);
    assert.is(
      repo.git('rev-list', '--count', REF).trim(),
      String(Number(repo.git('rev-list', '--count', 'HEAD').trim()) + 2),
    );
  } finally {
    repo.cleanup();
  }
});

test('a request_id that is not 1 to 128 plain characters is INVALID_BATCH, nothing written', async () => {
  const repo = new DiskRepo({ 'README.md': 'hi\n' });
  try {
    for (const id of ['', 'has space', 'x'.repeat(129), 'new\nline']) {
      const r = repo.shadow(['batch', '-', '--json'], { input: input(id, 'one\n') });
      assert.is(r.status, 1, id);
      assert.is(r.json().error.code, 'INVALID_BATCH');
    }
    assert.is(repo.ref(REF), undefined);
  } finally {
    repo.cleanup();
  }
});

test.run();
