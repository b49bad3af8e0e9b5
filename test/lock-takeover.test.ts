import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Volume, createFsFromVolume } from 'memfs';
import type { FileSystem, Processes } from '../src/index.js';
import { createLockFile } from '../src/durable/lock-file.js';
import { testContext, type TestContext } from './helpers/context.js';
import { DiskRepo } from './helpers/disk-repo.js';

/**
 * git-format locks (`<ref>.lock`, `index.lock`, `HEAD.lock`) that shadow
 * takes record their holder (a hard link in shadow/locks/): a lock whose
 * holder died is taken over, a live holder is named, and a lock with no
 * record (git's) is never removed. On disk: a batch, a session finalize, an
 * `apply --commit` and an `unapply` SIGKILLed while holding a lock leave
 * nothing that blocks the next command.
 */

const WORKER = fileURLToPath(new URL('./helpers/kill-worker.js', import.meta.url));
const HOST = 'this-host';
const HOLDERS = '/repo/.git/shadow/locks';
const REF = '/repo/.git/refs/shadow/drafts/d';

interface C {
  ctx: TestContext;
  fs: FileSystem;
}

function procs(self: number, alive: number[] = []): Processes {
  return { self, host: HOST, isAlive: (pid) => pid === self || alive.includes(pid) };
}

const M = suite<C>('git-format locks: holders');
M.before.each((c) => {
  const vol = new Volume();
  vol.mkdirSync('/repo/.git/refs/shadow/drafts', { recursive: true });
  c.fs = createFsFromVolume(vol) as unknown as FileSystem;
  c.ctx = { ...testContext(c.fs), processes: procs(100) };
});

async function locked(
  p: Promise<unknown>,
): Promise<{ code: string; message: string; hint?: string; data: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    return e as never;
  }
  return assert.unreachable('expected LOCKED') as never;
}

M(
  'a lock is one file with its record: the lock holds the content written, the record names the process',
  async ({ ctx, fs }) => {
    const lock = await createLockFile(ctx, REF, 100, HOLDERS);
    fs.writeSync(lock.fd, 'x\n');
    fs.closeSync(lock.fd);
    const records = fs.readdirSync(HOLDERS) as string[];
    assert.is(records.length, 1);
    assert.match(records[0]!, new RegExp(`^[0-9a-f]{16}\\.100\\.${Buffer.from(HOST).toString('base64url')}\\.`));
    assert.is(fs.statSync(`${REF}.lock`).ino, fs.statSync(`${HOLDERS}/${records[0]}`).ino);
    assert.is(String(fs.readFileSync(`${REF}.lock`, 'utf8')), 'x\n');
    fs.renameSync(`${REF}.lock`, REF);
    lock.forget();
    assert.equal(fs.readdirSync(HOLDERS), []);
  },
);

M(
  'a lock whose holder died is taken over at once; a second taker does not remove the new lock',
  async ({ ctx, fs }) => {
    const dead = await createLockFile({ ...ctx, processes: procs(300) }, REF, 100, HOLDERS);
    fs.closeSync(dead.fd);
    const mine = await createLockFile(ctx, REF, 0, HOLDERS);
    fs.closeSync(mine.fd);
    const records = fs.readdirSync(HOLDERS) as string[];
    assert.is(records.length, 1, "the dead holder's record is gone");
    assert.match(records[0]!, /\.100\./);
    // Another process finds the lock held by a live holder (this one): it waits, then names it.
    const e = await locked(createLockFile({ ...ctx, processes: procs(200, [100]) }, REF, 5, HOLDERS));
    assert.is(e.code, 'LOCKED');
    assert.is(e.message, `${REF}.lock is held by shadow process 100 on ${HOST}`);
    assert.equal(e.data.holder, { pid: 100, host: HOST });
    assert.match(e.hint!, /if process 100 is no longer running on this-host, remove/);
    assert.ok(fs.existsSync(`${REF}.lock`));
  },
);

M('a holder on another host is never taken over, even when no process there has its pid', async ({ ctx, fs }) => {
  const other = await createLockFile(
    { ...ctx, processes: { self: 300, host: 'elsewhere', isAlive: () => false } },
    REF,
    100,
    HOLDERS,
  );
  fs.closeSync(other.fd);
  const e = await locked(createLockFile(ctx, REF, 5, HOLDERS));
  assert.is(e.message, `${REF}.lock is held by shadow process 300 on elsewhere`);
  assert.ok(fs.existsSync(`${REF}.lock`));
});

