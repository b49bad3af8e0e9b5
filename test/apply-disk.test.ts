import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openShadow, type FileOperation, type PathConflict, type Shadow } from '../src/index.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';
import { prng } from './helpers/prng.js';

/*
 * `shadow apply` on real directories: hostile working-tree states (FIFOs
 * and symlinks included), the user's files left byte for byte, --commit and
 * --squash against native git, the locks, and SIGKILL at many moments.
 */

const WORKER = fileURLToPath(new URL('./helpers/apply-worker.js', import.meta.url));

// ---------------------------------------------------------------- helpers

function blobOid(content: string): string {
  const body = Buffer.from(content);
  return createHash('sha1').update(`blob ${body.length}\0`).update(body).digest('hex');
}

function open(repo: DiskRepo): Promise<Shadow> {
  return openShadow({ dir: repo.dir, env: repo.env });
}

async function draft(repo: DiskRepo, batches: FileOperation[][]): Promise<void> {
  const sh = await open(repo);
  try {
    for (const [i, operations] of batches.entries()) {
      const r = await sh.batch({ intent: `batch ${i + 1}`, operations });
      assert.ok(r.success, JSON.stringify(r.error));
    }
  } finally {
    sh.close();
  }
}

interface Run {
  status: number;
  stdout: string;
  stderr: string;
  json: any;
}

