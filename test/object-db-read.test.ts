import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  symlinkSync,
  openSync,
  readFileSync,
  readSync,
  closeSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { nodeContext } from '../src/node-context.js';
import { ObjectDatabase } from '../src/git/object-db.js';
import { EMPTY_TREE_OID, hashObject, type ObjectType } from '../src/git/format/git-objects.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { looseCount, noise, objectsDir, packs, verifyPack } from './helpers/object-store.js';

/*
 * ObjectDatabase reads what native git wrote: loose objects, packs of every
 * kind of repack, alternates, corrupt and missing objects.
 */

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
  const r = spawnSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
    cwd: repo.dir,
    env: repo.env,
    maxBuffer: 1 << 30,
  });
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
  {
    what: 'git repack -adf --depth=50 (OFS_DELTA chains)',
    args: ['repack', '-adfq', '--depth=50', '--window=50'],
    deltaType: 6,
  },
  {
    what: 'git gc --aggressive (OFS_DELTA chains)',
    args: ['gc', '--aggressive', '--quiet', '--prune=now'],
    deltaType: 6,
  },
  {
    what: 'git repack without delta base offsets (REF_DELTA)',
    args: ['-c', 'repack.useDeltaBaseOffset=false', 'repack', '-adfq', '--depth=50', '--window=50'],
    deltaType: 7,
  },
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

Read(
  'a small object is read from its pack in one read at most (neighbours in the same 64 KB window in none); a large incompressible one, and the last object of the pack, still whole',
  ({ repo }) => {
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
      assert.ok(packReads.length - before <= 1, `one read at most for small/s${i}.txt`);
    }
    assert.ok(packReads.length < 20, `${packReads.length} reads of the pack for twenty small objects`);
    const noiseBlob = db.readBlob(repo.git('rev-parse', 'HEAD:noise.bin').trim());
    assert.ok(noiseBlob.equals(Buffer.concat(big)));
    db.close();
    assertReadsAll(repo, expected);
  },
);

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
  const ls = repo
    .git('ls-tree', 'HEAD')
    .trim()
    .split('\n')
    .map((l) => {
      const [meta, name] = l.split('\t');
      const [mode, , oid] = meta!.split(' ');
      return { mode: mode === '040000' ? '40000' : mode, name, oid };
    });
  assert.equal(
    db.readTree(commit.tree).map((e) => ({ mode: e.mode, name: e.name, oid: e.oid })),
    ls,
  );
  const tag = db.readTag(repo.git('rev-parse', 'v1').trim());
  assert.is(tag.object, repo.git('rev-parse', 'v1^{commit}').trim());
  assert.is(tag.type, 'commit');
  assert.is(tag.tag, 'v1');
  assert.is(tag.message, 'release one\n');
  const big = db.readBlob(repo.git('rev-parse', 'HEAD:big.txt').trim());
  assert.ok(
    big.equals(spawnSync('git', ['cat-file', 'blob', 'HEAD:big.txt'], { cwd: repo.dir, env: repo.env }).stdout),
  );
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

process.on('exit', () => template?.cleanup());
