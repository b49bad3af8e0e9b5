import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, symlinkSync, openSync, readFileSync, readSync, closeSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { nodeContext } from '../src/node-context.js';
import { ObjectDatabase } from '../src/git/object-db.js';
import { PackIndex } from '../src/git/pack-reader.js';
import { buildPack, type PackObject } from '../src/git/format/pack-writer.js';
import {
  EMPTY_TREE_OID,
  hashObject,
  MODE,
  serializeCommit,
  serializeTag,
  serializeTree,
  type ObjectType,
  type Signature,
} from '../src/git/format/git-objects.js';
import { DiskRepo } from './helpers/disk-repo.js';

// ---------------------------------------------------------------- fixtures

/** Deterministic pseudo-random bytes (incompressible content). */
function noise(seed: string, length: number): Buffer {
  const parts: Buffer[] = [];
  let block = createHash('sha256').update(seed).digest();
  let n = 0;
  while (n < length) {
    parts.push(block);
    n += block.length;
    block = createHash('sha256').update(block).digest();
  }
  return Buffer.concat(parts).subarray(0, length);
}

/**
 * A history whose files change a little in every commit, so that a repack
 * stores most versions as deltas: a 100 KB text (copies from offsets past 64 KB),
 * a 96 KB incompressible file, a 256 KB compressible file, small sources, a
 * symlink, an executable and an annotated tag.
 */
function buildHistory(repo: DiskRepo): void {
  const lines = Array.from({ length: 1200 }, (_, i) => `line ${i}: ${'lorem ipsum dolor '.repeat(4)}`);
  const bin = noise('bin', 96 * 1024);
  for (let k = 0; k < 16; k++) {
    for (let j = 0; j < 5; j++) lines[(k * 613 + j * 97) % lines.length] = `changed in ${k}.${j}`;
    lines.push(`appended ${k}`);
    repo.write('big.txt', `${lines.join('\n')}\n`);
    repo.write(`src/mod${k % 4}.ts`, `export const version = ${k};\n${'// filler\n'.repeat(k + 1)}`);
    if (k === 2) {
      repo.write('random.bin', bin);
      repo.write('zeros.bin', Buffer.alloc(256 * 1024, 'abc'));
      repo.write('run.sh', '#!/bin/sh\necho hi\n');
      chmodSync(repo.path('run.sh'), 0o755);
      symlinkSync('big.txt', repo.path('link'));
    }
    if (k === 9) {
      bin[5000] = bin[5000]! ^ 0xff;
      repo.write('random.bin', Buffer.concat([bin, Buffer.from('tail')]));
    }
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', `commit ${k}\n\nbody of ${k}`);
    if (k === 12) repo.git('tag', '-a', 'v1', '-m', 'release one');
  }
}

let template: DiskRepo | undefined;
function templateRepo(): DiskRepo {
  if (!template) {
    template = new DiskRepo(null);
    buildHistory(template);
    rmSync(template.path('.git/hooks'), { recursive: true, force: true });
  }
  return template;
}

/** A fresh copy of the history (all objects loose). */
function freshRepo(): DiskRepo {
  const t = templateRepo();
  const repo = new DiskRepo(null);
  rmSync(repo.path('.git'), { recursive: true, force: true });
  cpSync(t.path('.git'), repo.path('.git'), { recursive: true });
  return repo;
}

interface GitObject {
  oid: string;
  type: ObjectType;
  content: Buffer;
}

/** Every object of the repository as native git reads it (`cat-file --batch-all-objects --batch`). */
function allObjects(repo: DiskRepo): GitObject[] {
  const r = spawnSync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: repo.dir, env: repo.env, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`git cat-file: ${r.stderr}`);
  const out: GitObject[] = [];
  const buf = r.stdout;
  let p = 0;
  while (p < buf.length) {
    const nl = buf.indexOf(10, p);
    const [oid, type, size] = buf.toString('latin1', p, nl).split(' ');
    const start = nl + 1;
    out.push({ oid: oid!, type: type as ObjectType, content: Buffer.from(buf.subarray(start, start + Number(size))) });
    p = start + Number(size) + 1;
  }
  return out;
}

