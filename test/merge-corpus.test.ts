import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diffIndices } from 'node-diff3';
import { mergeFile, type MergeFileResult } from '../src/git/format/merge-file.js';
import { anchors } from '../src/git/format/merge-pieces.js';
import { unsafeAlike } from '../src/git/format/merge-alike.js';
import { isolatedEnv } from './helpers/disk-repo.js';
import { genCase, gitMerges, type Case } from './helpers/merge-cases.js';

/*
 * shadow's three-way merge (src/git/format/merge-file.ts) against native
 * `git merge-file -p` on a seeded corpus of random three-way cases: edits,
 * inserts, deletes and moves, far apart, near, adjacent, overlapping and
 * alike on both sides; CRLF, mixed line ends, no final newline, an empty
 * base. For every case: where git merges cleanly, shadow merges to the same
 * bytes, or the case is of the one documented class where they may differ
 * (checked precisely below); where git reports a conflict, shadow does.
 * Both of shadow's ways are checked: the whole file at once, and cut into
 * pieces at anchors (what large files take).
 */

/** 640 by default; MERGE_CORPUS_CASES runs more, to measure. */
const CASES = Number(process.env.MERGE_CORPUS_CASES ?? 640);
const LABELS = { ours: 'working tree', theirs: 'draft corpus' };

/** A side's changes against the base, as [start, end) ranges of base lines and the lines they insert. */
interface Change {
  start: number;
  end: number;
  inserted: number;
  /** The lines the side has there instead. */
  text: string;
}

function splitLines(b: Buffer): string[] {
  return b
    .toString('latin1')
    .split(/(?<=\n)/)
    .filter((l) => l !== '');
}

/** git's own alignment of a side against the base (`git diff -U0` runs the xdiff merge-file runs, without the indent heuristic). */
function gitChanges(dir: string, from: string, to: string, side: Buffer, env: Record<string, string>): Change[] {
  const r = spawnSync(
    'git',
    ['diff', '--no-index', '--no-indent-heuristic', '--diff-algorithm=myers', '-U0', from, to],
    { cwd: dir, env, encoding: 'latin1' },
  );
  const lines = splitLines(side);
  return [...r.stdout.matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm)].map((m) => {
    const count = m[2] === undefined ? 1 : Number(m[2]);
    const start = count === 0 ? Number(m[1]) : Number(m[1]) - 1;
    const inserted = m[4] === undefined ? 1 : Number(m[4]);
    const at = inserted === 0 ? Number(m[3]) : Number(m[3]) - 1;
    return { start, end: start + count, inserted, text: lines.slice(at, at + inserted).join('') };
  });
}

function libChanges(base: Buffer, side: Buffer): Change[] {
  return diffIndices(splitLines(base), splitLines(side)).map((d) => ({
    start: d.buffer1[0],
    end: d.buffer1[0] + d.buffer1[1],
    inserted: d.buffer2[1],
    text: d.buffer2Content.join(''),
  }));
}

/**
 * Do a change of one side and a change of the other overlap or touch (git
 * and node-diff3 both make them one region)? The same change on both sides
 * is no conflict.
 */
const touch = (xs: Change[], ys: Change[]): boolean =>
  xs.some((x) =>
    ys.some(
      (y) => y.start <= x.end && x.start <= y.end && !(x.start === y.start && x.end === y.end && x.text === y.text),
    ),
  );
const size = (cs: Change[]): number => cs.reduce((n, c) => n + (c.end - c.start) + c.inserted, 0);
const same = (xs: Change[], ys: Change[]): boolean => JSON.stringify(xs) === JSON.stringify(ys);

/**
 * The pieces' own class: an anchor (a line unique in all three files, kept
 * in order) that git's alignment takes as deleted on a side: a block one
 * side moved, which the anchors follow where git keeps the lines around it.
 */
function anchorChangedByGit(c: Case, gitOurs: Change[], gitTheirs: Change[]): boolean {
  const at = anchors(splitLines(c.ours), splitLines(c.base), splitLines(c.theirs)).map(([o]) => o);
  return at.some((o) => [...gitOurs, ...gitTheirs].some((g) => g.start <= o && o < g.end));
}

