import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import type { Shadow } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';

const REF = 'refs/shadow/drafts/default';

async function tip(repo: MemRepo): Promise<string> {
  return git.resolveRef({ fs: repo.fs, dir: repo.dir, ref: REF });
}

async function content(sh: Shadow, path: string): Promise<string | undefined> {
  try {
    return (await sh.cat(path)).content.toString('utf8');
  } catch (e) {
    if ((e as { code?: string }).code === 'NOT_FOUND') return undefined;
    throw e;
  }
}

/** Three batches: v1, v2, v3 of a.txt (batch 2 also captures a working-tree edit of README.md). */
async function threeBatches(repo: MemRepo, sh: Shadow): Promise<string[]> {
  const tips: string[] = [];
  for (const v of ['v1', 'v2', 'v3']) {
    if (v === 'v2') repo.write('README.md', 'Hello\nlocal\n');
    const ops: Array<Record<string, string>> = [{ operation: 'write', path: 'a.txt', content: `${v}\n` }];
    if (v === 'v2') ops.push({ operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hi' });
    const r = await sh.batch({ intent: v, operations: ops });
    assert.ok(r.success, JSON.stringify(r.error));
    tips.push(r.commit!);
  }
  return tips;
}

const Rollback = suite<{ repo: MemRepo; sh: Shadow; tips: string[] }>('rollback');
Rollback.before.each(async (ctx) => {
  ctx.repo = await memRepo();
  ctx.sh = await ctx.repo.open();
  ctx.tips = await threeBatches(ctx.repo, ctx.sh);
});

Rollback(
  'targets: ~N skips a batch with its capture, a batch number, a checkpoint, a commit',
  async ({ repo, sh, tips }) => {
    const root = await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref: 'main' });
    const cases: Array<[string, string]> = [
      ['~1', tips[1]!],
      ['~2', tips[0]!],
      ['~3', root],
      ['1', tips[0]!],
      ['3', tips[2]!],
      [tips[1]!, tips[1]!],
      [tips[1]!.slice(0, 10), tips[1]!],
    ];
    for (const [target, expected] of cases) {
      await sh.rollback(tips[2]!.slice(0, 12)); // back to the top first (a forward move)
      const m = await sh.rollback(target);
      assert.is(m.to, expected, `rollback ${target}`);
      assert.is(await tip(repo), expected, `ref after rollback ${target}`);
    }
    await sh.rollback('3');
    await sh.checkpoint('mid', { message: 'halfway' });
    await sh.rollback('~2');
    await sh.rollback('mid');
    assert.is(await tip(repo), tips[2]);
  },
);

Rollback(
  'an abbreviated commit id made only of digits names that commit, not a batch the draft does not have',
  async ({ repo, sh, tips }) => {
    // Batches until one's commit id starts with four or more digits (not 0): about one commit in seven.
    let digits: { prefix: string; commit: string } | undefined;
    for (let i = 0; !digits && i < 400; i++) {
      const r = await sh.batch({
        intent: `try ${i}`,
        operations: [{ operation: 'write', path: 'n.txt', content: `${i}\n` }],
      });
      assert.ok(r.success, JSON.stringify(r.error));
      const m = /^[1-9]\d{3,}/.exec(r.commit!);
      if (m) digits = { prefix: m[0].slice(0, 12), commit: r.commit! };
    }
    assert.ok(digits, 'no commit id starting with digits in 400 batches');
    await sh.rollback(tips[0]!);
    const m = await sh.rollback(digits.prefix);
    assert.is(m.to, digits.commit);
    assert.is(await tip(repo), digits.commit);
    // A number that is neither a batch nor a commit is still refused by name.
    const e = await sh.rollback('999999').catch((x: unknown) => x as { code?: string; message?: string });
    assert.is((e as { code?: string }).code, 'INVALID_TARGET');
    assert.match(String((e as { message?: string }).message), /has no batch 999999/);
  },
);

Rollback('the view follows the rollback; the working tree is never touched', async ({ repo, sh }) => {
  await sh.rollback('~1');
  assert.is(await content(sh, 'a.txt'), 'v2\n');
  await sh.rollback('~2');
  assert.is(await content(sh, 'a.txt'), undefined);
  // README.md is no longer the draft's after rolling back past its capture: the view shows the working tree.
  assert.is(await content(sh, 'README.md'), 'Hello\nlocal\n');
  assert.is(repo.read('README.md'), 'Hello\nlocal\n');
  assert.is(repo.exists('a.txt'), false);
});