function objectsDir(repo: DiskRepo): string {
  return join(repo.dir, '.git', 'objects');
}

function packs(repo: DiskRepo): string[] {
  const dir = join(objectsDir(repo), 'pack');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.idx')).map((n) => join(dir, n)) : [];
}

function looseCount(repo: DiskRepo): number {
  return readdirSync(objectsDir(repo)).filter((d) => /^[0-9a-f]{2}$/.test(d)).reduce((n, d) => n + readdirSync(join(objectsDir(repo), d)).length, 0);
}

interface VerifyEntry {
  oid: string;
  type: string;
  offset: number;
  depth: number;
}

/** `git verify-pack -v`, parsed; throws when git finds the pack bad. */
function verifyPack(repo: DiskRepo, idx: string): VerifyEntry[] {
  const out = repo.git('verify-pack', '-v', idx);
  assert.match(out, /: ok\n$/);
  const entries: VerifyEntry[] = [];
  for (const line of out.split('\n')) {
    const m = /^([0-9a-f]{40}) (\w+)\s+\d+ \d+ (\d+)(?: (\d+) [0-9a-f]{40})?$/.exec(line);
    if (m) entries.push({ oid: m[1]!, type: m[2]!, offset: Number(m[3]), depth: m[4] ? Number(m[4]) : 0 });
  }
  return entries;
}

/** The type code (1–4 whole, 6 OFS_DELTA, 7 REF_DELTA) stored in the pack at `offset`. */
function packTypeAt(packPath: string, offset: number): number {
  const fd = openSync(packPath, 'r');
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, offset);
  closeSync(fd);
  return (b[0]! >> 4) & 7;
}

/** Read every object through a fresh handle and compare with git; returns how many were compared. */
function assertReadsAll(repo: DiskRepo, expected: GitObject[]): number {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  const wrong: string[] = [];
  for (const o of expected) {
    const got = db.read(o.oid);
    if (got.type !== o.type || !got.content.equals(o.content)) wrong.push(`${o.oid} (${o.type})`);
    if (hashObject(got.type, got.content) !== o.oid) wrong.push(`${o.oid} hashes differently`);
  }
  db.close();
  assert.equal(wrong, []);
  return expected.length;
}

const SIG: Signature = { name: 'Shadow Test', email: 'shadow@example.com', timestamp: 1795348800, tzOffset: 60 };

function obj(type: ObjectType, content: Buffer | string): PackObject {
  const c = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return { oid: hashObject(type, c), type, content: c };
}

// ---------------------------------------------------------------- reading

const Read = suite<{ repo: DiskRepo }>('ObjectDatabase reads');
Read.before.each((ctx) => {
  ctx.repo = freshRepo();
});
Read.after.each((ctx) => ctx.repo.cleanup());

Read('every loose object, byte for byte as git cat-file has it', ({ repo }) => {
  assert.is(packs(repo).length, 0);
  const expected = allObjects(repo);
  assert.ok(expected.length > 60, `only ${expected.length} objects`);
  assert.is(looseCount(repo), expected.length);
  assert.is(assertReadsAll(repo, expected), expected.length);
});

const REPACKS: Array<{ what: string; args: string[]; deltaType: number }> = [
  { what: 'git repack -adf --depth=50 (OFS_DELTA chains)', args: ['repack', '-adfq', '--depth=50', '--window=50'], deltaType: 6 },
  { what: 'git gc --aggressive (OFS_DELTA chains)', args: ['gc', '--aggressive', '--quiet', '--prune=now'], deltaType: 6 },
  { what: 'git repack without delta base offsets (REF_DELTA)', args: ['-c', 'repack.useDeltaBaseOffset=false', 'repack', '-adfq', '--depth=50', '--window=50'], deltaType: 7 },
];

