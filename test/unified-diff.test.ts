import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyPatch, structuredPatch } from 'diff';
import { fileDiff, hunksOf } from '../src/git/format/unified-diff.js';
import { lineSegments, patienceSegments, type Segment } from '../src/core/line-diff.js';
import { prng } from './helpers/prng.js';

/**
 * fileDiff trims the common prefix and suffix before handing the rest to
 * jsdiff. These tests hold it to what the untrimmed diff says: the same
 * line counts, hunks that apply to the old text to give the new one, and
 * git's line numbers for a change deep in a file.
 */

const Diff = suite('unified diff');

const OLD = { mode: '100644', oid: '1'.repeat(40) };
const NEW = { mode: '100644', oid: '2'.repeat(40) };

function diffOf(a: string, b: string): ReturnType<typeof fileDiff> {
  return fileDiff({ path: 'p.txt', old: OLD, new: NEW, oldContent: Buffer.from(a), newContent: Buffer.from(b) });
}

Diff('a change deep in a long file: hunk headers carry the real line numbers, with three lines of context', () => {
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`);
  const changed = [...lines];
  changed[149] = 'line 150, changed';
  const d = diffOf(`${lines.join('\n')}\n`, `${changed.join('\n')}\n`);
  const body = d.text.split('\n').slice(4);
  assert.equal(body.slice(0, 9), [
    '@@ -147,7 +147,7 @@ line 146',
    ' line 147',
    ' line 148',
    ' line 149',
    '-line 150',
    '+line 150, changed',
    ' line 151',
    ' line 152',
    ' line 153',
  ]);
  assert.equal(d.added, [{ line: 150, text: 'line 150, changed' }]);
  assert.is(d.insertions, 1);
  assert.is(d.deletions, 1);
});

Diff('a change in the last line without a newline keeps the "No newline" marker', () => {
  const d = diffOf('a\nb\nc\nd\ne\nf', 'a\nb\nc\nd\ne\nF');
  assert.ok(d.text.includes('-f\n\\ No newline at end of file\n+F\n\\ No newline at end of file\n'), d.text);
  assert.equal(d.added, [{ line: 6, text: 'F' }]);
});

Diff('adding a final newline is a change of the last line only', () => {
  const d = diffOf('x\n'.repeat(50) + 'end', 'x\n'.repeat(50) + 'end\n');
  assert.is(d.insertions, 1);
  assert.is(d.deletions, 1);
  assert.ok(d.text.includes('@@ -48,4 +48,4 @@ x\n x\n x\n x\n-end\n\\ No newline at end of file\n+end\n'), d.text);
});

Diff('3,000 seeded random edits: counts match the untrimmed diff and the patch turns old into new', () => {
  const uniform = prng(20261122);
  const rnd = (n: number): number => Math.floor(uniform() * n);
  const words = ['a', 'b', 'c', 'same', 'x1', 'x2', ''];
  const problems: string[] = [];
  for (let t = 0; t < 3000; t++) {
    const old = Array.from({ length: rnd(40) }, () => words[rnd(words.length)]!);
    const next = [...old];
    for (let e = 1 + rnd(4); e > 0; e--) {
      const at = rnd(next.length + 1);
      const op = rnd(3);
      if (op === 0) next.splice(at, 0, `new${rnd(3)}`);
      else if (op === 1) next.splice(at, 1);
      else next[at] = 'changed';
    }
    const a = old.length ? `${old.join('\n')}${rnd(4) ? '\n' : ''}` : '';
    const b = next.length ? `${next.join('\n')}${rnd(4) ? '\n' : ''}` : '';
    if (a === b) continue;
    const d = diffOf(a, b);
    const full = structuredPatch('a/p.txt', 'b/p.txt', a, b, undefined, undefined, { context: 3 });
    const count = (c: string): number =>
      full.hunks.reduce((n, h) => n + h.lines.filter((l) => l.startsWith(c)).length, 0);
    if (d.insertions !== count('+') || d.deletions !== count('-'))
      problems.push(`case ${t}: counts ${d.insertions}/${d.deletions}, untrimmed ${count('+')}/${count('-')}`);
    const patch = d.text.split('\n').slice(2).join('\n');
    if (applyPatch(a, patch) !== b)
      problems.push(`case ${t}: the patch does not give the new text: ${JSON.stringify({ a, b })}`);
  }
  assert.equal(problems.slice(0, 5), []);
});

/** The old text (kept and removed lines) and the new text (kept and added lines) an edit script stands for. */
function sides(script: readonly Segment[]): { old: string; new: string } {
  return {
    old: script
      .filter((s) => s.kind !== 'add')
      .flatMap((s) => s.lines)
      .join(''),
    new: script
      .filter((s) => s.kind !== 'del')
      .flatMap((s) => s.lines)
      .join(''),
  };
}

/** A random text over a small alphabet (many repeated lines), with or without a final newline. */
function randomText(rnd: (n: number) => number, length: number, words: readonly string[]): string {
  const lines = Array.from({ length }, () => words[rnd(words.length)]!);
  return lines.length ? `${lines.join('\n')}${rnd(4) ? '\n' : ''}` : '';
}

Diff("under the budget the hunks are exactly jsdiff structuredPatch's, at any context", () => {
  const uniform = prng(7);
  const rnd = (n: number): number => Math.floor(uniform() * n);
  const words = ['a', 'b', 'c', '', 'x', '}'];
  const problems: string[] = [];
  for (let t = 0; t < 2000; t++) {
    const a = randomText(rnd, rnd(30), words);
    const b = rnd(3) === 0 ? randomText(rnd, rnd(30), words) : a.replace(/b/g, () => (rnd(3) ? 'b' : 'B\nb'));
    for (const context of [0, 1, 3]) {
      const ours = hunksOf(lineSegments(a, b), context);
      const theirs = structuredPatch('a', 'b', a, b, undefined, undefined, { context }).hunks;
      if (JSON.stringify(ours) !== JSON.stringify(theirs))
        problems.push(`case ${t} context ${context}: ${JSON.stringify({ a, b })}`);
    }
  }
  assert.equal(problems.slice(0, 3), []);
});

Diff(
  'patience diff, with no help from jsdiff: 3,000 seeded texts full of repeated lines give scripts that stand for both texts',
  () => {
    const uniform = prng(11);
    const rnd = (n: number): number => Math.floor(uniform() * n);
    const problems: string[] = [];
    for (let t = 0; t < 3000; t++) {
      const words = ['a', 'b', 'c', 'same', '', `u${t}`, `v${t}`, `w${rnd(50)}`];
      const a = randomText(rnd, rnd(60), words);
      const b = rnd(4) === 0 ? randomText(rnd, rnd(60), words) : a.replace(/a/g, () => (rnd(2) ? 'a' : `n${rnd(9)}`));
      const script = patienceSegments(a, b, 0);
      const back = sides(script);
      if (back.old !== a || back.new !== b)
        problems.push(`case ${t}: the script does not give both texts back: ${JSON.stringify({ a, b })}`);
      for (let i = 1; i < script.length; i++) {
        const [x, y] = [script[i - 1]!.kind, script[i]!.kind];
        if (x === y || (x === 'add' && y === 'del')) problems.push(`case ${t}: runs ${x} then ${y} are not tidy`);
      }
      // An empty range is written from the line before it, as in git.
      const range = (start: number, lines: number): string => `${lines === 0 ? start - 1 : start},${lines}`;
      const patch = `--- a\n+++ b\n${hunksOf(script, 3)
        .map(
          (h) => `@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@\n${h.lines.join('\n')}\n`,
        )
        .join('')}`;
      if (a !== b && applyPatch(a, patch) !== b)
        problems.push(`case ${t}: the hunks do not turn old into new: ${JSON.stringify({ a, b })}`);
    }
    assert.equal(problems.slice(0, 3), []);
  },
);

Diff(
  'patience diff anchors on lines that occur once on each side: a moved function shows as one move, the rest kept',
  () => {
    const fn = (name: string): string[] => [`function ${name}() {`, `  return '${name}';`, '}', ''];
    const a = [...fn('one'), ...fn('two'), ...fn('three')].join('\n') + '\n';
    const b = [...fn('two'), ...fn('three'), ...fn('one')].join('\n') + '\n';
    const script = patienceSegments(a, b, 0);
    assert.equal(sides(script), { old: a, new: b });
    const count = (kind: Segment['kind']): number =>
      script.filter((s) => s.kind === kind).reduce((n, s) => n + s.lines.length, 0);
    assert.equal([count('del'), count('add'), count('same')], [4, 4, 8]);
    const kept = script.filter((s) => s.kind === 'same').flatMap((s) => s.lines);
    assert.ok(kept.includes('function two() {\n') && kept.includes("  return 'three';\n"), JSON.stringify(kept));
  },
);

Diff('a file rewritten from scratch, far past the budget: one hunk, every old line out and every new line in', () => {
  const a = Array.from({ length: 5000 }, (_, i) => `old ${i}`).join('\n') + '\n';
  const b = Array.from({ length: 4000 }, (_, i) => `new ${i}`).join('\n') + '\n';
  const d = diffOf(a, b);
  assert.is(d.deletions, 5000);
  assert.is(d.insertions, 4000);
  assert.is(d.added.length, 4000);
  assert.equal(d.added[3999], { line: 4000, text: 'new 3999' });
  assert.ok(d.text.includes('@@ -1,5000 +1,4000 @@\n-old 0\n'), d.text.slice(0, 200));
  assert.is(applyPatch(a, d.text.split('\n').slice(2).join('\n')), b);
});

Diff(
  'a long file with a tenth of its lines changed, past the budget: still the minimal diff, line numbers right',
  () => {
    const lines = Array.from({ length: 6000 }, (_, i) => `line ${i} of the file`);
    const next = lines.map((l, i) => (i % 10 === 5 ? `${l}, changed` : l));
    const a = `${lines.join('\n')}\n`;
    const b = `${next.join('\n')}\n`;
    const d = diffOf(a, b);
    assert.is(d.deletions, 600);
    assert.is(d.insertions, 600);
    assert.equal(d.added[0], { line: 6, text: 'line 5 of the file, changed' });
    assert.equal(d.added[599], { line: 5996, text: 'line 5995 of the file, changed' });
    assert.is(applyPatch(a, d.text.split('\n').slice(2).join('\n')), b);
  },
);

Diff(
  'a budget of zero leaves even a small file to patience diff; a huge file with a few changes skips jsdiff and still gets them exactly',
  () => {
    const a = 'a\nb\nc\nb\na\n';
    const b = 'b\na\nb\nc\n';
    assert.equal(sides(lineSegments(a, b, { budget: 0 })), { old: a, new: b });
    assert.equal(lineSegments(a, b, { budget: 0 }), patienceSegments(a, b, 0));
    const lines = Array.from({ length: 300_000 }, (_, i) => `entry ${i}`);
    const next = lines.map((l, i) => (i % 30_000 === 7 ? `${l}, bumped` : l));
    const d = diffOf(`${lines.join('\n')}\n`, `${next.join('\n')}\n`);
    assert.equal([d.insertions, d.deletions], [10, 10], 'a call stack overflowed on 300,000 lines before');
    assert.equal(d.added[9], { line: 270_008, text: 'entry 270007, bumped' });
  },
);

Diff.run();