/** Run the CLI with --json, with a time limit (a FIFO read by mistake would hang it). */
function cli(repo: DiskRepo, args: string[]): Run {
  const r = spawnSync(process.execPath, [SHADOW_BIN, ...args, '--json'], { cwd: repo.dir, env: repo.env, encoding: 'utf8', timeout: 30_000, maxBuffer: 64 << 20 });
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

/** Content of every entry of a tree (kind, bytes, permission bits), and its identity (inode, mtime). */
interface Scan {
  content: Record<string, string>;
  identity: Record<string, string>;
}

function scan(root: string, skipGit = true): Scan {
  const out: Scan = { content: {}, identity: {} };
  const walk = (dir: string, rel: string): void => {
    for (const name of fs.readdirSync(dir).sort()) {
      if (skipGit && rel === '' && name === '.git') continue;
      const full = join(dir, name);
      const path = rel === '' ? name : `${rel}/${name}`;
      const st = fs.lstatSync(full, { bigint: true });
      const mode = (Number(st.mode) & 0o7777).toString(8);
      out.identity[path] = `${st.ino}:${st.mtimeNs}`;
      if (st.isDirectory()) {
        out.content[path] = `dir ${mode}`;
        walk(full, path);
      } else if (st.isSymbolicLink()) out.content[path] = `link ${fs.readlinkSync(full)}`;
      else if (st.isFile()) out.content[path] = `file ${mode} ${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}`;
      else out.content[path] = `special ${Number(st.mode).toString(8)}`;
    }
  };
  walk(root, '');
  return out;
}

function temps(root: string): string[] {
  return Object.keys(scan(root).content).filter((p) => p.includes('.shadow-tmp-'));
}

function journals(repo: DiskRepo): string[] {
  try {
    return fs.readdirSync(repo.path('.git/shadow/journal')).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
}

function records(repo: DiskRepo, name = 'default'): string[] {
  try {
    return fs.readdirSync(repo.path(`.git/shadow/drafts/${name}/applies`)).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
}

function fsckClean(repo: DiskRepo): void {
  const r = repo.gitResult('fsck', '--no-progress', '--no-dangling');
  assert.is(r.status, 0, `git fsck: ${r.stdout}${r.stderr}`);
  assert.not.match(`${r.stdout}${r.stderr}`, /error|missing|broken|corrupt/i);
}

/** `git status --porcelain` lines, by path. */
function status(repo: DiskRepo): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of repo.git('status', '--porcelain', '--untracked-files=all').split('\n')) {
    if (line) out[line.slice(3)] = line.slice(0, 2);
  }
  return out;
}

function readOr(repo: DiskRepo, path: string): string | null {
  try {
    return fs.readFileSync(repo.path(path), 'utf8');
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- hostile states

const BASE_FILES: Record<string, string> = {
  'README.md': 'Hello\n',
  'a.txt': 'a\n',
  'src/app.ts': 'export {}\n',
  'src/lib/util.ts': 'export const u = 1\n',
  'old/gone.txt': 'gone\n',
};

const BASE_DRAFT: FileOperation[] = [
  { operation: 'write', path: 'a.txt', content: 'A\n' },
  { operation: 'write', path: 'src/app.ts', content: 'export const app = 1\n' },
  { operation: 'write', path: 'src/new/feature.ts', content: 'export const f = 1\n' },
  { operation: 'write', path: 'newdir/x.txt', content: 'x\n' },
  { operation: 'delete', path: 'old/gone.txt' },
];

interface Hostile {
  name: string;
  make(repo: DiskRepo, outside: string): void;
  /** Conflicts the apply must report (at least these). */
  conflicts: Array<Pick<PathConflict, 'path' | 'expected' | 'found'>>;
}

const HOSTILE: Hostile[] = [
  {
    name: 'a file of the set is now a directory',
    make: (r) => {
      fs.rmSync(r.path('a.txt'));
      r.write('a.txt/inside.txt', 'i\n');
    },
    conflicts: [{ path: 'a.txt', expected: blobOid('a\n'), found: 'type changed' }],
  },
  {
    name: 'a file of the set is now a symlink to /etc',
    make: (r) => {
      fs.rmSync(r.path('src/app.ts'));
      fs.symlinkSync('/etc', r.path('src/app.ts'));
    },
    conflicts: [{ path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'type changed' }],
  },
  {
    name: 'a file of the set is now a symlink to a file inside the workspace',
    make: (r) => {
      fs.rmSync(r.path('a.txt'));
      fs.symlinkSync('README.md', r.path('a.txt'));
    },
    conflicts: [{ path: 'a.txt', expected: blobOid('a\n'), found: 'type changed' }],
  },
  {
    name: 'a file of the set is now a FIFO',
    make: (r) => {
      fs.rmSync(r.path('a.txt'));
      const m = spawnSync('mkfifo', [r.path('a.txt')]);
      assert.is(m.status, 0, 'mkfifo');
    },
    conflicts: [{ path: 'a.txt', expected: blobOid('a\n'), found: 'type changed' }],
  },
  {
    name: 'a parent directory of the set is a symlink leading outside',
    make: (r, outside) => {
      fs.renameSync(r.path('src'), join(outside, 'src'));
      fs.symlinkSync(join(outside, 'src'), r.path('src'));
    },
    conflicts: [{ path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'type changed' }],
  },
  {
    name: 'the new parent directory of a created file is a symlink leading outside',
    make: (r, outside) => {
      fs.mkdirSync(join(outside, 'elsewhere'));
      fs.symlinkSync(join(outside, 'elsewhere'), r.path('newdir'));
    },
    conflicts: [{ path: 'newdir/x.txt', expected: null, found: 'type changed' }],
  },
  // A file of the set made executable is no refusal any more: the person's mode and the draft's content merge (test/apply-merge.test.ts).
];

const Hostility = suite('apply on disk: hostile working trees');

for (const h of HOSTILE) {
  Hostility(`${h.name}: exit 1, STALE_BASE naming path, expected and found; nothing written anywhere; --dry-run says the same`, async () => {
    const repo = new DiskRepo(BASE_FILES);
    try {
      const outside = join(repo.root, 'outside');
      fs.mkdirSync(outside);
      await draft(repo, [BASE_DRAFT]);
      h.make(repo, outside);
      const before = scan(repo.dir);
      const outsideBefore = scan(outside, false);
      const head = repo.ref('main');

      const reported: Array<[string, PathConflict[]]> = [];
      for (const args of [['apply', '--dry-run'], ['apply']]) {
        const r = cli(repo, args);
        assert.is(r.status, 1, `${h.name}: ${args.join(' ')} exit status (${r.stderr})`);
        assert.is(r.json?.error?.code, 'STALE_BASE', `${h.name}: ${args.join(' ')}: ${r.stdout}`);
        reported.push([args.join(' '), r.json.error.data.conflicts]);
      }
      for (const [how, conflicts] of reported) {
        const got = conflicts.map((c) => ({ path: c.path, expected: c.expected, found: c.found }));
        for (const want of h.conflicts) assert.ok(got.some((c) => JSON.stringify(c) === JSON.stringify(want)), `${h.name}: ${how} reports ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
      }
      assert.equal(reported[0]![1], reported[1]![1], `${h.name}: the dry run reports what the apply does`);
      assert.equal(scan(repo.dir), before, `${h.name}: the working tree changed`);
      assert.equal(scan(outside, false), outsideBefore, `${h.name}: something was written outside the workspace`);
      assert.equal(journals(repo), [], h.name);
      assert.equal(records(repo), [], h.name);
      assert.is(fs.existsSync(repo.path('.git/shadow/apply.lock')), false, h.name);
      assert.is(repo.ref('main'), head);
    } finally {
      repo.cleanup();
    }
  });
}

Hostility.run();

// ---------------------------------------------------------------- the user's files

const Untouched = suite('apply on disk: the user\'s files');

Untouched('untracked, ignored and dirty files outside the set stay byte-identical and are never rewritten, through apply and unapply', async () => {
  const repo = new DiskRepo({ ...BASE_FILES, '.gitignore': '.env\nbuild/\n*.log\n', 'dirty.txt': 'committed\n', 'staged.txt': 'committed\n' });
  try {
    await draft(repo, [
      [
        { operation: 'write', path: 'a.txt', content: 'A\n' },
        { operation: 'write', path: 'src/new/feature.ts', content: 'f\n' },
        { operation: 'delete', path: 'old/gone.txt' },
      ],
      [{ operation: 'rename', path: 'src/lib/util.ts', to: 'src/util.ts' }],
    ]);
    // The user's own state, made after the draft: none of it is in the set.
    repo.write('notes.txt', 'untracked\n');
    repo.write('old/untracked-inside.txt', 'in a directory the publish empties of tracked files\n');
    repo.write('.env', 'TOKEN=abc\n');
    repo.write('build/out.js', 'built\n');
    repo.write('debug.log', Buffer.from([0, 1, 2, 255]));
    repo.write('dirty.txt', 'committed\nand dirty\n');
    repo.write('staged.txt', 'staged change\n');
    repo.git('add', 'staged.txt');
    fs.chmodSync(repo.path('notes.txt'), 0o600);
    const set = ['a.txt', 'src/new/feature.ts', 'old/gone.txt', 'src/lib/util.ts', 'src/util.ts'];
    const dirsOfSet = ['src', 'src/new', 'src/lib', 'old'];
    const outsideSet = (p: string): boolean => !set.includes(p) && !dirsOfSet.includes(p);

    const before = scan(repo.dir);
    const statusBefore = status(repo);
    const r = cli(repo, ['apply']);
    assert.is(r.status, 0, r.stderr);
    assert.is(r.json.applied, true);
    const after = scan(repo.dir);
    for (const p of Object.keys(before.content).filter(outsideSet)) {
      assert.is(after.content[p], before.content[p], `apply changed ${p}`);
      assert.is(after.identity[p], before.identity[p], `apply rewrote ${p}`);
    }
    assert.is(repo.read('a.txt'), 'A\n');
    assert.is(repo.read('src/util.ts'), 'export const u = 1\n');
    assert.is(repo.exists('src/lib'), false, 'an emptied directory is removed');
    assert.is(repo.read('old/untracked-inside.txt'), 'in a directory the publish empties of tracked files\n', 'a directory holding an untracked file stays');
    assert.is(repo.git('diff', '--cached', '--name-only'), 'staged.txt\n', 'the index is not touched without --commit');

    const u = cli(repo, ['unapply']);
    assert.is(u.status, 0, u.stderr);
    const back = scan(repo.dir);
    assert.equal(back.content, before.content, 'after unapply the working tree holds exactly what it held');
    for (const p of Object.keys(before.content).filter(outsideSet)) assert.is(back.identity[p], before.identity[p], `unapply rewrote ${p}`);
    assert.equal(status(repo), statusBefore);
  } finally {
    repo.cleanup();
  }
});

Untouched('an empty draft: exit 0, nothing to apply, nothing written', async () => {
  const repo = new DiskRepo(BASE_FILES);
  try {
    assert.is(cli(repo, ['draft', 'new', 'empty']).status, 0);
    const before = scan(repo.dir);
    for (const args of [['apply', '--draft', 'empty', '--dry-run'], ['apply', '--draft', 'empty']]) {
      const r = cli(repo, args);
      assert.is(r.status, 0, r.stdout + r.stderr);
      assert.equal(r.json.paths, []);
      assert.is(r.json.applied, false);
    }
    const text = repo.shadow(['apply', '--draft', 'empty']);
    assert.is(text.status, 0);
    assert.match(text.stdout, /nothing to apply/);
    assert.equal(scan(repo.dir), before);
    assert.equal(records(repo, 'empty'), []);
  } finally {
    repo.cleanup();
  }
});

Untouched.run();

// ---------------------------------------------------------------- --commit and --squash

interface CommitFixture {
  repo: DiskRepo;
  /** The paths the draft publishes. */
  set: string[];
  root: string;
}

/** A repository with the user's staged, unstaged and untracked changes, and a draft of two batches (the first captures a dirty file). */
async function commitFixture(): Promise<CommitFixture> {
  const repo = new DiskRepo({ ...BASE_FILES, 'dirty.txt': 'committed\n', 'staged.txt': 'committed\n', 'other.txt': 'other\n' });
  repo.write('a.txt', 'a\nlocal\n'); // dirty, then taken by the draft: captured first
  await draft(repo, [
    [
      { operation: 'edit', path: 'a.txt', old_content: 'local', content: 'LOCAL' },
      { operation: 'write', path: 'src/new/feature.ts', content: 'f\n' },
    ],
    [
      { operation: 'write', path: 'src/app.ts', content: 'export const app = 2\n' },
      { operation: 'delete', path: 'old/gone.txt' },
    ],
  ]);
  repo.write('dirty.txt', 'committed\nunstaged\n');
  repo.write('staged.txt', 'staged\n');
  repo.git('add', 'staged.txt');
  repo.write('untracked.txt', 'u\n');
  return { repo, set: ['a.txt', 'old/gone.txt', 'src/app.ts', 'src/new/feature.ts'], root: repo.ref('main')! };
}

function assertUserStateKept(repo: DiskRepo): void {
  const s = status(repo);
  assert.is(s['staged.txt'], 'M ', 'the staged change stays staged');
  assert.is(repo.git('show', ':staged.txt'), 'staged\n');
  assert.is(s['dirty.txt'], ' M', 'the unstaged change stays unstaged');
  assert.is(repo.read('dirty.txt'), 'committed\nunstaged\n');
  assert.is(s['untracked.txt'], '??');
}

const Commit = suite<{ fx: CommitFixture }>('apply on disk: --commit and --squash');
Commit.before.each(async (ctx) => {
  ctx.fx = await commitFixture();
});
Commit.after.each(({ fx }) => fx.repo.cleanup());

Commit('--commit with HEAD at the draft root fast-forwards to the draft tip (captures included); git status is clean for the published paths', async ({ fx }) => {
  const { repo, set, root } = fx;
  const tip = repo.ref('refs/shadow/drafts/default')!;
  const r = cli(repo, ['apply', '--commit']);
  assert.is(r.status, 0, r.stderr);
  assert.equal(r.json.branch, { ref: 'refs/heads/main', old: root, new: tip, how: 'fast-forward' });
  assert.is(repo.ref('main'), tip);
  assert.equal(repo.git('log', '--format=%s', `${root}..main`).trim().split('\n'), ['batch 2', 'batch 1', 'capture working tree state of 1 path before batch 1']);
  const s = status(repo);
  for (const p of set) assert.is(s[p], undefined, `git status shows ${p}: ${s[p]}`);
  assertUserStateKept(repo);
  assert.is(repo.read('a.txt'), 'a\nLOCAL\n');
  assert.is(repo.exists('old'), false);
  fsckClean(repo);
});

const MOVED_HEAD: Array<{ args: string[]; how: string; subjects: string[] }> = [
  { args: ['apply', '--commit'], how: 'replay', subjects: ['batch 2', 'batch 1', 'capture working tree state of 1 path before batch 1'] },
  { args: ['apply', '--squash', '-m', 'squashed on a moved HEAD'], how: 'squash', subjects: ['squashed on a moved HEAD'] },
];

for (const m of MOVED_HEAD) {
  Commit(`HEAD moved on other paths: ${m.args.slice(1, 2).join(' ')} ${m.how === 'replay' ? 'replays the draft\'s commits on it' : 'makes one commit on it'}`, async ({ fx }) => {
    const { repo, set } = fx;
    repo.write('other.txt', 'other, changed on main\n');
    repo.git('commit', '-q', '-m', 'user commit on main', '--', 'other.txt');
    const head = repo.ref('main')!;
    const r = cli(repo, m.args);
    assert.is(r.status, 0, `${m.how}: ${r.stdout}${r.stderr}`);
    assert.is(r.json.branch.how, m.how);
    assert.is(r.json.branch.old, head);
    assert.equal(repo.git('log', '--format=%s', `${head}..main`).trim().split('\n'), m.subjects, m.how);
    assert.is(repo.git('rev-parse', `main~${m.subjects.length}`), `${head}\n`, `${m.how}: on top of the moved HEAD`);
    assert.is(repo.git('show', 'main:other.txt'), 'other, changed on main\n');
    assert.is(repo.git('show', 'main:src/app.ts'), 'export const app = 2\n');
    assert.is(repo.git('show', 'main:a.txt'), 'a\nLOCAL\n');
    const s = status(repo);
    for (const p of set) assert.is(s[p], undefined, `${m.how}: git status shows ${p}: ${s[p]}`);
    assertUserStateKept(repo);
    fsckClean(repo);
  });
}

Commit('--commit after HEAD changed a path of the draft: STALE_BASE, nothing written, the branch stays', async ({ fx }) => {
  const { repo } = fx;
  // main changes src/app.ts; the working tree keeps the draft's base of it, so only the branch check can object.
  repo.write('src/app.ts', 'export const main = 1\n');
  repo.git('commit', '-q', '-m', 'main changes app.ts', '--', 'src/app.ts');
  repo.write('src/app.ts', 'export {}\n');
  const head = repo.ref('main');
  const before = scan(repo.dir);
  const r = cli(repo, ['apply', '--commit']);
  assert.is(r.status, 1);
  assert.is(r.json.error.code, 'STALE_BASE', r.stdout);
  assert.match(r.json.error.message, /src\/app\.ts/);
  assert.is(repo.ref('main'), head);
  assert.equal(scan(repo.dir).content, before.content);
  assert.equal(journals(repo), []);
});

Commit('--squash makes exactly one commit with the published paths; unapply moves the branch back and restores the index', async ({ fx }) => {
  const { repo, set, root } = fx;
  const statusBefore = status(repo);
  const before = scan(repo.dir);
  const r = cli(repo, ['apply', '--squash', '-m', 'the whole draft']);
  assert.is(r.status, 0, r.stderr);
  assert.is(r.json.branch.how, 'squash');
  assert.is(repo.git('rev-list', '--count', `${root}..main`), '1\n');
  assert.is(repo.git('log', '-1', '--format=%s', 'main'), 'the whole draft\n');
  assert.is(repo.git('rev-parse', 'main^'), `${root}\n`);
  assert.equal(repo.git('diff', '--name-only', root, 'main').trim().split('\n'), set);
  const s = status(repo);
  for (const p of set) assert.is(s[p], undefined, `git status shows ${p}: ${s[p]}`);
  assertUserStateKept(repo);
  fsckClean(repo);

  const u = cli(repo, ['unapply']);
  assert.is(u.status, 0, u.stderr);
  assert.is(repo.ref('main'), root, 'the branch moves back');
  assert.equal(scan(repo.dir).content, before.content);
  assert.equal(status(repo), statusBefore, 'git status is as before the apply');
});

Commit('unapply after --commit moves the branch back; apply --commit again lands the same tip', async ({ fx }) => {
  const { repo, root } = fx;
  const tip = repo.ref('refs/shadow/drafts/default')!;
  const statusBefore = status(repo);
  assert.is(cli(repo, ['apply', '--commit']).status, 0);
  const u = cli(repo, ['unapply']);
  assert.is(u.status, 0, u.stderr);
  assert.equal(u.json.branch, { ref: 'refs/heads/main', old: tip, new: root });
  assert.is(repo.ref('main'), root);
  // An index written well after the files: git trusts an entry whose stat
  // data matches its file instead of comparing contents (a.txt's entry is
  // the committed one again, while the file holds the user's change).
  const later = new Date(Date.now() + 10_000);
  fs.utimesSync(repo.path('.git/index'), later, later);
  assert.equal(status(repo), statusBefore);
  const again = cli(repo, ['apply', '--commit']);
  assert.is(again.status, 0, again.stderr);
  assert.is(repo.ref('main'), tip);
  fsckClean(repo);
});

const REFUSED: Array<{ name: string; make(repo: DiskRepo): void; code: string; message: RegExp }> = [
  { name: 'native git holds index.lock', make: (r) => fs.writeFileSync(r.path('.git/index.lock'), ''), code: 'LOCKED', message: /index\.lock/ },
  { name: 'HEAD is detached', make: (r) => r.git('checkout', '-q', '--detach'), code: 'NO_BRANCH', message: /detached/ },
  { name: 'the draft root is not an ancestor of HEAD', make: (r) => r.git('commit', '-q', '--amend', '-m', 'rewritten', '--', 'README.md'), code: 'DIVERGED', message: /ancestor/ },
];

for (const c of REFUSED) {
  Commit(`--commit refused before any write when ${c.name}: ${c.code}`, async ({ fx }) => {
    const { repo } = fx;
    c.make(repo);
    const head = repo.gitResult('rev-parse', 'HEAD').stdout;
    const before = scan(repo.dir);
    const index = fs.readFileSync(repo.path('.git/index'));
    const r = cli(repo, ['apply', '--commit']);
    assert.is(r.status, 1);
    assert.is(r.json?.error?.code, c.code, r.stdout);
    assert.match(r.json.error.message, c.message);
    assert.equal(scan(repo.dir).content, before.content, 'the working tree changed');
    assert.is(repo.gitResult('rev-parse', 'HEAD').stdout, head);
    assert.ok(fs.readFileSync(repo.path('.git/index')).equals(index), 'the index changed');
    assert.equal(journals(repo), []);
    if (c.code === 'LOCKED') assert.ok(fs.existsSync(repo.path('.git/index.lock')), 'git\'s lock is left alone');
  });
}

Commit.run();

// ---------------------------------------------------------------- one apply at a time

const Lock = suite('apply on disk: one apply at a time');

Lock('a live shadow apply holds apply.lock: LOCKED naming it, nothing written; a lock left by a dead process is taken over', async () => {
  const repo = new DiskRepo(BASE_FILES);
  try {
    await draft(repo, [BASE_DRAFT]);
    const lock = repo.path('.git/shadow/apply.lock');
    const holder = (pid: number): string => JSON.stringify({ pid, host: hostname(), since: new Date().toISOString(), what: 'shadow apply' });
    // This test process is alive: it plays the running apply.
    const live = holder(process.pid);
    fs.writeFileSync(lock, live);
    const before = scan(repo.dir);
    const r = cli(repo, ['apply']);
    assert.is(r.status, 1);
    assert.is(r.json.error.code, 'LOCKED');
    assert.match(r.json.error.message, new RegExp(`another shadow apply is running \\(process ${process.pid}`));
    assert.equal(scan(repo.dir).content, before.content);
    assert.is(fs.readFileSync(lock, 'utf8'), live, 'the holder keeps its lock');
    assert.equal(journals(repo), []);

    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    fs.writeFileSync(lock, holder(dead));
    const ok = cli(repo, ['apply']);
    assert.is(ok.status, 0, ok.stdout + ok.stderr);
    assert.is(ok.json.applied, true);
    assert.is(repo.read('a.txt'), 'A\n');
    assert.is(fs.existsSync(lock), false, 'the lock is released');
  } finally {
    repo.cleanup();
  }
});

Lock.run();

// ---------------------------------------------------------------- SIGKILL


const pad = (i: number): string => String(i).padStart(3, '0');

/** 200 paths: 180 modified, 10 created in a new directory, 10 deleted (emptying a directory). */
function killFixture(): { files: Record<string, string>; ops: FileOperation[]; old: Record<string, string | null>; new: Record<string, string | null> } {
  const files: Record<string, string> = { 'README.md': 'Hello\n' };
  const ops: FileOperation[] = [];
  const old: Record<string, string | null> = {};
  const neu: Record<string, string | null> = {};
  for (let i = 0; i < 180; i++) {
    const p = `many/f${pad(i)}.txt`;
    files[p] = `old ${i}\n`.repeat(20);
    old[p] = files[p]!;
    neu[p] = `new ${i}\n`.repeat(30);
    ops.push({ operation: 'write', path: p, content: neu[p]! });
  }
  for (let i = 0; i < 10; i++) {
    const p = `fresh/n${pad(i)}.txt`;
    old[p] = null;
    neu[p] = `fresh ${i}\n`;
    ops.push({ operation: 'write', path: p, content: neu[p]! });
  }
  for (let i = 0; i < 10; i++) {
    const p = `gone/d${pad(i)}.txt`;
    files[p] = `gone ${i}\n`;
    old[p] = files[p]!;
    neu[p] = null;
    ops.push({ operation: 'delete', path: p });
  }
  return { files, ops, old, new: neu };
}

function spawnExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

const Kill = suite('apply on disk: SIGKILL');

Kill('shadow apply of 200 files killed with SIGKILL at 15 moments: every path old or new, shadow recover (or any command) converges to new, no temp file, git fsck clean', async () => {
  const fx = killFixture();
  const repo = new DiskRepo(fx.files);
  try {
    await draft(repo, [fx.ops]);
    const rand = prng(20261122);
    // Kill moments: as the journal appears, as the k-th file turns new (the CLI watched from here), and exact fs steps in a child script.
    const moments: string[] = ['watch:journal'];
    for (let i = 0; i < 10; i++) moments.push(`watch:${Math.floor(rand() * 175)}`);
    moments.push('worker:journal', `worker:rename:${1 + Math.floor(rand() * 189)}`, `worker:rename:${1 + Math.floor(rand() * 189)}`, 'worker:record');
    const paths = Object.keys(fx.new);
    let interrupted = 0;

    for (const [round, moment] of moments.entries()) {
      const [how, what] = [moment.slice(0, moment.indexOf(':')), moment.slice(moment.indexOf(':') + 1)];
      let child: ChildProcess;
      if (how === 'watch') {
        child = spawn(process.execPath, [SHADOW_BIN, 'apply', '--json'], { cwd: repo.dir, env: repo.env, stdio: 'ignore' });
      } else {
        child = spawn(process.execPath, [WORKER, repo.dir, 'apply', what], { cwd: repo.dir, env: repo.env, stdio: 'ignore' });
      }
      const exited = spawnExit(child);
      if (how === 'watch') {
        // Poll the file system for progress; kill the moment it is reached.
        const reached = what === 'journal' ? (): boolean => journals(repo).length > 0 : ((p: string) => (): boolean => readOr(repo, p) === fx.new[p])(`many/f${pad(Number(what))}.txt`);
        while (child.exitCode === null && child.signalCode === null) {
          if (reached()) {
            child.kill('SIGKILL');
            break;
          }
          await new Promise((r) => setImmediate(r));
        }
      }
      await exited;
      const killed = child.signalCode === 'SIGKILL';
      if (killed) interrupted++;

      const torn = paths.filter((p) => {
        const now = readOr(repo, p);
        return now !== fx.old[p] && now !== fx.new[p];
      });
      assert.equal(torn, [], `${moment}: neither old nor new after the kill`);
      // A journal the kill cut short (a write of it stopped mid-way) means nothing was written after it: recovery drops it.
      const pending = journals(repo).filter((j) => fs.readFileSync(repo.path(`.git/shadow/journal/${j}`), 'utf8').endsWith('\n')).length;
      const hadTemps = temps(repo.dir).length;
      // Killed at a rename into the working tree: the temp copies of its window of writes are complete and left behind.
      if (what.startsWith('rename:')) assert.ok(hadTemps >= 1 && hadTemps <= 64, `${moment}: ${hadTemps} temp files of the interrupted window of writes`);

      // `shadow recover` finishes it and reports; every other command finishes it first too.
      if (round % 3 !== 2) {
        const rec = cli(repo, ['recover']);
        assert.is(rec.status, 0, `${moment}: recover: ${rec.stdout}${rec.stderr}`);
        if (pending > 0) {
          assert.is(rec.json.finished.length, 1, `${moment}: ${rec.stdout}`);
          assert.equal(rec.json.finished[0].conflicts, []);
        }
      } else {
        const st = repo.shadow(['status']);
        assert.is(st.status, 0, `${moment}: status: ${st.stdout}${st.stderr}`);
        if (pending > 0) assert.match(st.stderr, /recovered an interrupted apply first/, moment);
      }
      if (!killed || records(repo).length === 0) {
        if (records(repo).length === 0) {
          // Killed before the journal existed: nothing was written; apply again.
          for (const p of paths) assert.is(readOr(repo, p), fx.old[p], `${moment}: ${p} changed without a journal`);
          const again = cli(repo, ['apply']);
          assert.is(again.status, 0, `${moment}: ${again.stdout}${again.stderr}`);
        }
      }
      const notNew = paths.filter((p) => readOr(repo, p) !== fx.new[p]);
      assert.equal(notNew, [], `${moment}: not new after recover`);
      assert.equal(temps(repo.dir), [], `${moment}: temp files left (${hadTemps} before recover)`);
      assert.is(repo.exists('gone'), false, `${moment}: the emptied directory is left`);
      assert.equal(journals(repo), []);
      assert.is(records(repo).length, 1, moment);
      fsckClean(repo);

      // Back to the old state for the next moment, cheaply: the old files, and the apply forgotten (its record removed).
      for (const p of paths) {
        if (fx.old[p] === null) fs.rmSync(repo.path(p));
        else repo.write(p, fx.old[p]!);
      }
      fs.rmSync(repo.path('fresh'), { recursive: true });
      for (const name of records(repo)) fs.rmSync(repo.path(`.git/shadow/drafts/default/applies/${name}`));
    }
    assert.ok(interrupted >= 12, `only ${interrupted} of ${moments.length} applies were killed before they finished`);
  } finally {
    repo.cleanup();
  }
});

Kill.run();