for (const r of REPACKS) {
  Read(`every object of a pack made by ${r.what}`, ({ repo }) => {
    const expected = allObjects(repo);
    repo.git(...r.args);
    assert.is(looseCount(repo), 0);
    const [idx] = packs(repo);
    assert.ok(idx && packs(repo).length === 1);
    const entries = verifyPack(repo, idx);
    assert.is(entries.length, expected.length);
    // The fixture really exercises the delta kind and deep chains.
    const deltas = entries.filter((e) => e.depth > 0);
    assert.ok(deltas.length > 30, `${deltas.length} deltas`);
    assert.ok(Math.max(...deltas.map((e) => e.depth)) >= 10, 'a delta chain of depth >= 10');
    const packPath = idx.replace(/\.idx$/, '.pack');
    for (const e of deltas) assert.is(packTypeAt(packPath, e.offset), r.deltaType, `type of ${e.oid}`);
    assert.is(assertReadsAll(repo, expected), expected.length);
  });
}

Read('a small object is read from its pack in one read; a large incompressible one, and the last object of the pack, still whole', ({ repo }) => {
  const noise = createHash('sha256');
  const big: Buffer[] = [];
  for (let i = 0; i < 2048; i++) big.push(noise.copy().update(String(i)).digest());
  repo.write('noise.bin', Buffer.concat(big)); // 64 KB that deflate cannot shrink
  for (let i = 0; i < 20; i++) repo.write(`small/s${i}.txt`, `small file ${i}\n`);
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'small and big');
  repo.git('repack', '-adfq');
  const expected = allObjects(repo);
  const ctx = nodeContext();
  const fs = ctx.fs;
  const packReads: number[] = [];
  const packFds = new Set<number>();
  const counting = {
    ...fs,
    openSync: (path: string, ...rest: unknown[]) => {
      const fd = (fs.openSync as (...a: unknown[]) => number)(path, ...rest);
      if (String(path).endsWith('.pack')) packFds.add(fd);
      return fd;
    },
    readSync: (fd: number, ...rest: unknown[]) => {
      if (packFds.has(fd)) packReads.push(fd);
      return (fs.readSync as (...a: unknown[]) => number)(fd, ...rest);
    },
  } as typeof fs;
  const db = new ObjectDatabase({ ...ctx, fs: counting }, objectsDir(repo));
  for (let i = 0; i < 20; i++) {
    const oid = repo.git('rev-parse', `HEAD:small/s${i}.txt`).trim();
    const before = packReads.length;
    assert.is(db.readBlob(oid).toString(), `small file ${i}\n`);
    assert.is(packReads.length - before, 1, `one read for small/s${i}.txt`);
  }
  const noiseBlob = db.readBlob(repo.git('rev-parse', 'HEAD:noise.bin').trim());
  assert.ok(noiseBlob.equals(Buffer.concat(big)));
  db.close();
  assertReadsAll(repo, expected);
});

Read('objects split between a pack and loose files', ({ repo }) => {
  repo.git('repack', '-adq');
  repo.write('after-repack.txt', 'only loose\n');
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'after the repack');
  assert.ok(looseCount(repo) >= 3);
  const expected = allObjects(repo);
  assertReadsAll(repo, expected);
});