M("a lock without a record is git's: waited for, named as git's, never removed", async ({ ctx, fs }) => {
  fs.writeFileSync(`${REF}.lock`, '');
  const e = await locked(createLockFile(ctx, REF, 5, HOLDERS));
  assert.is(e.code, 'LOCKED');
  assert.is(e.message, `${REF}.lock exists and no shadow process recorded it: git (or another tool) is updating it`);
  assert.match(e.hint!, new RegExp(`if no git process is running, remove ${REF}\\.lock`));
  assert.is(e.data.holder, null);
  assert.ok(fs.existsSync(`${REF}.lock`));
  assert.equal(fs.readdirSync(HOLDERS), [], 'the waiting record is gone');
});

M(
  'a lock made before this machine last started is stale, record or not: a power loss keeps locks nobody holds',
  async ({ ctx, fs }) => {
    // A git-format lock with no record (the record lost with the power, or git's own), dated before the boot.
    fs.writeFileSync(`${REF}.lock`, '');
    const made = Number(fs.statSync(`${REF}.lock`).mtimeMs);
    const before = { ...ctx, processes: { ...procs(100), bootTime: made + 1000 } };
    const lock = await createLockFile(before, REF, 5, HOLDERS);
    fs.writeSync(lock.fd, 'new\n');
    fs.closeSync(lock.fd);
    assert.is(String(fs.readFileSync(`${REF}.lock`, 'utf8')), 'new\n', 'taken over');
    lock.forget();
    fs.unlinkSync(`${REF}.lock`);
    // The same lock made after the boot is still git's.
    fs.writeFileSync(`${REF}.lock`, '');
    const after = { ...ctx, processes: { ...procs(100), bootTime: Number(fs.statSync(`${REF}.lock`).mtimeMs) - 1000 } };
    assert.is((await locked(createLockFile(after, REF, 5, HOLDERS))).code, 'LOCKED');
    assert.ok(fs.existsSync(`${REF}.lock`));
  },
);

M('where the file system cannot link, the lock is made as git makes it', async ({ ctx, fs }) => {
  const noLinks = {
    ...fs,
    linkSync: () => {
      throw Object.assign(new Error('EPERM'), { code: 'EPERM' });
    },
  } as FileSystem;
  const lock = await createLockFile({ ...ctx, fs: noLinks }, REF, 5, HOLDERS);
  fs.closeSync(lock.fd);
  assert.ok(fs.existsSync(`${REF}.lock`));
  assert.equal(fs.readdirSync(HOLDERS), []);
});

// ---------------------------------------------------------------- on disk, SIGKILL

interface D {
  repo: DiskRepo;
}

const K = suite<D>('git-format locks: a process killed while it holds one');
K.before.each((c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n', 'src/a.txt': 'a\n' });
  c.repo.git('config', 'shadow.lockTimeout', '300');
});
K.after.each((c) => c.repo.cleanup());

function killAt(repo: DiskRepo, command: string, trigger: string, draft = 'default'): void {
  const r = spawnSync(process.execPath, [WORKER, repo.dir, command, trigger], {
    encoding: 'utf8',
    env: { ...repo.env, SHADOW_DRAFT: draft },
  });
  assert.is(r.signal, 'SIGKILL', `the worker was to die at ${trigger}: ${r.stdout}${r.stderr}`);
}

function ok(repo: DiskRepo, args: string[], input?: string): any {
  const r = repo.shadow([...args, '--json'], input === undefined ? {} : { input });
  assert.is(r.status, 0, `shadow ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.json();
}

function locksUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`);
      else if (e.name.endsWith('.lock')) out.push(`${rel}${e.name}`);
    }
  };
  walk(dir, '');
  return out.sort();
}

function fsckClean(repo: DiskRepo): void {
  const r = repo.gitResult('fsck', '--strict', '--no-progress');
  assert.is(r.status, 0, r.stderr);
}

