import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openShadow } from '../src/index.js';
import type { FsOp } from './helpers/fs-seam.js';
import {
  AFTER,
  BEFORE,
  codeOf,
  EXPECTED_SET,
  HOST,
  openAs,
  processes,
  standardFixture,
  type Fixture,
} from './helpers/apply-fixture.js';
import { journals, lockHeld, mutations, records, SHADOW, temps } from './helpers/apply-state.js';
import { assertPaths, nodeAt, oldOrNew, ROOT, worktree } from './helpers/working-tree.js';

/*
 * `shadow apply` on memfs with injected I/O failures: a full disk, denied
 * permissions, a ledger that cannot be written, unwritable directories and
 * a lock another apply holds.
 */

// ---------------------------------------------------------------- injected I/O failures

const Failures = suite<Fixture>('apply: I/O failures');
Failures.before.each(standardFixture);

const inWorktreeTemp = (p: string): boolean => p.includes('.shadow-tmp-');
const WRITES = EXPECTED_SET.filter((e) => AFTER[e.path] !== null).length;

for (const after of [0, 1, 3]) {
  for (const finish of ['recover', 'reopen'] as const) {
    Failures(
      `the disk fills after ${after} writes (ENOSPC): APPLY_FAILED, nothing torn, the journal stays; once there is space, ${finish === 'recover' ? 'recover' : 'the next open'} finishes it`,
      async ({ repo, seam, viaSeam }) => {
        seam.inject({ op: 'writeSync', path: inWorktreeTemp, after, code: 'ENOSPC' });
        const e = await codeOf(() => viaSeam.apply());
        assert.is(e.code, 'APPLY_FAILED');
        const failures = e.data.failures as Array<{ path: string; code: string }>;
        assert.is(failures.length, WRITES - after);
        assert.ok(
          failures.every((f) => f.code === 'ENOSPC'),
          JSON.stringify(failures),
        );
        assert.equal(oldOrNew(repo.fs, BEFORE, AFTER), []);
        for (const f of failures) assert.is(nodeAt(repo.fs, f.path), BEFORE[f.path], `${f.path} is untouched`);
        assert.equal(temps(repo.fs), [], 'no temp file left');
        assert.is(journals(repo.fs).length, 1, 'the journal stays');
        assert.equal(records(repo.fs), []);
        assert.is(lockHeld(repo.fs), false);
        // Until it is finished, publishing again is refused.
        assert.is((await codeOf(() => viaSeam.apply())).code, 'APPLY_PENDING');
        assert.is((await codeOf(() => viaSeam.unapply())).code, 'APPLY_PENDING');

        seam.heal(); // space freed
        const report = finish === 'recover' ? await viaSeam.recover() : (await openAs(repo, repo.fs, 102)).recovered;
        assert.ok(report);
        assert.is(report!.finished.length, 1);
        assert.equal(report!.failed, []);
        assert.equal(report!.finished[0]!.conflicts, []);
        assertPaths(repo.fs, AFTER);
        assert.equal(journals(repo.fs), []);
        assert.is(records(repo.fs).length, 1);
        assert.equal((await viaSeam.apply({ dryRun: true })).paths, [], 'the bases are the published contents');
      },
    );
  }
}

const DENIED: Array<{ name: string; op: FsOp; path: RegExp; code: string; stuck: string }> = [
  {
    name: 'a read-only file cannot be replaced (EPERM on rename)',
    op: 'renameSync',
    path: /\/repo\/src\/app\.ts$/,
    code: 'EPERM',
    stuck: 'src/app.ts',
  },
  {
    name: 'a directory refuses new files (EACCES on open)',
    op: 'openSync',
    path: /\/repo\/src\/\.app\.ts\.shadow-tmp-/,
    code: 'EACCES',
    stuck: 'src/app.ts',
  },
  {
    name: 'a file cannot be removed (EACCES on unlink)',
    op: 'unlinkSync',
    path: /\/repo\/old\/gone\.txt$/,
    code: 'EACCES',
    stuck: 'old/gone.txt',
  },
  {
    name: 'a new directory cannot be made (EACCES on mkdir)',
    op: 'mkdirSync',
    path: /\/repo\/src\/new$/,
    code: 'EACCES',
    stuck: 'src/new/feature.ts',
  },
];

