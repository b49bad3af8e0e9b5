import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MERGE_AT_PACKS } from '../src/git/pack-consolidate.js';
import { Repository } from '../src/git/repository.js';
import { nodeContext } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { gitIn, mergeBlob, packsIn } from './helpers/pack-merge-fixtures.js';

/**
 * Merging the small packs batches leave, in steps (ObjectDb.mergeInSteps, as
 * a served batch's upkeep runs it): the event loop turns between its steps,
 * every object stays readable at each of them, and what it leaves is what
 * git reads: one pack holding every object, verified by `git verify-pack`
 * and `git fsck`, the inputs gone. Its lock names its holder: a dead one's
 * is taken over (a crash never stops merging for good), a live one's stands.
 */

const Steps = suite('pack merge in steps');

const blob = mergeBlob;
const git = gitIn;

Steps('the event loop turns between the steps, every object reads at each, and git reads what it leaves', async () => {
  const repo = new DiskRepo();
  try {
    const store = Repository.open(nodeContext({ env: repo.env }), repo.dir);
    const count = MERGE_AT_PACKS + 2;
    const idxs: string[] = [];
    for (let i = 0; i < count; i++) {
      const idx = (await store.objects.writeConcurrently([blob(i)]))!;
      store.objects.releaseKeep(idx);
      idxs.push(idx);
    }
    assert.is(packsIn(repo).length, count);
    store.objects.mergeInSteps();
    let over = false;
    void store.objects.merging().then(() => (over = true));
    // Another reader beside the merging one, as another request would read.
    const reader = Repository.open(nodeContext({ env: repo.env }), repo.dir);
    let turns = 0;
    while (!over) {
      await new Promise((turn) => setImmediate(turn));
      turns++;
      for (let i = 0; i < count; i++)
        assert.equal(reader.objects.read(blob(i).oid)?.content, blob(i).content, `blob ${i} at turn ${turns}`);
    }
    assert.ok(turns > count, `the merge took ${turns} turns of the event loop for ${count} packs`);
    reader.close();
    store.close();

    const left = packsIn(repo);
    assert.is(left.length, 1, left.join(', '));
    for (const idx of idxs) assert.not.ok(existsSync(idx), `${idx} was merged and removed`);
    const listed = git(repo, ['verify-pack', '-v', `.git/objects/pack/${left[0]}`])
      .split('\n')
      .filter((l) => / blob /.test(l))
      .map((l) => l.split(' ')[0])
      .sort();
    assert.equal(listed, Array.from({ length: count }, (_, i) => blob(i).oid).sort());
    git(repo, ['fsck', '--full', '--no-dangling']);
    const batch = git(repo, ['cat-file', '--batch'], Array.from({ length: count }, (_, i) => blob(i).oid).join('\n'));
    for (let i = 0; i < count; i++) assert.ok(batch.includes(blob(i).content.toString()), `git reads blob ${i}`);
  } finally {
    repo.cleanup();
  }
});

Steps(
  'one merge at a time: asked again while it runs, nothing more starts; closed meanwhile, it still ends whole',
  async () => {
    const repo = new DiskRepo();
    try {
      const store = Repository.open(nodeContext({ env: repo.env }), repo.dir);
      for (let i = 0; i < MERGE_AT_PACKS; i++)
        store.objects.releaseKeep(await store.objects.writeConcurrently([blob(i)]));
      store.objects.mergeInSteps();
      const first = store.objects.merging();
      store.objects.mergeInSteps();
      assert.ok(store.objects.merging() === first, 'the same merge');
      store.close();
      await first;
      assert.is(packsIn(repo).length, 1);
      assert.not.ok(existsSync(`${repo.dir}/.git/shadow/packs.list.lock`), 'the merge lock is released');
      git(repo, ['fsck', '--full', '--no-dangling']);
    } finally {
      repo.cleanup();
    }
  },
);

Steps("a merge lock whose holder died (kill -9) is taken over; a live holder's is respected", async () => {
  const repo = new DiskRepo();
  try {
    const lock = `${repo.dir}/.git/shadow/packs.list.lock`;
    const holder = (pid: number) =>
      JSON.stringify({ pid, host: hostname(), since: new Date().toISOString(), what: 'pack merge' });
    const dead = spawnSync('true').pid!;
    for (const [who, pid, merges] of [
      ['a live process', process.ppid, false],
      ['a dead process', dead, true],
    ] as const) {
      const store = Repository.open(nodeContext({ env: repo.env }), repo.dir);
      for (let i = 0; i < MERGE_AT_PACKS; i++)
        store.objects.releaseKeep(await store.objects.writeConcurrently([blob(i + (merges ? 100 : 0))]));
      const text = holder(pid);
      writeFileSync(lock, text);
      const before = packsIn(repo).length;
      store.objects.mergeInSteps();
      await store.objects.merging();
      store.close();
      if (merges) {
        assert.is(packsIn(repo).length, 1, `held by ${who}: merged`);
        assert.not.ok(existsSync(lock), 'the lock is released');
      } else {
        assert.is(packsIn(repo).length, before, `held by ${who}: nothing merged`);
        assert.is(readFileSync(lock, 'utf8'), text, 'its lock stands');
      }
    }
    git(repo, ['fsck', '--full', '--no-dangling']);
  } finally {
    repo.cleanup();
  }
});

Steps.run();
