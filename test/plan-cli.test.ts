import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { run as runCli } from '../cli/run.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';
import { CRASH_WORKER, runShadowChild } from './helpers/plan-child.js';
import { planCommits, writesPlan } from './helpers/plan-fixtures.js';
import { describe, events, ledger, range, readTracker } from './helpers/plan-records.js';

/**
 * `shadow run`, `resume` and `stop` as users run them: the CLI's output and
 * exit statuses, a second runner while a plan runs, and the progress bar on
 * a terminal.
 */

// ---------------------------------------------------------------- cli

const Cli = suite<{ repo: DiskRepo }>('plan-cli');
Cli.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n', 'config.txt': 'mode=slow\n' });
  ctx.repo.write('.git/info/exclude', '*.json\n');
});
Cli.after.each((ctx) => ctx.repo.cleanup());

const SMALL = JSON.stringify({
  id: 'small',
  batches: [
    { id: 1, operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] },
    {
      id: 2,
      operations: [
        { operation: 'edit', path: 'a.txt', old_content: 'a', content: 'b' },
        { operation: 'write', path: 'c.txt', content: 'c\n' },
      ],
    },
    { id: 3, operations: [{ operation: 'rename', path: 'a.txt', to: 'd.txt' }] },
  ],
});

const FRAGILE = JSON.stringify({
  id: 'fragile',
  batches: [
    { id: 1, operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] },
    { id: 2, operations: [{ operation: 'edit', path: 'config.txt', old_content: 'mode=fast', content: 'mode=turbo' }] },
    { id: 3, operations: [{ operation: 'write', path: 'b.txt', content: 'b\n' }] },
    { id: 4, operations: [{ operation: 'write', path: 'c.txt', content: 'c\n' }] },
  ],
});

function planIds(repo: DiskRepo, draft = 'default'): number[] {
  return planCommits(repo, draft).map((c) => c.planBatch);
}

for (const json of [false, true]) {
  Cli(`without a terminal${json ? ', with --json' : ''}: one JSON event a line, exit 0`, ({ repo }) => {
    repo.write('plan.json', SMALL);
    const r = repo.shadow(['run', 'plan.json', ...(json ? ['--json'] : [])]);
    assert.is(r.status, 0, r.stderr);
    const evs = events(r.stdout);
    assert.equal(
      evs.map((e) => e.type),
      ['plan/start', 'batch/commit', 'batch/commit', 'batch/commit', 'plan/complete'],
    );
    assert.equal(
      evs.slice(1, 4).map((e) => [e.plan, e.plan_batch, e.total, e.ops]),
      [
        ['small', 1, 3, 1],
        ['small', 2, 3, 2],
        ['small', 3, 3, 1],
      ],
    );
    assert.equal(
      evs.slice(1, 4).map((e) => e.commit),
      planCommits(repo, 'default').map((c) => c.commit),
    );
    assert.equal(planIds(repo), [1, 2, 3]);
    assert.is(repo.git('show', 'refs/shadow/drafts/default:d.txt'), 'b\n');
  });
}

Cli('the plan from stdin, and --from', ({ repo }) => {
  const r = repo.shadow(['run', '-'], { input: SMALL });
  assert.is(r.status, 0, r.stderr);
  assert.equal(planIds(repo), [1, 2, 3]);
  const f = repo.shadow(['--draft', 'late', 'run', '-', '--from', '3'], {
    input: JSON.stringify({
      id: 'w',
      batches: [1, 2, 3].map((id) => ({ id, operations: [{ operation: 'write', path: `w${id}`, content: 'x' }] })),
    }),
  });
  assert.is(f.status, 0, f.stderr);
  assert.equal(events(f.stdout)[0], { type: 'plan/start', plan: 'w', total: 3, start: 3 });
  assert.equal(planIds(repo, 'late'), [3]);
});

