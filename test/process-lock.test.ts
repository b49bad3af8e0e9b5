import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Volume, createFsFromVolume } from 'memfs';
import type { FileSystem } from '../src/index.js';
import { takeProcessLock, waitForProcessLock } from '../src/durable/process-lock.js';
import { testContext, type TestContext } from './helpers/context.js';
import { FsSeam } from './helpers/fs-seam.js';

/**
 * Process locks (apply.lock, a ledger's events.jsonl.lock, a plan's and a
 * worktree's locks): the holder written to a temporary file that is linked
 * into place, so the lock is never seen empty; a dead holder's lock is taken
 * over, a live one is waited for or named.
 */

const HOST = 'this-host';
const LOCK = '/repo/.git/shadow/apply.lock';
const ALIVE = new Set([100, 200]);

interface C {
  ctx: TestContext;
  fs: FileSystem;
  seam: FsSeam;
}

const L = suite<C>('process lock');
L.before.each((c) => {
  const vol = new Volume();
  vol.mkdirSync('/repo/.git/shadow', { recursive: true });
  c.seam = new FsSeam(createFsFromVolume(vol) as unknown as FileSystem);
  c.seam.record = true;
  c.fs = c.seam.inner;
  c.ctx = { ...testContext(c.seam.fs), processes: { self: 100, host: HOST, isAlive: (pid) => ALIVE.has(pid) } };
});

/** The lock's holder, or undefined when there is no lock. */
function lockAt(fs: FileSystem, path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(String(fs.readFileSync(path, 'utf8')));
  } catch {
    return undefined;
  }
}

const ME = { pid: 100, host: HOST, since: '2026-11-22T12:00:00.000Z', what: 'shadow apply' };
const holder = (pid: number, host = HOST) =>
  JSON.stringify({ pid, host, since: '2026-11-22T11:00:00.000Z', what: 'shadow apply' });

L(
  'taken with its holder already in it: a temporary file, written and closed, then linked into place; released once',
  ({ ctx, fs, seam }) => {
    seam.arm();
    const lock = takeProcessLock(ctx, LOCK, 'shadow apply');
    const log = seam.log.map((c) => [c.op, c.path]);
    const link = log.findIndex(([op, path]) => op === 'linkSync' && path === LOCK);
    const tmp = seam.log[link]!.from!;
    assert.match(tmp, /apply\.lock\.tmp-/);
    assert.ok(
      log.findIndex(([op, path]) => op === 'writeSync' && path === tmp) < link,
      'the holder is written before the lock appears',
    );
    assert.ok(!log.some(([op, path]) => path === LOCK && op !== 'linkSync'), 'the lock itself is never opened empty');
    assert.equal(lockAt(fs, LOCK), ME);
    assert.equal(fs.readdirSync('/repo/.git/shadow'), ['apply.lock'], 'no temporary file is left');
    lock.release();
    lock.release();
    assert.is(seam.log.filter((c) => c.op === 'unlinkSync' && c.path === LOCK).length, 1, 'released once');
    assert.is(lockAt(fs, LOCK), undefined);
    assert.equal(fs.readdirSync('/repo/.git/shadow'), []);
  },
);

L('its directory is made when missing', ({ ctx, fs }) => {
  const path = '/repo/.git/shadow/drafts/new-draft/events.jsonl.lock';
  const lock = takeProcessLock(ctx, path, 'ledger append');
  assert.is(lockAt(fs, path)?.what, 'ledger append');
  lock.release();
  assert.equal(fs.readdirSync('/repo/.git/shadow/drafts/new-draft'), []);
});

L(`a live holder's lock: LOCKED naming it, and the lock is left as it was`, ({ ctx, fs }) => {
  fs.writeFileSync(LOCK, holder(200));
  assert.throws(
    () => takeProcessLock(ctx, LOCK, 'shadow apply'),
    (e: { code: string; message: string; data: { holder: { pid: number } } }) =>
      e.code === 'LOCKED' &&
      /another shadow apply is running \(process 200 on this-host/.test(e.message) &&
      e.data.holder.pid === 200,
  );
  assert.equal(lockAt(fs, LOCK), JSON.parse(holder(200)));
});

L(`a dead holder's lock is taken over`, ({ ctx, fs }) => {
  fs.writeFileSync(LOCK, holder(4242));
  const lock = takeProcessLock(ctx, LOCK, 'shadow apply');
  assert.equal(lockAt(fs, LOCK), ME);
  lock.release();
  assert.is(lockAt(fs, LOCK), undefined);
});

L(`a lock held on another machine is respected, whatever its pid`, ({ ctx, fs }) => {
  fs.writeFileSync(LOCK, holder(4242, 'other-host'));
  assert.throws(
    () => takeProcessLock(ctx, LOCK, 'shadow apply'),
    (e: { code: string }) => e.code === 'LOCKED',
  );
  assert.is(lockAt(fs, LOCK)?.host, 'other-host');
});

L('an unreadable lock: stale when a process table can vouch for it, named as held when none can', ({ ctx, fs }) => {
  fs.writeFileSync(LOCK, 'not json');
  const bare = { ...ctx, processes: undefined };
  assert.throws(
    () => takeProcessLock(bare, LOCK, 'shadow apply'),
    (e: { code: string; message: string }) => e.code === 'LOCKED' && e.message.includes(`${LOCK} exists`),
  );
  const lock = takeProcessLock(ctx, LOCK, 'shadow apply');
  assert.equal(lockAt(fs, LOCK), ME);
  lock.release();
});

L(
  'waiting: a live holder is waited for up to the timeout, then named; once it lets go the lock is taken',
  async ({ ctx, fs }) => {
    fs.writeFileSync(LOCK, holder(200));
    const start = ctx.clock.now();
    const err = await waitForProcessLock(ctx, LOCK, 'ledger append', 1000).then(
      () => undefined,
      (e: { code: string }) => e,
    );
    assert.is(err?.code, 'LOCKED');
    assert.ok(ctx.clock.now() - start >= 1000, 'it waited');
    fs.unlinkSync(LOCK);
    const lock = await waitForProcessLock(ctx, LOCK, 'ledger append', 1000);
    assert.is(lockAt(fs, LOCK)?.what, 'ledger append');
    lock.release();
  },
);

L('an error other than "taken" is not swallowed, and leaves no temporary file', ({ ctx, fs, seam }) => {
  seam.inject({ op: 'linkSync', code: 'EACCES' });
  assert.throws(
    () => takeProcessLock(ctx, LOCK, 'shadow apply'),
    (e: { code: string }) => e.code === 'EACCES',
  );
  assert.equal(fs.readdirSync('/repo/.git/shadow'), []);
});

L('two takers: the second is told who holds it; after the release it takes the lock', ({ ctx, fs }) => {
  const first = takeProcessLock(ctx, LOCK, 'shadow apply');
  const other = { ...ctx, processes: { self: 200, host: HOST, isAlive: (pid: number) => ALIVE.has(pid) } };
  assert.throws(
    () => takeProcessLock(other, LOCK, 'shadow recover'),
    (e: { code: string; message: string }) =>
      e.code === 'LOCKED' && /another shadow apply is running \(process 100 on this-host/.test(e.message),
  );
  first.release();
  const second = takeProcessLock(other, LOCK, 'shadow recover');
  assert.equal(lockAt(fs, LOCK), { ...ME, pid: 200, what: 'shadow recover' });
  second.release();
});

L.run();
