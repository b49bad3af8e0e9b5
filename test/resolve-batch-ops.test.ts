import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MODE } from '../src/git/format/git-objects.js';
import type { FileOperation, OpStatus } from '../src/drafts/batch/ops.js';
import { blobId, file, LINES_20, MAX, PATCHED_20, run, twoHunkDiff } from './helpers/resolve-source.js';

/* resolveBatch on an in-memory source: every operation and the status it reports. */

// ---------------------------------------------------------------- every op and status

const Ops = suite('resolveBatch: ops and statuses');

interface OkCase {
  label: string;
  ops: FileOperation[];
  statuses: OpStatus[];
  /** Files expected in the resulting tree (a subset, checked path by path); null: must be absent. */
  files?: Record<string, string | null>;
  /** Nothing changes at all. */
  noChange?: boolean;
}

const OK_CASES: OkCase[] = [
  {
    label: 'write creates',
    ops: [{ operation: 'write', path: 'new.txt', content: 'new\n' }],
    statuses: ['created'],
    files: { 'new.txt': file('new\n') },
  },
  {
    label: 'write creates deep',
    ops: [{ operation: 'write', path: 'a/b/c/d.txt', content: 'd' }],
    statuses: ['created'],
    files: { 'a/b/c/d.txt': file('d') },
  },
  {
    label: 'write updates',
    ops: [{ operation: 'write', path: 'README.md', content: 'Bye\n' }],
    statuses: ['updated'],
    files: { 'README.md': file('Bye\n') },
  },
  {
    label: 'write same content',
    ops: [{ operation: 'write', path: 'README.md', content: 'Hello\n' }],
    statuses: ['unchanged'],
    noChange: true,
  },
  {
    label: 'write keeps an executable mode',
    ops: [{ operation: 'write', path: 'run.sh', content: 'echo bye\n' }],
    statuses: ['updated'],
    files: { 'run.sh': file('echo bye\n', MODE.executable) },
  },
  {
    label: 'write with a mode',
    ops: [{ operation: 'write', path: 'tool', content: '#!/bin/sh\n', mode: '100755' }],
    statuses: ['created'],
    files: { tool: file('#!/bin/sh\n', MODE.executable) },
  },
  {
    label: 'write of the same content with a new mode',
    ops: [{ operation: 'write', path: 'README.md', content: 'Hello\n', mode: '100755' }],
    statuses: ['updated'],
    files: { 'README.md': file('Hello\n', MODE.executable) },
  },
  {
    label: 'write over a symlink makes a regular file',
    ops: [{ operation: 'write', path: 'link', content: 'plain' }],
    statuses: ['updated'],
    files: { link: file('plain') },
  },
  {
    label: 'write base64',
    ops: [{ operation: 'write', path: 'b.bin', content: 'aGk=\n', encoding: 'base64' }],
    statuses: ['created'],
    files: { 'b.bin': file('hi') },
  },
  {
    // base64(1) wraps at 76 columns: the line breaks must not count against the limit.
    label: 'write base64 wrapped at 76 columns, exactly at the limit',
    ops: [
      {
        operation: 'write',
        path: 'full.txt',
        content: Buffer.alloc(MAX, 'x').toString('base64').replace(/.{76}/g, '$&\n'),
        encoding: 'base64',
      },
    ],
    statuses: ['created'],
    files: { 'full.txt': file('x'.repeat(MAX)) },
  },
  {
    label: 'write empty',
    ops: [{ operation: 'write', path: 'empty', content: '' }],
    statuses: ['created'],
    files: { empty: file('') },
  },
  {
    label: 'edit replaces the unique match',
    ops: [{ operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, world' }],
    statuses: ['updated'],
    files: { 'README.md': file('Hello, world\n') },
  },
  {
    label: 'edit keeps the mode',
    ops: [{ operation: 'edit', path: 'run.sh', old_content: 'hi', content: 'there' }],
    statuses: ['updated'],
    files: { 'run.sh': file('echo there\n', MODE.executable) },
  },
  {
    label: 'edit to the same text',
    ops: [{ operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello' }],
    statuses: ['unchanged'],
    noChange: true,
  },
  {
    label: 'edit of CRLF text with exact CRLF',
    ops: [{ operation: 'edit', path: 'crlf.txt', old_content: 'first\r\n', content: 'FIRST\r\n' }],
    statuses: ['updated'],
    files: { 'crlf.txt': file('FIRST\r\nsecond\r\n') },
  },
  {
    label: 'edit of CRLF text with LF line ends: matched as CRLF, and the new text gets CRLF',
    ops: [{ operation: 'edit', path: 'crlf.txt', old_content: 'first\nsecond\n', content: 'one\ntwo\nthree\n' }],
    statuses: ['updated'],
    files: { 'crlf.txt': file('one\r\ntwo\r\nthree\r\n') },
  },
  {
    label: 'patch',
    ops: [{ operation: 'patch', path: 'twenty.txt', diff: twoHunkDiff() }],
    statuses: ['updated'],
    files: { 'twenty.txt': file(PATCHED_20) },
  },
  {
    label: 'patch creates a file',
    ops: [
      {
        operation: 'patch',
        path: 'made/by/patch.txt',
        diff: '--- /dev/null\n+++ b/made/by/patch.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n',
      },
    ],
    statuses: ['created'],
    files: { 'made/by/patch.txt': file('a\nb\n') },
  },
  {
    label: 'patch deletes a file',
    ops: [{ operation: 'patch', path: 'README.md', diff: '--- a/README.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-Hello\n' }],
    statuses: ['deleted'],
    files: { 'README.md': null },
  },
  {
    label: 'delete',
    ops: [{ operation: 'delete', path: 'README.md' }],
    statuses: ['deleted'],
    files: { 'README.md': null },
  },
  {
    label: 'delete of a symlink',
    ops: [{ operation: 'delete', path: 'link' }],
    statuses: ['deleted'],
    files: { link: null },
  },
  {
    label: 'delete of the last file removes its directory',
    ops: [{ operation: 'delete', path: 'docs/guide.md' }],
    statuses: ['deleted'],
    files: { 'docs/guide.md': null },
  },
  {
    label: 'rename',
    ops: [{ operation: 'rename', path: 'src/app.ts', to: 'lib/app.ts' }],
    statuses: ['renamed'],
    files: { 'src/app.ts': null, 'lib/app.ts': file('export const x = 1;\nexport const y = 2;\n') },
  },
  {
    label: 'rename keeps the mode',
    ops: [{ operation: 'rename', path: 'run.sh', to: 'bin/run' }],
    statuses: ['renamed'],
    files: { 'run.sh': null, 'bin/run': file('echo hi\n', MODE.executable) },
  },
  {
    label: 'rename a file below itself',
    ops: [{ operation: 'rename', path: 'README.md', to: 'README.md/index.md' }],
    statuses: ['renamed'],
    files: { 'README.md/index.md': file('Hello\n') },
  },
  {
    label: 'chmod',
    ops: [{ operation: 'chmod', path: 'README.md', mode: '100755' }],
    statuses: ['mode_changed'],
    files: { 'README.md': file('Hello\n', MODE.executable) },
  },
  {
    label: 'chmod back',
    ops: [{ operation: 'chmod', path: 'run.sh', mode: '100644' }],
    statuses: ['mode_changed'],
    files: { 'run.sh': file('echo hi\n') },
  },
  {
    label: 'chmod to the same mode',
    ops: [{ operation: 'chmod', path: 'run.sh', mode: '100755' }],
    statuses: ['unchanged'],
    noChange: true,
  },
];

for (const c of OK_CASES) {
  Ops(`${c.statuses.join(', ')}: ${c.label}`, () => {
    const { r, after } = run(c.ops);
    assert.equal(r.problems, [], `${c.label}: ${JSON.stringify(r.problems)}`);
    assert.is(r.ok, true, c.label);
    assert.equal(
      r.results.map((x) => x.status),
      c.statuses,
      c.label,
    );
    assert.ok(
      r.results.every((x) => x.success),
      c.label,
    );
    if (c.noChange) assert.is(r.changes.size, 0, `${c.label} changed something`);
    const files = after();
    for (const [path, expected] of Object.entries(c.files ?? {})) {
      assert.is(files[path], expected ?? undefined, `${c.label}: ${path}`);
    }
    // Nothing else moved.
    const untouched = Object.keys(run([]).after()).filter(
      (p) => !c.ops.some((op) => op.path === p || (op.operation === 'rename' && op.to === p)),
    );
    const base = run([]).after();
    for (const p of untouched) assert.is(files[p], base[p], `${c.label}: ${p} changed`);
  });
}

Ops('results carry operation, path, rename target; op lines carry args and notes', () => {
  const { r } = run([
    { operation: 'write', path: 'a.txt', content: 'a' },
    { operation: 'rename', path: 'src/app.ts', to: 'app.ts' },
    { operation: 'chmod', path: 'README.md', mode: '100755' },
    { operation: 'write', path: 'twenty.txt', content: LINES_20 },
  ]);
  assert.is(r.ok, true);
  assert.equal(r.results, [
    { operation: 'write', path: 'a.txt', success: true, status: 'created' },
    { operation: 'rename', path: 'src/app.ts', success: true, status: 'renamed', to: 'app.ts' },
    { operation: 'chmod', path: 'README.md', success: true, status: 'mode_changed' },
    { operation: 'write', path: 'twenty.txt', success: true, status: 'unchanged' },
  ]);
  assert.equal(r.opLines, [
    { operation: 'write', path: 'a.txt' },
    { operation: 'rename', path: 'src/app.ts', arg: 'app.ts' },
    { operation: 'chmod', path: 'README.md', arg: '100755' },
    { operation: 'write', path: 'twenty.txt', note: 'unchanged' },
  ]);
  assert.equal([...r.blobs.keys()], [blobId('a'), blobId(LINES_20)]);
  assert.equal(r.blobs.get(blobId('a')), Buffer.from('a'));
  assert.equal([...r.changes.keys()].sort(), ['README.md', 'a.txt', 'app.ts', 'src/app.ts']);
  assert.is(r.changes.get('src/app.ts'), null);
});

Ops('later ops see what earlier ops did', () => {
  const cases: Array<[string, FileOperation[], OpStatus[], Record<string, string | null>]> = [
    [
      'write then edit',
      [
        { operation: 'write', path: 'n.txt', content: 'one two\n' },
        { operation: 'edit', path: 'n.txt', old_content: 'two', content: '2' },
      ],
      ['created', 'updated'],
      { 'n.txt': file('one 2\n') },
    ],
    [
      'edit twice',
      [
        { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hi' },
        { operation: 'edit', path: 'README.md', old_content: 'Hi', content: 'Hey' },
      ],
      ['updated', 'updated'],
      { 'README.md': file('Hey\n') },
    ],
    [
      'rename then edit the new name',
      [
        { operation: 'rename', path: 'README.md', to: 'docs/README.md' },
        { operation: 'edit', path: 'docs/README.md', old_content: 'Hello', content: 'Moved' },
      ],
      ['renamed', 'updated'],
      { 'README.md': null, 'docs/README.md': file('Moved\n') },
    ],
    [
      'delete then write the same path',
      [
        { operation: 'delete', path: 'README.md' },
        { operation: 'write', path: 'README.md', content: 'again\n' },
      ],
      ['deleted', 'created'],
      { 'README.md': file('again\n') },
    ],
    [
      'write then delete',
      [
        { operation: 'write', path: 'tmp.txt', content: 't' },
        { operation: 'delete', path: 'tmp.txt' },
      ],
      ['created', 'deleted'],
      { 'tmp.txt': null },
    ],
    [
      'delete a file, then make a directory of its name',
      [
        { operation: 'delete', path: 'README.md' },
        { operation: 'write', path: 'README.md/inner.md', content: 'in' },
      ],
      ['deleted', 'created'],
      { 'README.md': null, 'README.md/inner.md': file('in') },
    ],
    [
      'empty a directory, then write a file of its name',
      [
        { operation: 'delete', path: 'docs/guide.md' },
        { operation: 'write', path: 'docs', content: 'now a file' },
      ],
      ['deleted', 'created'],
      { docs: file('now a file'), 'docs/guide.md': null },
    ],
    [
      'write then patch',
      [
        { operation: 'write', path: 'p.txt', content: 'a\nb\nc\n' },
        { operation: 'patch', path: 'p.txt', diff: '--- a/p.txt\n+++ b/p.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n' },
      ],
      ['created', 'updated'],
      { 'p.txt': file('a\nB\nc\n') },
    ],
    [
      'chmod then write keeps the new mode',
      [
        { operation: 'chmod', path: 'README.md', mode: '100755' },
        { operation: 'write', path: 'README.md', content: 'x' },
      ],
      ['mode_changed', 'updated'],
      { 'README.md': file('x', MODE.executable) },
    ],
    [
      'rename away, then create at the old name',
      [
        { operation: 'rename', path: 'README.md', to: 'OLD.md' },
        { operation: 'write', path: 'README.md', content: 'fresh' },
      ],
      ['renamed', 'created'],
      { 'README.md': file('fresh'), 'OLD.md': file('Hello\n') },
    ],
  ];
  for (const [label, ops, statuses, files] of cases) {
    const { r, after } = run(ops);
    assert.equal(r.problems, [], `${label}: ${JSON.stringify(r.problems)}`);
    assert.equal(
      r.results.map((x) => x.status),
      statuses,
      label,
    );
    const got = after();
    for (const [path, expected] of Object.entries(files))
      assert.is(got[path], expected ?? undefined, `${label}: ${path}`);
  }
});

Ops('an op does not see a path an earlier op moved away', () => {
  const { r } = run([
    { operation: 'rename', path: 'README.md', to: 'R.md' },
    { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'x' },
  ]);
  assert.is(r.ok, false);
  assert.equal(
    r.problems.map((p) => [p.index, p.code, p.message]),
    [[1, 'NOT_FOUND', 'README.md does not exist']],
  );
});

Ops.run();
