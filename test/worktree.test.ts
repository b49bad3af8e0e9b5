import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { MARKER, openShadow, type RecordResult, type Shadow, type ShadowError, type SyncResult, type WatchHandle } from '../src/index.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';

/*
 * Materialized worktrees on real directories: `sh.worktrees` in-process
 * (add, sync, record, changes, list, remove, watch with chokidar) and the
 * CLI (`shadow worktree …`, `shadow watch`, `shadow exec`). Repository
 * state is checked with native git, and the real working tree is compared
 * path by path (content, mode, inode, mtime) before and after.
 *
 * Watching needs real file events: every wait polls an observable outcome
 * (a callback's record, a ref, a line on stdout) under a generous limit,
 * never a fixed sleep.
 */

// ---------------------------------------------------------------- helpers

const REF = (draft = 'default'): string => `refs/shadow/drafts/${draft}`;

function open(repo: DiskRepo): Promise<Shadow> {
  return openShadow({ dir: repo.dir, env: repo.env });
}

/** A directory beside the repository (never inside its working tree). */
function beside(repo: DiskRepo, name = 'wt'): string {
  return join(repo.root, name);
}

/**
 * Every path under `dir` (without `skip`) with what makes it what it is: type,
 * mode, inode, mtime and a content hash. Equal snapshots: nothing was written.
 */
function snapshotTree(dir: string, skip: readonly string[] = ['.git']): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const name of fs.readdirSync(rel === '' ? dir : join(dir, rel)).sort()) {
      const p = rel === '' ? name : `${rel}/${name}`;
      if (skip.includes(p)) continue;
      const st = fs.lstatSync(join(dir, p));
      if (st.isDirectory()) {
        out[`${p}/`] = 'dir';
        walk(p);
      } else if (st.isSymbolicLink()) {
        out[p] = `link ${fs.readlinkSync(join(dir, p))} ino=${st.ino} mtime=${st.mtimeMs}`;
      } else {
        const sha = createHash('sha256').update(fs.readFileSync(join(dir, p))).digest('hex');
        out[p] = `file ${(st.mode & 0o777).toString(8)} ${sha} ino=${st.ino} mtime=${st.mtimeMs}`;
      }
    }
  };
  walk('');
  return out;
}

/** One hash over a snapshot: the working tree byte for byte (and stat for stat). */
function treeHash(dir: string): string {
  return createHash('sha256').update(JSON.stringify(snapshotTree(dir))).digest('hex');
}

/** The files (and symlinks) under `dir`, relative, sorted. */
function filesUnder(dir: string, skip: readonly string[] = []): string[] {
  return Object.keys(snapshotTree(dir, skip))
    .filter((p) => !p.endsWith('/'))
    .sort();
}

function read(dir: string, p: string): string {
  return fs.readFileSync(join(dir, p), 'utf8');
}

