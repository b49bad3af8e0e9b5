import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import type { FileSystem } from '../src/index.js';
import { FsSeam } from './helpers/fs-seam.js';
import {
  AFTER,
  batch,
  BEFORE,
  blobOid,
  DRAFT_OPS,
  FILES,
  memRepo,
  openAs,
  USER_FILES,
} from './helpers/apply-fixture.js';
import { journalCalls, journals, records, SHADOW, temps } from './helpers/apply-state.js';
import { cacheProcessIds, freeze, goOn, groupProblems, probeRun, thaw } from './helpers/apply-crash-sweep.js';
import { listNames, oldOrNew, ROOT, worktree } from './helpers/working-tree.js';

/*
 * Recovery on memfs: an unapply and an apply --commit crashed at every fs
 * call converge when reopened; what a user changed meanwhile is kept; a
 * journal cut short or damaged is dropped or reported.
 */

const Crash = suite('apply: crash and recovery');
cacheProcessIds(Crash);

Crash(
  'an unapply crashed at every call: every path is applied or restored, and reopening converges to the state before the apply',
  async () => {
    const repo = await memRepo(FILES);
    for (const [p, c] of Object.entries(USER_FILES)) repo.write(p, c);
    repo.write('a.txt', 'a\nlocal\n');
    const sh = await openAs(repo);
    await batch(sh, DRAFT_OPS);
    const pristine = worktree(repo.fs);
    await sh.apply();
    const frozen = freeze(repo.fs);

    const { fs: probeFs, probe } = await probeRun(repo, frozen, (sh) => sh.unapply());
    const total = probe.calls;
    const log = [...probe.log];
    assert.equal(worktree(probeFs), pristine);

    const problems: string[] = [];
    for (let n = 1; n <= total; n++) {
      const fs = thaw(frozen);
      const seam = new FsSeam(fs);
      const crashing = await openAs(repo, seam.fs, 201);
      seam.arm(n);
      try {
        await crashing.unapply();
        problems.push(`N=${n}: no crash`);
        continue;
      } catch (e) {
        if (!seam.crashed) {
          problems.push(`N=${n}: ${(e as Error).message}`);
          continue;
        }
      }
      const torn = oldOrNew(fs, AFTER, BEFORE);
      if (torn.length > 0) problems.push(`N=${n}: torn ${torn.join(', ')}`);
      const reopened = await openAs(repo, fs, 202);
      if (records(fs).length === 1) {
        // Crashed before the unapply's journal: the apply stands; unapply again.
        try {
          await reopened.unapply();
        } catch (e) {
          problems.push(`N=${n}: unapplying again after an early crash failed: ${(e as Error).message}`);
          continue;
        }
      }
      const now = worktree(fs);
      if (JSON.stringify(now) !== JSON.stringify(pristine)) {
        const diff = Object.keys({ ...now, ...pristine }).filter((p) => now[p] !== pristine[p]);
        problems.push(
          `N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): not restored after recovery: ${diff.slice(0, 3).join(', ')}`,
        );
      }
      if (records(fs).length !== 0 || journals(fs).length !== 0)
        problems.push(`N=${n}: records ${records(fs).length}, journals ${journals(fs).length}`);
      if (log[n - 1]!.path?.startsWith(SHADOW)) {
        const failure = await goOn(reopened);
        if (failure) problems.push(`N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): the next batch failed: ${failure}`);
      }
    }
    assert.ok(total > 50, `${total} calls`);
    assert.equal(groupProblems(problems), [], `${problems.length} problems over ${total} crash points`);
  },
);