Rollback(
  'leaving a tip keeps it as an automatic checkpoint; undo reverses, undo again redoes',
  async ({ repo, sh, tips }) => {
    const m = await sh.rollback('1');
    assert.is(m.kept, 'auto-1');
    const cps = await sh.checkpoints();
    assert.equal(
      cps.map((c) => [c.name, c.commit, c.auto]),
      [['auto-1', tips[2], true]],
    );
    const u = await sh.undo();
    assert.is(u.to, tips[2]);
    assert.match(u.undid, /rollback to batch 1/);
    assert.is(await tip(repo), tips[2]);
    const redo = await sh.undo();
    assert.is(redo.to, tips[0]);
    assert.is(redo.kept, 'auto-1', 'an existing checkpoint of the tip is reused');
    assert.is((await sh.checkpoints()).length, 1);
  },
);

Rollback('batch numbers never go back after a rollback', async ({ sh }) => {
  await sh.rollback('~2');
  const r = await sh.batch({ operations: [{ operation: 'write', path: 'b.txt', content: 'b\n' }] });
  assert.is(r.batch, 4);
  // Batch 2, rolled back, is still reachable through the automatic checkpoint.
  const m = await sh.rollback('2');
  assert.match(m.target, /2/);
  const log = await sh.log();
  assert.equal(
    log.map((e) => e.batch),
    [2, 1],
  );
});

Rollback('undo of a batch removes it; a draft that never moved has nothing to undo', async ({ repo, sh, tips }) => {
  const u = await sh.undo();
  assert.is(u.to, tips[1]);
  assert.match(u.undid, /batch 3/);
  await sh.draftNew('fresh');
  try {
    await sh.undo({ draft: 'fresh' });
    assert.unreachable();
  } catch (e) {
    assert.is((e as { code: string }).code, 'NOTHING_TO_UNDO');
  }
  assert.ok(repo.exists('README.md'));
});

Rollback('bad targets say what is wrong and move nothing', async ({ repo, sh, tips }) => {
  const before = await tip(repo);
  for (const target of ['nope', '99', '~9', 'refs/heads/../../x', 'deadbeef']) {
    try {
      await sh.rollback(target);
      assert.unreachable(target);
    } catch (e) {
      assert.is((e as { code: string }).code, 'INVALID_TARGET', target);
    }
  }
  // A commit outside the draft's history.
  const other = await git.commit({
    fs: repo.fs,
    dir: repo.dir,
    message: 'elsewhere',
    author: { name: 'x', email: 'x@x' },
    ref: 'refs/heads/other',
    parent: [],
    tree: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  });
  try {
    await sh.rollback(other);
    assert.unreachable();
  } catch (e) {
    assert.is((e as { code: string }).code, 'INVALID_TARGET');
    assert.match((e as Error).message, /not part of draft/);
  }
  assert.is(await tip(repo), before);
  assert.is(before, tips[2]);
});

const Checkpoint = suite<{ repo: MemRepo; sh: Shadow }>('checkpoint');
Checkpoint.before.each(async (ctx) => {
  ctx.repo = await memRepo();
  ctx.sh = await ctx.repo.open();
  await ctx.sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] });
});

Checkpoint('is an annotated tag under refs/shadow/checkpoints/<draft>/', async ({ repo, sh }) => {
  const c = await sh.checkpoint('before-refactor', { message: 'tests green' });
  const ref = await git.resolveRef({
    fs: repo.fs,
    dir: repo.dir,
    ref: 'refs/shadow/checkpoints/default/before-refactor',
  });
  assert.is(ref, c.tag);
  const tag = await git.readTag({ fs: repo.fs, dir: repo.dir, oid: c.tag });
  assert.is(tag.tag.object, await tip(repo));
  assert.is(tag.tag.tag, 'before-refactor');
  assert.is(tag.tag.message, 'tests green\n');
  assert.is(c.batch, 1);
});

Checkpoint('names are checked; an existing one is refused', async ({ sh }) => {
  await sh.checkpoint('one');
  const cases: Array<[string, string]> = [
    ['one', 'CHECKPOINT_EXISTS'],
    ['12', 'INVALID_CHECKPOINT_NAME'],
    ['auto-3', 'INVALID_CHECKPOINT_NAME'],
    ['a/b', 'INVALID_CHECKPOINT_NAME'],
    ['x..y', 'INVALID_CHECKPOINT_NAME'],
    ['x.lock', 'INVALID_CHECKPOINT_NAME'],
    ['', 'INVALID_CHECKPOINT_NAME'],
  ];
  for (const [name, code] of cases) {
    try {
      await sh.checkpoint(name);
      assert.unreachable(name);
    } catch (e) {
      assert.is((e as { code: string }).code, code, name);
    }
  }
  assert.equal(
    (await sh.checkpoints()).map((c) => c.name),
    ['one'],
  );
});

Checkpoint.run();
Rollback.run();
