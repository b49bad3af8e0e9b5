import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { FsSeam } from './helpers/fs-seam.js';
import { openShadow } from '../src/index.js';

/*
 * Batches of one process on one draft take turns (Workspace.inTurn): a
 * server's concurrent clients commit one after another, in the order they
 * were sent, without losing a race and backing off; a batch that waited is
 * still judged against the tip it was sent on.
 */

const T = suite<{ repo: MemRepo; sleeps: number[] }>('batches take turns on a draft');
T.before.each(async (c) => {
  c.repo = await memRepo({ 'README.md': 'Hello\n', 'shared.txt': 'one\ntwo\nthree\n' });
  c.sleeps = [];
  const sleep = c.repo.ctx.clock.sleep;
  c.repo.ctx.clock.sleep = (ms) => {
    c.sleeps.push(ms);
    return sleep(ms);
  };
});

T(
  '16 batches sent at once on one draft: all land, numbered in the order sent, and none backs off',
  async ({ repo, sleeps }) => {
    const sh = await repo.open();
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        sh.batch(
          { operations: [{ operation: 'write', path: `c${i}/f.txt`, content: `client ${i}\n` }] },
          { draft: 'shared' },
        ),
      ),
    );
    assert.equal(
      results.map((r) => [r.success, r.batch]),
      Array.from({ length: 16 }, (_, i) => [true, i + 1]),
    );
    assert.equal(sleeps, [], 'no lost race, no backoff');
    const log = await sh.log({ draft: 'shared' });
    assert.is(log.length, 16);
    for (let i = 0; i < 16; i++)
      assert.is((await sh.cat(`c${i}/f.txt`, { draft: 'shared' })).content.toString(), `client ${i}\n`);
    sh.close();
  },
);

T(
  'a batch that waited is judged against the tip it was sent on: a write over a path the one before it changed is CONFLICT; an edit that still applies merges',
  async ({ repo }) => {
    const sh = await repo.open();
    await sh.batch({ operations: [{ operation: 'write', path: 'other.txt', content: 'x\n' }] }, { draft: 'd' });
    const [first, write, edit] = await Promise.all([
      sh.batch(
        { operations: [{ operation: 'edit', path: 'shared.txt', old_content: 'one', content: 'ONE' }] },
        { draft: 'd' },
      ),
      sh.batch({ operations: [{ operation: 'write', path: 'shared.txt', content: 'overwritten\n' }] }, { draft: 'd' }),
      sh.batch(
        { operations: [{ operation: 'edit', path: 'shared.txt', old_content: 'three', content: 'THREE' }] },
        { draft: 'd' },
      ),
    ]);
    assert.is(first.success, true);
    assert.equal([write.success, write.error?.code], [false, 'CONFLICT']);
    assert.is(edit.success, true);
    assert.is((await sh.cat('shared.txt', { draft: 'd' })).content.toString(), 'ONE\ntwo\nTHREE\n');
    sh.close();
  },
);

