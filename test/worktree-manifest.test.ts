import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Volume, createFsFromVolume } from 'memfs';
import { openShadow, type FileSystem } from '../src/index.js';
import { Manifest, manifestDir, shardsFor, type ManifestEntry } from '../src/state/worktree-manifest.js';
import { testContext, type TestContext } from './helpers/context.js';
import { memRepo } from './helpers/mem-repo.js';
import { withReplacingRename } from './helpers/memfs-rename.js';

/*
 * The manifest of a materialized worktree, on memfs: its shards are read
 * only as paths are asked for and written only when they changed, so that a
 * sync after a small batch costs the same in a worktree of any size. The
 * reads and writes are counted through a wrapper of the file system.
 */

/** Calls of `readFileSync` and `renameSync` on paths under `under`, counted while `on`. */
function counted(
  fs: FileSystem,
  under: () => string,
): { fs: FileSystem; reads: string[]; renames: string[]; reset(): void } {
  const out = {
    reads: [] as string[],
    renames: [] as string[],
    reset() {
      out.reads.length = 0;
      out.renames.length = 0;
    },
    fs: new Proxy(fs, {
      get(target, key) {
        const v = (target as unknown as Record<string | symbol, unknown>)[key];
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          if (key === 'readFileSync' && typeof args[0] === 'string' && args[0].startsWith(under()))
            out.reads.push(args[0]);
          if (key === 'renameSync' && typeof args[1] === 'string' && args[1].startsWith(under()))
            out.renames.push(args[1]);
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as FileSystem,
  };
  return out;
}

function entry(i: number): ManifestEntry {
  return {
    oid: i % 3 === 0 ? null : i.toString(16).padStart(40, '0'),
    mode: i % 5 === 0 ? '100755' : '100644',
    size: i,
    mtime: 1000 + i,
    ino: 50 + i,
  };
}

const M = suite<{ ctx: TestContext; fs: FileSystem }>('worktree manifest');
M.before.each((c) => {
  const vol = new Volume();
  vol.mkdirSync('/shadow', { recursive: true });
  c.fs = createFsFromVolume(vol) as unknown as FileSystem;
  c.ctx = testContext(c.fs);
});

M('shards: about 32 paths each, a power of two from 16 to 65,536', () => {
  assert.equal([0, 10, 512, 513, 10_000, 100_000, 10_000_000].map(shardsFor), [16, 16, 16, 32, 512, 4096, 65536]);
});

M('saved and read back entry for entry; a new manifest writes only the shards that hold paths', ({ ctx, fs }) => {
  const m = Manifest.create(ctx, '/shadow', 'w1', 20);
  assert.is(m.shardCount, 16);
  for (let i = 0; i < 3; i++) m.set(`dir/f${i}.txt`, entry(i));
  m.save();
  const files = (fs.readdirSync(manifestDir('/shadow', 'w1')) as string[]).map(String);
  assert.ok(files.length >= 1 && files.length <= 3, `${files.length} shard files for 3 paths`);
  assert.ok(
    files.every((f) => /^[0-9a-f]+\.json$/.test(f)),
    files.join(' '),
  );
  const back = Manifest.open(ctx, '/shadow', { id: 'w1', manifest_shards: 16 });
  assert.equal(back.keys().sort(), ['dir/f0.txt', 'dir/f1.txt', 'dir/f2.txt']);
  for (let i = 0; i < 3; i++) assert.equal(back.get(`dir/f${i}.txt`), entry(i));
  assert.is(back.get('nope'), undefined);
  assert.is(back.has('dir/f1.txt'), true);
});

M('lazy: asking for one path reads one shard; saving after one change writes one shard', ({ ctx }) => {
  const c = counted(ctx.fs, () => manifestDir('/shadow', 'w2'));
  const cctx = { ...ctx, fs: c.fs };
  const m = Manifest.create(cctx, '/shadow', 'w2', 5000);
  for (let i = 0; i < 5000; i++) m.set(`src/m${i % 40}/f${i}.ts`, entry(i));
  m.save();
  assert.is(c.renames.length, m.shardCount, 'every shard holds paths at 5,000 files');
  c.reset();
  const back = Manifest.open(cctx, '/shadow', { id: 'w2', manifest_shards: m.shardCount });
  assert.equal(back.get('src/m7/f47.ts'), entry(47));
  assert.is(c.reads.length, 1, 'one shard read');
  back.set('src/m7/f47.ts', entry(99));
  back.delete('src/m7/f47.ts');
  back.set('src/m7/f47.ts', entry(100));
  back.save();
  assert.is(c.renames.length, 1, 'one shard written');
  assert.equal(
    Manifest.open(cctx, '/shadow', { id: 'w2', manifest_shards: m.shardCount }).get('src/m7/f47.ts'),
    entry(100),
  );
  c.reset();
  assert.is(Manifest.open(cctx, '/shadow', { id: 'w2', manifest_shards: m.shardCount }).keys().length, 5000);
  assert.is(c.reads.length, m.shardCount, 'a whole scan reads every shard');
});

M('a damaged or missing shard reads as empty; the others are intact', ({ ctx, fs }) => {
  const m = Manifest.create(ctx, '/shadow', 'w3', 100);
  for (let i = 0; i < 100; i++) m.set(`f${i}`, entry(i));
  m.save();
  const dir = manifestDir('/shadow', 'w3');
  const [first, second] = (fs.readdirSync(dir) as string[]).map(String).sort();
  fs.writeFileSync(`${dir}/${first}`, '{"f1": [null, "100644", 1');
  fs.writeFileSync(`${dir}/${second}`, '{"f2": ["x", "100644", "not a number", 1, 1]}');
  const back = Manifest.open(ctx, '/shadow', { id: 'w3', manifest_shards: m.shardCount });
  const keys = back.keys();
  assert.ok(keys.length < 100 && keys.length > 50, `${keys.length} paths left`);
  for (const k of keys) assert.equal(back.get(k), entry(Number(k.slice(1))));
});

M('a record made before the shard count was kept reads 256 shards', ({ ctx }) => {
  assert.is(Manifest.open(ctx, '/shadow', { id: 'old' }).shardCount, 256);
});

// ---------------------------------------------------------------- sync is O(changed)

const Sync = suite('worktree sync reads and writes what changed');

Sync('a batch of 3 files in a draft that owns 300: the sync reads at most 3 shards and writes 3 files', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 600; i++) files[`src/d${i % 12}/f${i}.txt`] = `file ${i}\n`;
  const repo = await memRepo(files);
  const wt = '/wt';
  let id = '';
  const c = counted(repo.ctx.fs, () => (id ? manifestDir('/repo/.git/shadow', id) : '/nothing'));
  const sh = await openShadow({ dir: repo.dir, fs: c.fs, clock: repo.ctx.clock, ids: repo.ctx.ids, env: repo.ctx.env });
  const other = await repo.open();
  try {
    const added = await sh.worktrees.add(wt);
    id = added.id;
    assert.is(added.files, 600);
    const own = await other.batch({
      intent: 'own 300',
      operations: Array.from({ length: 300 }, (_, i) => ({
        operation: 'write' as const,
        path: `src/d${i % 12}/f${i}.txt`,
        content: `draft ${i}\n`,
      })),
    });
    assert.ok(own.success);
    const first = await sh.worktrees.sync(wt);
    assert.is(first.written.length, 300);

    const small = await other.batch({
      intent: 'three',
      operations: [0, 1, 500].map((i) => ({
        operation: 'write' as const,
        path: `src/d${i % 12}/f${i}.txt`,
        content: `again ${i}\n`,
      })),
    });
    assert.ok(small.success);
    c.reset();
    const r = await sh.worktrees.sync(wt);
    assert.equal(r.written.sort(), ['src/d0/f0.txt', 'src/d1/f1.txt', 'src/d8/f500.txt']);
    assert.equal(r.conflicts, []);
    assert.ok(c.reads.length <= 3, `${c.reads.length} shards read`);
    assert.ok(c.renames.length <= 3, `${c.renames.length} shards written`);
    assert.is(String(repo.fs.readFileSync(`${wt}/src/d8/f500.txt`, 'utf8')), 'again 500\n');
    assert.is(String(repo.fs.readFileSync(`${wt}/src/d2/f2.txt`, 'utf8')), 'draft 2\n');
  } finally {
    sh.close();
    other.close();
  }
});

Sync(
  'rollback of a file the draft set back to its committed content: the worktree shows the user’s uncommitted edit again',
  async () => {
    const repo = await memRepo({ 'a.txt': 'committed\n', 'b.txt': 'b\n' });
    repo.write('a.txt', 'user edit, not committed\n');
    const sh = await repo.open();
    try {
      assert.ok(
        (await sh.batch({ intent: 'b', operations: [{ operation: 'write', path: 'b.txt', content: 'b2\n' }] })).success,
      );
      await sh.checkpoint('before');
      // The draft's a.txt is the committed content: its tree and the tree before agree on it.
      assert.ok(
        (
          await sh.batch({
            intent: 'revert a',
            operations: [{ operation: 'write', path: 'a.txt', content: 'committed\n' }],
          })
        ).success,
      );
      await sh.worktrees.add('/wt');
      assert.is(String(repo.fs.readFileSync('/wt/a.txt', 'utf8')), 'committed\n');
      await sh.rollback('before');
      const r = await sh.worktrees.sync('/wt');
      assert.equal(r.written, ['a.txt']);
      assert.is(String(repo.fs.readFileSync('/wt/a.txt', 'utf8')), 'user edit, not committed\n');
      assert.is(String(repo.fs.readFileSync('/wt/b.txt', 'utf8')), 'b2\n');
    } finally {
      sh.close();
    }
  },
);

Sync(
  'a conflict is looked at again by every later sync: once the worktree edit is dropped, the draft’s file comes in',
  async () => {
    const repo = await memRepo({ 'a.txt': 'v1\n', 'b.txt': 'b\n' });
    const sh = await repo.open();
    try {
      await sh.worktrees.add('/wt');
      repo.fs.writeFileSync('/wt/a.txt', 'my edit\n');
      assert.ok((await sh.write('a.txt', 'v2\n')).success);
      const first = await sh.worktrees.sync('/wt');
      assert.equal(
        first.conflicts.map((c) => c.path),
        ['a.txt'],
      );
      assert.is(String(repo.fs.readFileSync('/wt/a.txt', 'utf8')), 'my edit\n', 'never overwritten');
      const again = await sh.worktrees.sync('/wt');
      assert.equal(
        again.conflicts.map((c) => c.path),
        ['a.txt'],
        'still a conflict, though the draft did not move',
      );
      // The user drops the edit (puts back what shadow left); another batch elsewhere.
      repo.fs.writeFileSync('/wt/a.txt', 'v1\n');
      assert.ok((await sh.write('b.txt', 'b2\n')).success);
      const r = await sh.worktrees.sync('/wt');
      assert.equal(r.written.sort(), ['a.txt', 'b.txt']);
      assert.equal(r.conflicts, []);
      assert.is(String(repo.fs.readFileSync('/wt/a.txt', 'utf8')), 'v2\n');
      assert.equal(await sh.worktrees.changes('/wt'), []);
    } finally {
      sh.close();
    }
  },
);

Sync(
  'a worktree made when the manifest was one file: it is moved into shards, and nothing looks changed that is not',
  async () => {
    const repo = await memRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'README.md': 'Hello\n' });
    // (memfs miscounts a directory's children after a rename over a file: see memfs-rename.ts)
    const sh = await openShadow({
      dir: repo.dir,
      fs: withReplacingRename(repo.ctx.fs),
      clock: repo.ctx.clock,
      ids: repo.ctx.ids,
      env: repo.ctx.env,
    });
    try {
      const { id } = await sh.worktrees.add('/wt');
      // The old layout: <id>.manifest.json, and a record without manifest_shards.
      const wtDir = '/repo/.git/shadow/worktrees';
      const m = Manifest.open(repo.ctx, '/repo/.git/shadow', { id, manifest_shards: shardsFor(3) });
      const old: Record<string, ManifestEntry> = {};
      for (const k of m.keys()) old[k] = m.get(k)!;
      repo.fs.writeFileSync(`${wtDir}/${id}.manifest.json`, JSON.stringify(old));
      for (const n of repo.fs.readdirSync(manifestDir('/repo/.git/shadow', id)) as string[])
        repo.fs.unlinkSync(`${manifestDir('/repo/.git/shadow', id)}/${n}`);
      const rec = JSON.parse(String(repo.fs.readFileSync(`${wtDir}/${id}.json`, 'utf8')));
      delete rec.manifest_shards;
      repo.fs.writeFileSync(`${wtDir}/${id}.json`, JSON.stringify(rec));

      repo.fs.unlinkSync('/wt/b.txt');
      assert.equal(await sh.worktrees.changes('/wt'), [{ path: 'b.txt', kind: 'delete' }]);
      assert.not.ok(repo.fs.existsSync(`${wtDir}/${id}.manifest.json`), 'moved into shards');
      assert.ok((await sh.write('a.txt', 'draft a\n')).success);
      const r = await sh.worktrees.sync('/wt');
      assert.equal([r.written, r.conflicts], [['a.txt'], []]);
      await sh.worktrees.remove('/wt', { force: true });
      assert.equal(repo.fs.readdirSync(wtDir), [], 'nothing of it is left');
    } finally {
      sh.close();
    }
  },
);

