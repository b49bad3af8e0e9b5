import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MERGE_AT_PACKS } from '../src/git/pack-consolidate.js';
import { Repository } from '../src/git/repository.js';
import { nodeContext, PackMergeThread, type FileSystem } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { gitIn, mergeBlob, packsIn } from './helpers/pack-merge-fixtures.js';
import { FsSeam } from './helpers/fs-seam.js';
import { exited, serveChild } from './helpers/session-http.js';

/**
 * Pack merges on a worker thread (PackMergeThread), as `shadow serve` and
 * `shadow mcp` run them: the merge's reads, writes, fsyncs and removals
 * happen off the event loop, which only rewrites the registry (the thread
 * that appends to it must: a rewrite elsewhere loses a line appended
 * meanwhile) and looks at the pack directory again. What it leaves is what
 * git reads; a merge that fails there leaves the lock free and every
 * object in place; an idle thread never keeps a process alive.
 */

const Thread = suite('pack merges on a worker thread');

const blob = mergeBlob;
const git = gitIn;

const registered = (repo: DiskRepo): string[] =>
  nodeFs
    .readFileSync(`${repo.dir}/.git/shadow/packs.list`, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

/** Run `body` on a new repository with a merge thread of its own; both go afterwards. */
async function withThread(body: (repo: DiskRepo, thread: PackMergeThread) => Promise<void>): Promise<void> {
  const repo = new DiskRepo();
  const thread = new PackMergeThread();
  try {
    await body(repo, thread);
  } finally {
    await thread.close();
    repo.cleanup();
  }
}

/** A store on `repo` whose file-system calls on this thread are recorded, merging on `thread`. */
function recordedStore(repo: DiskRepo, thread: PackMergeThread): { store: Repository; seam: FsSeam } {
  const seam = new FsSeam(nodeFs as unknown as FileSystem);
  const store = Repository.open(nodeContext({ env: repo.env, fs: seam.fs, packMerger: thread }), repo.dir);
  return { store, seam };
}

Thread(
  'the merge runs on the thread: this thread only rewrites the registry; packs written meanwhile stay listed; git reads the result',
  () =>
    withThread(async (repo, thread) => {
      const { store, seam } = recordedStore(repo, thread);
      const idxs: string[] = [];
      for (let i = 0; i < MERGE_AT_PACKS; i++) {
        const idx = (await store.objects.writeConcurrently([blob(i)]))!;
        store.objects.releaseKeep(idx);
        idxs.push(idx);
      }
      seam.record = true;
      seam.arm();
      store.objects.mergeInSteps();
      // Batches go on while the thread merges, each pack's line appended here; their refs have not
      // moved yet (their keeps stand), so the merge leaves them, and they must stay listed.
      const during: string[] = [];
      for (let i = MERGE_AT_PACKS; i < MERGE_AT_PACKS + 3; i++)
        during.push((await store.objects.writeConcurrently([blob(i)]))!);
      await store.objects.merging();
      for (const idx of during) store.objects.releaseKeep(idx);
      const here = seam.log.filter((c) => !during.some((d) => c.path?.startsWith(d.slice(0, -4)) ?? false));
      const removedHere = here.filter((c) => c.op === 'unlinkSync' && /\/pack-[0-9a-f]{40}\.(idx|pack)$/.test(c.path!));
      assert.equal(removedHere, [], 'no input pack is removed on this thread');
      const packsWrittenHere = seam.log.filter((c) => c.op === 'openSync' && /\/tmp_pack_/.test(c.path ?? ''));
      assert.is(packsWrittenHere.length, during.length, "this thread wrote the batches' packs, not the merged one");
      assert.ok(
        here.some((c) => c.op === 'renameSync' && c.path === `${repo.dir}/.git/shadow/packs.list`),
        'the registry is rewritten on this thread',
      );
      for (const i of idxs) assert.not.ok(nodeFs.existsSync(i), `${i} was merged and removed`);
      const left = packsIn(repo);
      assert.is(left.length, 1 + during.length, left.join(', '));
      const names = (idx: string) => idx.slice(idx.lastIndexOf('/') + 1, -4);
      const listed = registered(repo);
      for (const d of during) assert.ok(listed.includes(names(d)), `${names(d)}, written during the merge, is listed`);
      assert.is(listed.length, left.length, `the registry lists what is there: ${listed.join(' ')}`);
      assert.not.ok(nodeFs.existsSync(`${repo.dir}/.git/shadow/packs.list.lock`), 'the merge lock is released');
      // Every object reads through the handle (it looked at the directory again) and through git.
      for (let i = 0; i < MERGE_AT_PACKS + 3; i++)
        assert.equal(store.objects.read(blob(i).oid)?.content, blob(i).content, `blob ${i}`);
      store.close();
      git(repo, ['fsck', '--full', '--no-dangling']);
      const batch = git(
        repo,
        ['cat-file', '--batch-check'],
        Array.from({ length: MERGE_AT_PACKS + 3 }, (_, i) => blob(i).oid).join('\n'),
      );
      assert.not.match(batch, /missing/);
    }),
);

Thread('a merge that fails on the thread leaves every pack in place and the lock free; the next one merges', () =>
  withThread(async (repo, thread) => {
    const store = Repository.open(nodeContext({ env: repo.env, packMerger: thread }), repo.dir);
    const idxs: string[] = [];
    for (let i = 0; i < MERGE_AT_PACKS; i++) {
      const idx = (await store.objects.writeConcurrently([blob(i)]))!;
      store.objects.releaseKeep(idx);
      idxs.push(idx);
    }
    // The smallest pack's index is damaged: the thread's read of it fails.
    const bad = idxs[0]!;
    const good = nodeFs.readFileSync(bad);
    nodeFs.writeFileSync(bad, good.subarray(0, 40));
    store.objects.mergeInSteps();
    await store.objects.merging();
    assert.not.ok(nodeFs.existsSync(`${repo.dir}/.git/shadow/packs.list.lock`), 'the lock was released');
    for (const i of idxs) assert.ok(nodeFs.existsSync(i), `${i} is still there`);
    assert.is(packsIn(repo).length, MERGE_AT_PACKS, 'nothing was merged');
    // Mended, the next merge due goes through.
    nodeFs.writeFileSync(bad, good);
    for (let i = MERGE_AT_PACKS; i < 2 * MERGE_AT_PACKS; i++)
      store.objects.releaseKeep(await store.objects.writeConcurrently([blob(i)]));
    store.objects.mergeInSteps();
    await store.objects.merging();
    assert.is(packsIn(repo).length, 1);
    store.close();
    git(repo, ['fsck', '--full', '--no-dangling']);
  }),
);

Thread('an idle thread does not keep the process alive: a process that merged ends on its own', async () => {
  const repo = new DiskRepo();
  try {
    const script = fileURLToPath(new URL('./helpers/pack-merge-exit.js', import.meta.url));
    const r = spawnSync(process.execPath, [script, repo.dir], { encoding: 'utf8', timeout: 20_000 });
    assert.is(r.signal, null, `the process was still running after 20 s: ${r.stderr}`);
    assert.is(r.status, 0, r.stderr);
    assert.is(r.stdout.trim(), `merged ${MERGE_AT_PACKS}`);
    assert.is(packsIn(repo).length, 1);
  } finally {
    repo.cleanup();
  }
});

Thread("`shadow serve` merges its batches' packs and ends only once the merge is over", async () => {
  const repo = new DiskRepo({ 'README.md': 'Hello\n' });
  const server = await serveChild(repo);
  try {
    const before = packsIn(repo).length;
    for (let i = 0; i <= MERGE_AT_PACKS; i++) {
      const r = await server.api.call('POST', '/api/batch?draft=d', {
        json: { operations: [{ operation: 'write', path: `f${i}.txt`, content: `${i}\n` }] },
      });
      assert.is(r.status, 200, r.bytes.toString());
    }
    server.child.kill('SIGTERM');
    assert.equal(await exited(server.child), { code: 0, signal: null });
    const left = packsIn(repo).length;
    assert.ok(left < before + MERGE_AT_PACKS, `${before} packs before, ${left} after ${MERGE_AT_PACKS + 1} batches`);
    assert.not.ok(nodeFs.existsSync(repo.path('.git/shadow/packs.list.lock')), 'no merge lock is left');
    git(repo, ['fsck', '--full', '--no-dangling']);
    assert.is(git(repo, ['show', 'refs/shadow/drafts/d:f8.txt']), '8\n');
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await exited(server.child);
    repo.cleanup();
  }
});

Thread(
  'a thread that dies mid-merge fails its merge and releases the merge lock it held for this process, no other',
  () =>
    withThread(async (repo, thread) => {
      const job = (name: string) => ({ dir: `${repo.dir}/.git/objects/pack`, registry: `${repo.root}/${name}.list` });
      const holder = (pid: number) =>
        JSON.stringify({ pid, host: 'this', since: new Date().toISOString(), what: 'pack merge' });
      // The locks as the thread would have left them: one taken for this process, one for another.
      nodeFs.writeFileSync(`${job('mine').registry}.lock`, holder(process.pid));
      nodeFs.writeFileSync(`${job('theirs').registry}.lock`, holder(process.pid + 1));
      const mine = thread.merge(job('mine')).catch((e: unknown) => e);
      const theirs = thread.merge(job('theirs')).catch((e: unknown) => e);
      // Ended before it could answer (it is still starting), as a thread that crashes would be.
      await (thread as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
      for (const failed of [await mine, await theirs]) {
        assert.is((failed as { code?: string }).code, 'IO_ERROR');
        assert.match((failed as Error).message, /the pack merge thread stopped/);
      }
      assert.is(nodeFs.existsSync(`${job('mine').registry}.lock`), false, "this process's lock is released");
      assert.is(nodeFs.existsSync(`${job('theirs').registry}.lock`), true, "another process's lock stands");
    }),
);

Thread.run();