Cli('an invalid plan: exit 1, the bad batch named, nothing written', ({ repo }) => {
  const bad = JSON.stringify({
    batches: [
      { id: 1, operations: [{ operation: 'write', path: 'a', content: 'a' }] },
      { id: 2, operations: [{ operation: 'write', path: 'b', content: 'b' }] },
      { id: 3, operations: [{ operation: 'edit', path: 'a' }] },
    ],
  });
  repo.write('plan.json', bad);
  const r = repo.shadow(['run', 'plan.json']);
  assert.is(r.status, 1);
  assert.match(r.stderr, /^error: the plan is invalid .*batch 3\b/m);
  assert.is(repo.ref('refs/shadow/drafts/default'), undefined);
  assert.is(repo.exists('.git/shadow/drafts/default'), false);
  const j = repo.shadow(['run', 'plan.json', '--json']);
  assert.is(j.status, 1);
  assert.is(j.json().error.code, 'INVALID_PLAN');
});

Cli(
  'a failing batch: exit 1 naming it; resume retries it; resume --skip skips it and the ledger says so',
  ({ repo }) => {
    repo.write('plan.json', FRAGILE);
    const r = repo.shadow(['run', 'plan.json']);
    assert.is(r.status, 1);
    assert.match(r.stderr, /error: batch 2 of plan fragile failed/);
    assert.match(r.stderr, /the draft stays at batch 1/);
    assert.match(r.stderr, /shadow resume --skip/);
    assert.equal(events(r.stdout).at(-1)!.type, 'plan/failed');
    assert.equal(planIds(repo), [1]);
    const retry = repo.shadow(['resume']);
    assert.is(retry.status, 1);
    assert.equal(events(retry.stdout)[0], { type: 'plan/start', plan: 'fragile', total: 4, start: 2 });
    assert.equal(planIds(repo), [1]);
    const skip = repo.shadow(['resume', '--skip']);
    assert.is(skip.status, 0, skip.stderr);
    assert.equal(planIds(repo), [1, 3, 4]);
    const skips = ledger(repo, 'default').filter((e) => e.type === 'plan/skip');
    assert.equal(
      skips.map((e) => [e.data.plan, e.data.batch_id]),
      [['fragile', 2]],
    );
    assert.equal(readTracker(repo, 'default')!.skipped, [2]);
  },
);

Cli('resume of a plan file that changed: PLAN_CHANGED (exit 1) until --force', ({ repo }) => {
  repo.write('plan.json', FRAGILE);
  assert.is(repo.shadow(['run', 'plan.json']).status, 1);
  const fixed = JSON.parse(FRAGILE);
  fixed.batches[1].operations[0].old_content = 'mode=slow';
  repo.write('plan.json', JSON.stringify(fixed));
  const r = repo.shadow(['resume', '--json']);
  assert.is(r.status, 1);
  assert.is(r.json().error.code, 'PLAN_CHANGED');
  assert.equal(planIds(repo), [1]);
  const f = repo.shadow(['resume', '--force']);
  assert.is(f.status, 0, f.stderr);
  assert.equal(planIds(repo), [1, 2, 3, 4]);
  assert.is(repo.git('show', 'refs/shadow/drafts/default:config.txt'), 'mode=turbo\n');
});

Cli('resume with the plan given', ({ repo }) => {
  repo.write('plan.json', FRAGILE);
  assert.is(repo.shadow(['run', 'plan.json']).status, 1);
  repo.write('other.json', FRAGILE);
  const r = repo.shadow(['resume', 'other.json', '--skip']);
  assert.is(r.status, 0, r.stderr);
  assert.equal(planIds(repo), [1, 3, 4]);
});