Sync(
  'a worktree operation waits for the lock a watch (another live process) holds, and takes over a dead one’s',
  async () => {
    const repo = await memRepo({ 'a.txt': 'a\n' });
    const alive = new Set([100, 200]);
    const procs = { self: 100, host: 'memhost', isAlive: (pid: number) => alive.has(pid) };
    const sh = await openShadow({
      dir: repo.dir,
      fs: withReplacingRename(repo.ctx.fs),
      clock: repo.ctx.clock,
      ids: repo.ctx.ids,
      env: repo.ctx.env,
      processes: procs,
    });
    try {
      const { id } = await sh.worktrees.add('/wt');
      const lock = `/repo/.git/shadow/worktrees/${id}.lock`;
      repo.fs.writeFileSync(lock, JSON.stringify({ pid: 200, host: 'memhost', since: 'now', what: 'shadow watch' }));
      assert.ok((await sh.write('a.txt', 'b\n')).success);
      const started = repo.ctx.clock.now();
      const err = await sh.worktrees.sync('/wt').then(
        () => undefined,
        (e: { code?: string }) => e,
      );
      assert.is(err?.code, 'LOCKED', 'a live holder is waited for, then named');
      assert.ok(repo.ctx.clock.now() - started >= 30_000, 'it waited');
      assert.is(
        String(repo.fs.readFileSync('/wt/a.txt', 'utf8')),
        'a\n',
        'nothing written while another held the lock',
      );
      alive.delete(200);
      const r = await sh.worktrees.sync('/wt');
      assert.equal(r.written, ['a.txt']);
      assert.not.ok(repo.fs.existsSync(lock), 'released');
    } finally {
      sh.close();
    }
  },
);

M.run();
Sync.run();
