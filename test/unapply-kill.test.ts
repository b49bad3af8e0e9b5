import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DiskRepo, treeHashes, withShadow } from './helpers/disk-repo.js';

/*
 * An unapply that merges in reverse (the person edited what the apply wrote),
 * killed with SIGKILL at each write of its journal's life: every path is
 * wholly before or after, never torn; the next command's recovery finishes
 * the merge from the journal; the person's line stays and the agent's goes.
 */

const WORKER = fileURLToPath(new URL('./helpers/apply-worker.js', import.meta.url));
const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');
const withLine = (text: string, n: number, line: string): string =>
  text
    .split('\n')
    .map((l, i) => (i === n - 1 ? line : l))
    .join('\n');
const BASE = lines(12);

const dir = (repo: DiskRepo, d: string): string[] => {
  try {
    return fs.readdirSync(repo.path(d)).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
};

function runWorker(repo: DiskRepo, point: string): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [WORKER, repo.dir, 'unapply', point], {
      cwd: repo.dir,
      env: repo.env,
      stdio: 'ignore',
    });
    child.once('exit', (_code, signal) => resolve(signal));
  });
}

function gitMergeFile(repo: DiskRepo, base: string, ours: string, theirs: string): string {
  const d = fs.mkdtempSync(join(repo.root, 'merge-'));
  fs.writeFileSync(join(d, 'base'), base);
  fs.writeFileSync(join(d, 'ours'), ours);
  fs.writeFileSync(join(d, 'theirs'), theirs);
  return spawnSync('git', ['merge-file', '-p', 'ours', 'base', 'theirs'], { cwd: d, env: repo.env, encoding: 'utf8' })
    .stdout;
}

const Kill = suite('a merged unapply killed with SIGKILL');

// `record` here dies at the first rename under applies/ (the fold cache the unapply reads first): before it wrote anything.
for (const point of ['rename:1', 'rename:2', 'record']) {
  Kill(
    `killed at ${point}: every path old or new; recovery finishes the reverse merge; the person's line stays`,
    async () => {
      const repo = new DiskRepo({ 'f.txt': BASE, 'other.txt': 'other\n' });
      try {
        const applied = withLine(BASE, 8, 'eight by the agent');
        await withShadow(repo, async (sh) => {
          const r = await sh.batch({
            intent: 'agent',
            operations: [
              { operation: 'write', path: 'f.txt', content: applied },
              { operation: 'write', path: 'other.txt', content: 'other, by the agent\n' },
            ],
          });
          assert.ok(r.success);
          await sh.apply();
        });
        const mine = withLine(applied, 3, 'three by the person');
        repo.write('f.txt', mine);
        const merged = gitMergeFile(repo, applied, mine, BASE);
        assert.is(merged, withLine(BASE, 3, 'three by the person'));

        assert.is(await runWorker(repo, point), 'SIGKILL');
        const f = repo.read('f.txt');
        assert.ok(f === mine || f === merged, `f.txt is neither before nor after: ${f}`);
        assert.ok(['other\n', 'other, by the agent\n'].includes(repo.read('other.txt')));

        const rec = repo.shadow(['recover', '--json']);
        assert.is(rec.status, 0, rec.stdout + rec.stderr);
        if (dir(repo, '.git/shadow/drafts/default/applies').length > 0) {
          // Killed before its journal existed: nothing was written, nothing to finish; the person runs it again.
          assert.is(repo.read('f.txt'), mine);
          assert.is(repo.read('other.txt'), 'other, by the agent\n');
          const again = repo.shadow(['unapply']);
          assert.is(again.status, 0, again.stderr);
        }
        assert.is(repo.read('f.txt'), merged);
        assert.is(repo.read('other.txt'), 'other\n');
        assert.equal(dir(repo, '.git/shadow/journal'), []);
        assert.equal(dir(repo, '.git/shadow/drafts/default/applies'), [], 'the apply it undid is forgotten');
        assert.equal(
          Object.keys(treeHashes(repo.dir)).filter((p) => p.includes('.shadow-tmp-')),
          [],
        );
        const fsck = repo.gitResult('fsck', '--strict', '--no-progress', '--no-dangling');
        assert.is(fsck.status, 0, fsck.stdout + fsck.stderr);
      } finally {
        repo.cleanup();
      }
    },
  );
}

Kill.run();
