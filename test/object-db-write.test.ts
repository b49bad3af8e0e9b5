import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeContext } from '../src/node-context.js';
import { ObjectDatabase } from '../src/git/object-db.js';
import { PackIndex } from '../src/git/pack-reader.js';
import { buildPack, type PackObject } from '../src/git/format/pack-writer.js';
import { MODE, serializeCommit, serializeTag, serializeTree, type Signature } from '../src/git/format/git-objects.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { noise, obj, objectsDir, packs, verifyPack } from './helpers/object-store.js';

/*
 * ObjectDatabase.write: packs that native git verifies, fscks and reads.
 */

const SIG: Signature = { name: 'Shadow Test', email: 'shadow@example.com', timestamp: 1795348800, tzOffset: 60 };

// ---------------------------------------------------------------- writing

const Write = suite<{ repo: DiskRepo }>('ObjectDatabase.write');
Write.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n' });
});
Write.after.each((ctx) => ctx.repo.cleanup());

Write('a blob, trees, a commit and a tag as one pack that git verifies, fscks and reads', ({ repo }) => {
  const ctx = nodeContext();
  const db = new ObjectDatabase(ctx, objectsDir(repo));
  const head = repo.git('rev-parse', 'HEAD').trim();
  const readme = repo.git('rev-parse', 'HEAD:README.md').trim();
  const blob = obj('blob', 'written by shadow\n');
  const binary = obj('blob', noise('binary', 70_000));
  const sub = obj('tree', serializeTree([{ mode: MODE.file, name: 'data.bin', oid: binary.oid }]));
  const tree = obj(
    'tree',
    serializeTree([
      { mode: MODE.file, name: 'README.md', oid: readme },
      { mode: MODE.executable, name: 'new.sh', oid: blob.oid },
      { mode: MODE.tree, name: 'sub', oid: sub.oid },
    ]),
  );
  const commit = obj(
    'commit',
    serializeCommit({
      tree: tree.oid,
      parents: [head],
      author: SIG,
      committer: SIG,
      message: 'written by shadow\n\nShadow-Batch: 1\n',
    }),
  );
  const tag = obj(
    'tag',
    serializeTag({ object: commit.oid, type: 'commit', tag: 'cp-1', tagger: SIG, message: 'checkpoint\n' }),
  );
  const written = [blob, binary, sub, tree, commit, tag];
  db.write([...written, blob]); // a duplicate is stored once
  assert.equal(db.stats, { objectsRead: 0, objectsWritten: 6, packsWritten: 1 }); // the duplicate is not counted twice

  const [idx] = packs(repo);
  assert.ok(idx && packs(repo).length === 1);
  const entries = verifyPack(repo, idx);
  assert.equal(entries.map((e) => e.oid).sort(), written.map((o) => o.oid).sort());
  for (const o of written) assert.is(entries.find((e) => e.oid === o.oid)!.type, o.type);
  const name = /pack-([0-9a-f]{40})\.idx$/.exec(idx)![1]!;
  const packBytes = readFileSync(idx.replace(/\.idx$/, '.pack'));
  assert.is(createHash('sha1').update(packBytes.subarray(0, -20)).digest('hex'), name);
  assert.is(readdirSync(join(objectsDir(repo), 'pack')).filter((n) => n.startsWith('tmp_')).length, 0);

  repo.git('update-ref', 'refs/heads/written', commit.oid);
  repo.git('update-ref', 'refs/tags/cp-1', tag.oid);
  repo.git('fsck', '--strict', '--no-progress', '--no-dangling');
  for (const o of written) {
    const r = spawnSync('git', ['cat-file', o.type, o.oid], { cwd: repo.dir, env: repo.env });
    assert.is(r.status, 0, `git cat-file ${o.oid}`);
    assert.ok(r.stdout.equals(o.content), `content of ${o.type} ${o.oid}`);
  }
  assert.is(repo.git('show', 'written:sub/data.bin').length > 0, true);
  assert.is(repo.git('log', '--format=%s', '-1', 'written'), 'written by shadow\n');
  assert.is(repo.git('cat-file', '-p', 'cp-1^{commit}:new.sh'), 'written by shadow\n');
  assert.match(repo.git('ls-tree', 'written'), `100755 blob ${blob.oid}\tnew.sh`);

  // The same handle and a fresh one read them back.
  for (const reader of [db, new ObjectDatabase(ctx, objectsDir(repo))]) {
    for (const o of written) {
      const got = reader.read(o.oid);
      assert.is(got.type, o.type);
      assert.ok(got.content.equals(o.content));
    }
  }
});

Write('an empty list writes nothing', ({ repo }) => {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  db.write([]);
  assert.equal(packs(repo), []);
  assert.is(db.stats.packsWritten, 0);
});

