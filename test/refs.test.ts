import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Context, FileSystem } from '../src/context.js';
import { ZERO_OID, type Signature } from '../src/git/format/git-objects.js';
import { RefMoved, RefStore } from '../src/git/refs.js';
import { testContext, type TestContext } from './helpers/context.js';
import { DiskRepo } from './helpers/disk-repo.js';

const DRAFT = 'refs/shadow/drafts/feature';
const SIG: Signature = { name: 'Shadow Agent', email: 'agent@shadow.invalid', timestamp: 1795348800, tzOffset: 60 };

interface Fixture {
  repo: DiskRepo;
  gitdir: string;
  ctx: TestContext;
  store: RefStore;
  /** Three commits, oldest first. */
  a: string;
  b: string;
  c: string;
}

function setup(f: Fixture): void {
  f.repo = new DiskRepo({ 'README.md': 'Hello\n' });
  f.repo.git('commit', '-q', '--allow-empty', '-m', 'second');
  f.repo.git('commit', '-q', '--allow-empty', '-m', 'third');
  [f.a, f.b, f.c] = ['HEAD~2', 'HEAD~1', 'HEAD'].map((r) => f.repo.git('rev-parse', r).trim()) as [
    string,
    string,
    string,
  ];
  f.gitdir = join(f.repo.dir, '.git');
  f.ctx = testContext(fs as FileSystem);
  f.store = new RefStore(f.ctx, f.gitdir, f.gitdir, 1000);
}

function lockFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.lock')) out.push(join(d, e.name));
    }
  };
  walk(dir);
  return out;
}

/** `git reflog show` of a ref: "<new id> <message>" lines, newest first. */
function gitReflog(repo: DiskRepo, ref: string): string[] {
  const out = repo.git('reflog', 'show', '--format=%H %gs', ref).trim();
  return out === '' ? [] : out.split('\n');
}

async function rejects(f: () => Promise<unknown>): Promise<unknown> {
  try {
    await f();
  } catch (e) {
    return e;
  }
  assert.unreachable('expected a rejection');
  return undefined;
}

// ---------------------------------------------------------------- update

const Update = suite<Fixture>('RefStore.update');
Update.before.each(setup);
Update.after.each((f) => f.repo.cleanup());

Update('expected null creates the ref; git reads it and its reflog', async ({ repo, store, gitdir, a, b }) => {
  await store.update({ ref: DRAFT, expected: null, next: a, message: 'shadow: create draft feature', who: SIG });
  assert.is(fs.readFileSync(join(gitdir, DRAFT), 'utf8'), `${a}\n`);
  assert.is(repo.ref(DRAFT), a);
  await store.update({ ref: DRAFT, expected: a, next: b, message: 'batch 1: add greeting', who: SIG });
  assert.is(repo.ref(DRAFT), b);
  assert.equal(gitReflog(repo, DRAFT), [`${b} batch 1: add greeting`, `${a} shadow: create draft feature`]);
  assert.is(repo.git('reflog', 'show', '--format=%gn <%ge>', '-1', DRAFT), 'Shadow Agent <agent@shadow.invalid>\n');
  assert.is(
    fs.readFileSync(join(gitdir, 'logs', DRAFT), 'utf8'),
    `${ZERO_OID} ${a} Shadow Agent <agent@shadow.invalid> 1795348800 +0100\tshadow: create draft feature\n` +
      `${a} ${b} Shadow Agent <agent@shadow.invalid> 1795348800 +0100\tbatch 1: add greeting\n`,
  );
  assert.equal(store.reflog(DRAFT), [
    {
      old: ZERO_OID,
      new: a,
      who: 'Shadow Agent <agent@shadow.invalid>',
      timestamp: 1795348800,
      message: 'shadow: create draft feature',
    },
    {
      old: a,
      new: b,
      who: 'Shadow Agent <agent@shadow.invalid>',
      timestamp: 1795348800,
      message: 'batch 1: add greeting',
    },
  ]);
  assert.equal(lockFiles(gitdir), []);
  repo.git('fsck', '--no-progress');
});