/** Poll `probe` until it returns a value (not undefined/null/false), or fail after `timeoutMs`. */
async function waitFor<T>(what: string, probe: () => T | undefined | null | false, timeoutMs = 20_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Run a CommonJS script in a child node process (another writer, as an editor or a tool would be). */
function inChild(cwd: string, script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['-e', script], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr.on('data', (d) => (err += d));
    c.on('error', reject);
    c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

/** Batch commits of a draft, newest first (capture commits left out). */
function batches(repo: DiskRepo, draft = 'default'): Array<{ commit: string; subject: string; author: string; batch: number }> {
  if (!repo.ref(REF(draft))) return [];
  const out = repo.git('log', '--format=%H%x00%s%x00%an%x00%(trailers:key=Shadow-Batch,valueonly,separator=)%x00%(trailers:key=Shadow-Capture,valueonly,separator=)%x01', REF(draft));
  return out
    .split('\x01')
    .map((r) => r.replace(/^\n/, ''))
    .filter((r) => r.length > 0)
    .map((r) => r.split('\x00'))
    .filter((f) => f[3]!.trim() !== '' && f[4]!.trim() === '')
    .map((f) => ({ commit: f[0]!, subject: f[1]!, author: f[2]!, batch: Number(f[3]!.trim()) }));
}

/** Paths a commit changed against its first parent: `M\tpath`, `R100\ta\tb`, … */
function nameStatus(repo: DiskRepo, commit: string): string[] {
  return repo
    .git('diff-tree', '-r', '-M', '--no-commit-id', '--name-status', `${commit}^`, commit)
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}

/** `git ls-tree` of one path in a commit: `[mode, type, oid]`, or undefined. */
function lsTree(repo: DiskRepo, commit: string, path: string): [string, string, string] | undefined {
  const line = repo.git('ls-tree', commit, '--', path).trim();
  if (line === '') return undefined;
  const [meta] = line.split('\t');
  return meta!.split(' ') as [string, string, string];
}

function fsck(repo: DiskRepo): void {
  repo.git('fsck', '--strict', '--no-progress', '--no-dangling');
}

async function expectError(code: string, f: () => Promise<unknown>): Promise<ShadowError> {
  try {
    await f();
  } catch (e) {
    assert.is((e as ShadowError).code, code, (e as Error).message);
    return e as ShadowError;
  }
  assert.unreachable(`expected ${code}`);
  throw new Error('unreachable');
}

interface Watching {
  handle: WatchHandle;
  records: RecordResult[];
  syncs: SyncResult[];
  problems: ShadowError[];
}

async function startWatch(sh: Shadow, dir: string, options: { quietMs?: number; pollMs?: number } = {}): Promise<Watching> {
  const w = { records: [], syncs: [], problems: [] } as unknown as Watching;
  let ready = 0;
  w.handle = await sh.worktrees.watch(dir, {
    ...options,
    onRecord: (r) => w.records.push(r),
    onSync: (r) => w.syncs.push(r),
    onProblem: (e) => w.problems.push(e),
    onReady: () => ready++,
  });
  assert.is(ready, 1, 'onReady is called once, before watch resolves');
  return w;
}

interface Cli {
  status: number;
  stdout: string;
  stderr: string;
  json: any;
}

/** The CLI, with a time limit; `json` parsed when stdout is one JSON document. */
function cli(repo: DiskRepo, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Cli {
  const r = spawnSync(process.execPath, [SHADOW_BIN, ...args], {
    cwd: options.cwd ?? repo.dir,
    env: { ...repo.env, ...options.env },
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 << 20,
  });
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { status: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '', json };
}

const FILES = {
  'README.md': 'Hello\n',
  '.gitignore': 'node_modules/\n*.log\n.env\n',
  'a.txt': 'alpha\n',
  'c.txt': 'charlie\n',
  'src/x.js': 'export const x = "x";\n',
  'src/deep/y.js': 'export const y = "y";\n',
  'bin/run.sh': '#!/bin/sh\necho run\n',
};

/** The usual repository: committed files, an executable, the user's own uncommitted edit, untracked and ignored files. */
function makeRepo(): DiskRepo {
  const repo = new DiskRepo(FILES);
  fs.chmodSync(repo.path('bin/run.sh'), 0o755);
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'exec bit');
  repo.write('README.md', 'Hello, my uncommitted edit\n');
  repo.write('notes.txt', 'untracked, not ignored\n');
  repo.write('debug.log', 'ignored\n');
  repo.write('.env', 'SECRET=1\n');
  repo.write('node_modules/pkg/index.js', 'ignored too\n');
  return repo;
}

/** A suite whose every test gets a repository of its own (`make`, the usual one by default), cleaned up after. */
function repoSuite(name: string, make: () => DiskRepo = makeRepo) {
  const s = suite<{ repo: DiskRepo }>(name);
  s.before.each((ctx) => {
    ctx.repo = make();
  });
  s.after.each((ctx) => ctx.repo.cleanup());
  return s;
}

// ---------------------------------------------------------------- materialize

const Materialize = repoSuite('worktree add (materialize)');

Materialize('the view: the working tree (ignored files left out) with the draft laid over it; marker names repository and draft', async ({ repo }) => {
  const sh = await open(repo);
  try {
    const r1 = await sh.batch({
      intent: 'draft changes',
      operations: [
        { operation: 'edit', path: 'a.txt', old_content: 'alpha', content: 'ALPHA' },
        { operation: 'write', path: 'draft-only.txt', content: 'from the draft\n' },
        { operation: 'delete', path: 'c.txt' },
      ],
    });
    assert.ok(r1.success, JSON.stringify(r1.error));
    const before = snapshotTree(repo.dir);
    const wt = beside(repo);
    const r = await sh.worktrees.add(wt);
    assert.equal(
      filesUnder(wt),
      [MARKER, '.gitignore', 'README.md', 'a.txt', 'bin/run.sh', 'draft-only.txt', 'notes.txt', 'src/deep/y.js', 'src/x.js'].sort(),
    );
    assert.is(read(wt, 'a.txt'), 'ALPHA\n');
    assert.is(read(wt, 'draft-only.txt'), 'from the draft\n');
    assert.is(read(wt, 'README.md'), 'Hello, my uncommitted edit\n');
    assert.is(read(wt, 'notes.txt'), 'untracked, not ignored\n');
    assert.is(fs.statSync(join(wt, 'bin/run.sh')).mode & 0o111, 0o111, 'the exec bit is kept');
    assert.is(r.dir, wt);
    assert.is(r.draft, 'default');
    assert.is(r.tip, repo.ref(REF()));
    assert.is(r.files, 8);
    assert.is(r.copied, 6, 'files the draft does not own come from the working tree');
    const marker = JSON.parse(read(wt, MARKER));
    assert.equal({ repository: marker.repository, draft: marker.draft, id: marker.id }, { repository: repo.dir, draft: 'default', id: r.id });
    assert.is(sh.worktrees.find(wt).id, r.id);
    assert.equal(snapshotTree(repo.dir), before, 'the working tree is untouched');
    const list = await sh.worktrees.list();
    assert.is(list.length, 1);
    assert.equal({ dir: list[0]!.dir, exists: list[0]!.exists, draft_exists: list[0]!.draft_exists, behind: list[0]!.behind }, { dir: wt, exists: true, draft_exists: true, behind: false });
    assert.equal(await sh.worktrees.changes(wt), []);
  } finally {
    sh.close();
  }
});

Materialize('copies, never hard links: own inodes, nlink 1, a write in one never shows in the other', async ({ repo }) => {
  const sh = await open(repo);
  try {
    const wt = beside(repo);
    await sh.worktrees.add(wt);
    for (const p of filesUnder(wt)) {
      if (p === MARKER) continue;
      const a = fs.lstatSync(join(wt, p));
      const b = fs.lstatSync(repo.path(p));
      assert.is(a.nlink, 1, `${p}: nlink`);
      assert.is(b.nlink, 1, `${p}: nlink in the working tree`);
      assert.is.not(a.ino, b.ino, `${p}: own inode`);
    }
    // In place (same inode), both ways.
    fs.appendFileSync(join(wt, 'a.txt'), 'worktree line\n');
    assert.is(repo.read('a.txt'), 'alpha\n');
    fs.appendFileSync(repo.path('src/x.js'), '// user line\n');
    assert.is(read(wt, 'src/x.js'), 'export const x = "x";\n');
  } finally {
    sh.close();
  }
});

Materialize('a symlink pointing outside is copied as a symlink, never followed; recording keeps it a symlink', async ({ repo }) => {
  const outside = join(repo.root, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE SECRET\n');
  fs.symlinkSync(join(outside, 'secret.txt'), repo.path('link-file'));
  fs.symlinkSync(outside, repo.path('link-dir'));
  fs.symlinkSync('../outside/secret.txt', repo.path('link-rel'));
  repo.git('add', 'link-file', 'link-dir', 'link-rel');
  repo.git('commit', '-q', '-m', 'links');
  const sh = await open(repo);
  try {
    const wt = beside(repo);
    await sh.worktrees.add(wt);
    for (const [p, target] of [
      ['link-file', join(outside, 'secret.txt')],
      ['link-dir', outside],
      ['link-rel', '../outside/secret.txt'],
    ] as const) {
      assert.ok(fs.lstatSync(join(wt, p)).isSymbolicLink(), `${p} is a symlink`);
      assert.is(fs.readlinkSync(join(wt, p)), target);
    }
    assert.not.ok(filesUnder(wt).some((p) => p.startsWith('link-dir/')), 'the linked directory is not walked');
    assert.equal(await sh.worktrees.changes(wt), [], 'copied links are not changes');

    // Retarget one link and add one; record: both stay links (mode 120000), targets as text.
    fs.unlinkSync(join(wt, 'link-file'));
    fs.symlinkSync('/etc/hostname', join(wt, 'link-file'));
    fs.symlinkSync('/etc', join(wt, 'new-link'));
    const r = await sh.worktrees.record(wt);
    assert.ok(r.batch?.success, JSON.stringify(r.batch?.error));
    assert.equal(r.changes.map((c) => `${c.kind} ${c.path}`).sort(), ['write link-file', 'write new-link']);
    const tip = repo.ref(REF())!;
    for (const [p, target] of [
      ['link-file', '/etc/hostname'],
      ['new-link', '/etc'],
      ['link-dir', outside],
    ] as const) {
      assert.is(lsTree(repo, tip, p)?.[0], '120000', `${p}: a symlink in the draft`);
      assert.is(repo.git('cat-file', 'blob', `${tip}:${p}`), target);
      assert.ok(fs.lstatSync(join(wt, p)).isSymbolicLink(), `${p}: still a symlink in the worktree`);
    }
    assert.is(repo.gitResult('grep', '-q', 'OUTSIDE SECRET', tip).status, 1, 'what the links point at never reaches the draft');
    assert.is(fs.readlinkSync(repo.path('link-file')), join(outside, 'secret.txt'), 'the working tree keeps its link');
    fsck(repo);
  } finally {
    sh.close();
  }
});

Materialize('bad targets: not empty (ALREADY_EXISTS), a file (ALREADY_EXISTS), inside the working tree or .git (INVALID_TARGET), relative', async ({ repo }) => {
  const sh = await open(repo);
  try {
    const full = beside(repo, 'full');
    fs.mkdirSync(full);
    fs.writeFileSync(join(full, 'mine.txt'), 'mine\n');
    await expectError('ALREADY_EXISTS', () => sh.worktrees.add(full));
    assert.equal(fs.readdirSync(full), ['mine.txt'], 'nothing written there');
    const file = beside(repo, 'a-file');
    fs.writeFileSync(file, 'x');
    await expectError('ALREADY_EXISTS', () => sh.worktrees.add(file));
    const before = snapshotTree(repo.dir);
    await expectError('INVALID_TARGET', () => sh.worktrees.add(repo.path('sub/wt')));
    await expectError('INVALID_TARGET', () => sh.worktrees.add(repo.dir));
    await expectError('INVALID_TARGET', () => sh.worktrees.add(repo.path('.git/wt')));
    await expectError('INVALID_ARGUMENT', () => sh.worktrees.add('relative/wt'));
    assert.equal(snapshotTree(repo.dir), before, 'nothing created in the working tree');
    assert.equal(await sh.worktrees.list(), []);
    // An empty directory is fine.
    const empty = beside(repo, 'empty');
    fs.mkdirSync(empty);
    const r = await sh.worktrees.add(empty);
    assert.is(r.files, 8);
  } finally {
    sh.close();
  }
});

// ---------------------------------------------------------------- sync

const Sync = repoSuite('worktree sync', () => {
  const files: Record<string, string> = { 'README.md': 'Hello\n' };
  for (let i = 0; i < 30; i++) files[`f/${String(i).padStart(2, '0')}.txt`] = `file ${i}\n`;
  return new DiskRepo(files);
});

const TEN = Array.from({ length: 10 }, (_, i) => `f/${String(i * 3).padStart(2, '0')}.txt`);

Sync('after other writers, rollback and undo: only the paths that differ are rewritten', async ({ repo }) => {
  const sh = await open(repo);
  try {
    const wt = beside(repo);
    await sh.worktrees.add(wt);
    const before = snapshotTree(repo.dir);

    // Batch 1 (the draft did not exist when the worktree was made).
    await sh.write('f/01.txt', 'one\n');
    assert.ok((await sh.worktrees.list())[0]!.behind);
    const s1 = await sh.worktrees.sync(wt);
    assert.equal(s1.written, ['f/01.txt']);
    assert.equal(s1.conflicts, []);
    assert.is(read(wt, 'f/01.txt'), 'one\n');

    // Batch 2: ten files, one new, one deleted.
    const wtBefore = snapshotTree(wt);
    const r2 = await sh.batch({
      intent: 'ten files',
      operations: [...TEN.map((p) => ({ operation: 'write' as const, path: p, content: `edited ${p}\n` })), { operation: 'write', path: 'g/new.txt', content: 'new\n' }, { operation: 'delete', path: 'f/29.txt' }],
    });
    assert.ok(r2.success);
    const s2 = await sh.worktrees.sync(wt);
    assert.equal(s2.written.sort(), [...TEN, 'g/new.txt'].sort());
    assert.equal(s2.removed, ['f/29.txt']);
    assert.is(s2.from, s1.to);
    assert.is(s2.to, r2.commit);
    const wtAfter = snapshotTree(wt);
    for (const [p, v] of Object.entries(wtBefore)) {
      if (TEN.includes(p) || p === 'f/29.txt' || p === MARKER) continue;
      assert.is(wtAfter[p], v, `${p} is not rewritten (same inode and mtime)`);
    }
    for (const p of TEN) assert.is(read(wt, p), `edited ${p}\n`);

    // Rollback to batch 1, then sync: the ten come back from the working tree, the new file goes.
    await sh.rollback('1');
    const s3 = await sh.worktrees.sync(wt);
    assert.equal(s3.written.sort(), [...TEN, 'f/29.txt'].sort());
    assert.equal(s3.removed, ['g/new.txt']);
    assert.not.ok(fs.existsSync(join(wt, 'g')), 'the emptied directory goes too');
    for (const p of TEN) assert.is(read(wt, p), repo.read(p));
    assert.is(read(wt, 'f/01.txt'), 'one\n');

    // Undo the rollback: batch 2's state again.
    await sh.undo();
    const s4 = await sh.worktrees.sync(wt);
    assert.equal(s4.written.sort(), [...TEN, 'g/new.txt'].sort());
    assert.equal(s4.removed, ['f/29.txt']);
    assert.equal(await sh.worktrees.changes(wt), []);
    // Nothing moved: nothing to do.
    const s5 = await sh.worktrees.sync(wt);
    assert.equal([s5.written, s5.removed, s5.conflicts], [[], [], []]);
    assert.equal(snapshotTree(repo.dir), before, 'the working tree is untouched');
    fsck(repo);
  } finally {
    sh.close();
  }
});

Sync('a file changed in the worktree and not recorded is a conflict, never overwritten', async ({ repo }) => {
  const sh = await open(repo);
  try {
    const wt = beside(repo);
    await sh.worktrees.add(wt);
    fs.writeFileSync(join(wt, 'f/02.txt'), 'mine\n');
    fs.writeFileSync(join(wt, 'mine-new.txt'), 'created here\n');
    fs.writeFileSync(join(wt, 'f/03.txt'), 'same as theirs\n');
    fs.unlinkSync(join(wt, 'f/04.txt'));
    const r = await sh.batch({
      intent: 'theirs',
      operations: [
        { operation: 'write', path: 'f/02.txt', content: 'theirs\n' },
        { operation: 'write', path: 'mine-new.txt', content: 'theirs too\n' },
        { operation: 'write', path: 'f/03.txt', content: 'same as theirs\n' },
        { operation: 'write', path: 'f/04.txt', content: 'rewritten\n' },
        { operation: 'write', path: 'f/05.txt', content: 'no conflict\n' },
      ],
    });
    assert.ok(r.success);
    const s = await sh.worktrees.sync(wt);
    assert.equal(s.conflicts.map((c) => c.path).sort(), ['f/02.txt', 'f/04.txt', 'mine-new.txt']);
    assert.equal(s.written, ['f/05.txt']);
    assert.is(read(wt, 'f/02.txt'), 'mine\n');
    assert.is(read(wt, 'mine-new.txt'), 'created here\n');
    assert.not.ok(fs.existsSync(join(wt, 'f/04.txt')), 'a deletion made there is not undone');
    assert.is(read(wt, 'f/03.txt'), 'same as theirs\n');
    // Still conflicts on the next sync (nothing recorded meanwhile), and they stay pending changes.
    assert.equal((await sh.worktrees.changes(wt)).map((c) => c.path).sort(), ['f/02.txt', 'f/04.txt', 'mine-new.txt']);
  } finally {
    sh.close();
  }
});

Sync('a worktree whose draft was dropped: sync says DRAFT_NOT_FOUND, list says so', async ({ repo }) => {
  const sh = await open(repo);
  try {
    assert.ok((await sh.write('f/00.txt', 'feature\n', { draft: 'feat' })).success);
    const wt = beside(repo);
    await sh.worktrees.add(wt, { draft: 'feat' });
    assert.is(read(wt, 'f/00.txt'), 'feature\n');
    await sh.draftDrop('feat');
    await expectError('DRAFT_NOT_FOUND', () => sh.worktrees.sync(wt));
    assert.is(read(wt, 'f/00.txt'), 'feature\n', 'the worktree is left as it was');
    const [info] = await sh.worktrees.list();
    assert.equal({ draft: info!.draft, exists: info!.exists, draft_exists: info!.draft_exists }, { draft: 'feat', exists: true, draft_exists: false });
    const c = cli(repo, ['worktree', 'sync', wt, '--json']);
    assert.is(c.status, 1, c.stderr);
    assert.is(c.json?.error?.code, 'DRAFT_NOT_FOUND');
    // It can still be removed.
    const removed = await sh.worktrees.remove(wt);
    assert.ok(removed.removed);
    assert.not.ok(fs.existsSync(wt));
  } finally {
    sh.close();
  }
});

// ---------------------------------------------------------------- record and remove

const Record = repoSuite('worktree record, changes, remove');

Record('record: writes, new files, deletes, renames, exec bit and binary bytes as one batch', async ({ repo }) => {
  const sh = await open(repo);
  try {
    const wt = beside(repo);
    await sh.worktrees.add(wt);
    const before = snapshotTree(repo.dir);
    const binary = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x0a, 0x0d, 0x80]);
    fs.writeFileSync(join(wt, 'a.txt'), 'alpha edited\n');
    fs.writeFileSync(join(wt, 'bin.dat'), binary);
    fs.unlinkSync(join(wt, 'c.txt'));
    fs.renameSync(join(wt, 'src/deep/y.js'), join(wt, 'src/y2.js'));
    fs.chmodSync(join(wt, 'src/x.js'), 0o755);
    fs.writeFileSync(join(wt, 'ignored.log'), 'never\n');
    fs.writeFileSync(join(wt, 'a.txt.swp'), 'never\n');
    const changes = await sh.worktrees.changes(wt);
    assert.equal(changes.map((c) => `${c.kind} ${c.path}${c.to ? ` ${c.to}` : ''}`).sort(), ['delete c.txt', 'rename src/deep/y.js src/y2.js', 'write a.txt', 'write bin.dat', 'write src/x.js']);
    const r = await sh.worktrees.record(wt, { actor: 'tester', intent: 'by hand' });
    assert.ok(r.batch?.success, JSON.stringify(r.batch?.error));
    const [b] = batches(repo);
    assert.equal({ subject: b!.subject, author: b!.author, batch: b!.batch }, { subject: 'by hand', author: 'tester', batch: 1 });
    assert.equal(nameStatus(repo, b!.commit), ['A\tbin.dat', 'D\tc.txt', 'M\ta.txt', 'M\tsrc/x.js', 'R100\tsrc/deep/y.js\tsrc/y2.js']);
    assert.is(lsTree(repo, b!.commit, 'src/x.js')?.[0], '100755');
    const blob = spawnSync('git', ['cat-file', 'blob', `${b!.commit}:bin.dat`], { cwd: repo.dir, env: repo.env });
    assert.ok(Buffer.compare(blob.stdout, binary) === 0, 'binary bytes kept as they are');
    assert.equal(await sh.worktrees.changes(wt), [], 'nothing left to record');
    const again = await sh.worktrees.record(wt);
    assert.is(again.batch, null);
    assert.equal(snapshotTree(repo.dir), before, 'the working tree is untouched');
    fsck(repo);
  } finally {
    sh.close();
  }
});

Record('record after another writer: its work comes in; a path it changed fails as a conflict, not overwritten', async ({ repo }) => {
  const sh = await open(repo);
  try {
    const wt = beside(repo);
    await sh.worktrees.add(wt);
    fs.writeFileSync(join(wt, 'a.txt'), 'mine\n');
    assert.ok((await sh.write('notes.txt', 'theirs\n')).success);
    const r = await sh.worktrees.record(wt);
    assert.ok(r.batch?.success, JSON.stringify(r.batch?.error));
    assert.equal(r.sync?.written, ['notes.txt']);
    assert.is(read(wt, 'notes.txt'), 'theirs\n');
    assert.is(repo.git('show', `${REF()}:a.txt`), 'mine\n');

    fs.writeFileSync(join(wt, 'a.txt'), 'mine again\n');
    assert.ok((await sh.write('a.txt', 'theirs again\n')).success);
    const tip = repo.ref(REF());
    const r2 = await sh.worktrees.record(wt);
    assert.is(r2.batch?.success, false, 'the batch fails');
    assert.is(repo.ref(REF()), tip, 'nothing committed');
    assert.is(repo.git('show', `${REF()}:a.txt`), 'theirs again\n');
    assert.is(read(wt, 'a.txt'), 'mine again\n', 'the worktree keeps its edit');
  } finally {
    sh.close();
  }
});

Record('core.filemode=false: an executable edited there stays 100755, its rename is paired; a symlink is no conflict', async ({ repo }) => {
  repo.git('config', 'core.filemode', 'false');
  fs.symlinkSync('a.txt', repo.path('link'));
  repo.git('add', 'link');
  repo.git('commit', '-q', '-m', 'link');
  const sh = await open(repo);
  try {
    const wt = beside(repo);
    const other = beside(repo, 'wt2');
    await sh.worktrees.add(wt);
    await sh.worktrees.add(other);
    fs.writeFileSync(join(wt, 'bin/run.sh'), '#!/bin/sh\necho changed\n');
    const r = await sh.worktrees.record(wt);
    assert.ok(r.batch?.success, JSON.stringify(r.batch?.error));
    assert.is(lsTree(repo, REF(), 'bin/run.sh')?.[0], '100755', 'the mode git knew is kept');
    fs.renameSync(join(wt, 'bin/run.sh'), join(wt, 'bin/go.sh'));
    const moved = await sh.worktrees.record(wt);
    assert.equal(moved.changes, [{ path: 'bin/run.sh', kind: 'rename', to: 'bin/go.sh' }]);
    assert.is(lsTree(repo, REF(), 'bin/go.sh')?.[0], '100755');
    // The other worktree: its symlink is untouched, the executable comes over.
    fs.unlinkSync(join(wt, 'link'));
    fs.symlinkSync('c.txt', join(wt, 'link'));
    assert.ok((await sh.worktrees.record(wt)).batch?.success);
    const s = await sh.worktrees.sync(other);
    assert.equal(s.conflicts, []);
    assert.is(fs.readlinkSync(join(other, 'link')), 'c.txt');
    assert.is(read(other, 'bin/go.sh'), '#!/bin/sh\necho changed\n');
  } finally {
    sh.close();
  }
});

Record('remove: WORKTREE_DIRTY while changes are not recorded; --force discards; a recorded worktree goes quietly', async ({ repo }) => {
  const sh = await open(repo);
  try {
    const wt = beside(repo);
    await sh.worktrees.add(wt);
    fs.writeFileSync(join(wt, 'a.txt'), 'unrecorded\n');
    const e = await expectError('WORKTREE_DIRTY', () => sh.worktrees.remove(wt));
    assert.equal((e.data as { changes: Array<{ path: string }> }).changes.map((c) => c.path), ['a.txt']);
    assert.is(read(wt, 'a.txt'), 'unrecorded\n', 'nothing removed');
    const c = cli(repo, ['worktree', 'remove', wt, '--json']);
    assert.is(c.status, 1);
    assert.is(c.json?.error?.code, 'WORKTREE_DIRTY');
    const r = await sh.worktrees.remove(wt, { force: true });
    assert.equal(r.discarded.map((d) => d.path), ['a.txt']);
    assert.not.ok(fs.existsSync(wt));
    assert.equal(await sh.worktrees.list(), []);
    assert.is(repo.ref(REF()), undefined, 'nothing recorded');

    const wt2 = beside(repo, 'wt2');
    await sh.worktrees.add(wt2);
    fs.writeFileSync(join(wt2, 'a.txt'), 'recorded\n');
    await sh.worktrees.record(wt2);
    const r2 = await sh.worktrees.remove(wt2);
    assert.equal(r2.discarded, []);
    assert.not.ok(fs.existsSync(wt2));
    assert.is(repo.git('show', `${REF()}:a.txt`), 'recorded\n');
    assert.is(repo.read('a.txt'), 'alpha\n');
  } finally {
    sh.close();
  }
});

// ---------------------------------------------------------------- watch

const Watch = repoSuite('watch');

Watch('a child process changes files: exactly those changes become one batch (actor watch); ignored and editor temp files never', async ({ repo }) => {
  const sh = await open(repo);
  const wt = beside(repo);
  let w: Watching | undefined;
  try {
    assert.ok((await sh.write('draft-only.txt', 'from the draft\n')).success);
    await sh.worktrees.add(wt);
    const before = snapshotTree(repo.dir);
    const count0 = batches(repo).length;
    w = await startWatch(sh, wt, { quietMs: 400 });
    await inChild(
      wt,
      `const fs = require('fs');
       fs.writeFileSync('a.txt', 'alpha from the child\\n');
       fs.writeFileSync('b.txt', 'new from the child\\n');
       fs.unlinkSync('c.txt');
       fs.mkdirSync('node_modules/other', { recursive: true });
       fs.writeFileSync('node_modules/other/x.js', 'ignored\\n');
       fs.writeFileSync('build.log', 'ignored\\n');
       fs.writeFileSync('.a.txt.swp', 'swap');
       fs.writeFileSync('a.txt~', 'backup');
       fs.writeFileSync('.#a.txt', 'lock');
       fs.writeFileSync('4913', 'probe');
       fs.unlinkSync('4913');`,
    );
    const r = await waitFor('the watch batch', () => w!.records[0]);
    await w.handle.close();
    assert.equal(w.problems, []);
    assert.is(w.records.length, 1, 'one burst, one batch');
    assert.equal(r.changes.map((c) => `${c.kind} ${c.path}`).sort(), ['delete c.txt', 'write a.txt', 'write b.txt']);
    const all = batches(repo);
    assert.is(all.length, count0 + 1);
    const b = all[0]!;
    assert.is(b.commit, r.batch!.commit);
    assert.is(b.author, 'watch');
    assert.match(repo.git('log', '-1', '--format=%B', b.commit), /Shadow-Actor: watch/);
    assert.match(b.subject, /^watch: /);
    for (const p of ['a.txt', 'b.txt', 'c.txt']) assert.ok(b.subject.includes(p), `the intent names ${p}: ${b.subject}`);
    assert.equal(nameStatus(repo, b.commit), ['A\tb.txt', 'D\tc.txt', 'M\ta.txt']);
    const tree = repo.git('ls-tree', '-r', '--name-only', REF()).split('\n');
    for (const p of ['node_modules/other/x.js', 'build.log', '.a.txt.swp', 'a.txt~', '.#a.txt', '4913', MARKER]) assert.not.ok(tree.includes(p), `${p} is not recorded`);
    assert.is(repo.git('show', `${REF()}:a.txt`), 'alpha from the child\n');
    assert.equal(snapshotTree(repo.dir), before, 'the working tree is untouched');
    fsck(repo);
  } finally {
    if (w) await w.handle.close();
    sh.close();
  }
});

Watch('a rename is recorded as a rename', async ({ repo }) => {
  const sh = await open(repo);
  const wt = beside(repo);
  let w: Watching | undefined;
  try {
    await sh.worktrees.add(wt);
    w = await startWatch(sh, wt, { quietMs: 400 });
    await inChild(wt, `require('fs').renameSync('src/x.js', 'src/renamed.js')`);
    const r = await waitFor('the rename batch', () => w!.records[0]);
    assert.equal(r.changes, [{ path: 'src/x.js', kind: 'rename', to: 'src/renamed.js' }]);
    assert.equal(nameStatus(repo, r.batch!.commit!), ['R100\tsrc/x.js\tsrc/renamed.js']);
    assert.match(batches(repo)[0]!.subject, /src\/x\.js -> src\/renamed\.js/);
  } finally {
    if (w) await w.handle.close();
    sh.close();
  }
});

Watch('another writer moves the draft: the watch syncs, rollback is synced back, and shadow’s own writes are never echoed', async ({ repo }) => {
  const sh = await open(repo);
  const other = await open(repo);
  const wt = beside(repo);
  let w: Watching | undefined;
  try {
    await sh.worktrees.add(wt);
    w = await startWatch(sh, wt, { quietMs: 300, pollMs: 100 });

    // The user's change, recorded by the watch.
    await inChild(wt, `require('fs').writeFileSync('a.txt', 'user edit\\n')`);
    await waitFor('the first record', () => w!.records.length === 1);
    const afterUser = batches(repo).length;

    // Another writer: batch, seen by the poll and synced into the worktree.
    assert.ok((await other.batch({ intent: 'other writer', operations: [{ operation: 'write', path: 'other.txt', content: 'other\n' }, { operation: 'write', path: 'src/x.js', content: 'export const x = 2;\n' }] })).success);
    await waitFor('the sync of the other writer', () => fs.existsSync(join(wt, 'other.txt')) && read(wt, 'src/x.js') === 'export const x = 2;\n');

    // Rollback (of the other writer's batch): synced back.
    await other.rollback('~1');
    await waitFor('the sync of the rollback', () => !fs.existsSync(join(wt, 'other.txt')) && read(wt, 'src/x.js') === FILES['src/x.js']);
    assert.is(read(wt, 'a.txt'), 'user edit\n', 'the recorded edit stays');

    // A sentinel change after the syncs: its batch holds the sentinel alone (the syncs' writes were not echoed).
    await inChild(wt, `require('fs').writeFileSync('sentinel.txt', 'after the syncs\\n')`);
    const sentinel = await waitFor('the sentinel record', () => w!.records.find((r) => r.changes.some((c) => c.path === 'sentinel.txt')));
    assert.equal(sentinel.changes, [{ path: 'sentinel.txt', kind: 'write' }]);
    assert.equal(w.records.map((r) => r.changes.map((c) => c.path)), [['a.txt'], ['sentinel.txt']], 'no batch of shadow’s own writes');
    assert.is(batches(repo).length, afterUser + 1, 'the sentinel (the other writer’s batch was rolled back: a ref reset)');
    assert.equal(w.problems, []);
    assert.ok(w.syncs.length >= 2);
    assert.is(repo.git('show', `${REF()}:a.txt`), 'user edit\n');
    assert.is(repo.gitResult('cat-file', '-e', `${REF()}:other.txt`).status === 0, false);
    fsck(repo);
  } finally {
    if (w) await w.handle.close();
    other.close();
    sh.close();
  }
});

Watch('the worktree deleted while watching: the watch ends with WORKTREE_GONE', async ({ repo }) => {
  const sh = await open(repo);
  const wt = beside(repo);
  let w: Watching | undefined;
  try {
    await sh.worktrees.add(wt);
    w = await startWatch(sh, wt, { quietMs: 200, pollMs: 200 });
    let error: ShadowError | undefined;
    w.handle.done.then(
      () => (error = { code: 'RESOLVED' } as unknown as ShadowError),
      (e: ShadowError) => (error = e),
    );
    fs.rmSync(wt, { recursive: true, force: true });
    const e = await waitFor('the watch to end', () => error, 20_000);
    assert.is(e.code, 'WORKTREE_GONE');
    assert.is(batches(repo).length, 0, 'the deletion is not recorded as deleting every file');
  } finally {
    if (w) await w.handle.close();
    sh.close();
  }
});

Watch('10,000 files changed at once: one batch, memory bounded', async () => {
  const dirs = Array.from({ length: 50 }, (_, i) => `g${String(i).padStart(2, '0')}`);
  const files: Record<string, string> = { 'README.md': 'big\n' };
  for (const d of dirs) files[`${d}/keep.txt`] = 'keep\n';
  const repo = new DiskRepo(files);
  const sh = await open(repo);
  const wt = beside(repo);
  let w: Watching | undefined;
  try {
    await sh.worktrees.add(wt);
    // A long quiet time: 10,000 events from a child on busy cores must not split into two bursts.
    w = await startWatch(sh, wt, { quietMs: 1500 });
    const rss0 = process.memoryUsage().rss;
    const peak0 = process.resourceUsage().maxRSS * 1024;
    await inChild(wt, `const fs = require('fs'); for (let d = 0; d < 50; d++) for (let i = 0; i < 200; i++) fs.writeFileSync('g' + String(d).padStart(2, '0') + '/n' + i + '.txt', 'file ' + d + '/' + i + '\\n');`);
    const r = await waitFor('the batch of 10,000 files', () => w!.records[0], 90_000);
    await w.handle.close();
    const peak = process.resourceUsage().maxRSS * 1024;
    assert.equal(w.problems, []);
    assert.is(w.records.length, 1, 'one batch');
    assert.is(r.changes.length, 10_000);
    assert.is(batches(repo).length, 1);
    const changed = repo.git('diff-tree', '-r', '--no-commit-id', '--name-only', `${REF()}^`, REF()).split('\n').filter((l) => l !== '');
    assert.is(changed.length, 10_000);
    const grown = Math.max(0, peak - Math.max(peak0, rss0));
    assert.ok(grown < 400 * 2 ** 20, `peak RSS grew by ${(grown / 2 ** 20).toFixed(0)} MB`);
    fsck(repo);
  } finally {
    if (w) await w.handle.close();
    sh.close();
    repo.cleanup();
  }
});

// ---------------------------------------------------------------- exec (CLI)

const Exec = suite<{ repo: DiskRepo; tmp: string }>('shadow exec');
Exec.before.each((ctx) => {
  ctx.repo = makeRepo();
  ctx.tmp = join(ctx.repo.root, 'tmp');
  fs.mkdirSync(ctx.tmp);
});
Exec.after.each((ctx) => ctx.repo.cleanup());

/** A formatter: double quotes to single in every .js file under the current directory, rewriting only what changes. */
const FORMATTER = `
const fs = require('fs'), path = require('path');
const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
  const p = path.join(d, e.name);
  if (e.isDirectory() && e.name !== 'node_modules') walk(p);
  else if (e.isFile() && p.endsWith('.js')) { const s = fs.readFileSync(p, 'utf8'); const t = s.replace(/"/g, "'"); if (t !== s) fs.writeFileSync(p, t); }
} };
walk('.');
`;

Exec('exec --record with a formatter: its rewrite is one batch; the working tree is never touched; the temporary worktree goes', async ({ repo, tmp }) => {
  const fmt = join(repo.root, 'fmt.js');
  fs.writeFileSync(fmt, FORMATTER);
  const before = treeHash(repo.dir);
  const snap = snapshotTree(repo.dir);
  const r = cli(repo, ['exec', '--record', '--json', '--', process.execPath, fmt], { env: { TMPDIR: tmp } });
  assert.is(r.status, 0, r.stderr);
  assert.is(r.json.exit_code, 0);
  assert.ok(r.json.batch.success);
  assert.equal(r.json.changes.map((c: { path: string }) => c.path).sort(), ['src/deep/y.js', 'src/x.js']);
  const [b] = batches(repo);
  assert.is(b!.commit, r.json.batch.commit);
  assert.is(b!.subject, `exec: ${process.execPath} ${fmt}`);
  assert.equal(nameStatus(repo, b!.commit), ['M\tsrc/deep/y.js', 'M\tsrc/x.js']);
  assert.is(repo.git('show', `${REF()}:src/x.js`), "export const x = 'x';\n");
  assert.is(repo.read('src/x.js'), FILES['src/x.js']);
  assert.is(treeHash(repo.dir), before, 'the working tree is byte-identical');
  assert.equal(snapshotTree(repo.dir), snap);
  assert.equal(fs.readdirSync(tmp), [], 'the temporary worktree is removed');
  assert.not.ok(fs.existsSync(r.json.dir));
  assert.is(cli(repo, ['worktree', 'list', '--json']).json.worktrees.length, 0, 'and forgotten');
  fsck(repo);
});

Exec('exit status passes through; the command sees the draft; without --record nothing is recorded', async ({ repo, tmp }) => {
  const w = spawnSync(process.execPath, [SHADOW_BIN, 'edit', 'a.txt', '--old', 'alpha', '--new', 'DRAFT ALPHA'], { cwd: repo.dir, env: repo.env, encoding: 'utf8' });
  assert.is(w.status, 0, w.stderr);
  const tip = repo.ref(REF());
  const r = cli(repo, ['exec', '--', process.execPath, '-e', "process.stdout.write(require('fs').readFileSync('a.txt', 'utf8')); require('fs').writeFileSync('scratch.txt', 'x'); process.exit(7)"], { env: { TMPDIR: tmp } });
  assert.is(r.status, 7);
  assert.is(r.stdout, 'DRAFT ALPHA\n');
  assert.is(repo.ref(REF()), tip, 'nothing recorded');
  assert.equal(fs.readdirSync(tmp), []);
  assert.not.ok(repo.exists('scratch.txt'));
  // A command that cannot start: the shell's 127, a clear error, no temporary worktree left.
  const missing = cli(repo, ['exec', '--json', '--', 'shadow-no-such-command-xyz'], { env: { TMPDIR: tmp } });
  assert.is(missing.status, 127, missing.stderr);
  assert.match(missing.stderr + missing.stdout, /NOT_FOUND|command not found: shadow-no-such-command-xyz/);
  assert.not.match(missing.stderr, /internal error|\n\s+at /);
  assert.equal(fs.readdirSync(tmp), []);
});

Exec('run from a directory the view does not hold (ignored, or empty): the command runs in its nearest parent there', async ({ repo, tmp }) => {
  fs.mkdirSync(repo.path('node_modules/pkg/deep'), { recursive: true });
  const r = cli(repo, ['exec', '--', process.execPath, '-e', 'console.log(require("path").relative(process.env.SHADOW_WORKTREE, process.cwd()))'], { cwd: repo.path('node_modules/pkg/deep'), env: { TMPDIR: tmp } });
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stdout.trim(), '', 'the root of the view (node_modules is ignored)');
  fs.mkdirSync(repo.path('src/empty'));
  const s = cli(repo, ['exec', '--', process.execPath, '-e', 'console.log(require("path").relative(process.env.SHADOW_WORKTREE, process.cwd()))'], { cwd: repo.path('src/empty'), env: { TMPDIR: tmp } });
  assert.is(s.status, 0, s.stderr);
  assert.is(s.stdout.trim(), 'src');
});

