import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MODE } from '../src/git/format/git-objects.js';
import type { ResolveOptions } from '../src/drafts/batch/resolve-batch.js';
import type { FileOperation } from '../src/drafts/batch/ops.js';
import {
  BASE,
  blobId,
  file,
  LINES_20,
  MAX,
  OPTIONS,
  PATCHED_20,
  patcher,
  run,
  twoHunkDiff,
  type Spec,
} from './helpers/resolve-source.js';

/* resolveBatch: every failure, with its code, message, hint and data; the ops a failure leaves not applied. */

// ---------------------------------------------------------------- errors

const Errors = suite('resolveBatch: errors');

interface ErrorCase {
  label: string;
  op: FileOperation;
  code: string;
  message: string | RegExp;
  data?: Record<string, unknown>;
  options?: ResolveOptions;
}

const ERROR_CASES: ErrorCase[] = [
  {
    label: 'edit: 0 matches, whitespace-only difference',
    op: { operation: 'edit', path: 'src/app.ts', old_content: 'export const y  =  2;', content: 'CHANGED' },
    code: 'EDIT_NO_MATCH',
    message:
      'old_content was not found in src/app.ts (0 matches); closest: line 2 (differs in whitespace): "export const y = 2;"',
    data: { matches: 0, closest: [{ line: 2, text: 'export const y = 2;', kind: 'whitespace' }] },
  },
  {
    label: 'edit: 0 matches, indentation differs over several lines',
    op: { operation: 'edit', path: 'twenty.txt', old_content: '  line 7\n  line 8', content: 'CHANGED' },
    code: 'EDIT_NO_MATCH',
    message: 'old_content was not found in twenty.txt (0 matches); closest: line 7 (differs in whitespace): "line 7"',
  },
  {
    label: 'edit: 0 matches, a similar line',
    op: { operation: 'edit', path: 'twenty.txt', old_content: 'line 2O', content: 'CHANGED' },
    code: 'EDIT_NO_MATCH',
    message: /^old_content was not found in twenty\.txt \(0 matches\); closest: line \d+: "line \d+"/,
  },
  {
    label: 'edit: 0 matches, mixed line endings sent for a CRLF file',
    op: { operation: 'edit', path: 'crlf.txt', old_content: 'first\r\nsecond\n', content: 'CHANGED' },
    code: 'EDIT_NO_MATCH',
    message: 'old_content was not found in crlf.txt (0 matches); closest: line 1 (differs in whitespace): "first"',
  },
  {
    label: 'edit: 0 matches, nothing alike',
    op: { operation: 'edit', path: 'README.md', old_content: 'qwertyuiop', content: 'CHANGED' },
    code: 'EDIT_NO_MATCH',
    message: 'old_content was not found in README.md (0 matches)',
    data: { matches: 0, closest: [] },
  },
  {
    label: 'edit: 0 matches while the new content is in the file is no match, never "already applied" by a guess',
    op: { operation: 'edit', path: 'README.md', old_content: 'Goodbye', content: 'Hello' },
    code: 'EDIT_NO_MATCH',
    message: 'old_content was not found in README.md (0 matches)',
    data: { matches: 0, closest: [] },
  },
  {
    label: 'edit: 0 matches and an empty replacement is never "already applied"',
    op: { operation: 'edit', path: 'README.md', old_content: 'absent', content: '' },
    code: 'EDIT_NO_MATCH',
    message: /^old_content was not found in README\.md \(0 matches\)/,
  },
  {
    label: 'edit: several matches',
    op: { operation: 'edit', path: 'dup.txt', old_content: 'x = 1', content: 'x = 2' },
    code: 'EDIT_AMBIGUOUS',
    message: 'old_content occurs 3 times in dup.txt (lines 1, 3, 5); it must occur exactly once',
    data: { matches: 3, lines: [1, 3, 5] },
  },
  {
    label: 'edit: overlapping matches count',
    op: { operation: 'edit', path: 'aaa.txt', old_content: 'aa', content: 'b' },
    code: 'EDIT_AMBIGUOUS',
    message: 'old_content occurs 2 times in aaa.txt (lines 1, 1); it must occur exactly once',
  },
  {
    label: 'edit: very many matches',
    op: { operation: 'edit', path: 'many.txt', old_content: 'same', content: 'x' },
    code: 'EDIT_AMBIGUOUS',
    message: /^old_content occurs 50 or more times in many\.txt \(lines 1, 2, 3, .*, 50\); it must occur exactly once$/,
  },
  {
    label: 'edit: missing file',
    op: { operation: 'edit', path: 'nope.txt', old_content: 'a', content: 'b' },
    code: 'NOT_FOUND',
    message: 'nope.txt does not exist',
  },
  {
    label: 'edit: a directory',
    op: { operation: 'edit', path: 'docs', old_content: 'a', content: 'b' },
    code: 'IS_A_DIRECTORY',
    message: 'docs is a directory',
  },
  {
    label: 'edit: a symlink',
    op: { operation: 'edit', path: 'link', old_content: 'README', content: 'b' },
    code: 'NOT_A_FILE',
    message: 'link is a symlink',
  },
  {
    label: 'edit: binary content',
    op: { operation: 'edit', path: 'bin.dat', old_content: 'a', content: 'b' },
    code: 'INVALID_CONTENT',
    message: 'bin.dat is not UTF-8 text',
  },
  {
    label: 'edit: result over the limit',
    op: { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'x'.repeat(2000) },
    code: 'CONTENT_TOO_LARGE',
    message: 'Content exceeds 1KB limit',
    options: { maxContentBytes: 1024, patcher },
  },
  {
    label: 'edit: lone surrogate in the new content',
    op: { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'bad \ud800 text' },
    code: 'INVALID_CONTENT',
    message: /lone UTF-16 surrogate at index 4/,
  },
  {
    label: 'patch: hunk 2 of 2 does not apply',
    op: { operation: 'patch', path: 'fifteen.txt', diff: twoHunkDiff('fifteen.txt') },
    code: 'PATCH_FAILED',
    message:
      'hunk 2 of 2 (@@ -15,3 +15,3 @@) does not apply: expected line 15 to be "line 15" but found "line fifteen"',
    data: { hunk: 2, hunks: 2, header: '@@ -15,3 +15,3 @@' },
  },
  {
    label: 'patch: hunk 1 of 2 does not apply',
    op: { operation: 'patch', path: 'three.txt', diff: twoHunkDiff('three.txt') },
    code: 'PATCH_FAILED',
    message: 'hunk 1 of 2 (@@ -2,3 +2,3 @@) does not apply: expected line 3 to be "line 3" but found "line three"',
  },
  {
    label: 'patch: past the end of the file',
    op: {
      operation: 'patch',
      path: 'README.md',
      diff: '--- a/README.md\n+++ b/README.md\n@@ -5,1 +5,1 @@\n-five\n+5\n',
    },
    code: 'PATCH_FAILED',
    // "Hello\n" is one line (wc -l), not two.
    message:
      /^hunk 1 of 1 \(@@ -5,1 \+5,1 @@\) does not apply: expected line 5 to be "five" but the file has 1 lines?$/,
  },
  {
    label: 'patch: no hunk',
    op: { operation: 'patch', path: 'README.md', diff: 'not a diff at all' },
    code: 'PATCH_FAILED',
    message: 'the diff has no hunk',
  },
  {
    label: 'patch: two files in one op',
    op: {
      operation: 'patch',
      path: 'README.md',
      diff: `${twoHunkDiff()}--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-Hello\n+Hi\n`,
    },
    code: 'PATCH_FAILED',
    message: 'the diff touches 2 files; a patch op takes the diff of one file',
  },
  {
    label: 'patch: a missing file, not a creation',
    op: { operation: 'patch', path: 'nope.txt', diff: '--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-a\n+b\n' },
    code: 'NOT_FOUND',
    message: 'nope.txt does not exist',
  },
  {
    label: 'patch: creating below a file',
    op: { operation: 'patch', path: 'README.md/x', diff: '--- /dev/null\n+++ b/README.md/x\n@@ -0,0 +1 @@\n+x\n' },
    code: 'NOT_A_DIRECTORY',
    message: 'README.md is a file, so README.md/x cannot be created under it',
  },
  {
    label: 'patch: creating a file that exists with other content',
    op: { operation: 'patch', path: 'README.md', diff: '--- /dev/null\n+++ b/README.md\n@@ -0,0 +1 @@\n+brand new\n' },
    code: 'ALREADY_EXISTS|PATCH_FAILED',
    message: /README\.md/,
  },
  {
    label: 'patch: no patcher loaded',
    op: { operation: 'patch', path: 'README.md', diff: '--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-Hello\n+Hi\n' },
    code: 'INTERNAL',
    message: 'patch support was not loaded',
    options: { maxContentBytes: MAX },
  },
  {
    label: 'delete: missing',
    op: { operation: 'delete', path: 'missing.txt' },
    code: 'NOT_FOUND',
    message: 'missing.txt does not exist',
  },
  {
    label: 'delete: below a file',
    op: { operation: 'delete', path: 'README.md/x' },
    code: 'NOT_FOUND',
    message: 'README.md/x does not exist',
  },
  {
    label: 'delete: a directory',
    op: { operation: 'delete', path: 'docs' },
    code: 'IS_A_DIRECTORY',
    message: 'docs is a directory',
  },
  {
    label: 'rename: missing',
    op: { operation: 'rename', path: 'missing.txt', to: 'x.txt' },
    code: 'NOT_FOUND',
    message: 'missing.txt does not exist',
  },
  {
    label: 'rename: onto an existing file',
    op: { operation: 'rename', path: 'README.md', to: 'src/app.ts' },
    code: 'ALREADY_EXISTS',
    message: 'src/app.ts already exists (a file)',
    data: { to: 'src/app.ts' },
  },
  {
    label: 'rename: onto a directory',
    op: { operation: 'rename', path: 'README.md', to: 'docs' },
    code: 'ALREADY_EXISTS',
    message: 'docs already exists (a directory)',
  },
  {
    label: 'rename: onto a symlink',
    op: { operation: 'rename', path: 'README.md', to: 'link' },
    code: 'ALREADY_EXISTS',
    message: 'link already exists (a symlink)',
  },
  {
    label: 'rename: a directory',
    op: { operation: 'rename', path: 'docs', to: 'documentation' },
    code: 'IS_A_DIRECTORY',
    message: 'docs is a directory',
  },
  {
    label: 'rename: onto itself',
    op: { operation: 'rename', path: 'README.md', to: 'README.md' },
    code: 'INVALID_BATCH',
    message: 'rename of README.md onto itself',
  },
  {
    label: 'rename: below a file',
    op: { operation: 'rename', path: 'docs/guide.md', to: 'run.sh/guide.md' },
    code: 'NOT_A_DIRECTORY',
    message: 'run.sh is a file, so run.sh/guide.md cannot be created under it',
    data: { blockedBy: 'run.sh' },
  },
  {
    label: 'chmod: missing',
    op: { operation: 'chmod', path: 'missing', mode: '100755' },
    code: 'NOT_FOUND',
    message: 'missing does not exist',
  },
  {
    label: 'chmod: a directory',
    op: { operation: 'chmod', path: 'docs', mode: '100755' },
    code: 'IS_A_DIRECTORY',
    message: 'docs is a directory',
  },
  {
    label: 'chmod: a symlink',
    op: { operation: 'chmod', path: 'link', mode: '100755' },
    code: 'NOT_A_FILE',
    message: 'link is a symlink',
  },
  {
    label: 'write: below a file',
    op: { operation: 'write', path: 'README.md/x.txt', content: 'x' },
    code: 'NOT_A_DIRECTORY',
    message: 'README.md is a file, so README.md/x.txt cannot be created under it',
    data: { blockedBy: 'README.md' },
  },
  {
    label: 'write: deep below a file',
    op: { operation: 'write', path: 'src/app.ts/a/b.ts', content: 'x' },
    code: 'NOT_A_DIRECTORY',
    message: 'src/app.ts is a file, so src/app.ts/a/b.ts cannot be created under it',
    data: { blockedBy: 'src/app.ts' },
  },
  {
    label: 'write: below a symlink',
    op: { operation: 'write', path: 'link/x', content: 'x' },
    code: 'NOT_A_DIRECTORY',
    message: 'link is a file, so link/x cannot be created under it',
  },
  {
    label: 'write: onto a directory',
    op: { operation: 'write', path: 'docs', content: 'x' },
    code: 'IS_A_DIRECTORY',
    message: 'docs is a directory',
  },
  {
    label: 'write: onto a nested directory',
    op: { operation: 'write', path: 'src', content: 'x' },
    code: 'IS_A_DIRECTORY',
    message: 'src is a directory',
  },
  {
    label: 'write: invalid base64 character',
    op: { operation: 'write', path: 'b.bin', content: 'aGk!', encoding: 'base64' },
    code: 'INVALID_BASE64',
    message: 'content is not valid base64: unexpected character at position 3',
    data: { position: 3 },
  },
  {
    label: 'write: base64 with data after the padding',
    op: { operation: 'write', path: 'b.bin', content: 'aG=k', encoding: 'base64' },
    code: 'INVALID_BASE64',
    message: 'content is not valid base64: unexpected character at position 3',
  },
  {
    label: 'write: truncated base64',
    op: { operation: 'write', path: 'b.bin', content: 'aGVsbG8', encoding: 'base64' },
    code: 'INVALID_BASE64',
    message: 'content is not valid base64: its length 7 is not a multiple of 4 (truncated?)',
  },
  {
    label: 'write: over the limit',
    op: { operation: 'write', path: 'big.txt', content: 'x'.repeat(MAX + 1) },
    code: 'CONTENT_TOO_LARGE',
    message: 'Content exceeds 10MB limit',
    data: { size: MAX + 1, limit: MAX },
  },
  {
    label: 'write: over the limit in multi-byte characters',
    op: { operation: 'write', path: 'big.txt', content: 'é'.repeat(MAX / 2 + 1) },
    code: 'CONTENT_TOO_LARGE',
    message: 'Content exceeds 10MB limit',
  },
  {
    label: 'write: base64 over the limit',
    op: { operation: 'write', path: 'big.bin', content: Buffer.alloc(MAX + 3).toString('base64'), encoding: 'base64' },
    code: 'CONTENT_TOO_LARGE',
    message: 'Content exceeds 10MB limit',
  },
  {
    label: 'write: a lone surrogate',
    op: { operation: 'write', path: 'u.txt', content: 'abc\udc00def' },
    code: 'INVALID_CONTENT',
    message: 'content holds a lone UTF-16 surrogate at index 3, which UTF-8 cannot encode',
    data: { index: 3 },
  },
  {
    label: 'write: a high surrogate at the end',
    op: { operation: 'write', path: 'u.txt', content: '😀\ud83d' },
    code: 'INVALID_CONTENT',
    message: 'content holds a lone UTF-16 surrogate at index 2, which UTF-8 cannot encode',
  },
];

