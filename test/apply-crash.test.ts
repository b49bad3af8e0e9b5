import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FileOperation, FileSystem } from '../src/index.js';
import { FsSeam, type FsOp } from './helpers/fs-seam.js';
import { batch, memRepo, openAs } from './helpers/apply-fixture.js';
import { journalCalls, journals, MUTATING, records, SHADOW, temps } from './helpers/apply-state.js';
import { cacheProcessIds, freeze, goOn, groupProblems, probeRun, thaw } from './helpers/apply-crash-sweep.js';
import { assertPaths, file, nodeAt, oldOrNew, ROOT, type Node } from './helpers/working-tree.js';

/*
 * An apply of 200 files on memfs crashed at every fs call that leaves a disk
 * of its own (a stride over the working tree's writes): every path is old or
 * new after the crash, and the next open finishes the apply.
 */

/** Journals whose creation finished (a crash can cut one short: it then lacks its final newline). */
function completeJournals(fs: FileSystem): string[] {
  return journals(fs).filter((n) => String(fs.readFileSync(`${SHADOW}/journal/${n}`, 'utf8')).endsWith('\n'));
}

/** 200 paths: 110 modified, 30 deleted (emptying del/), 30 created in new/deep/, 10 renamed (20 paths, emptying ren/), 10 made executable. */
function bigFixture(): {
  files: Record<string, string>;
  ops: FileOperation[];
  before: Record<string, Node>;
  after: Record<string, Node>;
} {
  const files: Record<string, string> = { 'README.md': 'Hello\n', 'dirty.txt': 'committed\n' };
  const ops: FileOperation[] = [];
  const before: Record<string, Node> = {};
  const after: Record<string, Node> = {};
  const pad = (i: number): string => String(i).padStart(3, '0');
  for (let i = 0; i < 110; i++) {
    const p = `src/m/${pad(i)}.txt`;
    files[p] = `old ${i}\n`.repeat(1 + (i % 7));
    ops.push({ operation: 'write', path: p, content: `new ${i}\n`.repeat(1 + (i % 5)) });
    before[p] = file(files[p]!);
    after[p] = file(`new ${i}\n`.repeat(1 + (i % 5)));
  }
  for (let i = 0; i < 30; i++) {
    const p = `del/d${pad(i)}.txt`;
    files[p] = `del ${i}\n`;
    ops.push({ operation: 'delete', path: p });
    before[p] = file(files[p]!);
    after[p] = null;
  }
  for (let i = 0; i < 30; i++) {
    const p = `new/deep/n${pad(i)}.txt`;
    ops.push({ operation: 'write', path: p, content: `created ${i}\n` });
    before[p] = null;
    after[p] = file(`created ${i}\n`);
  }
  for (let i = 0; i < 10; i++) {
    const from = `ren/r${pad(i)}.txt`;
    const to = `moved/r${pad(i)}.txt`;
    files[from] = `renamed ${i}\n`;
    ops.push({ operation: 'rename', path: from, to });
    before[from] = file(files[from]!);
    after[from] = null;
    before[to] = null;
    after[to] = file(files[from]!);
  }
  for (let i = 0; i < 10; i++) {
    const p = `bin/x${pad(i)}`;
    files[p] = `#!/bin/sh\necho ${i}\n`;
    ops.push({ operation: 'chmod', path: p, mode: '100755' });
    before[p] = file(files[p]!);
    after[p] = file(files[p]!, true);
  }
  return { files, ops, before, after };
}

const BIG_UNTOUCHED: Record<string, Node> = {
  'README.md': file('Hello\n'),
  'dirty.txt': file('committed\nmine\n'),
  'notes/untracked.txt': file('untracked\n'),
};

/**
 * Pick crash points from the fs calls of one full run. Before the first
 * write every crash is alike (a few samples); from the first write in
 * .git/shadow to the journal's fsync, and after the last working-tree
 * change, the point after each call that can change the disk (any other
 * point leaves the same disk as the one before it); a stride over the
 * working tree writes (co-prime with the ~10 calls a file takes, so every
 * step of a file's write is hit), plus the calls around each directory
 * made or removed.
 */