Update('a message of several lines becomes one reflog line', async ({ repo, store, a }) => {
  await store.update({ ref: DRAFT, expected: null, next: a, message: 'first line\nsecond\tline\r\n', who: SIG });
  assert.equal(gitReflog(repo, DRAFT), [`${a} first line second line`]);
  assert.is(store.reflog(DRAFT)[0]!.message, 'first line second line');
});

Update("a message's runs of whitespace become one space, as git writes them", async ({ repo, store, a }) => {
  await store.update({ ref: DRAFT, expected: null, next: a, message: '  commit:  two   spaces ', who: SIG });
  assert.equal(gitReflog(repo, DRAFT), [`${a} commit: two spaces`]);
});

Update(
  "moving the branch HEAD points to logs the move in HEAD's log too, as git does; shadow's refs and other branches leave it alone",
  async ({ repo, store, gitdir, b, c }) => {
    const headLog = (): string => fs.readFileSync(join(gitdir, 'logs/HEAD'), 'utf8');
    const before = headLog();
    repo.git('branch', 'other', b);
    await store.update({ ref: 'refs/heads/other', expected: b, next: c, message: 'on another branch', who: SIG });
    await store.update({ ref: DRAFT, expected: null, next: c, message: 'a draft', who: SIG });
    assert.is(headLog(), before);
    await store.update({ ref: 'refs/heads/main', expected: c, next: b, message: 'reset: moving to HEAD~1', who: SIG });
    assert.equal(gitReflog(repo, 'HEAD')[0], `${b} reset: moving to HEAD~1`);
    assert.equal(gitReflog(repo, 'main')[0], `${b} reset: moving to HEAD~1`);
    assert.is(
      headLog(),
      `${before}${c} ${b} Shadow Agent <agent@shadow.invalid> 1795348800 +0100\treset: moving to HEAD~1\n`,
    );
    assert.is(repo.ref('HEAD@{1}'), c);
    assert.equal(lockFiles(gitdir), []);
  },
);

Update(
  'HEAD.lock held by git: LOCKED, and neither the branch nor either log moves',
  async ({ repo, ctx, gitdir, b, c }) => {
    const store = new RefStore(ctx, gitdir, gitdir, 50);
    fs.writeFileSync(join(gitdir, 'HEAD.lock'), '');
    const logs = ['logs/HEAD', 'logs/refs/heads/main'].map((l) => fs.readFileSync(join(gitdir, l), 'utf8'));
    const e = (await rejects(() =>
      store.update({ ref: 'refs/heads/main', expected: c, next: b, message: 'x', who: SIG }),
    )) as { code?: string; message: string };
    assert.is(e.code, 'LOCKED');
    assert.match(e.message, join(gitdir, 'HEAD.lock'));
    assert.is(repo.ref('main'), c);
    assert.equal(
      ['logs/HEAD', 'logs/refs/heads/main'].map((l) => fs.readFileSync(join(gitdir, l), 'utf8')),
      logs,
    );
    assert.equal(lockFiles(gitdir), [join(gitdir, 'HEAD.lock')], "git's lock stays, shadow's is gone");
  },
);

Update(
  'redo: a move whose lines a crash left before the rename gets no second line; a fresh move does',
  async ({ repo, store, gitdir, b, c }) => {
    // The state a crash between the appends and the rename leaves: both lines, the branch not moved.
    for (const l of ['logs/HEAD', 'logs/refs/heads/main'])
      fs.appendFileSync(join(gitdir, l), `${c} ${b} Shadow Agent <agent@shadow.invalid> 1795348800 +0100\tcommit: x\n`);
    const logs = ['logs/HEAD', 'logs/refs/heads/main'].map((l) => fs.readFileSync(join(gitdir, l), 'utf8'));
    await store.update({ ref: 'refs/heads/main', expected: c, next: b, message: 'commit: x', who: SIG, redo: true });
    assert.is(repo.ref('main'), b);
    assert.equal(
      ['logs/HEAD', 'logs/refs/heads/main'].map((l) => fs.readFileSync(join(gitdir, l), 'utf8')),
      logs,
    );
    await store.update({
      ref: 'refs/heads/main',
      expected: b,
      next: c,
      message: 'reset: moving to c',
      who: SIG,
      redo: true,
    });
    assert.equal(gitReflog(repo, 'HEAD').slice(0, 2), [`${c} reset: moving to c`, `${b} commit: x`]);
    assert.equal(gitReflog(repo, 'main').slice(0, 2), [`${c} reset: moving to c`, `${b} commit: x`]);
  },
);

