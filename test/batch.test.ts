import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import { openShadow, type FileSystem } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { retryPause } from '../src/drafts/batch/batch-retry.js';

const DRAFT_REF = 'refs/shadow/drafts/default';

async function refValue(repo: MemRepo, ref: string): Promise<string | undefined> {
  try {
    return await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref });
  } catch {
    return undefined;
  }
}

async function readDraftFile(repo: MemRepo, path: string, ref = DRAFT_REF): Promise<string | undefined> {
  const oid = await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref });
  try {
    const { blob } = await git.readBlob({ fs: repo.fs, dir: repo.dir, oid, filepath: path });
    return Buffer.from(blob).toString('utf8');
  } catch {
    return undefined;
  }
}

const Batch = suite<{ repo: MemRepo }>('batch');
Batch.before.each(async (ctx) => {
  ctx.repo = await memRepo({ 'README.md': 'Hello\n', 'old.txt': 'old\n', 'src/app.ts': 'export {}\n' });
});

Batch('write, edit and delete land as one commit, readable by isomorphic-git', async ({ repo }) => {
  const sh = await repo.open();
  const r = await sh.batch({
    intent: 'add greeting',
    operations: [
      { operation: 'write', path: 'src/hello.ts', content: 'export const hi = 1\n' },
      { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, world' },
      { operation: 'delete', path: 'old.txt' },
    ],
  });
  assert.is(r.success, true);
  assert.is(r.batch, 1);
  assert.equal(
    r.results.map((x) => x.status),
    ['created', 'updated', 'deleted'],
  );
  assert.is(await refValue(repo, DRAFT_REF), r.commit);
  assert.is(await readDraftFile(repo, 'src/hello.ts'), 'export const hi = 1\n');
  assert.is(await readDraftFile(repo, 'README.md'), 'Hello, world\n');
  assert.is(await readDraftFile(repo, 'old.txt'), undefined);
  const [commit] = await git.log({ fs: repo.fs, dir: repo.dir, ref: DRAFT_REF, depth: 1 });
  assert.match(commit!.commit.message, /^add greeting\n/);
  assert.match(
    commit!.commit.message,
    /Shadow-Draft: default\nShadow-Batch: 1\nShadow-Actor: Test User\nShadow-Actor-Type: human\nShadow-Ops: [0-9a-f]{64}\n$/,
  );
  // The working tree is untouched.
  assert.is(repo.read('README.md'), 'Hello\n');
  assert.is(repo.exists('src/hello.ts'), false);
});

Batch('a failing op rejects the whole batch and the ref never moves', async ({ repo }) => {
  const sh = await repo.open();
  await sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] });
  const before = await refValue(repo, DRAFT_REF);
  const r = await sh.batch({
    operations: [
      { operation: 'write', path: 'b.txt', content: 'b\n' },
      { operation: 'edit', path: 'README.md', old_content: 'Goodbye', content: 'x' },
    ],
  });
  assert.is(r.success, false);
  assert.is(r.error?.code, 'EDIT_NO_MATCH');
  assert.equal(
    r.results.map((x) => x.status),
    ['not_applied', 'failed'],
  );
  assert.is(await refValue(repo, DRAFT_REF), before);
  assert.is(await readDraftFile(repo, 'b.txt'), undefined);
});

Batch('a rejected first batch does not create the draft', async ({ repo }) => {
  const sh = await repo.open();
  const r = await sh.batch({ operations: [{ operation: 'delete', path: 'missing.txt' }] });
  assert.is(r.error?.code, 'NOT_FOUND');
  assert.is(await refValue(repo, DRAFT_REF), undefined);
});