Read('readCommit, readTree, readTag and readBlob parse what git wrote', ({ repo }) => {
  repo.git('repack', '-adq');
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  const head = repo.git('rev-parse', 'HEAD').trim();
  const commit = db.readCommit(head);
  assert.is(commit.tree, repo.git('rev-parse', 'HEAD^{tree}').trim());
  assert.equal(commit.parents, [repo.git('rev-parse', 'HEAD~1').trim()]);
  assert.is(commit.message, 'commit 15\n\nbody of 15\n');
  assert.is(commit.author.name, 'Test User');
  const ls = repo.git('ls-tree', 'HEAD').trim().split('\n').map((l) => {
    const [meta, name] = l.split('\t');
    const [mode, , oid] = meta!.split(' ');
    return { mode: mode === '040000' ? '40000' : mode, name, oid };
  });
  assert.equal(db.readTree(commit.tree).map((e) => ({ mode: e.mode, name: e.name, oid: e.oid })), ls);
  const tag = db.readTag(repo.git('rev-parse', 'v1').trim());
  assert.is(tag.object, repo.git('rev-parse', 'v1^{commit}').trim());
  assert.is(tag.type, 'commit');
  assert.is(tag.tag, 'v1');
  assert.is(tag.message, 'release one\n');
  const big = db.readBlob(repo.git('rev-parse', 'HEAD:big.txt').trim());
  assert.ok(big.equals(spawnSync('git', ['cat-file', 'blob', 'HEAD:big.txt'], { cwd: repo.dir, env: repo.env }).stdout));
  assert.match(big.toString('utf8'), /\nappended 15\n$/);
  try {
    db.readBlob(head);
    assert.unreachable();
  } catch (e) {
    assert.is((e as { code?: string }).code, 'CORRUPT_OBJECT');
    assert.match((e as Error).message, 'is a commit, expected a blob');
  }
  db.close();
});

Read('an absent id is OBJECT_MISSING, with the id in the message and data', ({ repo }) => {
  repo.git('repack', '-adq');
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  const absent = hashObject('blob', Buffer.from('never written\n'));
  for (const oid of [absent, '0000000000000000000000000000000000000001', 'ffffffffffffffffffffffffffffffffffffffff']) {
    assert.is(db.has(oid), false);
    try {
      db.read(oid);
      assert.unreachable();
    } catch (e) {
      const err = e as { code?: string; message: string; data?: { oid?: string }; hint?: string };
      assert.is(err.code, 'OBJECT_MISSING');
      assert.match(err.message, oid);
      assert.is(err.data?.oid, oid);
      assert.match(err.hint ?? '', 'git fsck');
    }
  }
  // The empty tree exists in every repository, written or not.
  assert.equal(db.readTree(EMPTY_TREE_OID), []);
  db.close();
});

Read('a corrupt loose object is CORRUPT_OBJECT', ({ repo }) => {
  const head = repo.git('rev-parse', 'HEAD').trim();
  const file = join(objectsDir(repo), head.slice(0, 2), head.slice(2));
  unlinkSync(file);
  writeFileSync(file, 'not zlib at all');
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  try {
    db.read(head);
    assert.unreachable();
  } catch (e) {
    assert.is((e as { code?: string }).code, 'CORRUPT_OBJECT');
    assert.match((e as Error).message, head);
  }
});

Read('a concurrent git repack -ad deletes the pack the handle knew: reads still work', ({ repo }) => {
  repo.git('repack', '-adq');
  const [oldIdx] = packs(repo);
  const before = allObjects(repo);
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  // The handle opens the old pack's index (a miss reads every index) ...
  assert.is(db.has(hashObject('blob', Buffer.from('absent\n'))), false);
  // ... then another process commits and repacks everything into a new pack.
  repo.write('new.txt', 'written after the handle opened\n');
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'concurrent commit');
  repo.git('repack', '-adq');
  assert.is(existsSync(oldIdx!), false, 'the old pack is gone');
  assert.is(packs(repo).length, 1);
  const after = allObjects(repo);
  const fresh = after.filter((o) => !before.some((b) => b.oid === o.oid));
  assert.is(fresh.length, 3); // blob, tree, commit
  for (const o of [...before, ...fresh]) {
    const got = db.read(o.oid);
    assert.is(got.type, o.type);
    assert.ok(got.content.equals(o.content), o.oid);
  }
  db.close();
});

