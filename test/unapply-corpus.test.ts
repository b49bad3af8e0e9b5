import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers/working-tree.js';
import { memRepo, openAs } from './helpers/apply-fixture.js';
import { isolatedEnv } from './helpers/disk-repo.js';
import { genCase, gitMerges } from './helpers/merge-cases.js';
import { UNAPPLY_LABEL } from '../src/publish/unapply.js';

/*
 * unapply's reverse merge against native `git merge-file -p` on the seeded
 * corpus of the merge tests, end to end: each case is a file of its own in
 * one repository (its original the case's "theirs"), the draft writes the
 * case's base, apply publishes it, the person then writes the case's
 * "ours", and one unapply (with markers) undoes the apply in every file at
 * once. Where git merges cleanly the file holds git's bytes (or shadow holds
 * the case as a conflict: the documented class of merge-corpus.test.ts, rare);
 * where git reports a conflict, so does unapply.
 */

const CASES = Number(process.env.UNAPPLY_CORPUS_CASES ?? 320);
const LABELS = { ours: 'working tree', theirs: UNAPPLY_LABEL };

test(`unapply's reverse merge and git merge-file agree on ${CASES} seeded cases`, async () => {
  // A case whose draft writes what the file already holds is not published: nothing to undo.
  const cases = Array.from({ length: CASES }, (_, i) => genCase(i + 1)).filter((c) => !c.base.equals(c.theirs));
  const path = (i: number): string => `case/${i}.txt`;
  const repo = await memRepo(Object.fromEntries(cases.map((c, i) => [path(i), c.theirs.toString('latin1')])));
  const sh = await openAs(repo);
  const dir = mkdtempSync(join(tmpdir(), 'shadow-unapply-corpus-'));
  try {
    const r = await sh.batch({
      intent: 'the agent',
      operations: cases.map((c, i) => ({
        operation: 'write' as const,
        path: path(i),
        content: c.base.toString('latin1'),
      })),
    });
    assert.ok(r.success, JSON.stringify(r.error));
    assert.is((await sh.apply()).paths.length, cases.length);
    for (const [i, c] of cases.entries()) repo.fs.writeFileSync(`${ROOT}/${path(i)}`, c.ours);
    const undone = await sh.unapply({ conflict: 'markers' });
    const status = new Map(undone.paths.map((p) => [p.path, p.merge]));

    cases.forEach((c, i) => {
      writeFileSync(join(dir, `${i}.o`), c.base);
      writeFileSync(join(dir, `${i}.a`), c.ours);
      writeFileSync(join(dir, `${i}.b`), c.theirs);
    });
    const git = await gitMerges(dir, cases.length, isolatedEnv(dir), LABELS);
    const tally = { gitClean: 0, gitConflict: 0, agree: 0, held: 0, markersAgree: 0 };
    for (const [i, c] of cases.entries()) {
      const g = git[i]!;
      const label = `case ${i} (seed ${c.seed}, ${c.kind})`;
      const now = Buffer.from(repo.fs.readFileSync(`${ROOT}/${path(i)}`) as Uint8Array);
      const merge = status.get(path(i));
      if (g.status === 0) {
        tally.gitClean++;
        if (merge === 'conflict') tally.held++;
        else {
          assert.ok(
            now.equals(g.out),
            `${label}: git merged to other bytes:\n${JSON.stringify(now.toString('latin1'))}\ngit:\n${JSON.stringify(g.out.toString('latin1'))}`,
          );
          tally.agree++;
        }
      } else {
        tally.gitConflict++;
        assert.is(merge, 'conflict', `${label}: git reports ${g.status} conflicts, unapply merged`);
        if (now.equals(g.out)) tally.markersAgree++;
      }
    }
    process.stdout.write(
      `unapply corpus: ${cases.length} cases (git: ${tally.gitClean} clean, ${tally.gitConflict} conflicts); ${tally.agree} byte-identical, ${tally.held} held as conflicts; markers identical in ${tally.markersAgree}\n`,
    );
    assert.ok(tally.gitClean >= cases.length / 5 && tally.gitConflict >= cases.length / 5, JSON.stringify(tally));
    assert.ok(tally.held <= cases.length / 100, JSON.stringify(tally));
    assert.ok(tally.markersAgree >= tally.gitConflict * 0.9, JSON.stringify(tally));
  } finally {
    sh.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