Exec('a command that exits non-zero: --record still records and says so; --record-on-success does not record', async ({ repo, tmp }) => {
  const script = "require('fs').writeFileSync('made.txt', 'made\\n'); process.exit(3)";
  const before = treeHash(repo.dir);
  const r1 = cli(repo, ['exec', '--record-on-success', '--', process.execPath, '-e', script], { env: { TMPDIR: tmp } });
  assert.is(r1.status, 3);
  assert.match(r1.stderr, /nothing recorded/);
  assert.is(repo.ref(REF()), undefined, 'no batch');
  const r2 = cli(repo, ['exec', '--record', '--', process.execPath, '-e', script], { env: { TMPDIR: tmp } });
  assert.is(r2.status, 3);
  assert.match(r2.stdout + r2.stderr, /exited 3/);
  assert.match(r2.stdout + r2.stderr, /recorded/);
  assert.is(repo.git('show', `${REF()}:made.txt`), 'made\n');
  const r3 = cli(repo, ['exec', '--record', '--json', '--', process.execPath, '-e', script.replace('made.txt', 'made2.txt')], { env: { TMPDIR: tmp } });
  assert.is(r3.status, 3);
  assert.is(r3.json.exit_code, 3);
  assert.ok(r3.json.batch.success);
  const r4 = cli(repo, ['exec', '--record-on-success', '--', process.execPath, '-e', "require('fs').writeFileSync('ok.txt', 'ok\\n')"], { env: { TMPDIR: tmp } });
  assert.is(r4.status, 0, r4.stderr);
  assert.is(repo.git('show', `${REF()}:ok.txt`), 'ok\n');
  assert.is(batches(repo).length, 3);
  assert.is(treeHash(repo.dir), before);
  assert.equal(fs.readdirSync(tmp), []);
});

