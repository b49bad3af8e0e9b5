import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import type { Stats } from 'node:fs';
import { nodeContext, openShadow, type FileSystem } from '../src/index.js';
import { IndexView } from '../src/git/index-view.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { prng } from './helpers/prng.js';

/**
 * git's index as a stat oracle (index-view.ts): it vouches for a working
 * file only when git's own checks would call it unchanged, never for a file
 * changed behind a kept size and mtime, a racily clean entry, an entry in a
 * merge, intent-to-add, or a type or executable-bit change; and a batch's
 * first touches do not read the files it vouches for.
 */

const V = suite('index view');

const HOUR_AGO = new Date(Date.now() - 3600_000);

/** A repository whose files are older than its index (so no entry is racily clean), every file committed. */
function repoWith(files: Record<string, string>): DiskRepo {
  const repo = new DiskRepo(null);
  for (const [p, c] of Object.entries(files)) {
    repo.write(p, c);
    fs.utimesSync(repo.path(p), HOUR_AGO, HOUR_AGO);
  }
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'files');
  return repo;
}

function view(repo: DiskRepo): IndexView {
  const v = IndexView.read(fs as unknown as FileSystem, repo.path('.git/index'));
  assert.ok(v, 'the index is read');
  return v!;
}

function blob(repo: DiskRepo, path: string): { mode: string; oid: string } {
  const [mode, oid] = repo.git('ls-files', '-s', '--', path).trim().split(/\s+/);
  return { mode: mode!, oid: oid! };
}

const lstat = (repo: DiskRepo, p: string): Stats => fs.lstatSync(repo.path(p));

V(
  'every entry is found by its name (shared prefixes, "-", ".", "/", non-ASCII), and an unchanged file is vouched for',
  () => {
    const rand = prng(7);
    const parts = ['a', 'a-b', 'a.b', 'ab', 'a_b', 'b', 'é', 'z', 'Zeta', '日本'];
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) {
      const depth = 1 + Math.floor(rand() * 3);
      const p = Array.from({ length: depth }, () => parts[Math.floor(rand() * parts.length)]!).join('/') + `-${i}.txt`;
      files[p] = `file ${i}\n`;
    }
    const repo = repoWith(files);
    try {
      const v = view(repo);
      assert.is(v.size, Object.keys(files).length);
      for (const p of Object.keys(files)) {
        const b = blob(repo, p);
        assert.ok(v.vouches(p, lstat(repo, p), b.mode, b.oid, true), p);
        assert.is(v.oidOf(p, lstat(repo, p)), b.oid, p);
        assert.is(v.modeOf(p), b.mode, p);
      }
      assert.is(v.modeOf('no/such/path'), undefined);
      const any = Object.keys(files)[0]!;
      assert.not.ok(
        v.vouches(`${any}x`, lstat(repo, any), '100644', blob(repo, any).oid, true),
        'a name not in the index',
      );
      assert.not.ok(v.vouches('a', lstat(repo, any), '100644', blob(repo, any).oid, true), 'a directory name');
    } finally {
      repo.cleanup();
    }
  },
);

V('a change that keeps the size and the mtime is still seen (ctime); so is another blob, mode, inode or size', () => {
  const repo = repoWith({ 'a.txt': 'aaaa\n', 'b.txt': 'bbbb\n', 'c.sh': 'echo\n' });
  try {
    const v = view(repo);
    const a = blob(repo, 'a.txt');
    assert.ok(v.vouches('a.txt', lstat(repo, 'a.txt'), a.mode, a.oid, true));
    assert.not.ok(v.vouches('a.txt', lstat(repo, 'a.txt'), a.mode, blob(repo, 'b.txt').oid, true), 'another blob id');
    assert.not.ok(v.vouches('a.txt', lstat(repo, 'a.txt'), '100755', a.oid, true), 'another mode');
    // Same size, same mtime put back: only the ctime tells.
    fs.writeFileSync(repo.path('a.txt'), 'AAAA\n');
    fs.utimesSync(repo.path('a.txt'), HOUR_AGO, HOUR_AGO);
    assert.ok(Math.abs(lstat(repo, 'a.txt').mtimeMs - HOUR_AGO.getTime()) < 0.01, 'the mtime is put back');
    assert.not.ok(
      v.vouches('a.txt', lstat(repo, 'a.txt'), a.mode, a.oid, true),
      'content changed behind size and mtime',
    );
    // A new inode (an editor's save by rename).
    const b = blob(repo, 'b.txt');
    fs.writeFileSync(repo.path('b.tmp'), 'bbbb\n');
    fs.renameSync(repo.path('b.tmp'), repo.path('b.txt'));
    assert.not.ok(v.vouches('b.txt', lstat(repo, 'b.txt'), b.mode, b.oid, true), 'another inode');
    // The executable bit: seen when trusted (core.fileMode), not compared otherwise.
    const c = blob(repo, 'c.sh');
    const before = lstat(repo, 'c.sh');
    assert.ok(v.vouches('c.sh', before, c.mode, c.oid, true));
    const execStat = Object.assign(Object.create(Object.getPrototypeOf(before)), before, {
      mode: before.mode | 0o111,
    }) as Stats;
    assert.not.ok(v.vouches('c.sh', execStat, c.mode, c.oid, true), 'exec bit set');
    assert.ok(v.vouches('c.sh', execStat, c.mode, c.oid, false), 'exec bit not trusted');
  } finally {
    repo.cleanup();
  }
});