Update('expected undefined moves the ref whatever it holds', async ({ repo, store, a, c }) => {
  await store.update({ ref: DRAFT, expected: undefined, next: a, message: 'create', who: SIG });
  await store.update({ ref: DRAFT, expected: undefined, next: c, message: 'force', who: SIG });
  assert.is(repo.ref(DRAFT), c);
  assert.is(store.reflog(DRAFT).length, 2);
});

Update(
  'reflog(ref, from): from the last entry that moved the ref to `from`; an id in a message does not fool it',
  async ({ repo, store, a, b, c }) => {
    await store.update({ ref: DRAFT, expected: null, next: a, message: 'create', who: SIG });
    await store.update({ ref: DRAFT, expected: a, next: b, message: 'forward', who: SIG });
    await store.update({ ref: DRAFT, expected: b, next: c, message: `a message that names ${b} in passing`, who: SIG });
    // A plain git command moves it back; git appends its own line.
    repo.git('update-ref', '-m', 'back by git', DRAFT, b);
    await store.update({ ref: DRAFT, expected: b, next: a, message: `again ${a} `, who: SIG });
    const pairs = (from?: string): string[][] => store.reflog(DRAFT, from).map((r) => [r.old, r.new]);
    assert.equal(pairs(b), [
      [c, b],
      [b, a],
    ]);
    assert.equal(pairs(c), [
      [b, c],
      [c, b],
      [b, a],
    ]);
    assert.is(pairs(a).length, 1, 'the last move to a');
    assert.is(pairs('0'.repeat(40)).length, 5, 'never moved there: the whole reflog');
    assert.is(pairs().length, 5);
  },
);

const WRONG: Array<{ what: string; initial: 'a' | undefined; expected: 'a' | 'b' | null; current: 'a' | undefined }> = [
  { what: 'another id than the ref holds', initial: 'a', expected: 'b', current: 'a' },
  { what: 'null ("must not exist") for an existing ref', initial: 'a', expected: null, current: 'a' },
  { what: 'an id for a ref that does not exist', initial: undefined, expected: 'b', current: undefined },
];

for (const w of WRONG) {
  Update(`a wrong expected value (${w.what}) throws RefMoved and changes nothing`, async (f) => {
    const { repo, store, gitdir } = f;
    if (w.initial) await store.update({ ref: DRAFT, expected: null, next: f[w.initial], message: 'create', who: SIG });
    const logBefore = fs.existsSync(join(gitdir, 'logs', DRAFT))
      ? fs.readFileSync(join(gitdir, 'logs', DRAFT), 'utf8')
      : undefined;
    const e = await rejects(() =>
      store.update({
        ref: DRAFT,
        expected: w.expected === null ? null : f[w.expected],
        next: f.c,
        message: 'should not land',
        who: SIG,
      }),
    );
    assert.ok(e instanceof RefMoved, String(e));
    assert.is((e as RefMoved).ref, DRAFT);
    assert.is((e as RefMoved).current, w.current ? f[w.current] : undefined);
    assert.is(repo.ref(DRAFT), w.initial ? f[w.initial] : undefined);
    const logAfter = fs.existsSync(join(gitdir, 'logs', DRAFT))
      ? fs.readFileSync(join(gitdir, 'logs', DRAFT), 'utf8')
      : undefined;
    assert.is(logAfter, logBefore);
    assert.equal(lockFiles(gitdir), []);
  });
}