Batch('an uncommitted change is captured in its own commit before the batch', async ({ repo }) => {
  repo.write('README.md', 'Hello\nlocal note\n');
  const sh = await repo.open();
  const r = await sh.batch({
    operations: [{ operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hi' }],
  });
  assert.is(r.success, true);
  assert.equal(r.captured, ['README.md']);
  assert.is(await readDraftFile(repo, 'README.md'), 'Hi\nlocal note\n');
  const log = await git.log({ fs: repo.fs, dir: repo.dir, ref: DRAFT_REF, depth: 3 });
  assert.match(log[1]!.commit.message, /^capture working tree state of 1 path before batch 1/);
  assert.match(log[1]!.commit.message, /Shadow-Capture: 1/);
  assert.is(log[2]!.commit.message, 'initial commit\n');
});

/** The repository's fs, logging the calls that make a batch durable, with fsyncs on the callback form (as node's fs has) and slow. */
function durabilityLog(repo: MemRepo): { fs: FileSystem; log: string[] } {
  const inner = repo.fs as unknown as Record<string, (...a: unknown[]) => unknown>;
  const paths = new Map<number, string>();
  const log: string[] = [];
  const short = (p: string): string =>
    p
      .replace('/repo/.git/', '')
      .replace(/[0-9a-f]{40}/g, 'X')
      .replace(/tmp_(pack|idx)_[^/]+$/, 'tmp_$1');
  const fs = new Proxy(inner, {
    get(target, prop: string) {
      const f = target[prop];
      if (typeof f !== 'function') return f;
      if (prop === 'openSync') {
        return (...a: unknown[]) => {
          const fd = f.apply(target, a) as number;
          paths.set(fd, String(a[0]));
          return fd;
        };
      }
      if (prop === 'fsync') {
        return (fd: number, cb: (e: unknown) => void) => {
          log.push(`fsync start ${short(paths.get(fd)!)}`);
          // A disk takes a while: the completion comes after a timer, not in
          // the same turn of the event loop as memfs would have it.
          f.call(target, fd, (e: unknown) =>
            setTimeout(() => {
              log.push(`fsync end ${short(paths.get(fd)!)}`);
              cb(e);
            }, 1),
          );
        };
      }
      if (prop === 'fsyncSync')
        return (fd: number) => (log.push(`fsyncSync ${short(paths.get(fd)!)}`), f.call(target, fd));
      if (prop === 'renameSync')
        return (a: string, b: string) => (log.push(`rename ${short(a)} ${short(b)}`), f.call(target, a, b));
      return f.bind(target);
    },
  });
  return { fs: fs as unknown as FileSystem, log };
}

Batch(
  "a batch reaches the disk in four rounds: pack, index and ref lock fsynced together; the pack directory; the ref's; the ledger",
  async ({ repo }) => {
    const first = await repo.open();
    await first.batch({ operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] });
    const { fs, log } = durabilityLog(repo);
    const sh = await openShadow({ dir: repo.dir, fs, clock: repo.ctx.clock, ids: repo.ctx.ids, env: repo.ctx.env });
    const r = await sh.batch({ operations: [{ operation: 'write', path: 'b.txt', content: 'b\n' }] });
    assert.ok(r.success);
    const at = (line: string): number => {
      const i = log.indexOf(line);
      assert.ok(i !== -1, `${line} in ${JSON.stringify(log)}`);
      return i;
    };
    const lock = 'refs/shadow/drafts/default.lock';
    const starts = ['objects/pack/tmp_pack', 'objects/pack/tmp_idx', lock].map((p) => at(`fsync start ${p}`));
    const firstEnd = log.findIndex((l) => l.startsWith('fsync end'));
    assert.ok(Math.max(...starts) < firstEnd, `the three fsyncs are in flight together: ${JSON.stringify(log)}`);
    // Every round on the pool: a server's other requests go on while the disk works.
    const packDir = at('fsync end objects/pack');
    assert.ok(at('fsync end objects/pack/tmp_pack') < at('rename objects/pack/tmp_pack objects/pack/pack-X.pack'));
    assert.ok(at('fsync end objects/pack/tmp_idx') < at('rename objects/pack/tmp_idx objects/pack/pack-X.idx'));
    assert.ok(at('rename objects/pack/tmp_idx objects/pack/pack-X.idx') < at('fsync start objects/pack'));
    const refMoved = at(`rename ${lock} refs/shadow/drafts/default`);
    assert.ok(
      packDir < refMoved && at(`fsync end ${lock}`) < refMoved,
      'the objects and the new value are durable before the ref moves',
    );
    const refDir = at('fsync end refs/shadow/drafts');
    const ledger = at('fsync start shadow/drafts/default/events.jsonl');
    assert.ok(refMoved < at('fsync start refs/shadow/drafts') && refDir < ledger);
    assert.is(await refValue(repo, DRAFT_REF), r.commit!);
  },
);

Batch('a batch that lost the race waits a random while, up to 2^attempt ms and never more than 50 ms', () => {
  assert.is(retryPause(1, '0000aa'), 0);
  assert.is(retryPause(1, 'ffffaa'), 2);
  assert.is(retryPause(3, 'ffff00'), 8);
  assert.is(retryPause(3, '8000ff'), 4);
  assert.is(retryPause(10, 'ffff00'), 50);
  assert.is(retryPause(25, 'ffff00'), 50);
  for (const token of ['0123ab', '7fffff', 'c0ffee'])
    for (let a = 1; a < 30; a++) assert.ok(retryPause(a, token) >= 0 && retryPause(a, token) <= 50);
});

Batch.run();
