/** bench/apply's runs at one k: the draft made, then rounds of every case (shadow, the floor, git checkout), dry runs, and a traced checkout. */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileSystem, Shadow } from '../../src/index.js';
import type { Spawner, TraceCounts } from '../helpers/baselines.js';
import type { FsCounters } from '../helpers/counting-fs.js';
import { fsyncProbe } from '../helpers/fsync-probe.js';
import { Profiler, inWindows, nowUs, type Window } from '../helpers/profile.js';
import { log } from '../helpers/progress.js';
import { run, settle, type CachedRepo } from '../helpers/repo.js';
import { median, ms } from '../helpers/stats.js';
import type { WhereCounters } from '../helpers/where-fs.js';
import { directoriesOf, makeChanges, treeHolds, type Change } from './changes.js';
import { floorWrite } from './floor.js';
import { mark } from './instrumented-fs.js';
import { CASES, PROFILE_INTERVAL_US, plan, ROWS, type Case, type Options, type Row } from './options.js';
import { profiles, results, Tally, type RowResult } from './results.js';

/** dist/ (this file is dist/bench/apply/run-k.js): profiled functions are named relative to it. */
const DIST_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Env {
  o: Options;
  repo: CachedRepo;
  /** The scratch copy (working tree and .git) every case works in. */
  dir: string;
  env: Record<string, string>;
  spawner: Spawner;
  sh: Shadow;
  /** A new handle on the same instrumented fs (a fresh process's view, minus node's start). */
  open: () => Promise<Shadow>;
  shadowFs: { counters: FsCounters; where: WhereCounters };
  floorFs: { fs: FileSystem; counters: FsCounters; where: WhereCounters };
}

function git(e: Env, args: string[]): string {
  return run('git', args, { cwd: e.dir, env: e.env });
}

/**
 * Untimed: the index's stat data brought up to date after a case rewrote
 * files behind git's back (same contents, new inodes and times), so that no
 * later git checkout pays for re-checking them.
 */
function refreshIndex(e: Env): void {
  git(e, ['update-index', '-q', '--refresh']);
}

function checkoutArgs(ref: string, changes: readonly Change[]): string[] {
  return ['checkout', '-q', ref, '--', ...changes.map((c) => c.path)];
}

/** Profiles the measured `sh.apply` calls of one k, when asked. */
interface ProfileRun {
  profiler: Profiler;
  /** The measured applies. */
  windows: Window[];
  /** The measured dry runs. */
  dryWindows: Window[];
  /** The dry runs on a fresh handle. */
  coldWindows: Window[];
}

/** What runK reports besides the rows. */
export interface KInfo {
  /** Directories the changes touch. */
  dirs: number;
  /** One fsync on this disk just before the k's runs (the disk is shared: it moves). */
  probe: { median: number; p90: number };
}

