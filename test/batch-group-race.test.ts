import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeContext, openShadow, type BatchResult, type FileSystem } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { FsSeam } from './helpers/fs-seam.js';

/*
 * Batches queued as a group on one draft (drafts/batch/batch-commit.ts,
 * commitGroup) while another process moves the draft's ref: each queued
 * batch is retried on the new tip and lands, or is answered CONFLICT when
 * the other process changed what it assumed; none is left unanswered, and
 * the draft's history stays one line that git reads whole (git log, git
 * fsck).
 *
 * The other process is real and moves the ref at the moment the group is
 * about to move it: the fs seam runs it, to its end, when the group opens
 * the ref's lockfile (after the group was resolved on the tip it read).
 * Whether every queued batch was answered is known without a timer: a batch
 * sent once the group has started runs in the turn after it (Workspace.inTurn),
 * so by its answer every batch of the group must have had its own.
 */

const WORKER = join(dirname(fileURLToPath(import.meta.url)), 'helpers', 'batch-worker.js');

interface Ctx {
  repo: DiskRepo;
}

const G = suite<Ctx>('a group of queued batches when another process moves the ref');
G.before((c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n', 'shared.txt': 'one\ntwo\nthree\n' });
});
G.after((c) => c.repo.cleanup());

/** What moves the draft's ref from outside, in a process of its own, to its end. */
const MOVERS: Array<{ name: string; move(repo: DiskRepo, draft: string): void; shared: string }> = [
  {
    name: 'a batch of a second shadow process writing shared.txt',
    move(repo, draft) {
      const env = { ...repo.env, SHADOW_DRAFT: draft };
      const r = spawnSync(process.execPath, [WORKER, repo.dir, '9', '1', 'same-path'], { env, encoding: 'utf8' });
      assert.is(r.status, 0, r.stderr);
      const tip = repo.git('rev-parse', `refs/shadow/drafts/${draft}`).trim();
      assert.equal(JSON.parse(r.stdout), { i: 0, success: true, batch: 3, commit: tip }, r.stdout);
    },
    shared: '9:0\n',
  },
  {
    name: 'git update-ref rolling the draft back to its root, before the seed that wrote shared.txt',
    move(repo, draft) {
      repo.git(
        'update-ref',
        '-m',
        'rolled back from outside',
        `refs/shadow/drafts/${draft}`,
        repo.git('rev-parse', 'HEAD').trim(),
      );
    },
    shared: 'one\ntwo\nthree\n',
  },
];