Update('compare-and-swap against a packed ref', async ({ repo, store, gitdir, a, b, c }) => {
  repo.git('update-ref', DRAFT, a);
  repo.git('pack-refs', '--all');
  assert.is(fs.existsSync(join(gitdir, DRAFT)), false);
  const e = await rejects(() => store.update({ ref: DRAFT, expected: b, next: c, message: 'x', who: SIG }));
  assert.ok(e instanceof RefMoved);
  assert.is((e as RefMoved).current, a);
  await store.update({ ref: DRAFT, expected: a, next: b, message: 'from packed', who: SIG });
  assert.is(repo.ref(DRAFT), b);
  assert.is(store.resolve(DRAFT), b);
  assert.equal(
    store.reflog(DRAFT).map((r) => [r.old, r.new]),
    [[a, b]],
  );
});

Update('a symbolic ref is refused (CORRUPT_REF) and left as it is', async ({ repo, store, gitdir, a }) => {
  const e = (await rejects(() =>
    store.update({ ref: 'HEAD', expected: undefined, next: a, message: 'x', who: SIG }),
  )) as { code?: string };
  assert.is(e.code, 'CORRUPT_REF');
  assert.is(fs.readFileSync(join(gitdir, 'HEAD'), 'utf8'), 'ref: refs/heads/main\n');
  assert.is(repo.git('symbolic-ref', 'HEAD'), 'refs/heads/main\n');
  assert.equal(lockFiles(gitdir), []);
});

Update.run();

// ---------------------------------------------------------------- locks

const Lock = suite<Fixture>('RefStore locks');
Lock.before.each(setup);
Lock.after.each((f) => f.repo.cleanup());

Lock(
  'LOCKED after the timeout while <ref>.lock exists, without real sleeps, and the foreign lock stays',
  async ({ repo, ctx, gitdir, a, b }) => {
    const store = new RefStore(ctx, gitdir, gitdir, 50);
    repo.git('update-ref', DRAFT, a);
    const lock = join(gitdir, `${DRAFT}.lock`);
    fs.writeFileSync(lock, 'held by someone else\n');
    const fakeStart = ctx.clock.now();
    const realStart = Date.now();
    const e = (await rejects(() => store.update({ ref: DRAFT, expected: a, next: b, message: 'x', who: SIG }))) as {
      code?: string;
      message: string;
      hint?: string;
      data?: { lock?: string; waitedMs?: number };
    };
    assert.is(e.code, 'LOCKED');
    assert.match(e.message, lock);
    assert.match(e.hint ?? '', `remove ${lock}`);
    assert.is(e.data?.lock, lock);
    assert.ok(ctx.clock.now() - fakeStart >= 50, 'the fake clock moved past the timeout');
    assert.ok((e.data?.waitedMs ?? 0) >= 50);
    assert.ok(Date.now() - realStart < 1000, 'no real waiting');
    assert.is(fs.readFileSync(lock, 'utf8'), 'held by someone else\n');
    assert.is(repo.ref(DRAFT), a);
    assert.equal(store.reflog(DRAFT), []); // no line for an update that never happened
  },
);

Lock('delete is LOCKED too while <ref>.lock exists', async ({ repo, ctx, gitdir, a }) => {
  const store = new RefStore(ctx, gitdir, gitdir, 20);
  repo.git('update-ref', DRAFT, a);
  fs.writeFileSync(join(gitdir, `${DRAFT}.lock`), '');
  const e = (await rejects(() => store.delete(DRAFT, a))) as { code?: string };
  assert.is(e.code, 'LOCKED');
  assert.is(repo.ref(DRAFT), a);
  assert.ok(fs.existsSync(join(gitdir, `${DRAFT}.lock`)));
});

Lock('a lock released while waiting: the update goes through', async ({ repo, gitdir, a, b }) => {
  const lock = join(gitdir, `${DRAFT}.lock`);
  const base = testContext(fs as FileSystem);
  let sleeps = 0;
  const ctx: Context = {
    ...base,
    clock: {
      ...base.clock,
      sleep: async (ms: number) => {
        sleeps++;
        if (sleeps === 3) fs.unlinkSync(lock); // the other writer finishes
        await base.clock.sleep(ms);
      },
    },
  };
  const store = new RefStore(ctx, gitdir, gitdir, 10_000);
  repo.git('update-ref', DRAFT, a);
  fs.writeFileSync(lock, '');
  await store.update({ ref: DRAFT, expected: a, next: b, message: 'after waiting', who: SIG });
  assert.is(sleeps, 3);
  assert.is(repo.ref(DRAFT), b);
  assert.equal(lockFiles(gitdir), []);
  assert.is(gitReflog(repo, DRAFT)[0], `${b} after waiting`);
});