Crash(
  "an apply --commit crashed at each call from its journal on: reopening finishes the files, the branch (one reflog line in its log and one in HEAD's) and the index (the dead apply's own locks are taken over)",
  async () => {
    const repo = await memRepo({
      'README.md': 'Hello\n',
      'a.txt': 'a\n',
      'old/gone.txt': 'gone\n',
      'src/app.ts': 'export {}\n',
    });
    const sh = await openAs(repo);
    await batch(sh, [
      { operation: 'write', path: 'a.txt', content: 'A\n' },
      { operation: 'delete', path: 'old/gone.txt' },
      { operation: 'write', path: 'src/new/f.ts', content: 'f\n' },
    ]);
    repo.write('README.md', 'staged by the user\n');
    await git.add({ fs: repo.fs, dir: ROOT, filepath: 'README.md' });
    const tip = await git.resolveRef({ fs: repo.fs, dir: ROOT, ref: 'refs/shadow/drafts/default' });
    const root = await git.resolveRef({ fs: repo.fs, dir: ROOT, ref: 'main' });
    const frozen = freeze(repo.fs);
    // Lines of a log that record the apply's move (the memfs repository has no reflog before it).
    const moves = (fs: FileSystem, log: string): number =>
      (fs.existsSync(`${ROOT}/.git/logs/${log}`) ? String(fs.readFileSync(`${ROOT}/.git/logs/${log}`, 'utf8')) : '')
        .split('\n')
        .filter((l) => l.startsWith(`${root} ${tip} `)).length;
    const expectedStatus = [
      ['README.md', 1, 2, 2],
      ['a.txt', 1, 1, 1],
      ['src/app.ts', 1, 1, 1],
      ['src/new/f.ts', 1, 1, 1],
    ];

    const { fs: probeFs, probe, result: r } = await probeRun(repo, frozen, (sh) => sh.apply({ commit: true }));
    assert.is(r.branch?.how, 'fast-forward');
    assert.equal(await git.statusMatrix({ fs: probeFs as never, dir: ROOT }), expectedStatus);
    const log = [...probe.log];
    const from = journalCalls(log).durable;

    const problems: string[] = [];
    let sawGitLock = 0;
    const GIT_LOCKS = [`${ROOT}/.git/index.lock`, `${ROOT}/.git/refs/heads/main.lock`, `${ROOT}/.git/HEAD.lock`];
    for (let n = from; n <= log.length; n++) {
      const fs = thaw(frozen);
      const seam = new FsSeam(fs);
      const crashing = await openAs(repo, seam.fs, 201);
      seam.arm(n);
      try {
        await crashing.apply({ commit: true });
        problems.push(`N=${n}: no crash`);
        continue;
      } catch (e) {
        if (!seam.crashed) {
          problems.push(`N=${n}: ${(e as Error).message}`);
          continue;
        }
      }
      const where = `(${log[n - 1]!.op} ${log[n - 1]!.path})`;
      const staleGitLocks = GIT_LOCKS.filter((l) => fs.existsSync(l));
      const reopened = await openAs(repo, fs, 202);
      if (staleGitLocks.length > 0) {
        sawGitLock++;
        // The dead apply's own locks record it as their holder: recovery takes them over, nobody removes a file.
        const failed = reopened.recovered?.failed ?? [];
        if (failed.length > 0)
          problems.push(`N=${n} ${where}: recovery failed with ${staleGitLocks.join(', ')} left: ${failed[0]!.error}`);
      }
      if (journals(fs).length > 0)
        problems.push(
          `N=${n} ${where}: a journal is left after reopening: ${JSON.stringify(reopened.recovered?.failed ?? []).slice(0, 200)}`,
        );
      if (records(fs).length === 0 && journals(fs).length === 0) {
        try {
          await reopened.apply({ commit: true });
        } catch (e) {
          problems.push(`N=${n} ${where}: applying again failed: ${(e as Error).message}`);
          continue;
        }
      }
      const main = await git.resolveRef({ fs: fs as never, dir: ROOT, ref: 'main' });
      if (main !== tip) problems.push(`N=${n} ${where}: main is not at the draft tip`);
      for (const l of ['refs/heads/main', 'HEAD'])
        if (moves(fs, l) !== 1) problems.push(`N=${n} ${where}: logs/${l} records the move ${moves(fs, l)} times`);
      const st = await git.statusMatrix({ fs: fs as never, dir: ROOT });
      if (JSON.stringify(st) !== JSON.stringify(expectedStatus))
        problems.push(`N=${n} ${where}: status ${JSON.stringify(st)}`);
      if (fs.existsSync(`${ROOT}/old`)) problems.push(`N=${n} ${where}: the emptied directory old/ is left`);
      if (temps(fs).length > 0) problems.push(`N=${n} ${where}: temp files left`);
      if (GIT_LOCKS.some((l) => fs.existsSync(l))) problems.push(`N=${n} ${where}: a git lock is left after recovery`);
    }
    assert.equal(groupProblems(problems), [], `${problems.length} problems over ${log.length - from + 1} crash points`);
    assert.ok(sawGitLock > 0, 'some crash points fell while the index or the branch was locked');
  },
);