Cli('`shadow stop` from another process: the run stops after its current batch, exit 130', async ({ repo }) => {
  repo.write('plan.json', JSON.stringify(writesPlan(1000)));
  let stop: ReturnType<typeof spawnSync> | undefined;
  const r = await runShadowChild(repo, ['run', 'plan.json'], { kind: 'commits', count: 1 }, () => {
    stop = spawnSync(process.execPath, [SHADOW_BIN, 'stop'], { cwd: repo.dir, env: repo.env, encoding: 'utf8' });
  });
  assert.is(stop!.status, 0, String(stop!.stderr));
  assert.match(String(stop!.stdout), /asked plan writes \(process \d+\) to stop after its current batch/);
  assert.is(r.code, 130, describe(r));
  const last = Number(/stopped after batch (\d+) of 1000; continue with `shadow resume`/.exec(r.stderr)?.[1]);
  assert.ok(last >= 1 && last < 1000, `stopped at ${last}`);
  assert.equal(planIds(repo), range(1, last));
  assert.equal(
    [readTracker(repo, 'default')!.status, readTracker(repo, 'default')!.last_completed_batch_id],
    ['stopped', last],
  );
  assert.is(repo.exists(`.git/shadow/drafts/default/stop`), false, 'the request is used up');
});

Cli('a second runner while the plan runs in another process: no batch is applied twice', async ({ repo }) => {
  const n = 60;
  repo.write('plan.json', JSON.stringify(writesPlan(n)));
  // The first runner pauses itself (SIGSTOP) right after reporting batch 2,
  // between batches (no lock held): alive, its tracker saying "running". A
  // second runner (`shadow resume`) runs then; the first goes on (SIGCONT)
  // when the second has ended.
  const worker = spawn(
    process.execPath,
    [CRASH_WORKER, repo.dir, repo.path('plan.json'), '0', 'event', '2', '1', 'SIGSTOP'],
    { env: repo.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  worker.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((done) => worker.on('close', (code) => done(code)));
  await new Promise<void>((paused) => {
    worker.stdout.on('data', (d) => {
      out += d;
      if (out.includes('"plan_batch":2,')) paused();
    });
    void exited.then(() => paused());
  });
  const during = readTracker(repo, 'default');
  const other = await runShadowChild(repo, ['resume'], { kind: 'none' }).finally(() => worker.kill('SIGCONT'));
  const code = await exited;
  assert.is(during?.status, 'running', 'set-up: the first runner was paused mid-plan');
  const ids = planIds(repo);
  const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
  assert.equal(
    twice,
    [],
    `plan batches committed twice (first: exit ${code} ${err.trim()}; second: ${describe(other)})`,
  );
  // Whatever the two did, one more resume finishes the plan with each batch once.
  const last = repo.shadow(['resume']);
  assert.is(last.status, 0, last.stderr);
  assert.equal(planIds(repo), range(1, n));
});

Cli('shadow stop with no plan running: exit 1', ({ repo }) => {
  const r = repo.shadow(['stop']);
  assert.is(r.status, 1);
  assert.match(r.stderr, /no plan is running/);
});

Cli('on a terminal: a progress bar on stderr (batch i of n, ops, elapsed, ETA), no JSON', async ({ repo }) => {
  writeFileSync(repo.path('plan.json'), SMALL);
  let stdout = '';
  let stderr = '';
  const status = await runCli(['run', 'plan.json'], {
    cwd: repo.dir,
    env: repo.env,
    stdout: (s) => (stdout += typeof s === 'string' ? s : Buffer.from(s).toString()),
    stderr: (s) => (stderr += s),
    stdin: Readable.from([]),
    isTTY: true,
  });
  assert.is(status, 0, stderr);
  assert.is(stdout, '');
  assert.match(stderr, /\r\[#{24}\] batch 3 of 3 · 4 ops · \d+:\d\d elapsed · ETA \d+:\d\d/);
  assert.match(stderr, /batch 1 of 3 · 1 op · /);
  assert.match(stderr, /plan small complete: 3 batches \(3 run now\)/);
  assert.equal(planIds(repo), [1, 2, 3]);
});

Cli.run();
