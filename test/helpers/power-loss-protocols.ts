import * as assert from 'uvu/assert';
import type { Context, FileSystem, PackMerger, Shadow } from '../../src/index.js';
import { runPackMergeJob } from '../../src/git/pack-merge-job.js';
import { blobOid } from '../../src/git/format/git-objects.js';
import { IndexView } from '../../src/git/index-view.js';
import { MERGE_AT_PACKS } from '../../src/git/pack-consolidate.js';
import { Repository } from '../../src/git/repository.js';
import { testContext } from './context.js';
import type { MemRepo } from './mem-repo.js';
import { withReplacingRename } from './memfs-rename.js';
import { FsSeam } from './fs-seam.js';
import { openAfterCrash } from './restart-open.js';
import { allOrNothing, draftChanges, ledgerBatches, mainBranch, PUBLISHED } from './power-loss-checks.js';

/*
 * The protocols test/power-loss.test.ts runs on the crash simulator. Each
 * run names every call of it as the call returns (`returned`); on a disk a
 * power loss left, its check is told which had returned at the crash point
 * (`done`): what those made must be there, and what the others made may be.
 */

export interface Protocol {
  name: string;
  /** What the draft holds before the run (normal file system). */
  prepare(sh: Shadow, repo: MemRepo): Promise<void>;
  /** The run whose crash states are checked; `returned(call)` as each of its calls returns. */
  act(sh: Shadow, returned: (call: string) => void): Promise<void>;
  /** The promise, on a recovered disk, given the calls that had returned before the crash. */
  check(sh: Shadow, fs: FileSystem, done: ReadonlySet<string>): Promise<void>;
  /** Where the run's handle merges packs (default: in steps on its event loop). */
  packMerger?: (ctx: Context) => PackMerger;
}

/** The draft's batch number at its tip. */
async function tipBatch(sh: Shadow): Promise<number> {
  return Math.max(...(await sh.log()).map((e) => e.batch));
}

async function read(sh: Shadow, path: string): Promise<string | undefined> {
  return (await sh.cat(path).catch(() => undefined))?.content.toString();
}

/** The refs under `prefix` on the disk. */
function refsOn(fs: FileSystem, prefix: string): Array<{ ref: string; oid: string }> {
  return Repository.open(testContext(fs), '/repo').refs.list(prefix);
}

const BIG = `${'a line of a long document\n'.repeat(400)}`;

const PLAN = JSON.stringify({
  id: 'two-steps',
  batches: [
    { id: 1, operations: [{ operation: 'write', path: 'plan/one.txt', content: 'one\n' }] },
    { id: 2, operations: [{ operation: 'write', path: 'plan/two.txt', content: 'two\n' }] },
  ],
});

/** Values a run leaves for its checks (one protocol runs at a time). */
const run = { sessionId: '', branchBefore: '', archive: '' };

