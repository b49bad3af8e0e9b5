import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyPatch, structuredPatch } from 'diff';
import { fileDiff } from '../src/core/unified-diff.js';
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
  assert.equal(body.slice(0, 9), ['@@ -147,7 +147,7 @@', ' line 147', ' line 148', ' line 149', '-line 150', '+line 150, changed', ' line 151', ' line 152', ' line 153']);
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
  assert.ok(d.text.includes('@@ -48,4 +48,4 @@\n x\n x\n x\n-end\n\\ No newline at end of file\n+end\n'), d.text);
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
    const count = (c: string): number => full.hunks.reduce((n, h) => n + h.lines.filter((l) => l.startsWith(c)).length, 0);
    if (d.insertions !== count('+') || d.deletions !== count('-')) problems.push(`case ${t}: counts ${d.insertions}/${d.deletions}, untrimmed ${count('+')}/${count('-')}`);
    const patch = d.text.split('\n').slice(2).join('\n');
    if (applyPatch(a, patch) !== b) problems.push(`case ${t}: the patch does not give the new text: ${JSON.stringify({ a, b })}`);
  }
  assert.equal(problems.slice(0, 5), []);
});

Diff.run();