Lock.run();

// ---------------------------------------------------------------- resolve, list, delete

const Read = suite<Fixture>('RefStore.resolve and list');
Read.before.each(setup);
Read.after.each((f) => f.repo.cleanup());

Read('loose, packed, loose over packed, and missing refs', ({ repo, store, gitdir, a, b, c }) => {
  repo.git('update-ref', 'refs/shadow/drafts/packed', a);
  repo.git('update-ref', 'refs/shadow/drafts/both', a);
  repo.git('pack-refs', '--all');
  repo.git('update-ref', 'refs/shadow/drafts/both', b);
  repo.git('update-ref', 'refs/shadow/drafts/loose', c);
  assert.ok(fs.existsSync(join(gitdir, 'refs/shadow/drafts/both')));
  assert.is(store.resolve('refs/shadow/drafts/packed'), a);
  assert.is(store.resolve('refs/shadow/drafts/both'), b);
  assert.is(store.resolve('refs/shadow/drafts/loose'), c);
  assert.is(store.resolve('refs/shadow/drafts/missing'), undefined);
  assert.is(store.resolve('refs/heads/main'), c);
  assert.is(store.readPacked().get('refs/shadow/drafts/both'), a);
});

Read(
  'packed-refs is parsed once while it stays the same file, again after git rewrites it, and every time while racy',
  ({ repo, gitdir, ctx, a, b }) => {
    for (let i = 0; i < 300; i++) repo.git('update-ref', `refs/tags/t${i}`, a);
    repo.git('pack-refs', '--all');
    let reads = 0;
    const counting = new Proxy(ctx.fs, {
      get(target, prop) {
        const v = Reflect.get(target, prop) as unknown;
        if (prop !== 'readFileSync' || typeof v !== 'function') return v;
        return (path: unknown, ...rest: unknown[]) => {
          if (String(path).endsWith('packed-refs')) reads++;
          return (v as (...x: unknown[]) => unknown).call(target, path, ...rest);
        };
      },
    });
    // A clock ten seconds ahead: the file, just written, is past its racy window.
    let now = Date.now() + 10_000;
    const store = new RefStore({ ...ctx, fs: counting, clock: { ...ctx.clock, now: () => now } }, gitdir, gitdir, 1000);
    for (let i = 0; i < 50; i++) assert.is(store.resolve(`refs/tags/t${i}`), a);
    assert.is(store.resolve('refs/shadow/proposals/none'), undefined);
    assert.is(reads, 1, 'one parse for 51 lookups');
    // git rewrites packed-refs (a new file renamed into place): seen at once.
    repo.git('update-ref', 'refs/tags/t7', b);
    repo.git('pack-refs', '--all');
    now = Date.now() + 10_000;
    assert.is(store.resolve('refs/tags/t7'), b);
    assert.is(reads, 2);
    // Changed within its racy window (an edit in place could change it again unseen): parsed every time.
    now = fs.statSync(join(gitdir, 'packed-refs')).mtimeMs + 50;
    store.resolve('refs/tags/t1');
    store.resolve('refs/tags/t2');
    assert.is(reads, 4);
    // Removed: no packed refs at all.
    fs.rmSync(join(gitdir, 'packed-refs'));
    assert.is(store.resolve('refs/tags/t8'), undefined);
    assert.is(store.readPacked().size, 0);
  },
);