function crashPoints(log: ReadonlyArray<{ n: number; op: FsOp; path: string | undefined }>, stride: number): number[] {
  const picked = new Set<number>();
  const add = (from: number, to: number, step = 1): void => {
    for (let i = Math.max(1, from); i <= Math.min(log.length, to); i += step) picked.add(i);
  };
  const inWorktree = (p: string | undefined): boolean =>
    p !== undefined && p.startsWith(`${ROOT}/`) && !p.startsWith(`${ROOT}/.git/`);
  const firstShadowWrite = log.find((c) => MUTATING.has(c.op) && c.path?.startsWith(SHADOW))!.n;
  // Every call from shadow's first write to the first change in the work
  // tree: the journal, and the ledger's start line appended while its fsyncs run.
  const firstWorktreeChange = log.find((c) => MUTATING.has(c.op) && inWorktree(c.path))!.n;
  const lastWorktreeChange = [...log].reverse().find((c) => MUTATING.has(c.op) && inWorktree(c.path))!.n;
  add(1, firstShadowWrite - 1, Math.ceil(firstShadowWrite / 4));
  // (a crash at call N leaves what calls 1..N-1 did: only a point just
  // after a call that can change the disk leaves a disk no earlier point
  // leaves; a read, stat or fsync changes nothing a killed process leaves)
  const windowEnd = Math.max(journalCalls(log).durable, firstWorktreeChange) + 2;
  add(firstShadowWrite - 1, firstShadowWrite);
  for (const c of log) if (c.n >= firstShadowWrite && c.n < windowEnd && !READS.has(c.op)) add(c.n + 1, c.n + 1);
  add(windowEnd - 2, windowEnd);
  add(firstWorktreeChange + 3, lastWorktreeChange, stride);
  // The first mkdir of a directory makes it; the last rmdir of one is the one that removes it.
  const dirCalls = new Map<string, number>();
  for (const c of log) {
    if (c.op === 'mkdirSync' && inWorktree(c.path) && !dirCalls.has(`+${c.path}`)) dirCalls.set(`+${c.path}`, c.n);
    if (c.op === 'rmdirSync' && inWorktree(c.path)) dirCalls.set(`-${c.path}`, c.n);
  }
  for (const n of dirCalls.values()) add(n - 1, n + 1);
  // After the last working-tree change, the same: each call that can change the disk.
  for (const c of log) if (c.n >= lastWorktreeChange && !READS.has(c.op)) add(c.n + 1, c.n + 1);
  add(lastWorktreeChange, lastWorktreeChange + 1);
  add(log.length, log.length);
  return [...picked].sort((a, b) => a - b);
}

/** Calls that leave the disk as it was (for a killed process: an fsync's durability is power-loss.test's). */
const READS: ReadonlySet<FsOp> = new Set<FsOp>([
  'readSync',
  'readFileSync',
  'statSync',
  'lstatSync',
  'fstatSync',
  'readdirSync',
  'existsSync',
  'readlinkSync',
  'closeSync',
  'fsyncSync',
  'accessSync',
]);

const Crash = suite('apply: crash and recovery');
cacheProcessIds(Crash);

