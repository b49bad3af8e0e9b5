/**
 * A hunk apply killed at every fs call from its first write in .git/shadow
 * on (memfs): each path is its base or what the apply writes (base + the
 * chosen hunks), never torn; reopening finishes an apply whose journal was
 * made, and afterwards the draft's diff is exactly the hunks not taken.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FsSeam } from './helpers/fs-seam.js';
import { batch, memRepo, openAs } from './helpers/apply-fixture.js';
import { journals, MUTATING, records, SHADOW } from './helpers/apply-state.js';
import { cacheProcessIds, freeze, probeRun, thaw } from './helpers/apply-crash-sweep.js';
import { file, nodeAt } from './helpers/working-tree.js';

const BASE = Array.from({ length: 40 }, (_, i) => `line ${i + 1}\n`);
const at = (edits: Record<number, string>): string => BASE.map((l, i) => edits[i + 1] ?? l).join('');
const FILES = { 'a.txt': BASE.join(''), 'b.txt': BASE.join('') };
const DRAFT = { 'a.txt': at({ 3: 'three\n', 37: 'thirty-seven\n' }), 'b.txt': at({ 20: 'twenty\n' }) };
const PARTIAL = { 'a.txt': at({ 3: 'three\n' }), 'b.txt': DRAFT['b.txt'] };
const HUNKS = ['a.txt:1', 'b.txt'];

const Crash = suite('apply --hunks: crash and recovery');
cacheProcessIds(Crash);

Crash(
  'killed at each call, every path is base or partial, and reopening converges to base + the chosen hunks',
  async () => {
    const repo = await memRepo(FILES);
    const sh = await openAs(repo);
    await batch(
      sh,
      Object.entries(DRAFT).map(([path, content]) => ({ operation: 'write' as const, path, content })),
    );
    const frozen = freeze(repo.fs);
    const { fs: probeFs, probe } = await probeRun(repo, frozen, (s) => s.apply({ hunks: HUNKS }));
    for (const [p, c] of Object.entries(PARTIAL)) assert.is(nodeAt(probeFs, p), file(c));
    const log = [...probe.log];
    const first = log.find((c) => MUTATING.has(c.op) && c.path?.startsWith(SHADOW))!.n;
    const problems: string[] = [];
    let finished = 0;
    for (let n = first; n <= log.length; n++) {
      if (!MUTATING.has(log[n - 1]!.op) && n !== first) continue;
      const fs = thaw(frozen);
      const seam = new FsSeam(fs);
      const crashing = await openAs(repo, seam.fs, 201);
      seam.arm(n + 1);
      try {
        await crashing.apply({ hunks: HUNKS });
      } catch (e) {
        if (!seam.crashed) problems.push(`N=${n}: ${(e as Error).message}`);
      }
      for (const p of Object.keys(FILES)) {
        const now = nodeAt(fs, p);
        if (now !== file(FILES[p as keyof typeof FILES]) && now !== file(PARTIAL[p as keyof typeof PARTIAL]))
          problems.push(`N=${n}: ${p} is neither its base nor the partial apply`);
      }
      const reopened = await openAs(repo, fs, 202);
      if (reopened.recovered?.finished.length) finished++;
      if (journals(fs).length > 0) problems.push(`N=${n}: a journal is left after reopening`);
      if (records(fs).length === 0) {
        // The apply never began: it runs again from the start.
        await reopened.apply({ hunks: HUNKS });
      }
      for (const [p, c] of Object.entries(PARTIAL))
        if (nodeAt(fs, p) !== file(c)) problems.push(`N=${n}: ${p} is not base + the chosen hunks after recovery`);
      const left = (await reopened.diff({ content: 'patch' })).files;
      const shape = left.map((f) => `${f.path}:${f.hunks!.map((h) => h.header).join(' ')}`).join(', ');
      if (shape !== 'a.txt:@@ -34,7 +34,7 @@ line 33') problems.push(`N=${n}: the draft's diff is ${shape}`);
      reopened.close();
    }
    assert.equal(problems.slice(0, 10), []);
    assert.ok(finished > 0, 'some crash points leave a journal that reopening finishes');
  },
);

Crash.run();