Read('symbolic HEAD: attached to a loose or packed branch, detached, unborn', ({ repo, store, c, b }) => {
  assert.is(store.headTarget(), 'refs/heads/main');
  assert.is(store.resolve('HEAD'), c);
  repo.git('pack-refs', '--all');
  assert.is(store.resolve('HEAD'), c, 'HEAD through a packed branch');
  repo.git('checkout', '-q', '--detach', b);
  assert.is(store.headTarget(), undefined);
  assert.is(store.resolve('HEAD'), b);
  repo.git('symbolic-ref', 'HEAD', 'refs/heads/unborn');
  assert.is(store.headTarget(), 'refs/heads/unborn');
  assert.is(store.resolve('HEAD'), undefined);
});

Read('a chain of symbolic refs resolves; a loop and a garbage ref are CORRUPT_REF', ({ repo, store, gitdir, c }) => {
  repo.git('symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
  fs.writeFileSync(join(gitdir, 'refs/heads/alias2'), 'ref: refs/heads/alias\n');
  assert.is(store.resolve('refs/heads/alias2'), c);
  fs.writeFileSync(join(gitdir, 'refs/heads/loop1'), 'ref: refs/heads/loop2\n');
  fs.writeFileSync(join(gitdir, 'refs/heads/loop2'), 'ref: refs/heads/loop1\n');
  fs.writeFileSync(join(gitdir, 'refs/heads/garbage'), 'not an id\n');
  for (const ref of ['refs/heads/loop1', 'refs/heads/garbage']) {
    try {
      store.resolve(ref);
      assert.unreachable(ref);
    } catch (e) {
      assert.is((e as { code?: string }).code, 'CORRUPT_REF', ref);
      assert.match((e as Error).message, ref);
    }
  }
});

Read('per-worktree HEAD in a linked worktree, shared refs from the common dir', ({ repo, gitdir, b, c }) => {
  const wt = join(repo.root, 'wt');
  repo.git('worktree', 'add', '-q', '--detach', wt, b);
  const store = new RefStore(testContext(fs as FileSystem), join(gitdir, 'worktrees', 'wt'), gitdir, 1000);
  assert.is(store.resolve('HEAD'), b);
  assert.is(store.headTarget(), undefined);
  assert.is(store.resolve('refs/heads/main'), c);
});

Read(
  'list(prefix) merges loose and packed refs, loose wins, sorted, git agrees',
  ({ repo, store, gitdir, a, b, c }) => {
    repo.git('update-ref', 'refs/shadow/drafts/alpha', a);
    repo.git('update-ref', 'refs/shadow/drafts/beta', a);
    repo.git('update-ref', 'refs/shadow/checkpoints/alpha/1', a);
    repo.git('pack-refs', '--all');
    repo.git('update-ref', 'refs/shadow/drafts/beta', b);
    repo.git('update-ref', 'refs/shadow/drafts/gamma/nested', c);
    repo.git('update-ref', 'refs/shadow/drafts/delta', c);
    repo.git('update-ref', 'refs/shadow/checkpoints/alpha/2', b);
    fs.writeFileSync(join(gitdir, 'refs/shadow/drafts/zeta.lock'), `${a}\n`);
    const gitList = (prefix: string) =>
      repo
        .git('for-each-ref', '--format=%(refname) %(objectname)', prefix)
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => ({ ref: l.split(' ')[0]!, oid: l.split(' ')[1]! }));
    const drafts = store.list('refs/shadow/drafts/');
    assert.equal(drafts, [
      { ref: 'refs/shadow/drafts/alpha', oid: a },
      { ref: 'refs/shadow/drafts/beta', oid: b },
      { ref: 'refs/shadow/drafts/delta', oid: c },
      { ref: 'refs/shadow/drafts/gamma/nested', oid: c },
    ]);
    assert.equal(drafts, gitList('refs/shadow/drafts/'));
    assert.equal(store.list('refs/shadow/'), gitList('refs/shadow/'));
    assert.equal(store.list('refs/shadow/checkpoints/alpha/'), [
      { ref: 'refs/shadow/checkpoints/alpha/1', oid: a },
      { ref: 'refs/shadow/checkpoints/alpha/2', oid: b },
    ]);
    // A prefix that is not a directory matches names that start with it.
    assert.equal(store.list('refs/shadow/drafts/al'), [{ ref: 'refs/shadow/drafts/alpha', oid: a }]);
    assert.equal(store.list('refs/shadow/proposals/'), []);
  },
);