const ERROR_SPEC: Spec = {
  ...BASE,
  'fifteen.txt': LINES_20.replace('line 15\n', 'line fifteen\n'),
  'three.txt': LINES_20.replace('line 3\n', 'line three\n'),
  'aaa.txt': 'aaa\n',
  'many.txt': 'same\n'.repeat(60),
};

for (const c of ERROR_CASES) {
  Errors(`fails with ${c.code}: ${c.label}`, () => {
    const { r } = run([c.op], c.options ?? OPTIONS, ERROR_SPEC);
    assert.is(r.ok, false, `${c.label}: expected a failure, got ${r.results[0]?.status}`);
    assert.is(r.problems.length, 1, c.label);
    const p = r.problems[0]!;
    assert.is(p.index, 0);
    if (c.code.includes('|')) assert.ok(c.code.split('|').includes(p.code), `${c.label}: code ${p.code}`);
    else assert.is(p.code, c.code, `${c.label}: ${p.message}`);
    if (typeof c.message === 'string') assert.is(p.message, c.message, c.label);
    else assert.match(p.message, c.message, c.label);
    if (c.data) for (const [k, v] of Object.entries(c.data)) assert.equal(p.data?.[k], v, `${c.label}: data.${k}`);
    if (p.code !== 'INTERNAL') assert.ok(typeof p.hint === 'string' && p.hint.length > 0, `${c.label}: no hint`);
    const result = r.results[0]!;
    assert.is(result.success, false);
    assert.is(result.status, 'failed');
    assert.equal(result.error, {
      code: p.code,
      message: p.message,
      ...(p.hint === undefined ? {} : { hint: p.hint }),
      ...(p.data === undefined ? {} : { data: p.data }),
    });
  });
}