Crash(
  'an apply of 200 files crashed at N, for N over its fs calls: every path is old or new, and reopening converges to new',
  async () => {
    const big = bigFixture();
    const repo = await memRepo(big.files);
    repo.write('dirty.txt', 'committed\nmine\n');
    repo.write('notes/untracked.txt', 'untracked\n');
    const sh = await openAs(repo);
    await batch(sh, big.ops, '200 paths');
    const frozen = freeze(repo.fs);

    // One full run, to count and see its calls.
    const { fs: probeFs, probe, result: full } = await probeRun(repo, frozen, (sh) => sh.apply());
    assert.is(full.paths.length, 200);
    assertPaths(probeFs, big.after);
    const log = [...probe.log];
    assert.ok(log.length > 1000, `an apply of 200 paths makes many fs calls (${log.length})`);
    const points = crashPoints(log, 13);

    const problems: string[] = [];
    let interrupted = 0;
    // Crashing at a call in (journal made, record made] leaves a journal that the next open must finish.
    const journalMade = journalCalls(log).durable;
    const recordMade = log.find((c) => c.op === 'renameSync' && c.path!.includes('/applies/'))!.n;
    let finishedByRecovery = 0;
    for (const n of points) {
      const fs = thaw(frozen);
      const seam = new FsSeam(fs);
      const crashing = await openAs(repo, seam.fs, 201);
      seam.arm(n);
      try {
        await crashing.apply();
        problems.push(`N=${n}: the apply did not reach call ${n}`);
        continue;
      } catch (e) {
        if (!seam.crashed) {
          problems.push(`N=${n}: failed with ${(e as Error).message} instead of crashing`);
          continue;
        }
      }
      interrupted++;
      const torn = oldOrNew(fs, big.before, big.after);
      if (torn.length > 0)
        problems.push(
          `N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): neither old nor new after the crash: ${torn.slice(0, 3).join(', ')}`,
        );
      const started = completeJournals(fs).length > 0 || records(fs).length > 0;

      const reopened = await openAs(repo, fs, 202); // opening recovers
      if (journals(fs).length > 0) problems.push(`N=${n}: a journal is left after reopening`);
      const report = reopened.recovered;
      if (
        report &&
        (report.failed.length > 0 ||
          report.unreadable.length > 0 ||
          report.finished.some((f) => f.conflicts.length > 0))
      ) {
        problems.push(`N=${n}: recovery reported ${JSON.stringify(report).slice(0, 300)}`);
      }
      if (report?.finished.length) finishedByRecovery++;
      else if (n > journalMade && n <= recordMade)
        problems.push(`N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): opening did not finish the interrupted apply`);
      if (!started) {
        const notOld = Object.keys(big.before).filter((p) => nodeAt(fs, p) !== big.before[p]);
        if (notOld.length > 0)
          problems.push(`N=${n}: crashed before the journal, yet ${notOld.slice(0, 3).join(', ')} changed`);
        try {
          await reopened.apply();
        } catch (e) {
          problems.push(`N=${n}: applying again after an early crash failed: ${(e as Error).message}`);
          continue;
        }
      }
      const notNew = Object.keys(big.after).filter((p) => nodeAt(fs, p) !== big.after[p]);
      if (notNew.length > 0)
        problems.push(
          `N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): not new after recovery: ${notNew.slice(0, 3).join(', ')}`,
        );
      const leftovers = temps(fs);
      if (leftovers.length > 0) problems.push(`N=${n}: temp files left: ${leftovers.slice(0, 3).join(', ')}`);
      for (const dir of ['del', 'ren'])
        if (fs.existsSync(`${ROOT}/${dir}`))
          problems.push(
            `N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): the emptied directory ${dir}/ is left after recovery`,
          );
      for (const [p, want] of Object.entries(BIG_UNTOUCHED))
        if (nodeAt(fs, p) !== want) problems.push(`N=${n}: untouched ${p} changed`);
      if (records(fs).length !== 1) problems.push(`N=${n}: ${records(fs).length} apply records`);
      const plan = await reopened.apply({ dryRun: true });
      if (plan.paths.length !== 0) problems.push(`N=${n}: ${plan.paths.length} paths still due after recovery`);
      if (log[n - 1]!.path?.startsWith(SHADOW)) {
        // A crash while shadow's own state was being written must not stop the agent from going on.
        const failure = await goOn(reopened);
        if (failure) problems.push(`N=${n} (${log[n - 1]!.op} ${log[n - 1]!.path}): the next batch failed: ${failure}`);
      }
    }
    assert.equal(groupProblems(problems), [], `${problems.length} problems over ${points.length} crash points`);
    assert.ok(interrupted === points.length && points.length >= 90, `${interrupted} of ${points.length} crash points`);
    assert.ok(finishedByRecovery >= 60, `recovery finished ${finishedByRecovery} applies`);
  },
);

Crash.run();