Read.run();

const Delete = suite<Fixture>('RefStore.delete');
Delete.before.each(setup);
Delete.after.each((f) => f.repo.cleanup());

Delete(
  'deleting a packed annotated tag removes its line and its peeled line, nothing else',
  async ({ repo, store, gitdir, a, b }) => {
    repo.git('tag', '-a', 't0', '-m', 'zero', a);
    repo.git('tag', '-a', 't1', '-m', 'one', b);
    repo.git('tag', 't2', b);
    repo.git('update-ref', 'refs/shadow/checkpoints/feature/1', repo.git('rev-parse', 't1').trim());
    repo.git('pack-refs', '--all');
    const packedPath = join(gitdir, 'packed-refs');
    const before = fs.readFileSync(packedPath, 'utf8');
    const t1 = repo.git('rev-parse', 'refs/tags/t1').trim();
    const lines = before.split('\n');
    const at = lines.indexOf(`${t1} refs/tags/t1`);
    assert.ok(at > 0 && lines[at + 1] === `^${b}`, 'the fixture has a peeled line after t1');

    await store.delete('refs/tags/t1', t1);

    const after = fs.readFileSync(packedPath, 'utf8');
    assert.is(after, [...lines.slice(0, at), ...lines.slice(at + 2)].join('\n'));
    assert.is(repo.ref('refs/tags/t1'), undefined);
    assert.is(repo.ref('refs/tags/t0'), repo.git('rev-parse', 't0').trim());
    assert.is(repo.git('rev-parse', 't0^{commit}').trim(), a);
    assert.is(repo.ref('refs/tags/t2'), b);
    const t0 = repo.git('rev-parse', 'refs/tags/t0').trim();
    assert.is(repo.git('show-ref', '--tags', '-d'), `${t0} refs/tags/t0\n${a} refs/tags/t0^{}\n${b} refs/tags/t2\n`);
    assert.not.match(repo.git('show-ref', '-d'), 'refs/tags/t1');
    assert.equal(lockFiles(gitdir), []);
    repo.git('fsck', '--no-progress');
    // git still writes the file it reads.
    repo.git('pack-refs', '--all');
    assert.is(repo.ref('refs/tags/t2'), b);
  },
);

Delete('a ref both loose and packed is gone from both, with its reflog', async ({ repo, store, gitdir, a, b }) => {
  repo.git('update-ref', DRAFT, a);
  repo.git('pack-refs', '--all');
  await store.update({ ref: DRAFT, expected: a, next: b, message: 'loose now', who: SIG });
  assert.ok(fs.existsSync(join(gitdir, DRAFT)));
  assert.match(fs.readFileSync(join(gitdir, 'packed-refs'), 'utf8'), DRAFT);
  await store.delete(DRAFT, b);
  assert.is(repo.ref(DRAFT), undefined);
  assert.is(store.resolve(DRAFT), undefined);
  assert.not.match(fs.readFileSync(join(gitdir, 'packed-refs'), 'utf8'), DRAFT);
  assert.is(fs.existsSync(join(gitdir, 'logs', DRAFT)), false);
  assert.equal(store.reflog(DRAFT), []);
  assert.equal(lockFiles(gitdir), []);
  assert.is(repo.ref('refs/heads/main'), repo.git('rev-parse', 'HEAD').trim());
});

Delete('a wrong expected value throws RefMoved and deletes nothing', async ({ repo, store, gitdir, a, b }) => {
  repo.git('update-ref', DRAFT, a);
  repo.git('pack-refs', '--all');
  const packed = fs.readFileSync(join(gitdir, 'packed-refs'), 'utf8');
  const e = await rejects(() => store.delete(DRAFT, b));
  assert.ok(e instanceof RefMoved);
  assert.is((e as RefMoved).current, a);
  assert.is(repo.ref(DRAFT), a);
  assert.is(fs.readFileSync(join(gitdir, 'packed-refs'), 'utf8'), packed);
  assert.equal(lockFiles(gitdir), []);
});

Delete.run();