Read('alternates: a `git clone --shared` reads the objects of the repository it borrows from', ({ repo }) => {
  repo.git('repack', '-adq');
  const clonePath = join(repo.root, 'clone');
  repo.git('clone', '-q', '--shared', repo.dir, clonePath);
  const clone = new DiskRepo(null);
  rmSync(clone.dir, { recursive: true, force: true });
  cpSync(clonePath, clone.dir, { recursive: true });
  try {
    assert.match(readFileSync(join(objectsDir(clone), 'info', 'alternates'), 'utf8'), objectsDir(repo));
    clone.git('config', 'user.name', 'Clone User');
    clone.git('config', 'user.email', 'clone@example.com');
    clone.write('clone-only.txt', 'only in the clone\n');
    clone.git('add', '-A');
    clone.git('commit', '-q', '-m', 'in the clone');
    const own = clone.git('rev-parse', 'HEAD').trim();
    const expected = allObjects(clone);
    assert.ok(expected.length > allObjects(repo).length);
    assertReadsAll(clone, expected);
    // A relative alternates path is relative to the objects directory.
    writeFileSync(join(objectsDir(clone), 'info', 'alternates'), `${relative(objectsDir(clone), objectsDir(repo))}\n`);
    assert.is(clone.git('cat-file', '-t', repo.git('rev-parse', 'HEAD').trim()), 'commit\n');
    assertReadsAll(clone, expected);
    const db = new ObjectDatabase(nodeContext(), objectsDir(clone));
    const borrowed = repo.git('rev-parse', 'HEAD:big.txt').trim();
    assert.equal(db.expandPrefix(borrowed.slice(0, 12)), [borrowed]);
    assert.equal(db.expandPrefix(own.slice(0, 12)), [own]);
    db.close();
  } finally {
    clone.cleanup();
  }
});

Read.run();

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
  const commit = obj('commit', serializeCommit({ tree: tree.oid, parents: [head], author: SIG, committer: SIG, message: 'written by shadow\n\nShadow-Batch: 1\n' }));
  const tag = obj('tag', serializeTag({ object: commit.oid, type: 'commit', tag: 'cp-1', tagger: SIG, message: 'checkpoint\n' }));
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

  const check = spawnSync('git', ['cat-file', '--batch-check'], { cwd: repo.dir, env: repo.env, input: objects.map((o) => o.oid).join('\n') + '\n', encoding: 'utf8' });
  assert.equal(check.stdout.trim().split('\n'), objects.map((o) => `${o.oid} blob ${o.content.length}`));
  repo.git('fsck', '--strict', '--no-progress', '--no-dangling');

  const fresh = new ObjectDatabase(nodeContext(), objectsDir(repo));
  for (const o of objects) assert.ok(fresh.read(o.oid).content.equals(o.content), o.oid);
  fresh.close();
});

Write('a large index (not read whole): each first byte\'s ids and offsets are read once, then lookups cost only the object\'s own read', ({ repo }) => {
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
  // The head (fan-out), then the bucket's ids and its offsets: three reads of the index in all.
  assert.equal(reads, { idx: 3, pack: bucket.length });
  for (const o of objects.filter((x) => x.oid.startsWith('a7'))) assert.ok(index.readObject(o.oid, missing)!.content.equals(Buffer.from(o.content)));
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
});

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

// ---------------------------------------------------------------- abbreviated ids

/** Ids of every object, as git lists them. */
function allIds(repo: DiskRepo): string[] {
  return repo.git('cat-file', '--batch-all-objects', '--batch-check=%(objectname)').trim().split('\n');
}

/** A prefix of `length` hex digits shared by at least two of `ids`. */
function sharedPrefix(ids: string[], length: number): string {
  const seen = new Set<string>();
  for (const id of ids) {
    const p = id.slice(0, length);
    if (seen.has(p)) return p;
    seen.add(p);
  }
  throw new Error(`no two ids share ${length} digits`);
}

const Prefix = suite<{ repo: DiskRepo; ids: string[] }>('ObjectDatabase.expandPrefix');
const PACKED = Array.from({ length: 1000 }, (_, i) => obj('blob', `packed ${i}\n`));
const LOOSE = Array.from({ length: 200 }, (_, i) => obj('blob', `loose ${i}\n`));