T(
  'batches queued behind a commit land as one group: one pack, one move of the ref with a reflog line each, one ledger append; undo takes back the last alone',
  async ({ repo }) => {
    const sh = await repo.open();
    await sh.batch({ operations: [{ operation: 'write', path: 'seed.txt', content: 's\n' }] }, { draft: 'g' });
    const packs = sh.stats.packsWritten;
    const rs = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        sh.batch(
          { intent: `b${i}`, operations: [{ operation: 'write', path: `g${i}.txt`, content: `${i}\n` }] },
          { draft: 'g', actor: `actor${i}` },
        ),
      ),
    );
    assert.equal(
      rs.map((r) => [r.success, r.batch]),
      [
        [true, 2],
        [true, 3],
        [true, 4],
        [true, 5],
        [true, 6],
      ],
    );
    assert.is(sh.stats.packsWritten - packs, 2, 'the first alone, the four queued behind it in one pack');
    // Each batch its own commit, each on the one before.
    const log = await sh.log({ draft: 'g' });
    assert.equal(
      log.slice(0, 5).map((e) => e.batch),
      [6, 5, 4, 3, 2],
    );
    const reflog = String(repo.fs.readFileSync('/repo/.git/logs/refs/shadow/drafts/g', 'utf8')).trim().split('\n');
    assert.equal(
      reflog.slice(-5).map((l) => l.split(' ')[1]),
      rs.map((r) => r.commit),
    );
    assert.equal(
      reflog.slice(-4).map((l) => l.split(' ')[0]),
      rs.slice(0, 4).map((r) => r.commit),
      'each line from the batch before',
    );
    // The ledger: one line each, in order, with each batch's actor and parent.
    const events = (await sh.events({ draft: 'g' })).filter((e) => e.type === 'batch/commit').slice(-5);
    assert.equal(
      events.map((e) => [e.actor, (e.data as { batch: number }).batch]),
      rs.map((r, i) => [`actor${i}`, r.batch]),
    );
    assert.equal(
      events.slice(1).map((e) => (e.data as { parent: string }).parent),
      rs.slice(0, 4).map((r) => r.commit),
    );
    const undone = await sh.undo({ draft: 'g' });
    assert.equal([undone.from, undone.to], [rs[4]!.commit, rs[3]!.commit]);
    sh.close();
  },
);

T(
  'in a group, a retry of a batch already in it is already applied, and a conflict fails that batch alone',
  async ({ repo }) => {
    const sh = await repo.open();
    await sh.batch({ operations: [{ operation: 'write', path: 'seed.txt', content: 's\n' }] }, { draft: 'h' });
    const same = { intent: 'same', operations: [{ operation: 'write' as const, path: 'same.txt', content: 'same\n' }] };
    const [lead, once, again, clash, last] = await Promise.all([
      sh.batch({ operations: [{ operation: 'write', path: 'lead.txt', content: 'l\n' }] }, { draft: 'h' }),
      sh.batch(same, { draft: 'h' }),
      sh.batch(same, { draft: 'h' }),
      sh.batch({ operations: [{ operation: 'write', path: 'same.txt', content: 'other\n' }] }, { draft: 'h' }),
      sh.batch({ operations: [{ operation: 'write', path: 'last.txt', content: 'z\n' }] }, { draft: 'h' }),
    ]);
    assert.equal([lead.success, once.success, once.batch], [true, true, 3]);
    assert.equal([again.success, again.batch, again.commit], [true, null, once.commit]);
    assert.equal([clash.success, clash.error?.code], [false, 'CONFLICT']);
    assert.equal([last.success, last.batch], [true, 4]);
    assert.is((await sh.cat('same.txt', { draft: 'h' })).content.toString(), 'same\n');
    sh.close();
  },
);

T(
  'merging packs is upkeep after the answer: a merge that fails leaves every batch committed and answered',
  async ({ repo }) => {
    const seam = new FsSeam(repo.fs);
    // The merge takes its lock first (a file it writes, then links): it fails there every time it is due.
    seam.inject({ op: 'openSync', path: (p) => p.includes('/packs.list.lock'), code: 'EIO' });
    const sh = await openShadow({
      dir: repo.dir,
      fs: seam.fs,
      clock: repo.ctx.clock,
      ids: repo.ctx.ids,
      env: repo.ctx.env,
    });
    seam.arm();
    seam.record = true;
    for (let i = 0; i < 20; i++) {
      const r = await sh.batch(
        { operations: [{ operation: 'write', path: `m${i}.txt`, content: `${i}\n` }] },
        { draft: 'm' },
      );
      assert.equal([r.success, r.batch], [true, i + 1]);
    }
    sh.close();
    assert.ok(
      seam.log.some((c) => c.op === 'openSync' && c.path?.includes('/packs.list.lock')),
      'a merge was due and tried',
    );
  },
);

T.run();