V('never vouched: a racily clean entry, intent-to-add, an entry in a merge, a symlink where a file was', () => {
  const repo = repoWith({ 'old.txt': 'old\n', 'conflict.txt': 'base\n', 'link-target.txt': 't\n' });
  try {
    // Racily clean: the entry is no older than the index (as a change in
    // the tick the index was written would be). git smudges such an entry
    // (size 0); the real size is put back, so only the racy rule can refuse it.
    repo.write('fresh.txt', 'fresh\n');
    const future = new Date(Date.now() + 3600_000);
    fs.utimesSync(repo.path('fresh.txt'), future, future);
    repo.git('add', 'fresh.txt');
    const fresh = blob(repo, 'fresh.txt');
    const idx = repo.path('.git/index');
    const bytes = fs.readFileSync(idx);
    const entry = bytes.indexOf('fresh.txt\0') - 62;
    bytes.writeUInt32BE(lstat(repo, 'fresh.txt').size, entry + 36);
    fs.writeFileSync(idx, bytes);
    let v = view(repo);
    assert.not.ok(v.vouches('fresh.txt', lstat(repo, 'fresh.txt'), fresh.mode, fresh.oid, true), 'racily clean');
    assert.ok(
      v.vouches('old.txt', lstat(repo, 'old.txt'), blob(repo, 'old.txt').mode, blob(repo, 'old.txt').oid, true),
      'an older entry still is',
    );

    // Intent-to-add: an index entry for a file whose content git does not have.
    repo.write('ita.txt', '');
    fs.utimesSync(repo.path('ita.txt'), HOUR_AGO, HOUR_AGO);
    repo.git('add', '-N', 'ita.txt');
    v = view(repo);
    assert.not.ok(
      v.vouches('ita.txt', lstat(repo, 'ita.txt'), '100644', 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391', true),
      'intent-to-add',
    );

    // A merge in progress: stages 1-3, no stage 0.
    repo.git('rm', '-q', '--cached', 'ita.txt');
    repo.git('checkout', '-q', '-b', 'other');
    repo.write('conflict.txt', 'other\n');
    repo.git('commit', '-q', '-am', 'other');
    repo.git('checkout', '-q', 'main');
    repo.write('conflict.txt', 'main\n');
    repo.git('commit', '-q', '-am', 'main');
    assert.is(repo.gitResult('merge', '-q', 'other').status, 1, 'the merge conflicts');
    v = view(repo);
    const stages = repo.git('ls-files', '-s', '--', 'conflict.txt').trim().split('\n');
    assert.is(stages.length, 3);
    for (const line of stages) {
      const [mode, oid] = line.split(/\s+/);
      assert.not.ok(v.vouches('conflict.txt', lstat(repo, 'conflict.txt'), mode!, oid!, true), line);
    }
    repo.git('merge', '--abort');

    // A symlink now stands where the index has a file.
    const t = blob(repo, 'link-target.txt');
    fs.unlinkSync(repo.path('link-target.txt'));
    fs.symlinkSync('old.txt', repo.path('link-target.txt'));
    v = view(repo);
    assert.not.ok(
      v.vouches('link-target.txt', lstat(repo, 'link-target.txt'), t.mode, t.oid, true),
      'a symlink, not the file',
    );
  } finally {
    repo.cleanup();
  }
});

V('an index that is not one shadow reads (another version, damaged, truncated, absent) gives no view', () => {
  const repo = repoWith({ 'a.txt': 'a\n' });
  try {
    const idx = repo.path('.git/index');
    const good = fs.readFileSync(idx);
    const read = () => IndexView.read(fs as unknown as FileSystem, idx);
    fs.writeFileSync(idx, good.subarray(0, good.length - 40));
    assert.is(read(), undefined, 'truncated inside its entries');
    const v4 = Buffer.from(good);
    v4.writeUInt32BE(4, 4);
    fs.writeFileSync(idx, v4);
    assert.is(read(), undefined, 'version 4');
    fs.writeFileSync(idx, Buffer.concat([Buffer.from('XXXX'), good.subarray(4)]));
    assert.is(read(), undefined, 'not an index');
    fs.unlinkSync(idx);
    assert.is(read(), undefined, 'absent');
  } finally {
    repo.cleanup();
  }
});

V(
  "a batch's first touches: files the index vouches for are not read; a file changed behind its size and mtime is captured",
  async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`src/f${i}.txt`] = `line ${i}\n`;
    const repo = repoWith(files);
    // The user changes one file, keeping its size and its mtime.
    fs.writeFileSync(repo.path('src/f7.txt'), 'LINE 7\n');
    fs.utimesSync(repo.path('src/f7.txt'), HOUR_AGO, HOUR_AGO);
    const base = nodeContext();
    const reads: string[] = [];
    const spy = new Proxy(base.fs, {
      get(t, k) {
        const v = (t as unknown as Record<string | symbol, unknown>)[k];
        if (k !== 'readFileSync' || typeof v !== 'function') return v;
        return (p: unknown, ...rest: unknown[]) => {
          if (typeof p === 'string' && p.startsWith(`${repo.dir}/src/`)) reads.push(p.slice(repo.dir.length + 1));
          return (v as (...a: unknown[]) => unknown).call(t, p, ...rest);
        };
      },
    });
    const sh = await openShadow({ ...base, fs: spy, dir: repo.dir });
    try {
      const ops = Object.keys(files).map((p) => ({
        operation: 'write' as const,
        path: p,
        content: `${files[p]}more\n`,
      }));
      const r = await sh.batch({ intent: 'touch all', operations: ops });
      assert.ok(r.success, JSON.stringify(r.error));
      assert.equal(r.captured, ['src/f7.txt'], "the user's change is captured first");
      assert.equal(reads, ['src/f7.txt'], 'only the file the index could not vouch for was read');
      const captureCommit = repo.git('rev-parse', `${r.commit}~1`).trim();
      assert.is(repo.git('show', `${captureCommit}:src/f7.txt`), 'LINE 7\n');
      assert.is(repo.git('show', `${r.commit}:src/f7.txt`), 'line 7\nmore\n');
      assert.is(repo.gitResult('fsck', '--strict').status, 0);
    } finally {
      sh.close();
      repo.cleanup();
    }
  },
);