/** Run every case at k. */
export async function runK(e: Env, k: number): Promise<KInfo> {
  const { o, sh, dir } = e;
  const t0 = performance.now();
  const { warm, runs, dryRuns } = plan(k, o);
  const draft = `apply-bench-k${k}`;
  const ref = `refs/shadow/drafts/${draft}`;
  const changes = makeChanges(e.repo, dir, k);
  const dirs = directoriesOf(dir, changes);

  // The draft: one batch of k modifications.
  const r = await sh.batch(
    {
      intent: `apply bench: ${k} files`,
      operations: changes.map((c) => ({ operation: 'write', path: c.path, content: c.new.toString('utf8') })),
    },
    { draft },
  );
  if (!r.success) throw new Error(`k=${k}: the draft's batch failed: ${JSON.stringify(r.error)}`);
  const plan0 = await sh.apply({ draft, dryRun: true });
  if (plan0.paths.length !== k || plan0.conflicts.length > 0)
    throw new Error(`k=${k}: the draft publishes ${plan0.paths.length} paths with ${plan0.conflicts.length} conflicts`);
  settle();
  const probe = fsyncProbe(join(dir, '.git'));

  const cases = CASES.filter((c) => o.only.has(c));
  const tallies = new Map<Row, Tally>(ROWS.map((row) => [row, new Tally()]));
  const profile: ProfileRun | undefined =
    o.profileDir !== undefined && o.only.has('shadow')
      ? { profiler: new Profiler(PROFILE_INTERVAL_US), windows: [], dryWindows: [], coldWindows: [] }
      : undefined;

  const step: Record<Case, (measured: boolean, verify: boolean) => Promise<void>> = {
    async shadow(measured, verify) {
      settle();
      let m = mark(e.shadowFs, sh);
      const w0 = nowUs();
      let t = performance.now();
      const a = await sh.apply({ draft });
      let ms = performance.now() - t;
      if (measured) profile?.windows.push([w0, nowUs()]);
      if (!a.applied || a.paths.length !== k) {
        const pending = (a as { pendingApprovals?: unknown[] }).pendingApprovals ?? [];
        throw new Error(
          `k=${k}: apply published ${a.paths.length} paths (applied: ${a.applied}${pending.length > 0 ? `; approvals pending: ${JSON.stringify(pending)}` : ''})`,
        );
      }
      if (measured) {
        const d = m();
        tallies.get('apply')!.add(ms, d.c, d.w, d.objectsRead);
      }
      if (verify && !treeHolds(dir, changes, 'new'))
        throw new Error(`k=${k}: after shadow apply the work tree does not hold the draft's contents`);
      settle();
      m = mark(e.shadowFs, sh);
      t = performance.now();
      const u = await sh.unapply({ draft });
      ms = performance.now() - t;
      if (u.paths.length !== k) throw new Error(`k=${k}: unapply put back ${u.paths.length} paths`);
      if (measured) {
        const d = m();
        tallies.get('unapply')!.add(ms, d.c, d.w, d.objectsRead);
      }
      if (verify && !treeHolds(dir, changes, 'old'))
        throw new Error(`k=${k}: after shadow unapply the work tree does not hold the old contents`);
      refreshIndex(e);
    },
    async floor(measured, verify) {
      settle();
      const m = mark(e.floorFs);
      const t = performance.now();
      floorWrite(e.floorFs.fs, dir, changes, dirs);
      const ms = performance.now() - t;
      if (measured) {
        const d = m();
        tallies.get('floor')!.add(ms, d.c, d.w, 0);
      }
      if (verify && !treeHolds(dir, changes, 'new'))
        throw new Error(`k=${k}: after the floor's writes the work tree does not hold the draft's contents`);
      for (const c of changes) nodeFs.writeFileSync(join(dir, c.path), c.old);
      refreshIndex(e);
    },
    async checkout(measured, verify) {
      settle();
      const t = performance.now();
      e.spawner.run('git', checkoutArgs(ref, changes), { cwd: dir, env: e.env });
      const ms = performance.now() - t;
      if (measured) tallies.get('checkout')!.times.push(ms);
      if (verify && !treeHolds(dir, changes, 'new'))
        throw new Error(`k=${k}: after git checkout the work tree does not hold the draft's contents`);
      git(e, checkoutArgs('HEAD', changes));
    },
  };

  if (profile) await profile.profiler.start();
  const rounds = warm + runs;
  for (let i = 0; i < rounds; i++) {
    for (let j = 0; j < cases.length; j++) {
      const c = cases[(i + j) % cases.length]!;
      await step[c](i >= warm, i === 0);
    }
  }

  // One more checkout under strace: its fsyncs and files written.
  let trace: TraceCounts | undefined;
  if (o.only.has('checkout') && o.strace) {
    settle();
    e.spawner.startTrace();
    try {
      e.spawner.run('git', checkoutArgs(ref, changes), { cwd: dir, env: e.env });
    } finally {
      trace = e.spawner.stopTrace();
    }
    git(e, checkoutArgs('HEAD', changes));
  }

  // Dry runs: the tree holds the bases, nothing is written.
  if (o.only.has('shadow')) {
    settle();
    for (let i = 0; i < warm + dryRuns; i++) {
      const m = mark(e.shadowFs, sh);
      const w0 = nowUs();
      const t = performance.now();
      const d = await sh.apply({ draft, dryRun: true });
      const ms = performance.now() - t;
      if (i >= warm) profile?.dryWindows.push([w0, nowUs()]);
      if (d.applied || d.paths.length !== k || d.conflicts.length > 0)
        throw new Error(`k=${k}: the dry run lists ${d.paths.length} paths, ${d.conflicts.length} conflicts`);
      if (i >= warm) {
        const x = m();
        tallies.get('dry-run')!.add(ms, x.c, x.w, x.objectsRead);
      }
    }
    // As a fresh `shadow apply --dry-run` process sees it: a handle opened
    // (untimed) for each run, so no object, tree or review is cached.
    for (let i = 0; i < dryRuns; i++) {
      const fresh = await e.open();
      const m = mark(e.shadowFs, fresh);
      const w0 = nowUs();
      const t = performance.now();
      const d = await fresh.apply({ draft, dryRun: true });
      const ms = performance.now() - t;
      profile?.coldWindows.push([w0, nowUs()]);
      fresh.close();
      if (d.applied || d.paths.length !== k || d.conflicts.length > 0)
        throw new Error(`k=${k}: the cold dry run lists ${d.paths.length} paths, ${d.conflicts.length} conflicts`);
      const x = m();
      tallies.get('dry-run-cold')!.add(ms, x.c, x.w, x.objectsRead);
    }
    // A fresh handle on a draft state nobody reviewed yet: the review and
    // publish-set caches removed (untimed) before each run.
    for (let i = 0; i < dryRuns; i++) {
      for (const f of ['review.cache', 'publish.cache'])
        nodeFs.rmSync(`${e.dir}/.git/shadow/drafts/${draft}/${f}`, { force: true });
      const fresh = await e.open();
      const m = mark(e.shadowFs, fresh);
      const t = performance.now();
      const d = await fresh.apply({ draft, dryRun: true });
      const ms = performance.now() - t;
      fresh.close();
      if (d.paths.length !== k) throw new Error(`k=${k}: the first dry run lists ${d.paths.length} paths`);
      const x = m();
      tallies.get('dry-run-first')!.add(ms, x.c, x.w, x.objectsRead);
    }
  }

  if (profile) {
    const file = join(o.profileDir!, `apply-n${e.repo.n}-k${k}.cpuprofile`);
    const p = await profile.profiler.stop(file);
    if (profile.windows.length > 0)
      profiles.push({
        k,
        what: 'sh.apply',
        file,
        summary: inWindows(p, profile.windows, DIST_ROOT),
        runs: profile.windows.length,
      });
    if (profile.dryWindows.length > 0)
      profiles.push({
        k,
        what: 'sh.apply --dry-run',
        file,
        summary: inWindows(p, profile.dryWindows, DIST_ROOT),
        runs: profile.dryWindows.length,
      });
    if (profile.coldWindows.length > 0)
      profiles.push({
        k,
        what: 'sh.apply --dry-run on a fresh handle',
        file,
        summary: inWindows(p, profile.coldWindows, DIST_ROOT),
        runs: profile.coldWindows.length,
      });
  }

  // The tree is back as it was: nothing modified, nothing left over (temporary files, say).
  const status = git(e, ['status', '--porcelain']);
  if (status.trim() !== '') throw new Error(`k=${k}: the work tree was not restored:\n${status.slice(0, 2000)}`);

  for (const row of ROWS) {
    const t = tallies.get(row)!;
    if (t.times.length === 0) continue;
    // git checkout is a process: its counts are strace's (one more run), nothing else is known.
    const res: RowResult =
      row === 'checkout'
        ? { row, k, times: t.times, fsyncs: trace?.fsyncs, filesWritten: trace?.filesWritten }
        : t.result(row, k);
    results.push(res);
    log(`  k=${k} ${row.padEnd(8)} median ${ms(median(res.times))} ms over ${res.times.length} runs`);
  }
  log(`  (k=${k}: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return { dirs: dirs.length, probe };
}
