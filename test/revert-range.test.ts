import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import type { FileOperation } from '../src/index.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';

/*
 * `shadow revert 2 3` where batch 3 rewrote batch 2's lines (and changed a
 * file batch 2 made): undone newest first, each on the result of the one
 * before, as `git revert --no-edit <3> <2>` does; in the other order the
 * two reverts would conflict. Git is the oracle: the revert's tree is the
 * tree git's two revert commits end on, entry for entry (bytes and modes).
 */

const lines = (n: number): string[] => Array.from({ length: n }, (_, i) => `line ${i + 1}`);
const text = (ls: readonly string[]): string => `${ls.join('\n')}\n`;
const edit = (ls: readonly string[], changes: Record<number, string>): string[] =>
  ls.map((l, i) => changes[i + 1] ?? l);

const F0 = lines(12);
const F2 = edit(F0, { 3: 'three by batch 2', 4: 'four by batch 2' });
const F3 = edit(F2, { 4: 'four by batch 3', 10: 'ten by batch 3' });
const F4 = edit(F3, { 1: 'one by batch 4' });

const BATCHES: FileOperation[][] = [
  [{ operation: 'write', path: 'kept.txt', content: 'batch 1\n' }],
  [
    { operation: 'write', path: 'f.txt', content: text(F2) },
    { operation: 'write', path: 'made.txt', content: 'made by batch 2\n' },
  ],
  [
    { operation: 'write', path: 'f.txt', content: text(F3) },
    { operation: 'write', path: 'made.txt', content: 'made by batch 2\nand batch 3\n' },
  ],
  [{ operation: 'write', path: 'f.txt', content: text(F4) }],
];

const test = suite('shadow revert of several batches');

for (const order of [
  ['2', '3'],
  ['3', '2'],
]) {
  test(`revert ${order.join(' ')}: newest first, clean, the tree git revert --no-edit of batch 3 then batch 2 makes`, async () => {
    const repo = new DiskRepo({ 'f.txt': text(F0), 'README.md': 'Hello\n' });
    try {
      const { commits, r } = await withShadow(repo, async (sh) => {
        const commits: string[] = [];
        for (const operations of BATCHES) {
          const b = await sh.batch({ intent: `batch ${commits.length + 1}`, operations });
          assert.ok(b.success, JSON.stringify(b.error));
          commits.push(b.commit!);
        }
        return { commits, r: await sh.revert(order) };
      });
      assert.equal(r.conflicts, []);
      assert.equal(
        r.paths.map((p) => [p.path, p.status]),
        [
          ['f.txt', 'merged'],
          ['made.txt', 'reverted'],
        ],
      );
      // git reverts the same two commits, newest first, on the same tip.
      const wt = join(repo.root, 'oracle');
      repo.git('worktree', 'add', '-q', '--detach', wt, commits[3]!);
      const g = (...args: string[]): string => repo.git('-C', wt, ...args);
      g('revert', '--no-edit', commits[2]!, commits[1]!);
      assert.is(repo.git('rev-parse', `${r.tip}^{tree}`), g('rev-parse', 'HEAD^{tree}'));
      // What that tree holds, spelled out: batch 4's line and batch 1's file stay, batches 2 and 3 are gone.
      assert.is(repo.git('show', `${r.tip}:f.txt`), text(edit(F0, { 1: 'one by batch 4' })));
      assert.is(repo.git('show', `${r.tip}:kept.txt`), 'batch 1\n');
      assert.is(repo.gitResult('cat-file', '-e', `${r.tip}:made.txt`).status, 128);
      assert.equal(r.reverted, [3, 2]);
    } finally {
      repo.cleanup();
    }
  });
}

test.run();
