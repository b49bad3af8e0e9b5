import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FileSystem, Shadow } from '../src/index.js';
import { CrashFs } from './helpers/crash-fs.js';
import { budgetStates, crashStates, type CrashState } from './helpers/crash-states.js';
import { openAfterCrash } from './helpers/restart-open.js';
import { memRepo } from './helpers/mem-repo.js';
import { withReplacingRename } from './helpers/memfs-rename.js';
import { common, gitFsck } from './helpers/power-loss-checks.js';
import { PROTOCOLS } from './helpers/power-loss-protocols.js';

/**
 * Power loss, not only kill -9: each protocol runs once on a CrashFs, then
 * every disk a power loss at any point of it may leave (crash-states.ts says
 * under which model) is opened as the next command would open it, and the
 * protocol's promise is checked there (power-loss-protocols.ts): what each
 * call that had returned made is there, refs name complete commits, files
 * are wholly old or wholly new, an apply is all or nothing, recovery
 * converges, the ledger verifies and claims nothing the refs lost, the
 * draft's last move has its reflog line and undoes, and no lock is left
 * that stops the next command. The number of states checked per protocol
 * is printed.
 */

const open = openAfterCrash;

const FILES = { 'README.md': 'Hello\n', 'a.txt': 'a old\n', 'b/c.txt': 'c old\n', 'gone.txt': 'bye\n' };

/** Which states also go through native git: a few spread over the run. */
const FSCK_SAMPLE = 4;

/**
 * The states checked per protocol (budgetStates in crash-states.ts): by
 * default BUDGET of them, and never fewer than its enumerated states (each
 * file and directory alone losing its pending changes, where that shows a
 * missing fsync) and its crash points: every crash point at least once (its
 * first state) and a seeded sample of the others, so that the suite keeps
 * its four minutes; `POWER_LOSS_STATES=all` checks every one (about 8,400
 * over the protocols), `POWER_LOSS_STATES=<n>` another budget, another
 * POWER_LOSS_SEED another sample:
 *
 *   POWER_LOSS_STATES=all node dist/test/power-loss.test.js
 */
const BUDGET = process.env.POWER_LOSS_STATES === 'all' ? Infinity : Number(process.env.POWER_LOSS_STATES ?? 120);
const SEED = Number(process.env.POWER_LOSS_SEED ?? 20261126);

const counts: string[] = [];
const Loss = suite('power loss: every crash state of each protocol recovers');

for (const p of PROTOCOLS) {
  Loss(p.name, async () => {
    const repo = await memRepo(FILES);
    const base = withReplacingRename(repo.fs);
    const prep = await open(base);
    await p.prepare(prep, repo);
    prep.close();
    const crash = new CrashFs(base);
    const sh = await open(crash.fs, undefined, p.packMerger);
    // Each call of the run, with the crash point from which on it had returned.
    const returns: Array<{ call: string; at: number }> = [];
    await p.act(sh, (call) => returns.push({ call, at: crash.events.length }));
    assert.ok(returns.length > 0, 'the run names the calls that returned');
    await new Promise((r) => setImmediate(r));
    sh.close();
    const all: CrashState[] = crashStates(crash);
    const { states, enumerated, sampled } = budgetStates(all, BUDGET, SEED);
    for (const s of states) {
      const bootTime = Date.now();
      const fs = withReplacingRename(s.mount({ mtimeMs: bootTime - 60_000 }) as unknown as FileSystem);
      const label = `${p.name}, crash at event ${s.at}/${crash.events.length}`;
      let next: Shadow;
      try {
        next = await open(fs, bootTime);
      } catch (e) {
        assert.unreachable(`${label}: the next command cannot open the repository: ${(e as Error).message}`);
        return;
      }
      await p.check(next, fs, new Set(returns.filter((r) => r.at <= s.at).map((r) => r.call)));
      await common(next, fs, label);
      next.close();
      if (states.indexOf(s) % Math.max(1, Math.floor(states.length / FSCK_SAMPLE)) === 0) gitFsck(fs, label);
    }
    const of = states.length < all.length ? ` of ${all.length}` : '';
    counts.push(
      `crash states: ${p.name}: ${enumerated} enumerated + ${sampled} sampled${of} over ${crash.events.length + 1} crash points`,
    );
  });
}

Loss.after(() => {
  console.log(`\n${counts.join('\n')}`);
});

Loss.run();