export const PROTOCOLS: Protocol[] = [
  {
    name: 'batch (objects, pack, ref, reflog, ledger)',
    prepare: async (sh) => void (await sh.write('first.txt', 'first\n')),
    act: async (sh, returned) => {
      await draftChanges(sh);
      returned('batch');
    },
    check: async (sh, _fs, done) => {
      const tip = await tipBatch(sh);
      assert.ok(tip === 1 || tip === 2, `the draft is at batch 1 or 2, not ${tip}`);
      if (done.has('batch')) assert.is(tip, 2, 'a batch that returned is durable');
      for (const n of await ledgerBatches(sh))
        assert.ok(n <= tip, `the ledger claims batch ${n}, the draft holds ${tip}`);
      if (tip === 2) assert.is(await read(sh, 'a.txt'), 'a new\n');
    },
  },
  {
    // Four at once on one handle: the first commits alone, the three queued behind it as one chain (batch-commit.ts).
    name: 'grouped batches (a chain of three: one pack, one move of the ref, one fsync of the ledger)',
    prepare: async (sh) => void (await sh.write('first.txt', 'first\n')),
    act: async (sh, returned) => {
      const packs = sh.stats.packsWritten;
      const one = async (n: number) => {
        const r = await sh.batch({ operations: [{ operation: 'write', path: `g${n}.txt`, content: `g${n}\n` }] });
        returned(`batch ${n}`);
        return r;
      };
      const rs = await Promise.all([2, 3, 4, 5].map(one));
      assert.equal(
        rs.map((r) => r.batch),
        [2, 3, 4, 5],
      );
      assert.is(sh.stats.packsWritten - packs, 2, 'batch 2 alone, then 3 to 5 as one group');
    },
    check: async (sh, _fs, done) => {
      const tip = await tipBatch(sh);
      assert.ok(
        tip === 1 || tip === 2 || tip === 5,
        `the draft is at batch 1, 2 or 5 (a group lands whole or not at all), not ${tip}`,
      );
      for (let n = 2; n <= 5; n++)
        if (done.has(`batch ${n}`)) assert.ok(tip >= n, `batch ${n} had returned, the draft is at ${tip}`);
      for (const n of await ledgerBatches(sh))
        assert.ok(n <= tip, `the ledger claims batch ${n}, the draft holds ${tip}`);
      for (let n = 2; n <= 5; n++)
        assert.is(await read(sh, `g${n}.txt`), n <= tip ? `g${n}\n` : undefined, `g${n}.txt at batch ${tip}`);
    },
  },
  {
    name: 'draft creation (first batch of a new draft)',
    prepare: async () => undefined,
    act: async (sh, returned) => {
      await draftChanges(sh);
      returned('batch');
    },
    check: async (sh, _fs, done) => {
      const made = await sh.hasDraft();
      if (done.has('batch')) assert.ok(made, 'the draft whose first batch returned is there');
      const batch1 = made && (await sh.log()).some((e) => e.batch === 1);
      if (done.has('batch')) assert.ok(batch1, 'its first batch is there');
      if (batch1) assert.is(await read(sh, 'b/c.txt'), 'c new\n');
    },
  },
  {
    name: 'apply',
    prepare: draftChanges,
    act: async (sh, returned) => {
      await sh.apply();
      returned('apply');
    },
    check: async (_sh, fs, done) => {
      const files = allOrNothing(fs, 'apply');
      if (done.has('apply')) assert.is(files, 'new', 'an apply that returned is durable');
    },
  },
  {
    name: 'unapply',
    prepare: async (sh) => {
      await draftChanges(sh);
      await sh.apply();
    },
    act: async (sh, returned) => {
      await sh.unapply();
      returned('unapply');
    },
    check: async (_sh, fs, done) => {
      const files = allOrNothing(fs, 'unapply', true);
      if (done.has('unapply')) assert.is(files, 'new', 'an unapply that returned is durable');
    },
  },
  {
    name: 'checkpoint and rollback',
    prepare: draftChanges,
    act: async (sh, returned) => {
      await sh.checkpoint('cp');
      returned('checkpoint');
      await sh.write('a.txt', 'a later\n');
      returned('write');
      await sh.rollback('cp');
      returned('rollback');
    },
    check: async (sh, _fs, done) => {
      const a = await read(sh, 'a.txt');
      const cps = await sh.checkpoints();
      for (const c of cps) assert.ok(c.name === 'cp' || c.auto, `an unexpected checkpoint ${c.name}`);
      const cp = cps.find((c) => c.name === 'cp');
      if (done.has('checkpoint')) assert.ok(cp, 'a checkpoint that returned is there');
      const log = await sh.log();
      if (done.has('rollback')) assert.is(a, 'a new\n', 'a rollback that returned is durable');
      else if (done.has('write')) {
        // The write is there, or the rollback moved the draft back to the checkpoint.
        if (a === 'a later\n')
          assert.ok(
            log.some((e) => e.batch === 2),
            'the write that returned is batch 2',
          );
        else
          assert.ok(
            a === 'a new\n' && cp?.commit === log[0]?.commit,
            `a.txt reads ${JSON.stringify(a)}, the draft at ${log[0]?.commit}`,
          );
      } else assert.ok(a === 'a new\n' || a === 'a later\n', `a.txt reads ${JSON.stringify(a)}`);
    },
  },
  {
    name: 'undo',
    prepare: async (sh) => {
      await draftChanges(sh);
      await sh.write('a.txt', 'a later\n');
    },
    act: async (sh, returned) => {
      await sh.undo();
      returned('undo');
    },
    check: async (sh, _fs, done) => {
      const a = await read(sh, 'a.txt');
      assert.ok(a === 'a new\n' || a === 'a later\n', `a.txt reads ${JSON.stringify(a)}`);
      if (done.has('undo')) assert.is(a, 'a new\n', 'an undo that returned is durable');
    },
  },
  {
    name: 'apply --commit (files, branch, index)',
    prepare: async (sh, repo) => {
      await draftChanges(sh);
      run.branchBefore = await mainBranch(repo.fs);
    },
    act: async (sh, returned) => {
      await sh.apply({ commit: true });
      returned('apply');
    },
    check: async (_sh, fs, done) => {
      const files = allOrNothing(fs, 'apply --commit');
      const moved = (await mainBranch(fs)) !== run.branchBefore;
      assert.is(moved, files === 'new', `the branch ${moved ? 'moved' : 'stayed'} while the files are ${files}`);
      if (done.has('apply')) assert.ok(moved, 'an apply --commit that returned is durable');
      // git's index agrees with the branch: after the move it holds the published blobs.
      const index = IndexView.read(fs, '/repo/.git/index')!;
      for (const [path, [old, next]] of Object.entries(PUBLISHED)) {
        const want = moved ? next : old;
        assert.is(
          index.idOf(path),
          want === null ? undefined : blobOid(Buffer.from(want)),
          `the index at ${path}, the branch ${moved ? 'moved' : 'not moved'}`,
        );
      }
    },
  },
  {
    name: 'write session finalize',
    prepare: async (sh) => {
      const { session_id } = await sh.sessions.begin({
        intent: 'a long document',
        target_file: 'docs/long.md',
        operation: 'create',
      });
      run.sessionId = session_id;
      if (!sh.sessions.push(session_id, Buffer.from(BIG))) sh.sessions.end(session_id);
      sh.sessions.save(session_id);
    },
    act: async (sh, returned) => {
      await sh.sessions.finalize(run.sessionId);
      returned('finalize');
    },
    check: async (sh, _fs, done) => {
      // The content is never lost: committed, or still in its session, which finalizes now.
      let found = await read(sh, 'docs/long.md');
      if (done.has('finalize')) assert.is(found, BIG, 'a finalized session is durable');
      if (found === undefined) {
        const r = await sh.sessions.finalize(run.sessionId);
        assert.ok(r.success, `the session finalizes after the crash: ${JSON.stringify(r)}`);
        found = await read(sh, 'docs/long.md');
      }
      assert.is(found, BIG);
    },
  },
  {
    name: "draft drop (its ref and its checkpoint's deleted)",
    prepare: async (sh) => {
      await draftChanges(sh);
      await sh.checkpoint('kept');
    },
    act: async (sh, returned) => {
      run.archive = (await sh.draftDrop('default')).archive!;
      returned('drop');
    },
    check: async (sh, fs, done) => {
      const there = await sh.hasDraft();
      if (done.has('drop')) {
        assert.not.ok(there, 'a drop that returned is durable');
        assert.equal(refsOn(fs, 'refs/shadow/checkpoints/default/'), [], 'the checkpoints a drop deleted stay deleted');
      }
      if (there) assert.is(await read(sh, 'a.txt'), 'a new\n');
      else {
        // Dropped: its work is kept under the archive; once the drop returned, its records too.
        const tips = refsOn(fs, 'refs/shadow/archive/default/').filter((r) => r.ref.endsWith('/tip'));
        assert.is(tips.length, 1, `the archive of the dropped draft: ${JSON.stringify(tips)}`);
        if (done.has('drop')) {
          assert.is(tips[0]!.ref, run.archive);
          assert.is(
            refsOn(fs, `${run.archive.slice(0, -'/tip'.length)}/checkpoints/`).length,
            1,
            'the checkpoint is archived',
          );
          const ledger = `/repo/.git/shadow/archive/default/${run.archive.slice('refs/shadow/archive/default/'.length, -'/tip'.length)}/events.jsonl`;
          assert.ok(fs.existsSync(ledger), `the archived ledger ${ledger}`);
          assert.match(String(fs.readFileSync(ledger, 'utf8')), /"type":"tx\/close"/);
        }
      }
    },
  },
  {
    name: 'recover (an apply the disk filling stopped, finished by the next open)',
    prepare: async (_sh, repo) => {
      // The disk fills after the first file: APPLY_FAILED, the journal stays.
      const seam = new FsSeam(withReplacingRename(repo.fs));
      seam.inject({ op: 'writeSync', path: (p) => p.includes('.shadow-tmp-'), after: 1, code: 'ENOSPC' });
      const viaSeam = await openAfterCrash(seam.fs);
      await draftChanges(viaSeam);
      await viaSeam.apply().then(
        () => assert.unreachable('the apply was to fail'),
        (e: { code?: string }) => assert.is(e.code, 'APPLY_FAILED'),
      );
      viaSeam.close();
    },
    // Opening the repository finishes the journal: that is the run recorded, returned when the handle is.
    act: async (sh, returned) => {
      assert.is(sh.recovered?.finished.length, 1);
      returned('open');
    },
    check: async (_sh, fs, done) => {
      const files = allOrNothing(fs, 'recover');
      if (done.has('open')) assert.is(files, 'new', 'a recovery that returned is durable');
    },
  },
  {
    name: 'plan steps',
    prepare: async () => undefined,
    act: async (sh, returned) => {
      await sh.runPlan(PLAN);
      returned('plan');
    },
    check: async (sh, _fs, done) => {
      const steps = async (): Promise<string[]> =>
        (await sh.hasDraft()) ? (await sh.log()).map((e) => e.plan_batch!).filter((b) => b !== undefined) : [];
      const before = await steps();
      assert.is(new Set(before).size, before.length, `no step applied twice: ${JSON.stringify(before)}`);
      if (done.has('plan'))
        assert.equal([...before].sort(), ['1', '2'], 'a plan that returned is durable, every step once');
      if (before.length === 2) return;
      // Cut short: the plan resumes from what the draft holds (its trailers), and every step lands once.
      const out = await sh.resumePlan({ planText: PLAN });
      assert.is(out.status, 'complete', JSON.stringify(out));
      assert.equal([...(await steps())].sort(), ['1', '2'], 'every step once');
    },
  },
  {
    name: 'write session begin and content',
    prepare: async () => undefined,
    act: async (sh, returned) => {
      const { session_id } = await sh.sessions.begin({ intent: 'notes', target_file: 'notes.md', operation: 'create' });
      run.sessionId = session_id;
      returned('begin');
      sh.sessions.push(session_id, Buffer.from(BIG));
      // The end of the content is fsynced (a save between brings it to the kernel only: see docs/writing.md, write sessions).
      sh.sessions.end(session_id);
      returned('end');
    },
    check: async (sh, _fs, done) => {
      const known = sh.sessions.list().some((x) => x.session_id === run.sessionId);
      if (done.has('begin')) assert.ok(known, 'a session whose begin returned is there');
      // A session that is there is whole enough to go on: its status reads.
      if (known) sh.sessions.status(run.sessionId);
      if (done.has('end')) {
        // Ended: all of its content survives.
        const r = await sh.sessions.finalize(run.sessionId);
        assert.ok(r.success, `the saved session finalizes: ${JSON.stringify(r)}`);
        assert.is(await read(sh, 'notes.md'), BIG);
      }
    },
  },
  packMergeProtocol('pack merge in steps (batches until their packs are rolled into one)'),
  {
    ...packMergeProtocol(
      'pack merge on a thread (the merge PackMergeThread runs, then the registry rewritten by the handle: batches until their packs are rolled into one)',
    ),
    // The merge a PackMergeThread's worker runs (runPackMergeJob), here on the crash simulator's disk.
    packMerger: (ctx) => ({ merge: async (job) => runPackMergeJob(ctx, job) }),
  },
];