Crash(
  'a path the user changed between the crash and the recovery is reported and kept; leftover temp files are removed',
  async () => {
    const repo = await memRepo(FILES);
    const sh = await openAs(repo);
    await batch(sh, [
      { operation: 'write', path: 'a.txt', content: 'A\n' },
      { operation: 'write', path: 'src/app.ts', content: 'export const app = 2\n' },
      { operation: 'write', path: 'src/lib/util.ts', content: 'export const u = 2\n' },
    ]);
    const seam = new FsSeam(repo.fs);
    const crashing = await openAs(repo, seam.fs, 201);
    // Crash at the rename of src/app.ts: a.txt is renamed into place; src/app.ts and
    // src/lib/util.ts (staged in the same window of writes) have complete temp files.
    seam.onCall = (_n, op, path) => {
      if (op === 'renameSync' && path === `${ROOT}/src/app.ts`) seam.die(op);
    };
    seam.arm();
    try {
      await crashing.apply();
      assert.unreachable('the apply should crash');
    } catch (e) {
      assert.ok(seam.crashed, (e as Error).message);
    }
    assert.is(repo.read('a.txt'), 'A\n');
    assert.is(repo.read('src/app.ts'), 'export {}\n');
    assert.is(temps(repo.fs).length, 2, 'the crash left the temp files of the window');
    repo.write('src/lib/util.ts', 'the user meanwhile\n');

    const reopened = await openAs(repo, repo.fs, 202);
    const report = reopened.recovered!;
    assert.is(report.finished.length, 1);
    assert.equal(
      report.finished[0]!.conflicts.map((c) => [c.path, c.expected, c.found]),
      [['src/lib/util.ts', blobOid('export const u = 1\n'), 'modified']],
    );
    assert.ok(report.finished[0]!.written.includes('src/app.ts'));
    assert.is(repo.read('src/app.ts'), 'export const app = 2\n');
    assert.is(repo.read('src/lib/util.ts'), 'the user meanwhile\n', 'not overwritten');
    assert.equal(temps(repo.fs), []);
    assert.equal(journals(repo.fs), []);
    // The path left alone keeps its old base: publishing it now is a conflict, the rest is published.
    const plan = await reopened.apply({ dryRun: true });
    assert.equal(
      plan.paths.map((p) => p.path),
      ['src/lib/util.ts'],
    );
    assert.equal(
      plan.conflicts.map((c) => [c.path, c.found]),
      [['src/lib/util.ts', 'modified']],
    );
    // Recovery with nothing interrupted is a no-op.
    const again = await reopened.recover();
    assert.equal(again, { finished: [], failed: [], unreadable: [], elsewhere: [] });
  },
);

Crash(
  'a journal a crash cut short while it was made is dropped by recovery; one damaged later is reported and kept; without the apply lock nothing is removed',
  async () => {
    const repo = await memRepo(FILES);
    const sh = await openAs(repo);
    await batch(sh, [{ operation: 'write', path: 'a.txt', content: 'A\n' }]);
    const dir = `${SHADOW}/journal`;
    repo.fs.mkdirSync(dir, { recursive: true });
    repo.fs.writeFileSync(`${dir}/11111111-0000-4000-8000-000000000001.json`, ''); // created, never written
    repo.fs.writeFileSync(
      `${dir}/11111111-0000-4000-8000-000000000002.json`,
      '{"version":1,"id":"11111111-0000-4000-8000-0000',
    ); // torn mid-write
    repo.fs.writeFileSync(
      `${dir}/11111111-0000-4000-8000-000000000003.json`,
      '{"version":1,"id":"x","kind":"apply",\u0000\u0000}\n',
    ); // whole, then damaged
    repo.fs.writeFileSync(`${dir}/11111111-0000-4000-8000-000000000004.json.tmp-abc`, '{"version":1'); // a rewrite cut short

    // A reader that does not hold the apply lock (another process may be making its journal) removes nothing.
    const { readJournals } = await import('../src/state/journal.js');
    const seen = readJournals({ ...repo.ctx, fs: repo.fs }, SHADOW);
    assert.equal(seen.journals, []);
    assert.is(seen.unreadable.length, 3);
    assert.is(listNames(repo.fs, dir).length, 4);

    const reopened = await openAs(repo, repo.fs, 202);
    assert.equal(reopened.recovered!.unreadable, [`${dir}/11111111-0000-4000-8000-000000000003.json`]);
    assert.equal(reopened.recovered!.finished, []);
    assert.equal(listNames(repo.fs, dir), ['11111111-0000-4000-8000-000000000003.json']);
    assert.is(repo.read('a.txt'), FILES['a.txt'], 'nothing was written');
    // A damaged journal is reported, not in the way: the draft still applies.
    const r = await reopened.apply();
    assert.is(r.applied, true);
    assert.is(repo.read('a.txt'), 'A\n');
  },
);

Crash.run();