Errors('content of exactly the limit is accepted', () => {
  const { r } = run([{ operation: 'write', path: 'big.txt', content: 'x'.repeat(MAX) }]);
  assert.equal(r.problems, []);
  assert.is(r.results[0]!.status, 'created');
  assert.is(r.blobs.get(blobId('x'.repeat(MAX)))!.length, MAX);
});

Errors(
  'a mistyped edit (debug(2) for debug(1)) fails EDIT_NO_MATCH with the closest line, though its new text is in the file',
  () => {
    const method = 'save() {\n  debug(1);\n  return this;\n}\n';
    const { r } = run(
      [{ operation: 'edit', path: 'method.ts', old_content: '  debug(2);\n  return this;', content: '  return this;' }],
      OPTIONS,
      { 'method.ts': method },
    );
    assert.equal(
      r.results.map((x) => x.status),
      ['failed'],
    );
    assert.is(r.problems[0]!.code, 'EDIT_NO_MATCH');
    assert.is(
      r.problems[0]!.message,
      'old_content was not found in method.ts (0 matches); closest: line 2: "debug(1);"',
    );
    assert.equal(r.problems[0]!.data, { matches: 0, closest: [{ line: 2, text: '  debug(1);', kind: 'similar' }] });
    assert.is(r.changes.size, 0);
  },
);