/** The packs in the repository's pack directory. */
function packCount(sh: Shadow): number {
  return (sh.ws.ctx.fs.readdirSync('/repo/.git/objects/pack') as string[]).filter((n) => n.endsWith('.idx')).length;
}

/** A served batch's upkeep (pack-consolidate.ts): the merged pack and its index durable and in place before any input goes. */
function packMergeProtocol(name: string): Protocol {
  return {
    name,
    // Packs enough that the run's first batch makes a merge due (a handle looks at the first write, then every 8th).
    prepare: async (sh) => {
      for (let i = 0; i < MERGE_AT_PACKS - 1; i++) await sh.write(`q${i}.txt`, `q ${i}\n`);
      await sh.ws.repo.objects.merging();
    },
    act: async (sh, returned) => {
      const before = packCount(sh);
      for (let i = 0; i < 2 * MERGE_AT_PACKS; i++) {
        await sh.write(`p${i}.txt`, `p ${i}\n`);
        returned(`batch ${i}`);
        await new Promise((turn) => setImmediate(turn));
        await sh.ws.repo.objects.merging();
        // One pack a batch, fewer once merged.
        if (packCount(sh) < before + i + 1) return returned('merge');
      }
      assert.unreachable(`no merge after ${2 * MERGE_AT_PACKS} batches`);
    },
    check: async (sh, fs, done) => {
      for (let i = 0; i < MERGE_AT_PACKS - 1; i++) assert.is(await read(sh, `q${i}.txt`), `q ${i}\n`);
      for (let i = 0; done.has(`batch ${i}`); i++) assert.is(await read(sh, `p${i}.txt`), `p ${i}\n`);
      // Nothing the crash left (a lock, a half-written pack) stops the next merge.
      const before = packCount(sh);
      for (let i = 0; i < 2 * MERGE_AT_PACKS; i++) {
        await sh.write(`after${i}.txt`, `after ${i}\n`);
        await new Promise((turn) => setImmediate(turn));
        await sh.ws.repo.objects.merging();
        if (packCount(sh) < before + i + 1) return;
      }
      assert.unreachable(
        `no merge after the crash (lock left: ${fs.existsSync('/repo/.git/shadow/packs.list.lock')}; ` +
          `packs: ${fs.readdirSync('/repo/.git/objects/pack').join(' ')})`,
      );
    },
  };
}
