import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeContext, openShadow, type FileSystem, type Shadow } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { FsSeam } from './helpers/fs-seam.js';
import { prng } from './helpers/prng.js';
import { blockingLocks } from './helpers/lock-files.js';

/**
 * The kill sweep: batches, session finalizes, applies, `apply --commit`s and
 * unapplies on one real repository, each crashed at a seeded file-system
 * call (the seam throws there and at every later call, so nothing tidies
 * up). The crashed handle runs as a process that is gone (a pid no process
 * can have), so its locks are a dead process's, as after SIGKILL. After
 * every crash, a new handle (the next command) must recover without LOCKED
 * and leave no journal; the next batch (or finalize) must go through; no
 * git-format lock may stay; HEAD and `git status` must be what the ledger's
 * last apply or unapply says; a group of batches (three sent at once) is in
 * the draft whole, or its first alone, or not at all; `git fsck --strict`
 * every few kills.
 *
 *   KILL_SWEEP_SEED=7 KILL_SWEEP_KILLS=1000 node dist/test/kill-sweep.test.js
 */

const SEED = Number(process.env.KILL_SWEEP_SEED ?? 20261125);
const KILLS = Number(process.env.KILL_SWEEP_KILLS ?? 150);
const FSCK_EVERY = 20;
const DRAFT = 'sweep';

type Op = 'batch' | 'finalize' | 'apply' | 'apply-commit' | 'unapply';

/**
 * Pids no process can have (above Linux's largest pid_max, and macOS's): each
 * crashed handle gets its own, as each killed process had its own.
 */
const GONE = 1 << 22;

interface PublishEvent {
  type: 'apply/complete' | 'apply/revert';
  data: { tip: string; branch: { ref: string; old: string | null; new: string } | null };
}