Errors('a patch already in place fails, saying so: it is never taken for success by a guess', () => {
  const { r } = run([{ operation: 'patch', path: 'twenty.txt', diff: twoHunkDiff() }], OPTIONS, {
    'twenty.txt': PATCHED_20,
  });
  assert.equal(
    r.results.map((x) => x.status),
    ['failed'],
  );
  assert.is(r.problems[0]!.code, 'PATCH_FAILED');
  assert.match(
    r.problems[0]!.message,
    /^hunk 1 of 2 \(@@ -2,3 \+2,3 @@\) does not apply: expected line 3 to be "line 3" but found "LINE 3"; the file already holds what the diff makes$/,
  );
  assert.is(r.problems[0]!.data!.in_place, true);
  assert.is(r.changes.size, 0);
});

Errors('a file-creating patch sent again fails ALREADY_EXISTS, not applied twice', () => {
  const diff = '--- /dev/null\n+++ b/made.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n';
  const first = run([{ operation: 'patch', path: 'made.txt', diff }]);
  assert.equal(
    first.r.results.map((x) => x.status),
    ['created'],
  );
  const again = run([{ operation: 'patch', path: 'made.txt', diff }], OPTIONS, { 'made.txt': 'a\nb\n' });
  assert.equal(
    again.r.problems.map((p) => [p.code, p.message]),
    [['ALREADY_EXISTS', 'the diff creates made.txt, which already exists, the content this diff makes']],
  );
  assert.equal(again.after(), { 'made.txt': file('a\nb\n') });
});

