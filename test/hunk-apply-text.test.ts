/**
 * The pure parts of hunk apply, on strings: `--hunks` specs read, patches in
 * git's format parsed, hunks applied to a base exactly (git's own cases of
 * insertion points, missing final newlines and CRLF are in the oracle test).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseHunkSpecs } from '../src/drafts/hunks/hunk-spec.js';
import { parseGitPatch } from '../src/drafts/hunks/git-patch.js';
import { applyHunks } from '../src/drafts/hunks/hunk-apply.js';
import { hunkId } from '../src/drafts/hunks/hunk-ids.js';

function codeOf(f: () => unknown): { code: string; message: string } {
  try {
    f();
  } catch (e) {
    return e as { code: string; message: string };
  }
  assert.unreachable('no error');
  throw new Error('unreachable');
}

const Specs = suite('--hunks specs');

Specs('ids, whole paths, index lists, ranges and mode; the last colon followed by choices separates the path', () => {
  assert.equal(parseHunkSpecs(['a.ts:1,3-4,b.ts:2', '0123456789ab', 'dir/x.txt', 'c:d.txt:mode,2']), [
    { kind: 'part', path: 'a.ts', indices: [1, 3, 4], mode: false, rename: false },
    { kind: 'part', path: 'b.ts', indices: [2], mode: false, rename: false },
    { kind: 'id', id: '0123456789ab' },
    { kind: 'whole', path: 'dir/x.txt' },
    { kind: 'part', path: 'c:d.txt', indices: [2], mode: true, rename: false },
  ]);
  assert.equal(parseHunkSpecs(['notes:draft.txt']), [{ kind: 'whole', path: 'notes:draft.txt' }]);
});

Specs('a bad spec is INVALID_ARGUMENT naming it', () => {
  for (const specs of [['a.ts:0'], ['a.ts:3-2'], ['a.ts:1,,2'], []]) {
    const e = codeOf(() => parseHunkSpecs(specs));
    assert.is(e.code, 'INVALID_ARGUMENT', JSON.stringify(specs));
  }
});

const Patch = suite("patches in git's format");

Patch('files, modes, renames, binary files, created and deleted files', () => {
  const text = [
    'diff --git a/m.sh b/m.sh',
    'old mode 100644',
    'new mode 100755',
    'diff --git a/old.txt b/new.txt',
    'similarity index 90%',
    'rename from old.txt',
    'rename to new.txt',
    'diff --git a/img.png b/img.png',
    'index 1234567..89abcde 100644',
    'Binary files a/img.png and b/img.png differ',
    'diff --git a/n.txt b/n.txt',
    'new file mode 100644',
    'index 0000000..1234567',
    '--- /dev/null',
    '+++ b/n.txt',
    '@@ -0,0 +1 @@',
    '+new',
    'diff --git a/d.txt b/d.txt',
    'deleted file mode 100644',
    '--- a/d.txt',
    '+++ /dev/null',
    '@@ -1,2 +1,2 @@',
    '-gone',
    '+here',
    '',
    '',
  ].join('\n');
  const files = parseGitPatch(text);
  assert.equal(
    files.map((f) => [f.oldPath, f.newPath, f.oldMode ?? null, f.newMode ?? null, f.binary, f.hunks.length]),
    [
      ['m.sh', 'm.sh', '100644', '100755', false, 0],
      ['old.txt', 'new.txt', null, null, false, 0],
      ['img.png', 'img.png', '100644', '100644', true, 0],
      [null, 'n.txt', null, '100644', false, 1],
      ['d.txt', null, '100644', null, false, 1],
    ],
  );
  // A context line whose space an editor stripped is an empty context line, as git reads it.
  assert.equal(files[4]!.hunks[0]!.lines, ['-gone', '+here', ' ']);
});

Patch('counts that do not match the lines are INVALID_PATCH with the line', () => {
  const e = codeOf(() => parseGitPatch('diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,2 +1,2 @@\n-x\n+y\n'));
  assert.is(e.code, 'INVALID_PATCH');
  assert.match(e.message, /corrupt patch at line 7/);
  const past = codeOf(() => parseGitPatch('diff --git a/a b/a\n@@ -1 +1 @@\n-x\n+y\n+z\n'));
  assert.is(past.code, 'INVALID_PATCH');
  assert.match(past.message, /line 5: a line of a hunk past the counts/);
});

const Apply = suite('hunks applied to a base');
const hunksOf = (text: string) => parseGitPatch(`diff --git a/f b/f\n--- a/f\n+++ b/f\n${text}`)[0]!.hunks;

Apply('an empty old range inserts after the line it names; the base bytes elsewhere are kept', () => {
  assert.is(applyHunks('f', 'a\r\nb\r\n', hunksOf('@@ -1,0 +2 @@\n+x\r\n')), 'a\r\nx\r\nb\r\n');
  assert.is(applyHunks('f', '', hunksOf('@@ -0,0 +1,2 @@\n+x\n+y\n')), 'x\ny\n');
  assert.is(applyHunks('f', 'a\nb', hunksOf('@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+b\n')), 'a\nb\n');
});

Apply('a hunk that does not fit, overlaps another or starts past the end is PATCH_DOES_NOT_APPLY in git words', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['a\nb\n', '@@ -1 +1 @@\n-A\n+x\n', /^error: patch failed: f:1 /],
    ['a\nb\n', '@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+x\n', /^error: patch failed: f:2 /],
    ['a\nb\n', '@@ -1,2 +1,2 @@\n a\n-b\n+x\n@@ -2 +2 @@\n-b\n+y\n', /overlaps/],
    ['a\n', '@@ -5 +5 @@\n-a\n+x\n', /the base has 1 lines/],
  ];
  for (const [base, hunks, message] of cases) {
    const e = codeOf(() => applyHunks('f', base, hunksOf(hunks)));
    assert.is(e.code, 'PATCH_DOES_NOT_APPLY', hunks);
    assert.match(e.message, message);
  }
});

Apply("a hunk id binds the path, both blobs and the header's ranges, not its function line", () => {
  const id = hunkId('a.txt', null, 'b'.repeat(40), '@@ -0,0 +1 @@');
  assert.match(id, /^[0-9a-f]{12}$/);
  for (const other of [
    hunkId('b.txt', null, 'b'.repeat(40), '@@ -0,0 +1 @@'),
    hunkId('a.txt', 'a'.repeat(40), 'b'.repeat(40), '@@ -0,0 +1 @@'),
    hunkId('a.txt', null, 'c'.repeat(40), '@@ -0,0 +1 @@'),
    hunkId('a.txt', null, 'b'.repeat(40), '@@ -0,0 +1,2 @@'),
  ])
    assert.is.not(other, id);
  // The function line git writes after the ranges is how a diff is shown, not which hunk it is.
  assert.is(hunkId('a.txt', null, 'b'.repeat(40), '@@ -0,0 +1 @@ int main(void) {'), id);
  assert.is(
    hunkId('a.txt', 'a'.repeat(40), 'b'.repeat(40), '@@ -3,4 +3,5 @@ fn'),
    hunkId('a.txt', 'a'.repeat(40), 'b'.repeat(40), '@@ -3,4 +3,5 @@'),
  );
});

Specs.run();
Patch.run();
Apply.run();
