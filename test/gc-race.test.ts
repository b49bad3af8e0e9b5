import { suite } from 'uvu';
import { blobOid } from '../src/git/format/git-objects.js';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { openShadow, nodeContext, type FileSystem } from '../src/index.js';
import { Repository } from '../src/git/repository.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { FsSeam } from './helpers/fs-seam.js';

/**
 * `git gc --prune=now` beside shadow. It repacks every pack it may and drops
 * objects no ref reaches: a batch's pack, in the moment between its rename
 * and its ref's move, is such a pack. shadow keeps (`.keep`) each pack it
 * writes until the ref that names it has moved.
 */

const Gc = suite('git gc --prune=now beside shadow');

function gcNow(repo: DiskRepo): void {
  const r = spawnSync('git', ['gc', '--prune=now', '-q'], { cwd: repo.dir, env: repo.env, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
}

function hasObject(repo: DiskRepo, oid: string): boolean {
  return spawnSync('git', ['cat-file', '-e', oid], { cwd: repo.dir, env: repo.env }).status === 0;
}

Gc('a pack no ref names yet survives git gc --prune=now until its writer lets it go', async () => {
  const repo = new DiskRepo();
  try {
    const ctx = nodeContext({ env: repo.env });
    const store = Repository.open(ctx, repo.dir);
    const content = Buffer.from('not yet named by any ref\n');
    const oid = blobOid(content);
    const idx = await store.objects.writeConcurrently([{ oid, type: 'blob', content }]);
    gcNow(repo);
    assert.ok(hasObject(repo, oid), 'kept while its ref has not moved');
    store.objects.releaseKeep(idx);
    gcNow(repo);
    assert.is(hasObject(repo, oid), false, "once let go, an object nothing names is git gc's to prune");
    store.close();
  } finally {
    repo.cleanup();
  }
});

Gc(
  "git pack-refs --prune between a ref's rename and its directory's fsync: the batch lands, its ref packed",
  async () => {
    const repo = new DiskRepo({ 'a.txt': 'a\n' });
    try {
      const drafts = `${repo.dir}/.git/refs/shadow/drafts`;
      const seam = new FsSeam(nodeFs as unknown as FileSystem);
      let packed = false;
      // The first open of the drafts' directory after the ref's rename is the fsync's: git packs the ref first.
      seam.onCall = (_n, op, path) => {
        if (packed || op !== 'openSync' || path !== drafts || !existsSync(`${drafts}/one`)) return;
        packed = true;
        const r = spawnSync('git', ['pack-refs', '--all', '--prune'], {
          cwd: repo.dir,
          env: repo.env,
          encoding: 'utf8',
        });
        assert.is(r.status, 0, r.stderr);
        assert.is(existsSync(drafts), false, 'git removed the emptied directory');
      };
      seam.arm();
      const sh = await openShadow({ dir: repo.dir, env: repo.env, fs: seam.fs });
      const result = await sh.batch(
        { operations: [{ operation: 'write', path: 'b.txt', content: 'b\n' }] },
        { draft: 'one' },
      );
      sh.close();
      assert.ok(packed, 'git packed the ref between the rename and the fsync');
      assert.is(result.success, true, JSON.stringify(result.error));
      const tip = spawnSync('git', ['rev-parse', 'refs/shadow/drafts/one'], {
        cwd: repo.dir,
        env: repo.env,
        encoding: 'utf8',
      });
      assert.is(tip.stdout.trim(), result.commit);
      const shown = spawnSync('git', ['show', 'refs/shadow/drafts/one:b.txt'], {
        cwd: repo.dir,
        env: repo.env,
        encoding: 'utf8',
      });
      assert.is(shown.stdout, 'b\n');
    } finally {
      repo.cleanup();
    }
  },
);

Gc(
  "a keep a crashed shadow left (from before the last restart) is dropped when shadow next merges its packs; anyone else's keep stands",
  async () => {
    const repo = new DiskRepo();
    try {
      const store = Repository.open(nodeContext({ env: repo.env }), repo.dir);
      const blob = (i: number) => {
        const content = Buffer.from(`blob ${i}\n`);
        return { oid: blobOid(content), type: 'blob' as const, content };
      };
      const keepOf = (idx: string | undefined): string => `${idx!.slice(0, -4)}.keep`;
      // A pack whose writer died before its ref moved: its keep is still there, from before the restart.
      const crashed = await store.objects.writeConcurrently([blob(0)]);
      utimesSync(keepOf(crashed), 1, 1);
      // A pack someone kept on purpose, as long ago.
      const mine = await store.objects.writeConcurrently([blob(1)]);
      store.objects.releaseKeep(mine);
      writeFileSync(keepOf(mine), 'kept by hand\n');
      utimesSync(keepOf(mine), 1, 1);
      for (let i = 2; i < 10; i++) store.objects.releaseKeep(await store.objects.writeConcurrently([blob(i)]));
      store.objects.mergeIfDue();
      assert.is(existsSync(keepOf(crashed)), false, 'the stale keep is gone');
      assert.is(existsSync(crashed!), false, 'its pack was merged');
      assert.ok(existsSync(keepOf(mine)) && existsSync(mine!), "a keep that is not shadow's stands, with its pack");
      for (let i = 0; i < 10; i++) assert.ok(hasObject(repo, blob(i).oid), `blob ${i} is there`);
      store.close();
    } finally {
      repo.cleanup();
    }
  },
);

Gc(
  'batches while git gc --prune=now runs in a loop: none fails INTERNAL, every object a draft names is there',
  async () => {
    const repo = new DiskRepo();
    try {
      const gc = spawn('sh', ['-c', 'for i in $(seq 1 25); do git gc --prune=now -q || exit 1; done'], {
        cwd: repo.dir,
        env: repo.env,
        stdio: 'ignore',
      });
      const gcDone = new Promise<number | null>((r) => gc.on('exit', r));
      let running = true;
      void gcDone.then(() => (running = false));
      const sh = await openShadow({ dir: repo.dir, env: repo.env });
      const codes = new Map<string, number>();
      for (let n = 0; running && n < 2000; n++) {
        const r = await sh.batch(
          { operations: [{ operation: 'write', path: `f${n % 7}.txt`, content: `v${n}\n` }] },
          { draft: `d${n % 3}` },
        );
        const code = r.success ? 'ok' : (r.error?.code ?? '?');
        codes.set(code, (codes.get(code) ?? 0) + 1);
      }
      sh.close();
      assert.is(await gcDone, 0, 'git gc ran to the end');
      assert.is(codes.get('INTERNAL'), undefined, JSON.stringify([...codes]));
      assert.ok((codes.get('ok') ?? 0) > 0, 'batches ran');
      const fsck = spawnSync('git', ['fsck', '--strict', '--no-dangling', '--no-progress'], {
        cwd: repo.dir,
        env: repo.env,
        encoding: 'utf8',
      });
      assert.is(fsck.status, 0, `git fsck --strict: ${fsck.stdout}${fsck.stderr}`);
    } finally {
      repo.cleanup();
    }
  },
);

Gc.run();