Errors('a patch deleting a file that is gone fails NOT_FOUND', () => {
  const { r } = run([
    { operation: 'patch', path: 'gone.txt', diff: '--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n' },
  ]);
  assert.equal(
    r.problems.map((p) => [p.code, p.message]),
    [['NOT_FOUND', 'the diff deletes gone.txt, which does not exist']],
  );
});

Errors('every problem is listed when several ops fail; the others are not_applied', () => {
  const { r } = run([
    { operation: 'write', path: 'ok.txt', content: 'fine' },
    { operation: 'delete', path: 'missing.txt' },
    { operation: 'edit', path: 'dup.txt', old_content: 'x = 1', content: 'x' },
    { operation: 'chmod', path: 'README.md', mode: '100755' },
    { operation: 'rename', path: 'README.md', to: 'src/app.ts' },
    { operation: 'write', path: 'docs', content: 'x' },
  ]);
  assert.is(r.ok, false);
  assert.equal(
    r.problems.map((p) => [p.index, p.code]),
    [
      [1, 'NOT_FOUND'],
      [2, 'EDIT_AMBIGUOUS'],
      [4, 'ALREADY_EXISTS'],
      [5, 'IS_A_DIRECTORY'],
    ],
  );
  assert.equal(
    r.results.map((x) => [x.status, x.success]),
    [
      ['not_applied', false],
      ['failed', false],
      ['failed', false],
      ['not_applied', false],
      ['failed', false],
      ['failed', false],
    ],
  );
  assert.is(r.results[4]!.to, 'src/app.ts');
  assert.is(r.results[0]!.error, undefined);
  assert.is(r.results[1]!.error?.message, 'missing.txt does not exist');
});

Errors('a failed rename leaves its source in place for later ops', () => {
  const { r } = run([
    { operation: 'rename', path: 'docs/guide.md', to: 'README.md/guide.md' },
    { operation: 'edit', path: 'docs/guide.md', old_content: 'guide', content: 'Guide' },
  ]);
  assert.equal(
    r.problems.map((p) => [p.index, p.code]),
    [[0, 'NOT_A_DIRECTORY']],
  );
  assert.equal(
    r.results.map((x) => x.status),
    ['failed', 'not_applied'],
  );
  assert.equal(r.changes.get('docs/guide.md'), { mode: MODE.file, oid: blobId('Guide\n') });
});

Errors.run();