K(
  'a first batch killed holding its ref lock (written and fsynced) leaves it; the next batch takes it over',
  ({ repo }) => {
    ok(repo, ['draft', 'new', 'd']);
    // At its reflog line's write: after the lock's fsync, before its rename. (The write, not the
    // log's open: loading the draft opens the log too, to read its last move from the end.)
    killAt(repo, 'batch', 'writeSync@/logs/refs/shadow/drafts/d:1', 'd');
    assert.equal(
      locksUnder(join(repo.dir, '.git')),
      ['refs/shadow/drafts/d.lock'],
      'the killed batch held the ref lock',
    );
    const r = ok(repo, ['--draft', 'd', 'write', 'next.txt'], 'next\n');
    assert.ok(r.success);
    assert.equal(locksUnder(join(repo.dir, '.git')), []);
    assert.is(repo.git('show', 'refs/shadow/drafts/d:next.txt'), 'next\n');
    // Native git moves the ref again: nothing of the dead holder is left in its way.
    repo.git('update-ref', 'refs/shadow/drafts/d', 'refs/shadow/drafts/d~1');
    fsckClean(repo);
  },
);

K('a session finalize killed while it holds the ref lock: the next batch and a new session go through', ({ repo }) => {
  ok(repo, ['draft', 'new', 'default']);
  killAt(repo, 'finalize', 'renameSync@/refs/shadow/drafts/default:1');
  assert.equal(locksUnder(join(repo.dir, '.git')), ['refs/shadow/drafts/default.lock']);
  assert.ok(ok(repo, ['write', 'after.txt'], 'after\n').success);
  assert.equal(locksUnder(join(repo.dir, '.git')), []);
});

K(
  'apply --commit killed holding index.lock: recovery finishes the index, git status is clean, no lock is left',
  ({ repo }) => {
    ok(repo, ['write', 'src/a.txt'], 'a2\n');
    ok(repo, ['write', 'src/b.txt'], 'b\n');
    const head = repo.git('rev-parse', 'HEAD').trim();
    const tip = repo.ref('refs/shadow/drafts/default')!;
    killAt(repo, 'apply-commit', 'renameSync@/.git/index:1');
    assert.equal(
      locksUnder(join(repo.dir, '.git')),
      ['index.lock', 'shadow/apply.lock'],
      'killed with the index written to its lock',
    );
    assert.is(repo.git('rev-parse', 'HEAD').trim(), tip, 'the branch moved before the index');
    const rec = ok(repo, ['recover']);
    assert.is(rec.finished.length, 1, JSON.stringify(rec));
    assert.equal(rec.failed, []);
    assert.equal(locksUnder(join(repo.dir, '.git')), []);
    assert.is(repo.git('status', '--porcelain'), '');
    assert.is(repo.git('rev-parse', 'HEAD').trim(), tip);
    assert.is(repo.git('diff', '--cached', '--name-only', 'HEAD'), '');
    fsckClean(repo);
    // And unapply killed at the same point puts the branch and index back all the same.
    killAt(repo, 'unapply', 'renameSync@/.git/index:1');
    assert.ok(existsSync(join(repo.dir, '.git', 'index.lock')));
    assert.is(ok(repo, ['recover']).finished.length, 1);
    assert.equal(locksUnder(join(repo.dir, '.git')), []);
    assert.is(repo.git('rev-parse', 'HEAD').trim(), head);
    assert.is(repo.git('status', '--porcelain'), '');
    assert.is(repo.read('src/a.txt'), 'a\n');
  },
);

K("an index.lock git holds is named as git's and left alone: apply --commit refuses before any write", ({ repo }) => {
  ok(repo, ['write', 'src/a.txt'], 'a2\n');
  repo.write('.git/index.lock', '');
  const r = repo.shadow(['apply', '--commit', '--json']);
  assert.is(r.status, 1);
  const e = r.json().error;
  assert.is(e.code, 'LOCKED');
  assert.match(e.message, /index\.lock exists and no shadow process recorded it/);
  assert.match(e.hint, /if no git process is running, remove .*index\.lock/);
  assert.is(repo.read('src/a.txt'), 'a\n');
  assert.ok(existsSync(join(repo.dir, '.git', 'index.lock')));
});

M.run();
K.run();