test(`shadow's merge and git merge-file agree on ${CASES} seeded cases, but for the documented class`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shadow-merge-corpus-'));
  const env = isolatedEnv(dir);
  try {
    const cases = Array.from({ length: CASES }, (_, i) => genCase(i + 1));
    cases.forEach((c, i) => {
      writeFileSync(join(dir, `${i}.o`), c.base);
      writeFileSync(join(dir, `${i}.a`), c.ours);
      writeFileSync(join(dir, `${i}.b`), c.theirs);
    });
    const started = Date.now();
    const git = await gitMerges(dir, CASES, env, LABELS);
    const gitMs = Date.now() - started;

    const tally = {
      gitClean: 0,
      gitConflict: 0,
      agree: 0,
      documented: 0,
      held: 0,
      markersAgree: 0,
      piecesAgree: 0,
      piecesDocumented: 0,
      piecesHeld: 0,
    };
    const shadowMs = { whole: 0, pieces: 0 };
    for (const [i, c] of cases.entries()) {
      const g = git[i]!;
      assert.ok(g.status >= 0 && g.status < 128, `case ${i}: git merge-file failed (${g.status})`);
      const label = `case ${i} (seed ${c.seed}, ${c.kind})`;
      let t = Date.now();
      const whole = mergeFile(c.base, c.ours, c.theirs, LABELS);
      shadowMs.whole += Date.now() - t;
      t = Date.now();
      const pieces = mergeFile(c.base, c.ours, c.theirs, LABELS, { pieces: true });
      shadowMs.pieces += Date.now() - t;
      if (g.status === 0) tally.gitClean++;
      else tally.gitConflict++;

      const check = (r: MergeFileResult, how: 'whole' | 'pieces'): 'agree' | 'documented' | 'held' => {
        assert.ok(r.status !== 'too complex', `${label}, ${how}: too complex`);
        if (g.status > 0) {
          // git reports a conflict: so must shadow, always.
          assert.is(r.status, 'conflict', `${label}, ${how}: git reports ${g.status} conflicts, shadow merged`);
          return 'agree';
        }
        if (r.status === 'clean') {
          assert.ok(
            r.merged.equals(g.out),
            `${label}, ${how}: both clean, different bytes:\n${JSON.stringify(r.merged.toString('latin1'))}\ngit:\n${JSON.stringify(g.out.toString('latin1'))}`,
          );
          return 'agree';
        }
        // The documented class: git merges, shadow reports a conflict, because a side's diff against the base has
        // more than one shortest alignment and git's keeps the two sides apart where node-diff3's does not.
        const gitOurs = gitChanges(dir, `${i}.o`, `${i}.a`, c.ours, env);
        const gitTheirs = gitChanges(dir, `${i}.o`, `${i}.b`, c.theirs, env);
        const libOurs = libChanges(c.base, c.ours);
        const libTheirs = libChanges(c.base, c.theirs);
        assert.not.ok(
          touch(gitOurs, gitTheirs),
          `${label}, ${how}: git merged though its own alignment makes the sides touch`,
        );
        // A change both made alike, next to one that could slide into it: held as a conflict on purpose (merge-alike.ts).
        if (unsafeAlike(splitLines(c.base), splitLines(c.ours), splitLines(c.theirs))) return 'held';
        if (how === 'pieces' && anchorChangedByGit(c, gitOurs, gitTheirs)) return 'documented';
        assert.ok(
          size(gitOurs) === size(libOurs) && size(gitTheirs) === size(libTheirs),
          `${label}, ${how}: node-diff3's alignment is not as short as git's`,
        );
        assert.ok(
          !same(gitOurs, libOurs) || !same(gitTheirs, libTheirs),
          `${label}, ${how}: a conflict where both align alike`,
        );
        if (how === 'whole')
          assert.ok(
            touch(libOurs, libTheirs),
            `${label}: node-diff3's alignment keeps the sides apart, yet a conflict`,
          );
        return 'documented';
      };
      const w = check(whole, 'whole');
      tally[w === 'agree' ? 'agree' : w === 'held' ? 'held' : 'documented']++;
      const p = check(pieces, 'pieces');
      tally[p === 'agree' ? 'piecesAgree' : p === 'held' ? 'piecesHeld' : 'piecesDocumented']++;
      if (g.status > 0 && whole.status === 'conflict' && whole.merged.equals(g.out)) tally.markersAgree++;
    }
    process.stdout.write(
      `merge corpus: ${CASES} cases (git: ${tally.gitClean} clean, ${tally.gitConflict} conflicts); ` +
        `whole file: ${tally.agree} agree, ${tally.documented} aligned otherwise and ${tally.held} held (shadow conflict, git clean); ` +
        `pieces: ${tally.piecesAgree} agree, ${tally.piecesDocumented} aligned otherwise, ${tally.piecesHeld} held; ` +
        `conflict markers byte-identical to git's: ${tally.markersAgree} of ${tally.gitConflict}; ` +
        `git ${gitMs} ms, shadow ${shadowMs.whole} + ${shadowMs.pieces} ms\n`,
    );
    // The corpus covers both outcomes, and the documented class stays rare.
    assert.ok(tally.gitClean >= CASES / 5 && tally.gitConflict >= CASES / 5, JSON.stringify(tally));
    assert.ok(
      tally.documented + tally.held <= CASES / 100 && tally.piecesDocumented + tally.piecesHeld <= CASES / 100,
      JSON.stringify(tally),
    );
    assert.ok(
      tally.markersAgree >= tally.gitConflict * 0.9,
      `conflict markers agree with git's in only ${tally.markersAgree} of ${tally.gitConflict} conflicts`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('adjacent changes are a conflict, as in git; changes one line apart merge', () => {
  const base = Buffer.from('1\n2\n3\n4\n5\n');
  const adjacent = mergeFile(base, Buffer.from('1\nTWO\n3\n4\n5\n'), Buffer.from('1\n2\nTHREE\n4\n5\n'), LABELS);
  assert.is(adjacent.status, 'conflict');
  const apart = mergeFile(base, Buffer.from('1\nTWO\n3\n4\n5\n'), Buffer.from('1\n2\n3\nFOUR\n5\n'), LABELS);
  assert.is(apart.status, 'clean');
  assert.is(apart.status === 'clean' && apart.merged.toString(), '1\nTWO\n3\nFOUR\n5\n');
});

test.run();