for (const [m, mover] of MOVERS.entries()) {
  G(
    `${mover.name} as the group moves the ref: every queued batch lands on the new tip or is CONFLICT, and git reads the history whole`,
    async ({ repo }) => {
      const draft = `group${m}`;
      const ref = `refs/shadow/drafts/${draft}`;
      const base = nodeContext();
      const seam = new FsSeam(nodeFs as unknown as FileSystem);
      // A lone batch that loses the race backs off (clock.sleep); a group that lost it retries its batches at once.
      const sleeps: number[] = [];
      const clock = { ...base.clock, sleep: (ms: number) => (sleeps.push(ms), base.clock.sleep(ms)) };
      const sh = await openShadow({
        dir: repo.dir,
        fs: seam.fs,
        clock,
        ids: base.ids,
        env: repo.env,
        processes: base.processes,
        git: base.git,
      });
      const seed = await sh.batch(
        { intent: 'seed', operations: [{ operation: 'write', path: 'shared.txt', content: 'seeded\n' }] },
        { draft },
      );
      assert.is(seed.success, true);

      // The first batch commits alone; the four sent with it queue behind it and go as one group.
      const lockfile = `/${ref}.lock`;
      let opened = 0;
      let moved: string | undefined;
      let after: Promise<BatchResult> | undefined;
      let met!: () => void;
      const meeting = new Promise<void>((resolve) => (met = resolve));
      seam.arm();
      seam.onCall = (_n, op, path) => {
        if ((op !== 'openSync' && op !== 'linkSync') || !path?.endsWith(lockfile) || ++opened !== 2) return;
        mover.move(repo, draft);
        moved = repo.git('rev-parse', ref).trim();
        after = sh.batch(
          { intent: 'after', operations: [{ operation: 'write', path: 'after.txt', content: 'a\n' }] },
          { draft },
        );
        met();
      };
      const sent: Array<Parameters<typeof sh.batch>[0]> = [
        { intent: 'lead', operations: [{ operation: 'write', path: 'lead.txt', content: 'l\n' }] },
        { intent: 'g1', operations: [{ operation: 'write', path: 'g1.txt', content: '1\n' }] },
        { intent: 'over shared', operations: [{ operation: 'write', path: 'shared.txt', content: 'mine\n' }] },
        {
          intent: 'readme',
          operations: [{ operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hi' }],
        },
        { intent: 'g4', operations: [{ operation: 'write', path: 'g4.txt', content: '4\n' }] },
      ];
      const answers: Array<BatchResult | { thrown: unknown } | undefined> = sent.map(() => undefined);
      const calls = sent.map((b, i) =>
        sh.batch(b, { draft }).then(
          (r) => void (answers[i] = r),
          (e) => void (answers[i] = { thrown: e }),
        ),
      );
      // Whichever comes first: the group meets the other process, or every call settles without it (a failure below).
      await Promise.race([meeting, Promise.all(calls)]);
      assert.ok(after, 'the group moved the ref and met the other process');
      const last = await after!;
      seam.disarm();
      // The batch sent after the group started has its answer: every batch of the group must have had one.
      assert.is(last.success, true);
      assert.equal(
        answers.map((a) => a !== undefined),
        [true, true, true, true, true],
        'every queued batch answered',
      );
      await Promise.all(calls);
      assert.equal(sleeps, [], 'the ref moved under the group, not under a lone batch');

      const outcome = answers.map((a) => {
        if ('thrown' in a!) return `thrown ${String(a.thrown)}`;
        return a!.success ? 'ok' : a!.error!.code;
      });
      assert.equal(outcome, ['ok', 'ok', 'CONFLICT', 'ok', 'ok']);
      const clash = answers[2] as BatchResult;
      assert.match(JSON.stringify(clash.error), /shared\.txt/);

      // One line of history: the other process's move, then each landed batch after it, the last one on top.
      const log = repo
        .git('log', '--first-parent', '--format=%H %P', ref)
        .trim()
        .split('\n')
        .map((l) => l.split(' '));
      assert.ok(
        log.every(([, ...parents]) => parents.length <= 1),
        'no merge',
      );
      const line = log.map(([c]) => c!);
      const landed = [0, 1, 3, 4].map((i) => (answers[i] as BatchResult).commit!);
      assert.is(line[0], last.commit);
      const idx = (c: string): number => line.indexOf(c);
      assert.ok(idx(moved!) > 0, 'the commit the other process left is on the draft');
      for (const c of landed.slice(1)) {
        assert.ok(idx(c) >= 0 && idx(c) < idx(moved!), `group batch ${c} landed on top of the other process's move`);
      }
      const numbers = repo
        .git('log', '--format=%(trailers:key=Shadow-Batch,valueonly)', ref)
        .split('\n')
        .filter((l) => l.trim() !== '');
      assert.is(new Set(numbers).size, numbers.length, `batch numbers unique: ${numbers.join(',')}`);
      const reflog = repo.git('reflog', 'show', '--format=%H', ref).trim().split('\n');
      for (const c of [moved!, ...landed.slice(1), last.commit!])
        assert.ok(reflog.includes(c), `a reflog line for ${c}`);
      const fsck = repo.gitResult('fsck', '--strict', '--no-dangling');
      assert.is(fsck.status, 0, fsck.stdout + fsck.stderr);
      assert.is(fsck.stdout + fsck.stderr, '');

      // The draft holds what landed, and the other process's shared.txt, not the batch that was CONFLICT.
      const show = (p: string): string => repo.git('show', `${ref}:${p}`);
      assert.equal(['g1.txt', 'g4.txt', 'README.md', 'after.txt', 'shared.txt'].map(show), [
        '1\n',
        '4\n',
        'Hi\n',
        'a\n',
        mover.shared,
      ]);
      // Each landed batch's ledger line names its commit.
      const commits = (await sh.events({ draft }))
        .filter((e) => e.type === 'batch/commit')
        .map((e) => (e.data as { commit: string }).commit);
      for (const c of [...landed.slice(1), last.commit!]) assert.ok(commits.includes(c), `ledger line for ${c}`);
      sh.close();
    },
  );
}

G.run();