Exec('exec --worktree <dir> runs there (synced first); from a subdirectory, in the same subdirectory of the view; --keep keeps', async ({ repo, tmp }) => {
  const sh = await open(repo);
  try {
    const wt = beside(repo);
    await sh.worktrees.add(wt);
    assert.ok((await sh.write('src/from-draft.txt', 'draft\n')).success);
    const where = "console.log(JSON.stringify({ cwd: process.cwd(), wt: process.env.SHADOW_WORKTREE, seen: require('fs').existsSync('from-draft.txt') })); require('fs').writeFileSync('by-exec.txt', 'x\\n')";
    const r = cli(repo, ['exec', '--record', '--worktree', wt, '--', process.execPath, '-e', where], { cwd: repo.path('src'), env: { TMPDIR: tmp } });
    assert.is(r.status, 0, r.stderr);
    const seen = JSON.parse(r.stdout.split('\n')[0]!);
    assert.equal(seen, { cwd: join(wt, 'src'), wt, seen: true });
    assert.is(repo.git('show', `${REF()}:src/by-exec.txt`), 'x\n');
    assert.ok(fs.existsSync(join(wt, 'src/by-exec.txt')), 'the given worktree stays');
    assert.equal(fs.readdirSync(tmp), []);

    const k = cli(repo, ['exec', '--keep', '--', process.execPath, '-e', 'console.log(process.env.SHADOW_WORKTREE)'], { env: { TMPDIR: tmp } });
    assert.is(k.status, 0, k.stderr);
    const kept = k.stdout.trim();
    assert.ok(kept.startsWith(tmp) && fs.existsSync(join(kept, MARKER)), `kept: ${kept}`);
    assert.match(k.stderr, /stays/);
    assert.is((await sh.worktrees.list()).length, 2);
    const none = cli(repo, ['exec', '--json']);
    assert.is(none.status, 2);
    assert.is(none.json.error.code, 'USAGE');
  } finally {
    sh.close();
  }
});

