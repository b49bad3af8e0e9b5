import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { genCase } from './helpers/merge-cases.js';

/*
 * `shadow revert` against `git revert --no-commit` of the same commit on
 * the same tip: a seeded corpus of three-way cases, each a file of its own
 * (batch 1 writes the case's base over its "theirs", batch 2 the case's
 * "ours"; reverting batch 1 merges them as git does), and the CLI's answers.
 */

const CASES = Number(process.env.REVERT_CORPUS_CASES ?? 320);
const test = suite('shadow revert');

test(`revert of a batch under a later one agrees with git revert --no-commit on ${CASES} seeded cases`, async () => {
  const cases = Array.from({ length: CASES }, (_, i) => genCase(i + 1)).filter((c) => !c.base.equals(c.theirs));
  const path = (i: number): string => `case/${i}.txt`;
  const repo = new DiskRepo({ 'README.md': 'corpus\n' });
  try {
    for (const [i, c] of cases.entries()) repo.write(path(i), c.theirs);
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'originals');
    const r = await withShadow(repo, async (sh) => {
      const b1 = await sh.batch({
        intent: 'first',
        operations: cases.map((c, i) => ({
          operation: 'write' as const,
          path: path(i),
          content: c.base.toString('latin1'),
        })),
      });
      assert.ok(b1.success, JSON.stringify(b1.error));
      const b2 = await sh.batch({
        intent: 'second',
        operations: cases.map((c, i) => ({
          operation: 'write' as const,
          path: path(i),
          content: c.ours.toString('latin1'),
        })),
      });
      assert.ok(b2.success, JSON.stringify(b2.error));
      return { first: b1.commit!, second: b2.commit!, revert: await sh.revert(['1']) };
    });
    // git revert of batch 1 on the tip it was reverted on, in a worktree of its own.
    const wt = join(repo.root, 'oracle');
    repo.git('worktree', 'add', '-q', '--detach', wt, r.second);
    const g = spawnSync('git', ['revert', '--no-commit', r.first], { cwd: wt, env: repo.env, encoding: 'utf8' });
    const unmerged = new Set(
      spawnSync('git', ['diff', '--name-only', '--diff-filter=U'], { cwd: wt, env: repo.env, encoding: 'utf8' })
        .stdout.split('\n')
        .filter((l) => l !== ''),
    );
    assert.ok(g.status === 0 || unmerged.size > 0, g.stderr);
    const conflicts = new Set(r.revert.conflicts.map((c) => c.path));
    const tally = { clean: 0, conflict: 0, agree: 0, held: 0 };
    for (const [i] of cases.entries()) {
      const p = path(i);
      const shadowBytes = repo.gitResult('show', `${r.revert.tip}:${p}`);
      if (unmerged.has(p)) {
        tally.conflict++;
        assert.ok(conflicts.has(p), `${p} (seed ${i + 1}): git revert conflicts, shadow merged`);
        continue;
      }
      tally.clean++;
      if (conflicts.has(p)) {
        tally.held++;
        continue;
      }
      const gitBytes = fs.existsSync(join(wt, p)) ? fs.readFileSync(join(wt, p), 'latin1') : null;
      assert.is(
        shadowBytes.status === 0
          ? Buffer.from(
              spawnSync('git', ['cat-file', 'blob', `${r.revert.tip}:${p}`], { cwd: repo.dir, env: repo.env }).stdout,
            ).toString('latin1')
          : null,
        gitBytes,
        `${p} (seed ${i + 1})`,
      );
      tally.agree++;
    }
    process.stdout.write(
      `revert corpus: ${cases.length} cases (git: ${tally.clean} clean, ${tally.conflict} conflicts); ${tally.agree} byte-identical, ${tally.held} held as conflicts\n`,
    );
    assert.ok(tally.clean >= cases.length / 5 && tally.conflict >= cases.length / 5, JSON.stringify(tally));
    assert.ok(tally.held <= cases.length / 100, JSON.stringify(tally));
  } finally {
    repo.cleanup();
  }
});