/** The draft's apply/complete and apply/revert events, oldest first. */
function publishEvents(repo: DiskRepo): PublishEvent[] {
  const text = nodeFs.readFileSync(join(repo.dir, '.git/shadow/drafts', DRAFT, 'events.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.includes('"apply/complete"') || l.includes('"apply/revert"'))
    .map((l) => JSON.parse(l) as PublishEvent);
}

const Sweep = suite('kill sweep');

Sweep(
  `${KILLS} seeded kills across batch, session finalize, apply, apply --commit and unapply leave nothing that blocks the next command, and git status as the ledger says`,
  async () => {
    const repo = new DiskRepo({
      'README.md': 'Hello\n',
      'src/a.txt': 'a\n',
      'src/b.txt': 'b\n',
      'docs/guide.md': '# Guide\n',
    });
    try {
      repo.git('config', 'shadow.lockTimeout', '300');
      const rand = prng(SEED);
      const base = nodeContext();
      const root = repo.git('rev-parse', 'HEAD').trim();
      const open = (): Promise<Shadow> => openShadow({ dir: repo.dir, env: { ...repo.env, SHADOW_DRAFT: DRAFT } });
      const first = await open();
      await first.draftNew(DRAFT);
      const seeded = await first.batch({
        intent: 'seed',
        operations: [
          { operation: 'write', path: 'notes.md', content: '# Notes\n' },
          { operation: 'write', path: 'src/a.txt', content: 'a0\n' },
        ],
      });
      assert.ok(seeded.success);
      first.close();

      const calls = new Map<Op | 'batches', number>();
      const problems: string[] = [];
      const seen = new Map<Op, number>();
      let kills = 0;
      let step = 0;
      let grouped = 0;
      let groupedKills = 0;
      while (kills < KILLS && step < KILLS * 3) {
        step++;
        const events = publishEvents(repo);
        const last = events.at(-1);
        const active = last?.type === 'apply/complete';
        const choices: Op[] = active
          ? ['batch', 'finalize', 'unapply', 'unapply']
          : ['batch', 'finalize', 'apply', 'apply-commit'];
        const op = choices[Math.floor(rand() * choices.length)]!;
        const seam = new FsSeam(nodeFs as unknown as FileSystem);
        const crashing = await openShadow({
          dir: repo.dir,
          fs: seam.fs,
          clock: base.clock,
          ids: base.ids,
          env: { ...repo.env, SHADOW_DRAFT: DRAFT },
          processes: { self: GONE + step, host: base.processes!.host, isAlive: base.processes!.isAlive },
          git: base.git,
        });
        let session: string | undefined;
        if (op === 'finalize') {
          try {
            session = (
              await crashing.sessions.begin({
                intent: `notes ${step}`,
                target_file: 'notes.md',
                operation: 'overwrite',
              })
            ).session_id;
          } catch (e) {
            problems.push(
              `step ${step}: a new session: ${(e as Error).message} ${JSON.stringify(crashing.sessions.list())}`,
            );
            break;
          }
          crashing.sessions.push(session, Buffer.from(`# Notes\n\nstep ${step}\n`));
        }
        // Three batches at once make more calls than one: a kill point of their own range.
        const callsKey = op === 'batch' && step % 2 === 0 ? 'batches' : op;
        const known = calls.get(callsKey);
        const at = known === undefined ? undefined : 1 + Math.floor(rand() * known);
        seam.arm(at);
        const where = `step ${step}: ${op} killed at call ${at ?? '-'} of ${known ?? '?'}`;
        try {
          if (op === 'batch') {
            const k = Math.floor(rand() * 4);
            // Every other step three at once: the first commits alone, the two queued behind it as one group.
            const n = step % 2 === 0 ? 3 : 1;
            if (n === 3) grouped = step;
            const rs = await Promise.all(
              // Each on paths of its own: a write over a path another changed since the tip it was sent on is a CONFLICT.
              Array.from({ length: n }, (_, i) => {
                const operations = [
                  { operation: 'write' as const, path: `src/p${(k + i) % 4}.txt`, content: `${step}.${i}\n` },
                ];
                if (i === 0) operations.push({ operation: 'write', path: 'src/a.txt', content: `a${step}\n` });
                return crashing.batch({ intent: `step ${step}/${i}`, operations });
              }),
            );
            for (const r of rs)
              if (!r.success && !seam.crashed)
                problems.push(`${where}: the batch failed uncrashed: ${r.error?.message}`);
          } else if (op === 'finalize') {
            const r = await crashing.sessions.finalize(session!);
            if (!r.success && !seam.crashed)
              problems.push(`${where}: the finalize failed uncrashed: ${JSON.stringify(r).slice(0, 200)}`);
          } else if (op === 'unapply') await crashing.unapply();
          else await crashing.apply({ commit: op === 'apply-commit' });
          calls.set(callsKey, seam.calls);
        } catch (e) {
          if (!seam.crashed) {
            problems.push(`${where}: failed without a crash: ${(e as Error).message}`);
            break;
          }
        }
        const crashed = seam.crashed;
        seam.disarm();
        if (grouped === step) {
          // A group lands whole or not at all: of the three, none, the first alone, or all.
          const landed = repo
            .git('log', '--format=%s', `refs/shadow/drafts/${DRAFT}`)
            .split('\n')
            .filter((l) => l.startsWith(`step ${step}/`)).length;
          if (![0, 1, 3].includes(landed))
            problems.push(`${where}: ${landed} of the three batches sent at once are in the draft`);
          if (crashed) groupedKills++;
        }
        if (crashed) {
          kills++;
          seen.set(op, (seen.get(op) ?? 0) + 1);
        }

        // The next command: a new handle (recovering on open), then the work the killed one was doing.
        const next = await open();
        try {
          if ((next.recovered?.failed ?? []).length > 0)
            problems.push(`${where}: recovery failed: ${next.recovered!.failed[0]!.error}`);
          const again = await next.recover();
          if (again.finished.length + again.failed.length > 0) problems.push(`${where}: a second recovery had work`);
          if (
            nodeFs.existsSync(join(repo.dir, '.git/shadow/journal')) &&
            nodeFs.readdirSync(join(repo.dir, '.git/shadow/journal')).length > 0
          )
            problems.push(`${where}: a journal is left`);
          if (session !== undefined && crashed) {
            try {
              const r = await next.sessions.finalize(session);
              if (!r.success) problems.push(`${where}: finalizing again failed: ${JSON.stringify(r).slice(0, 200)}`);
            } catch (e) {
              // Finalized and discarded before the crash: nothing left to finalize.
              if ((e as { code?: string }).code !== 'SESSION_NOT_FOUND')
                problems.push(`${where}: finalizing again: ${(e as Error).message}`);
            }
          }
          const r = await next.batch({
            intent: `after ${step}`,
            operations: [{ operation: 'write', path: 'docs/after.md', content: `${step}\n` }],
          });
          if (!r.success) problems.push(`${where}: the next batch failed: ${r.error?.code} ${r.error?.message}`);
        } catch (e) {
          problems.push(`${where}: the next command failed: ${(e as { code?: string }).code} ${(e as Error).message}`);
        } finally {
          next.close();
        }
        // The next command's batches start a pack merge in steps (upkeep between answers), which holds its
        // lock until it ends, close or not; a held merge lock never blocks a command (a live holder's merge is
        // skipped, not waited for), so the sweep waits for that merge before it looks for locks left behind.
        await next.ws.repo.objects.merging();
        const locks = blockingLocks(join(repo.dir, '.git'), (pid) => pid >= GONE);
        if (locks.length > 0) problems.push(`${where}: locks left: ${locks.join(', ')}`);

        // What the ledger says was published, against git.
        const after = publishEvents(repo);
        let head = root;
        for (const e of after) if (e.data.branch) head = e.data.branch.new;
        const actual = repo.git('rev-parse', 'HEAD').trim();
        if (actual !== head) problems.push(`${where}: HEAD is ${actual}, the ledger says ${head}`);
        const status = repo.git('status', '--porcelain', '-uall').split('\n').filter(Boolean).sort();
        const end = after.at(-1);
        let expected: string[] = [];
        if (end?.type === 'apply/complete' && !end.data.branch) {
          const codes: Record<string, string> = { A: '??', M: ' M', D: ' D' };
          expected = repo
            .git('diff', '--no-renames', '--name-status', 'HEAD', end.data.tip)
            .split('\n')
            .filter(Boolean)
            .map((l) => `${codes[l[0]!]} ${l.slice(2)}`)
            .sort();
        }
        if (JSON.stringify(status) !== JSON.stringify(expected))
          problems.push(`${where}: git status ${JSON.stringify(status)}, the ledger says ${JSON.stringify(expected)}`);
        if (crashed && kills % FSCK_EVERY === 0) {
          const fsck = repo.gitResult('fsck', '--strict', '--no-progress');
          if (fsck.status !== 0) problems.push(`${where}: git fsck: ${fsck.stderr}`);
        }
        if (problems.length > 5) break;
      }
      assert.equal(problems, [], `${problems.length} problems after ${kills} kills`);
      assert.ok(kills >= KILLS, `${kills} kills`);
      for (const op of ['batch', 'finalize', 'apply', 'apply-commit', 'unapply'] as const)
        assert.ok((seen.get(op) ?? 0) >= KILLS / 20, `${seen.get(op) ?? 0} kills in ${op}`);
      assert.ok(groupedKills >= KILLS / 40, `${groupedKills} kills among batches sent three at once`);

      // And the repository works on: the whole publish cycle, then fsck.
      const sh = await open();
      try {
        if (publishEvents(repo).at(-1)?.type === 'apply/complete') await sh.unapply();
        const applied = await sh.apply({ commit: true });
        assert.ok(applied.applied);
        assert.is(repo.git('status', '--porcelain'), '');
        await sh.unapply();
        assert.is(repo.git('rev-parse', 'HEAD').trim(), root);
        assert.is(repo.git('status', '--porcelain'), '');
      } finally {
        sh.close();
      }
      const fsck = repo.gitResult('fsck', '--strict', '--no-progress');
      assert.is(fsck.status, 0, fsck.stderr);
    } finally {
      repo.cleanup();
    }
  },
);

Sweep.run();