Exec('exec from inside a worktree named like the repository (../repo-draft, as the hint suggests) runs in the view', async ({ repo, tmp }) => {
  const sh = await open(repo);
  try {
    // repo.dir is <root>/repo: a worktree at <root>/repo-draft has the repository's path as a prefix.
    const wt = beside(repo, 'repo-draft');
    await sh.worktrees.add(wt);
    const r = cli(repo, ['exec', '--', process.execPath, '-e', 'console.log(process.cwd() === process.env.SHADOW_WORKTREE || process.cwd())'], { cwd: join(wt, 'src'), env: { TMPDIR: tmp } });
    assert.is(r.status, 0, `exit ${r.status}: ${r.stdout}${r.stderr}`);
    const cwd = r.stdout.trim();
    assert.ok(cwd === 'true' || cwd.startsWith(tmp), `the command ran in ${cwd}, outside the temporary view`);
  } finally {
    sh.close();
  }
});

// ---------------------------------------------------------------- CLI smoke

const Cmd = repoSuite('shadow worktree / watch (CLI)');

Cmd('add, list, record, sync, remove: exit statuses and JSON; commands run inside find the repository and draft by the marker', async ({ repo }) => {
  const before = treeHash(repo.dir);
  const add = cli(repo, ['worktree', 'add', '../wt', '--draft', 'feat', '--json']);
  assert.is(add.status, 0, add.stderr);
  const wt = beside(repo);
  assert.equal({ dir: add.json.dir, draft: add.json.draft, files: add.json.files }, { dir: wt, draft: 'feat', files: 8 });
  const again = cli(repo, ['worktree', 'add', '../wt', '--json']);
  assert.is(again.status, 1);
  assert.is(again.json.error.code, 'ALREADY_EXISTS');
  const inside = cli(repo, ['worktree', 'add', 'sub/wt', '--json']);
  assert.is(inside.status, 1);
  assert.is(inside.json.error.code, 'INVALID_TARGET');
  const text = cli(repo, ['worktree', 'add', 'sub/wt']);
  assert.is(text.status, 1);
  assert.match(text.stderr, /inside the repository's working tree/);

  const list = cli(repo, ['worktree', 'list', '--json']);
  assert.is(list.status, 0);
  assert.equal(list.json.worktrees.map((w: { dir: string; draft: string; behind: boolean }) => [w.dir, w.draft, w.behind]), [[wt, 'feat', false]]);

  // Inside the worktree: the marker names the repository and the draft.
  fs.writeFileSync(join(wt, 'a.txt'), 'edited in the worktree\n');
  const rec = cli(repo, ['worktree', 'record', '.', '-m', 'from inside', '--json'], { cwd: wt });
  assert.is(rec.status, 0, rec.stderr);
  assert.is(rec.json.batch.batch, 1);
  assert.is(batches(repo, 'feat')[0]!.subject, 'from inside');
  const cat = cli(repo, ['cat', '../a.txt'], { cwd: join(wt, 'src') });
  assert.is(cat.status, 0, cat.stderr);
  assert.is(cat.stdout, 'edited in the worktree\n');
  const write = cli(repo, ['edit', 'c.txt', '--old', 'charlie', '--new', 'CHARLIE'], { cwd: wt });
  assert.is(write.status, 0, write.stderr);
  assert.is(repo.git('show', `${REF('feat')}:c.txt`), 'CHARLIE\n');
  assert.is(repo.ref(REF()), undefined, 'the default draft is not touched');

  assert.ok(cli(repo, ['worktree', 'list', '--json']).json.worktrees[0].behind);
  const sync = cli(repo, ['worktree', 'sync', wt, '--json']);
  assert.is(sync.status, 0, sync.stderr);
  assert.equal(sync.json.written, ['c.txt']);
  assert.is(read(wt, 'c.txt'), 'CHARLIE\n');

  // A conflict: sync exits 1 and says which path.
  fs.writeFileSync(join(wt, 'c.txt'), 'mine\n');
  assert.is(cli(repo, ['edit', 'c.txt', '--old', 'CHARLIE', '--new', 'theirs'], { cwd: wt }).status, 0);
  const conflict = cli(repo, ['worktree', 'sync', wt]);
  assert.is(conflict.status, 1);
  assert.match(conflict.stdout + conflict.stderr, /conflict: c\.txt/);
  assert.is(read(wt, 'c.txt'), 'mine\n');

  const dirty = cli(repo, ['worktree', 'remove', wt]);
  assert.is(dirty.status, 1);
  assert.match(dirty.stderr, /not recorded/);
  const rm = cli(repo, ['worktree', 'remove', wt, '--force', '--json']);
  assert.is(rm.status, 0, rm.stderr);
  assert.equal(rm.json.discarded.map((d: { path: string }) => d.path), ['c.txt']);
  assert.not.ok(fs.existsSync(wt));
  assert.equal(cli(repo, ['worktree', 'list', '--json']).json.worktrees, []);
  assert.is(cli(repo, ['worktree', 'sync', wt, '--json']).json.error.code, 'NOT_FOUND');
  assert.is(treeHash(repo.dir), before, 'the working tree is byte-identical');
  fsck(repo);
});

Cmd('shadow watch <dir> --quiet-ms: ready, a change recorded, SIGTERM ends it with 0', async ({ repo }) => {
  const wt = beside(repo);
  assert.is(cli(repo, ['worktree', 'add', wt]).status, 0);
  const child = spawn(process.execPath, [SHADOW_BIN, 'watch', wt, '--quiet-ms', '200', '--json'], { cwd: repo.dir, env: repo.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const events = (): Array<{ type: string; [k: string]: unknown }> =>
    out
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
  try {
    await waitFor(`watch/ready (stderr: ${err})`, () => events().find((e) => e.type === 'watch/ready'), 30_000);
    fs.writeFileSync(join(wt, 'watched.txt'), 'seen by shadow watch\n');
    const rec = await waitFor('watch/record', () => events().find((e) => e.type === 'watch/record'), 30_000);
    assert.equal(rec.changes, [{ path: 'watched.txt', kind: 'write' }]);
    assert.is(repo.git('show', `${REF()}:watched.txt`), 'seen by shadow watch\n');
    assert.is(repo.git('log', '-1', '--format=%an', REF()).trim(), 'watch');
  } finally {
    child.kill('SIGTERM');
  }
  assert.is(await exited, 0, err);
  assert.not.ok(events().some((e) => e.type === 'watch/problem'), out);
});

Materialize.run();
Sync.run();
Record.run();
Watch.run();
Exec.run();
Cmd.run();