test('the CLI: revert keeps later batches; a conflict is draft state until resolved; a rebase or an unknown batch is INVALID_TARGET', async () => {
  const repo = new DiskRepo({ 'a.txt': 'one\ntwo\nthree\nfour\nfive\n', 'b.txt': 'b\n' });
  try {
    await withShadow(repo, async (sh) => {
      await sh.batch({
        intent: 'first',
        operations: [
          { operation: 'write', path: 'a.txt', content: 'ONE\ntwo\nthree\nfour\nfive\n' },
          { operation: 'write', path: 'b.txt', content: 'B\n' },
        ],
      });
      await sh.batch({
        intent: 'second',
        operations: [{ operation: 'write', path: 'a.txt', content: 'ONE\ntwo\nthree\nfour\nFIVE\n' }],
      });
      await sh.batch({ intent: 'third', operations: [{ operation: 'write', path: 'b.txt', content: 'B again\n' }] });
    });
    const r = repo.shadow(['revert', '1', '--json']);
    assert.is(r.status, 0, r.stderr);
    const j = r.json();
    assert.equal(j.reverted, [1]);
    assert.equal(j.paths, [
      { path: 'a.txt', status: 'merged' },
      { path: 'b.txt', status: 'conflict', reason: 'overlap' },
    ]);
    assert.is(repo.git('show', 'refs/shadow/drafts/default:a.txt'), 'one\ntwo\nthree\nfour\nFIVE\n');
    assert.match(
      repo.git('show', 'refs/shadow/drafts/default:b.txt'),
      /^<<<<<<< draft default\nB again\n=======\nb\n>>>>>>> before batch 1\n$/,
    );
    const st = repo.shadow(['status', '--json']).json();
    assert.equal(st.conflicts, [{ path: 'b.txt', reason: 'overlap' }]);
    assert.is(repo.shadow(['apply', '--json']).json().error.code, 'UNRESOLVED_CONFLICT');
    assert.is(repo.shadow(['resolve', 'b.txt']).status, 0);
    assert.equal(repo.shadow(['status', '--json']).json().conflicts, []);
    assert.is(repo.shadow(['revert', '99', '--json']).json().error.code, 'INVALID_TARGET');
    repo.write('a.txt', 'one\ntwo\nthree\nfour\nfive\nsix\n');
    const rebased = repo.shadow(['rebase', '--json']);
    assert.is(rebased.status, 0, rebased.stderr);
    const rebaseBatch = String(rebased.json().batch);
    assert.is(repo.shadow(['revert', rebaseBatch, '--json']).json().error.code, 'INVALID_TARGET');
    assert.is(repo.shadow(['undo']).status, 0);
  } finally {
    repo.cleanup();
  }
});

test("revert --apply takes an applied batch back out of the working tree, keeping the person's later edit and the later batches; a path with glob characters is taken literally", async () => {
  const repo = new DiskRepo({ 'a.txt': 'one\ntwo\nthree\nfour\nfive\n', 'w[1].txt': 'w\n', 'w1.txt': 'plain\n' });
  try {
    await withShadow(repo, async (sh) => {
      await sh.batch({
        intent: 'first',
        operations: [
          { operation: 'write', path: 'a.txt', content: 'ONE\ntwo\nthree\nfour\nfive\n' },
          { operation: 'write', path: 'w[1].txt', content: 'W\n' },
        ],
      });
      await sh.batch({
        intent: 'second',
        operations: [
          { operation: 'write', path: 'b.txt', content: 'b\n' },
          { operation: 'write', path: 'w1.txt', content: 'PLAIN\n' },
        ],
      });
      await sh.apply();
    });
    repo.write('a.txt', 'ONE\ntwo\nthree\nfour\nfive by the person\n');
    const r = repo.shadow(['revert', '1', '--apply', '--json']);
    assert.is(r.status, 0, r.stderr);
    assert.is(r.json().applied.applied, true);
    assert.equal(
      r.json().applied.paths.map((p: any) => p.path),
      ['a.txt', 'w[1].txt'],
    );
    assert.is(repo.read('a.txt'), 'one\ntwo\nthree\nfour\nfive by the person\n');
    assert.is(repo.read('w[1].txt'), 'w\n');
    assert.is(repo.read('w1.txt'), 'PLAIN\n', 'a glob would have matched it; the literal path does not');
    assert.is(repo.read('b.txt'), 'b\n');
  } finally {
    repo.cleanup();
  }
});

test.run();