Write('a pack of more than 256 objects filling every fan-out bucket', ({ repo }) => {
  const objects: PackObject[] = [];
  const buckets = new Set<number>();
  for (let i = 0; buckets.size < 256; i++) {
    const o = obj('blob', `object number ${i}\n`);
    objects.push(o);
    buckets.add(parseInt(o.oid.slice(0, 2), 16));
  }
  assert.ok(objects.length > 256);
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  db.write(objects);
  const [idx] = packs(repo);
  const entries = verifyPack(repo, idx!);
  assert.is(entries.length, objects.length);

  // The fan-out table counts every bucket, as git's index does.
  const idxBytes = readFileSync(idx!);
  assert.is(idxBytes.readUInt32BE(0), 0xff744f63);
  assert.is(idxBytes.readUInt32BE(4), 2);
  for (let b = 0; b < 256; b++) {
    const expected = objects.filter((o) => parseInt(o.oid.slice(0, 2), 16) <= b).length;
    assert.is(idxBytes.readUInt32BE(8 + b * 4), expected, `fan-out[${b}]`);
  }
  assert.equal(new PackIndex(nodeContext().fs, idx!).allIds(), objects.map((o) => o.oid).sort());

  const check = spawnSync('git', ['cat-file', '--batch-check'], {
    cwd: repo.dir,
    env: repo.env,
    input: objects.map((o) => o.oid).join('\n') + '\n',
    encoding: 'utf8',
  });
  assert.equal(
    check.stdout.trim().split('\n'),
    objects.map((o) => `${o.oid} blob ${o.content.length}`),
  );
  repo.git('fsck', '--strict', '--no-progress', '--no-dangling');

  const fresh = new ObjectDatabase(nodeContext(), objectsDir(repo));
  for (const o of objects) assert.ok(fresh.read(o.oid).content.equals(o.content), o.oid);
  fresh.close();
});

Write(
  "a large index (not read whole): each first byte's ids and offsets are read once, then lookups cost only the object's own read (none when a read window holds it)",
  ({ repo }) => {
    // 10,000 objects: an index of 281 KB, over the size read whole.
    const objects = Array.from({ length: 10_000 }, (_, i) => obj('blob', `object ${i}\n`));
    new ObjectDatabase(nodeContext(), objectsDir(repo)).write(objects);
    const [idx] = packs(repo);
    assert.ok(readFileSync(idx!).length > 256 * 1024);
    const fs = nodeContext().fs;
    const reads = { idx: 0, pack: 0 };
    const kinds = new Map<number, 'idx' | 'pack'>();
    const counting = {
      ...fs,
      openSync: (path: string, ...rest: unknown[]) => {
        const fd = (fs.openSync as (...a: unknown[]) => number)(path, ...rest);
        kinds.set(fd, String(path).endsWith('.idx') ? 'idx' : 'pack');
        return fd;
      },
      readSync: (fd: number, ...rest: unknown[]) => {
        const kind = kinds.get(fd);
        if (kind) reads[kind]++;
        return (fs.readSync as (...a: unknown[]) => number)(fd, ...rest);
      },
    } as typeof fs;
    const index = new PackIndex(counting, idx!);
    // Objects whose ids share their first byte: one bucket.
    const bucket = objects.filter((o) => o.oid.startsWith('5c'));
    assert.ok(bucket.length > 20, `${bucket.length} objects in the bucket`);
    const missing = (): never => assert.unreachable('no external base') as never;
    for (const o of bucket) assert.ok(index.readObject(o.oid, missing)!.content.equals(Buffer.from(o.content)), o.oid);
    // The head (fan-out), then the bucket's ids and its offsets: three reads of the index in all;
    // of the pack, one per 64 KB window the bucket's objects fall in (10,000 objects of ~30 bytes: a few).
    assert.is(reads.idx, 3);
    assert.ok(reads.pack >= 1 && reads.pack <= Math.ceil(bucket.length / 2), `${reads.pack} reads of the pack`);
    for (const o of objects.filter((x) => x.oid.startsWith('a7')))
      assert.ok(index.readObject(o.oid, missing)!.content.equals(Buffer.from(o.content)));
    assert.is(reads.idx, 5, 'another bucket: two more reads');
    index.close();
    // A truncated index is reported as corrupt, never read past.
    const bytes = readFileSync(idx!);
    writeFileSync(idx!, bytes.subarray(0, 8 + 1024 + 10_000 * 24 + 100));
    const cut = new PackIndex(fs, idx!);
    const late = objects.find((o) => o.oid.startsWith('f0'))!;
    try {
      cut.readObject(late.oid, missing);
      assert.unreachable('read from a truncated index');
    } catch (e) {
      assert.is((e as { code?: string }).code, 'CORRUPT_OBJECT');
    }
    cut.close();
  },
);

Write('buildPack is deterministic and its checksum names the pack', () => {
  const list = [obj('blob', 'a\n'), obj('blob', 'b\n'), obj('tree', serializeTree([]))];
  const one = buildPack(list);
  const two = buildPack(list);
  assert.is(one.checksum, two.checksum);
  const pack = Buffer.concat(one.pack);
  assert.ok(pack.equals(Buffer.concat(two.pack)) && one.idx.equals(two.idx));
  assert.is(pack.toString('latin1', 0, 4), 'PACK');
  assert.is(pack.readUInt32BE(8), 3);
  assert.is(pack.subarray(-20).toString('hex'), one.checksum);
  assert.is(one.idx.subarray(-40, -20).toString('hex'), one.checksum);
  assert.is(createHash('sha1').update(one.idx.subarray(0, -20)).digest('hex'), one.idx.subarray(-20).toString('hex'));
});

Write.run();