for (const d of DENIED) {
  Failures(
    `${d.name}: APPLY_FAILED naming the path, which stays old while the rest is new; recovery finishes once fixed`,
    async ({ repo, seam, viaSeam }) => {
      seam.inject({ op: d.op, path: d.path, code: d.code });
      const e = await codeOf(() => viaSeam.apply());
      assert.is(e.code, 'APPLY_FAILED');
      assert.equal(
        (e.data.failures as Array<{ path: string; code: string }>).map((f) => [f.path, f.code]),
        [[d.stuck, d.code]],
      );
      assert.ok(e.message.includes(d.stuck));
      for (const p of Object.keys(AFTER)) assert.is(nodeAt(repo.fs, p), p === d.stuck ? BEFORE[p] : AFTER[p], p);
      assert.equal(temps(repo.fs), []);
      assert.is(journals(repo.fs).length, 1);
      seam.heal();
      const report = await viaSeam.recover();
      assert.is(report.finished.length, 1);
      assertPaths(repo.fs, AFTER);
      assert.equal(journals(repo.fs), []);
      assert.is(records(repo.fs).length, 1);
    },
  );
}

Failures(
  'the ledger cannot take apply/start: the apply fails before any write, and its journal is gone, so nothing carries it out later',
  async ({ repo, seam, viaSeam }) => {
    seam.inject({ op: 'openSync', path: /events\.jsonl\.lock/, code: 'EIO' });
    const e = await codeOf(() => viaSeam.apply());
    assert.is.not(e.code, 'NO_CODE');
    assertPaths(repo.fs, BEFORE);
    assert.equal(journals(repo.fs), [], 'the journal made alongside is removed');
    assert.equal(temps(repo.fs), []);
    assert.equal(records(repo.fs), []);
    assert.is(lockHeld(repo.fs), false);
    seam.heal();
    assert.is((await viaSeam.recover()).finished.length, 0, 'there is nothing to finish');
    assertPaths(repo.fs, BEFORE);
    await viaSeam.apply();
    assertPaths(repo.fs, AFTER);
  },
);

const UNWRITABLE: Array<{ deny: string; directories: string[] }> = [
  { deny: `${ROOT}/src`, directories: ['src'] },
  { deny: `${ROOT}/old`, directories: ['old'] },
  { deny: ROOT, directories: ['.'] },
];

for (const u of UNWRITABLE) {
  Failures(
    `${u.deny} is not writable (accessSync): NOT_WRITABLE before any write, not even a journal; the dry run says so`,
    async ({ repo, seam, viaSeam }) => {
      seam.inject({ op: 'accessSync', path: (p) => p === u.deny, code: 'EACCES' });
      const before = worktree(repo.fs);
      const dry = await viaSeam.apply({ dryRun: true });
      assert.equal(dry.unwritable, u.directories);
      seam.arm();
      const e = await codeOf(() => viaSeam.apply());
      assert.is(e.code, 'NOT_WRITABLE');
      assert.equal(e.data.directories, u.directories);
      assert.match(e.message, /before writing anything/);
      assert.equal(mutations(seam), [], 'nothing written, not even a journal or a lock');
      assert.equal(worktree(repo.fs), before);
      seam.heal();
      await viaSeam.apply();
      assertPaths(repo.fs, AFTER);
    },
  );
}

Failures(
  'another apply holds the lock: LOCKED naming it, nothing written; a lock left by a dead process is taken over',
  async ({ repo }) => {
    const holder = { pid: 4242, host: HOST, since: '2026-11-22T12:00:00.000Z', what: 'shadow apply' };
    repo.fs.mkdirSync(SHADOW, { recursive: true });
    repo.fs.writeFileSync(`${SHADOW}/apply.lock`, JSON.stringify(holder));
    const before = worktree(repo.fs);
    const { clock, ids, env } = repo.ctx;
    const whileAlive = await openShadow({ dir: ROOT, fs: repo.fs, clock, ids, env, processes: processes(100, [4242]) });
    const e = await codeOf(() => whileAlive.apply());
    assert.is(e.code, 'LOCKED');
    assert.match(e.message, /4242/);
    assert.equal(worktree(repo.fs), before);
    assert.equal(journals(repo.fs), []);
    assert.is(
      String(repo.fs.readFileSync(`${SHADOW}/apply.lock`, 'utf8')),
      JSON.stringify(holder),
      'a live holder keeps its lock',
    );

    const afterDeath = await openShadow({ dir: ROOT, fs: repo.fs, clock, ids, env, processes: processes(100) });
    const r = await afterDeath.apply();
    assert.is(r.applied, true);
    assertPaths(repo.fs, AFTER);
    assert.is(lockHeld(repo.fs), false);
  },
);

Failures.run();