V(
  'a large index is read only for enough first touches of tracked files (reading those costs less), once per handle; new paths do not count',
  async () => {
    const repo = repoWith({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    // 3,000 more tracked files (about 250 KB of index), committed, not in the working tree.
    const oid = repo.git('hash-object', '-w', 'a.txt').trim();
    const info = Array.from(
      { length: 3000 },
      (_, i) => `100644 ${oid}\tbulk/f${String(i).padStart(5, '0')}.txt\n`,
    ).join('');
    const added = spawnSync('git', ['update-index', '--index-info'], { cwd: repo.dir, env: repo.env, input: info });
    assert.is(added.status, 0, String(added.stderr));
    repo.git('commit', '-q', '-m', 'bulk');
    fs.utimesSync(repo.path('.git/index'), new Date(), new Date(Date.now() + 5000));
    const base = nodeContext();
    let indexReads = 0;
    const spy = new Proxy(base.fs, {
      get(t, k) {
        const v = (t as unknown as Record<string | symbol, unknown>)[k];
        if (k !== 'readFileSync' || typeof v !== 'function') return v;
        return (p: unknown, ...rest: unknown[]) => {
          if (p === `${repo.dir}/.git/index`) indexReads++;
          return (v as (...a: unknown[]) => unknown).call(t, p, ...rest);
        };
      },
    });
    const sh = await openShadow({ ...base, fs: spy, dir: repo.dir });
    try {
      assert.ok((await sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: 'A\n' }] })).success);
      assert.is(indexReads, 0, 'one first touch: the file is read, not 250 KB of index');
      const created = Array.from({ length: 6 }, (_, i) => ({
        operation: 'write' as const,
        path: `new/n${i}.txt`,
        content: 'n\n',
      }));
      assert.ok(
        (await sh.batch({ operations: [...created, { operation: 'write', path: 'c.txt', content: 'C\n' }] })).success,
      );
      assert.is(indexReads, 0, 'six new paths and one tracked file: nothing the index could vouch for but one file');
      const many = Array.from({ length: 3 }, (_, i) => ({
        operation: 'write' as const,
        path: `bulk/f${String(i).padStart(5, '0')}.txt`,
        content: 'x\n',
      }));
      assert.ok(
        (await sh.batch({ operations: [...many, { operation: 'write', path: 'b.txt', content: 'B\n' }] })).success,
      );
      assert.is(indexReads, 1, 'four first touches of tracked files: the index is read');
      assert.ok(
        (await sh.batch({ operations: [{ operation: 'write', path: 'bulk/f00009.txt', content: 'y\n' }] })).success,
      );
      assert.is(indexReads, 1, 'kept for the handle while the file is the same');
    } finally {
      sh.close();
      repo.cleanup();
    }
  },
);

V.run();