Prefix.before.each((ctx) => {
  // Many objects, most in a pack (indexed by git index-pack) and some loose
  // (written by git unpack-objects), so that short prefixes collide.
  ctx.repo = new DiskRepo(null);
  for (const [args, objects] of [
    [['index-pack', '--stdin'], PACKED],
    [['unpack-objects', '-q'], LOOSE],
  ] as const) {
    const r = spawnSync('git', args, { cwd: ctx.repo.dir, env: ctx.repo.env, input: Buffer.concat(buildPack(objects).pack) });
    assert.is(r.status, 0, String(r.stderr));
  }
  ctx.ids = allIds(ctx.repo);
  assert.is(ctx.ids.length, PACKED.length + LOOSE.length);
  assert.is(looseCount(ctx.repo), LOOSE.length);
});
Prefix.after.each((ctx) => ctx.repo.cleanup());

Prefix('a unique abbreviation expands to its one id (packed and loose)', ({ repo, ids }) => {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  const packedId = hashObject('blob', Buffer.from('packed 7\n'));
  const looseId = hashObject('blob', Buffer.from('loose 7\n'));
  for (const id of [packedId, looseId]) {
    const unique = [7, 8, 10, 12].map((n) => id.slice(0, n)).find((p) => ids.filter((x) => x.startsWith(p)).length === 1)!;
    assert.equal(db.expandPrefix(unique), [id]);
    assert.is(repo.git('rev-parse', '--disambiguate=' + unique).trim(), id);
    assert.equal(db.expandPrefix(id), [id]);
  }
});

Prefix('an ambiguous abbreviation finds every candidate, as git rev-parse --disambiguate does', ({ repo, ids }) => {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  const prefix = sharedPrefix(ids, 4);
  const git = repo.git('rev-parse', `--disambiguate=${prefix}`).trim().split('\n').sort();
  assert.ok(git.length >= 2);
  assert.equal(db.expandPrefix(prefix, 1000).sort(), git, `prefix ${prefix}`);
  // The default limit still tells ambiguous from unique.
  assert.is(db.expandPrefix(prefix).length, 2);
});

Prefix('a prefix shared by a packed and a loose object finds both', ({ repo }) => {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  const packed = PACKED.map((o) => o.oid);
  const loose = LOOSE.map((o) => o.oid);
  let prefix = '';
  for (const p of packed) {
    const l = loose.find((x) => x.slice(0, 4) === p.slice(0, 4));
    if (l) {
      prefix = p.slice(0, 4);
      break;
    }
  }
  assert.is(prefix.length, 4, 'the fixture has a packed and a loose id sharing 4 digits');
  const expected = [...packed, ...loose].filter((id) => id.startsWith(prefix)).sort();
  assert.equal(db.expandPrefix(prefix, 100).sort(), expected);
  assert.equal(repo.git('rev-parse', `--disambiguate=${prefix}`).trim().split('\n').sort(), expected);
});

Prefix('short prefixes of 1 to 3 digits, across packed and loose objects', ({ repo, ids }) => {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  for (const prefix of ['a', '7', 'f', '0c', 'e3', '5a1', ids[0]!.slice(0, 3)]) {
    const expected = ids.filter((id) => id.startsWith(prefix)).sort();
    assert.equal(db.expandPrefix(prefix, 10_000).sort(), expected, `prefix ${prefix}`);
  }
});

Prefix('every object of a pack indexed by git index-pack, and the loose ones, reads back', ({ repo }) => {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  for (const o of [...PACKED, ...LOOSE]) {
    const got = db.read(o.oid);
    assert.is(got.type, 'blob');
    assert.ok(got.content.equals(o.content), o.oid);
  }
  assert.equal(packs(repo).map((idx) => new PackIndex(nodeContext().fs, idx).size()), [PACKED.length]);
  db.close();
});

Prefix('a prefix no object has expands to nothing', ({ repo, ids }) => {
  const db = new ObjectDatabase(nodeContext(), objectsDir(repo));
  let prefix = '';
  for (let n = 0; ; n++) {
    prefix = n.toString(16).padStart(6, '0');
    if (!ids.some((id) => id.startsWith(prefix))) break;
  }
  assert.equal(db.expandPrefix(prefix), []);
});

Prefix.run();

process.on('exit', () => template?.cleanup());
