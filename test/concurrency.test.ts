import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './helpers/disk-repo.js';

const WORKER = fileURLToPath(new URL('./helpers/batch-worker.js', import.meta.url));
const WORKERS = 4;
const BATCHES = 25;

interface Line {
  i: number;
  success: boolean;
  code?: string;
  batch?: number;
  commit?: string;
}

function runWorkers(repo: DiskRepo, mode: string): Promise<Line[][]> {
  return Promise.all(
    Array.from(
      { length: WORKERS },
      (_, w) =>
        new Promise<Line[]>((done, fail) => {
          const child = spawn(process.execPath, [WORKER, repo.dir, String(w), String(BATCHES), mode], {
            env: repo.env,
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let out = '';
          let err = '';
          child.stdout.on('data', (d) => (out += d));
          child.stderr.on('data', (d) => (err += d));
          child.on('close', (code) => {
            if (code !== 0) fail(new Error(`worker ${w} exited ${code}: ${err}`));
            else
              done(
                out
                  .trim()
                  .split('\n')
                  .map((l) => JSON.parse(l) as Line),
              );
          });
        }),
    ),
  );
}

/** Batch numbers on the draft's first-parent history, oldest first. */
function historyBatches(repo: DiskRepo): number[] {
  return repo
    .git(
      'log',
      '--first-parent',
      '--reverse',
      '--format=%(trailers:key=Shadow-Batch,valueonly)',
      'refs/shadow/drafts/default',
    )
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map(Number);
}

const Concurrency = suite<{ repo: DiskRepo }>('concurrency');
Concurrency.before.each((ctx) => {
  const counters = Array.from({ length: WORKERS }, (_, w) => `w${w}=0\n`).join('');
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n', 'shared.txt': 'start\n', 'counters.txt': counters });
});
Concurrency.after.each((ctx) => ctx.repo.cleanup());

Concurrency('4 processes × 25 batches on disjoint paths: 100 batch commits in one history', async ({ repo }) => {
  const lines = (await runWorkers(repo, 'disjoint')).flat();
  assert.is(lines.filter((l) => l.success).length, WORKERS * BATCHES, JSON.stringify(lines.filter((l) => !l.success)));
  const batches = historyBatches(repo);
  assert.is(batches.length, WORKERS * BATCHES);
  assert.equal(
    [...batches].sort((a, b) => a - b),
    Array.from({ length: WORKERS * BATCHES }, (_, i) => i + 1),
  );
  const files = repo
    .git('ls-tree', '-r', '--name-only', 'refs/shadow/drafts/default')
    .split('\n')
    .filter((f) => /^w\d\//.test(f));
  assert.is(files.length, WORKERS * BATCHES);
  for (let w = 0; w < WORKERS; w++)
    assert.is(repo.git('show', `refs/shadow/drafts/default:w${w}/f${BATCHES - 1}.txt`), `${w}:${BATCHES - 1}\n`);
  repo.git('fsck', '--strict', '--no-progress');
});

Concurrency('overlapping writes: each batch lands or fails with CONFLICT, none is lost', async ({ repo }) => {
  const lines = (await runWorkers(repo, 'same-path')).flat();
  const landed = lines.filter((l) => l.success);
  const failed = lines.filter((l) => !l.success);
  assert.ok(landed.length >= 1);
  assert.equal(
    [...new Set(failed.map((l) => l.code))].filter((c) => c !== 'CONFLICT'),
    [],
    'the only failure is CONFLICT',
  );
  // Every landed batch is in the history, with the content it wrote.
  const history = historyBatches(repo);
  assert.equal(
    [...history].sort((a, b) => a - b),
    landed.map((l) => l.batch!).sort((a, b) => a - b),
  );
  for (const l of landed) {
    const content = repo.git('show', `${l.commit}:shared.txt`);
    assert.match(content, /^\d:\d+\n$/);
  }
  repo.git('fsck', '--strict', '--no-progress');
});

Concurrency('edits of different lines of one file merge: all 100 land, no update lost', async ({ repo }) => {
  const lines = (await runWorkers(repo, 'same-file-edits')).flat();
  assert.equal(
    lines.filter((l) => !l.success),
    [],
  );
  const expected = Array.from({ length: WORKERS }, (_, w) => `w${w}=${BATCHES}\n`).join('');
  assert.is(repo.git('show', 'refs/shadow/drafts/default:counters.txt'), expected);
  assert.is(historyBatches(repo).length, WORKERS * BATCHES);
});

Concurrency.run();
