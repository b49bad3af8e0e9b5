import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { compareTreeEntries, EMPTY_TREE_OID, hashObject, MODE, serializeTree, type Oid, type TreeEntry } from '../src/git/format/git-objects.js';
import { resolveBatch, type Resolution, type ResolveOptions, type ResolveSource } from '../src/drafts/resolve-batch.js';
import { editTree } from '../src/git/format/tree-edit.js';
import type { FileOperation, OpStatus } from '../src/drafts/ops.js';

const patcher = await import('../src/drafts/text-patch.js');
const MAX = 10 * 1024 * 1024;
const OPTIONS: ResolveOptions = { maxContentBytes: MAX, patcher };

// ---------------------------------------------------------------- an in-memory source

class F {
  constructor(
    readonly content: string | Buffer,
    readonly mode: string = MODE.file,
  ) {}
}
type Spec = { [name: string]: string | F | Spec };

class MemSource implements ResolveSource {
  readonly trees = new Map<Oid, TreeEntry[]>([[EMPTY_TREE_OID, []]]);
  readonly blobs = new Map<Oid, Buffer>();

  readTree(oid: Oid): readonly TreeEntry[] {
    const t = this.trees.get(oid);
    if (!t) throw new Error(`tree ${oid} is not in the store`);
    return t;
  }

  readBlob(oid: Oid): Buffer {
    const b = this.blobs.get(oid);
    if (!b) throw new Error(`blob ${oid} is not in the store`);
    return b;
  }

  blob(content: string | Buffer): Oid {
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    const oid = hashObject('blob', bytes);
    this.blobs.set(oid, bytes);
    return oid;
  }

  build(spec: Spec): Oid {
    const entries: TreeEntry[] = [];
    for (const [name, v] of Object.entries(spec)) {
      if (typeof v === 'string' || v instanceof F) {
        const f = typeof v === 'string' ? new F(v) : v;
        entries.push({ mode: f.mode, name, oid: this.blob(f.content) });
      } else {
        entries.push({ mode: MODE.tree, name, oid: this.build(v) });
      }
    }
    entries.sort(compareTreeEntries);
    const content = serializeTree(entries);
    const oid = hashObject('tree', content);
    this.trees.set(oid, entries);
    return oid;
  }

  /** Every file under `root`: path → `mode content`. */
  files(root: Oid, prefix = ''): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.readTree(root)) {
      const path = prefix + e.name;
      if (e.mode === MODE.tree) Object.assign(out, this.files(e.oid, `${path}/`));
      else out[path] = `${e.mode} ${this.readBlob(e.oid).toString('utf8')}`;
    }
    return out;
  }
}

const LINES_20 = `${Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;

const BASE: Spec = {
  'README.md': 'Hello\n',
  src: { 'app.ts': 'export const x = 1;\nexport const y = 2;\n' },
  'run.sh': new F('echo hi\n', MODE.executable),
  link: new F('README.md', MODE.symlink),
  'bin.dat': new F(Buffer.from([0xff, 0xfe, 0x00, 0x01])),
  docs: { 'guide.md': 'guide\n' },
  'twenty.txt': LINES_20,
  'dup.txt': 'x = 1\ny = 2\nx = 1\nz\nx = 1\n',
  'crlf.txt': 'first\r\nsecond\r\n',
};

interface Run {
  r: Resolution;
  s: MemSource;
  root: Oid;
  /** The files of the tree the resolution leads to. */
  after(): Record<string, string>;
}

function run(ops: FileOperation[], options: ResolveOptions = OPTIONS, spec: Spec = BASE): Run {
  const s = new MemSource();
  const root = s.build(spec);
  const r = resolveBatch(s, root, ops, options);
  return {
    r,
    s,
    root,
    after() {
      for (const [oid, bytes] of r.blobs) s.blobs.set(oid, bytes);
      const out = editTree(s, root, r.changes);
      for (const t of out.trees) s.trees.set(t.oid, t.entries);
      return s.files(out.root);
    },
  };
}

const file = (content: string, mode: string = MODE.file): string => `${mode} ${content}`;
const blobId = (content: string | Buffer): string => hashObject('blob', typeof content === 'string' ? Buffer.from(content) : content);
const sha256 = (content: string): string => createHash('sha256').update(content).digest('hex');

function twoHunkDiff(path = 'twenty.txt'): string {
  return [
    `--- a/${path}`,
    `+++ b/${path}`,
    '@@ -2,3 +2,3 @@',
    ' line 2',
    '-line 3',
    '+LINE 3',
    ' line 4',
    '@@ -15,3 +15,3 @@',
    ' line 15',
    '-line 16',
    '+LINE 16',
    ' line 17',
    '',
  ].join('\n');
}
const PATCHED_20 = LINES_20.replace('line 3\n', 'LINE 3\n').replace('line 16\n', 'LINE 16\n');

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
  { label: 'write creates', ops: [{ operation: 'write', path: 'new.txt', content: 'new\n' }], statuses: ['created'], files: { 'new.txt': file('new\n') } },
  { label: 'write creates deep', ops: [{ operation: 'write', path: 'a/b/c/d.txt', content: 'd' }], statuses: ['created'], files: { 'a/b/c/d.txt': file('d') } },
  { label: 'write updates', ops: [{ operation: 'write', path: 'README.md', content: 'Bye\n' }], statuses: ['updated'], files: { 'README.md': file('Bye\n') } },
  { label: 'write same content', ops: [{ operation: 'write', path: 'README.md', content: 'Hello\n' }], statuses: ['unchanged'], noChange: true },
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
  { label: 'write base64', ops: [{ operation: 'write', path: 'b.bin', content: 'aGk=\n', encoding: 'base64' }], statuses: ['created'], files: { 'b.bin': file('hi') } },
  {
    // base64(1) wraps at 76 columns: the line breaks must not count against the limit.
    label: 'write base64 wrapped at 76 columns, exactly at the limit',
    ops: [{ operation: 'write', path: 'full.txt', content: Buffer.alloc(MAX, 'x').toString('base64').replace(/.{76}/g, '$&\n'), encoding: 'base64' }],
    statuses: ['created'],
    files: { 'full.txt': file('x'.repeat(MAX)) },
  },
  { label: 'write empty', ops: [{ operation: 'write', path: 'empty', content: '' }], statuses: ['created'], files: { empty: file('') } },
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
  { label: 'edit to the same text', ops: [{ operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello' }], statuses: ['unchanged'], noChange: true },
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
  { label: 'patch', ops: [{ operation: 'patch', path: 'twenty.txt', diff: twoHunkDiff() }], statuses: ['updated'], files: { 'twenty.txt': file(PATCHED_20) } },
  {
    label: 'patch creates a file',
    ops: [{ operation: 'patch', path: 'made/by/patch.txt', diff: '--- /dev/null\n+++ b/made/by/patch.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n' }],
    statuses: ['created'],
    files: { 'made/by/patch.txt': file('a\nb\n') },
  },
  {
    label: 'patch deletes a file',
    ops: [{ operation: 'patch', path: 'README.md', diff: '--- a/README.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-Hello\n' }],
    statuses: ['deleted'],
    files: { 'README.md': null },
  },
  { label: 'delete', ops: [{ operation: 'delete', path: 'README.md' }], statuses: ['deleted'], files: { 'README.md': null } },
  { label: 'delete of a symlink', ops: [{ operation: 'delete', path: 'link' }], statuses: ['deleted'], files: { link: null } },
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
  { label: 'chmod', ops: [{ operation: 'chmod', path: 'README.md', mode: '100755' }], statuses: ['mode_changed'], files: { 'README.md': file('Hello\n', MODE.executable) } },
  { label: 'chmod back', ops: [{ operation: 'chmod', path: 'run.sh', mode: '100644' }], statuses: ['mode_changed'], files: { 'run.sh': file('echo hi\n') } },
  { label: 'chmod to the same mode', ops: [{ operation: 'chmod', path: 'run.sh', mode: '100755' }], statuses: ['unchanged'], noChange: true },
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
    const untouched = Object.keys(run([]).after()).filter((p) => !c.ops.some((op) => op.path === p || (op.operation === 'rename' && op.to === p)));
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
    for (const [path, expected] of Object.entries(files)) assert.is(got[path], expected ?? undefined, `${label}: ${path}`);
  }
});

Ops('an op does not see a path an earlier op moved away', () => {
  const { r } = run([
    { operation: 'rename', path: 'README.md', to: 'R.md' },
    { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'x' },
  ]);
  assert.is(r.ok, false);
  assert.equal(r.problems.map((p) => [p.index, p.code, p.message]), [[1, 'NOT_FOUND', 'README.md does not exist']]);
});

Ops.run();

// ---------------------------------------------------------------- expect

const Expect = suite('resolveBatch: expect');

Expect('a matching blob id or sha256 lets the op through', () => {
  const readme = 'Hello\n';
  const good = [blobId(readme), blobId(readme).toUpperCase(), `sha256:${sha256(readme)}`, `SHA256:${sha256(readme).toUpperCase()}`, ` ${blobId(readme)} `];
  for (const expect of good) {
    const { r } = run([{ operation: 'write', path: 'README.md', content: 'new', expect }]);
    assert.equal(r.problems, [], expect);
    assert.equal(
      r.results.map((x) => x.status),
      ['updated'],
    );
  }
  // expect is checked against what earlier ops of the batch left.
  const { r } = run([
    { operation: 'write', path: 'README.md', content: 'v2' },
    { operation: 'edit', path: 'README.md', old_content: 'v2', content: 'v3', expect: blobId('v2') },
    { operation: 'delete', path: 'README.md', expect: `sha256:${sha256('v3')}` },
  ]);
  assert.equal(r.problems, []);
  assert.equal(
    r.results.map((x) => x.status),
    ['updated', 'updated', 'deleted'],
  );
});

Expect('a mismatch is EXPECT_FAILED naming what was expected and found', () => {
  const found = blobId('Hello\n');
  const other = blobId('something else');
  const cases: Array<[FileOperation, string, Record<string, unknown>]> = [
    [
      { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'x', expect: other },
      `README.md no longer holds the expected content (expected ${other}, found blob ${found})`,
      { expected: other, found },
    ],
    [
      { operation: 'delete', path: 'README.md', expect: `sha256:${sha256('old')}` },
      `README.md no longer holds the expected content (expected sha256:${sha256('old')}, found blob ${found})`,
      { expected: `sha256:${sha256('old')}`, found },
    ],
    [{ operation: 'write', path: 'new.txt', content: 'x', expect: other }, `new.txt is absent, so it cannot match expect ${other}`, { found: null }],
    [{ operation: 'write', path: 'docs', content: 'x', expect: other }, `docs is a directory, so it cannot match expect ${other}`, { found: null }],
  ];
  for (const [op, message, data] of cases) {
    const { r } = run([op]);
    assert.is(r.ok, false);
    assert.is(r.problems.length, 1);
    const p = r.problems[0]!;
    assert.is(p.code, 'EXPECT_FAILED', message);
    assert.is(p.message, message);
    assert.equal(p.data, data);
    assert.is(p.hint, 'read the path again and resend the batch');
    assert.is(r.results[0]!.status, 'failed');
    assert.equal(r.results[0]!.error?.code, 'EXPECT_FAILED');
  }
});

Expect('an expect that is neither a blob id nor sha256:<hex> is INVALID_BATCH', () => {
  for (const expect of ['abc', 'sha256:xyz', `sha1:${blobId('x')}`, blobId('x').slice(0, 39), `sha256:${sha256('x').slice(1)}`]) {
    const { r } = run([{ operation: 'delete', path: 'README.md', expect }]);
    assert.is(r.problems[0]?.code, 'INVALID_BATCH', expect);
    assert.match(r.problems[0]!.message, 'is neither a blob id nor sha256:<hex>');
  }
});

Expect.run();

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
    message: 'old_content was not found in src/app.ts (0 matches); closest: line 2 (differs in whitespace): "export const y = 2;"',
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
  { label: 'edit: missing file', op: { operation: 'edit', path: 'nope.txt', old_content: 'a', content: 'b' }, code: 'NOT_FOUND', message: 'nope.txt does not exist' },
  { label: 'edit: a directory', op: { operation: 'edit', path: 'docs', old_content: 'a', content: 'b' }, code: 'IS_A_DIRECTORY', message: 'docs is a directory' },
  { label: 'edit: a symlink', op: { operation: 'edit', path: 'link', old_content: 'README', content: 'b' }, code: 'NOT_A_FILE', message: 'link is a symlink' },
  { label: 'edit: binary content', op: { operation: 'edit', path: 'bin.dat', old_content: 'a', content: 'b' }, code: 'INVALID_CONTENT', message: 'bin.dat is not UTF-8 text' },
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
    message: 'hunk 2 of 2 (@@ -15,3 +15,3 @@) does not apply: expected line 15 to be "line 15" but found "line fifteen"',
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
    op: { operation: 'patch', path: 'README.md', diff: '--- a/README.md\n+++ b/README.md\n@@ -5,1 +5,1 @@\n-five\n+5\n' },
    code: 'PATCH_FAILED',
    // "Hello\n" is one line (wc -l), not two.
    message: /^hunk 1 of 1 \(@@ -5,1 \+5,1 @@\) does not apply: expected line 5 to be "five" but the file has 1 lines?$/,
  },
  { label: 'patch: no hunk', op: { operation: 'patch', path: 'README.md', diff: 'not a diff at all' }, code: 'PATCH_FAILED', message: 'the diff has no hunk' },
  {
    label: 'patch: two files in one op',
    op: { operation: 'patch', path: 'README.md', diff: `${twoHunkDiff()}--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-Hello\n+Hi\n` },
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
  { label: 'delete: missing', op: { operation: 'delete', path: 'missing.txt' }, code: 'NOT_FOUND', message: 'missing.txt does not exist' },
  { label: 'delete: below a file', op: { operation: 'delete', path: 'README.md/x' }, code: 'NOT_FOUND', message: 'README.md/x does not exist' },
  { label: 'delete: a directory', op: { operation: 'delete', path: 'docs' }, code: 'IS_A_DIRECTORY', message: 'docs is a directory' },
  { label: 'rename: missing', op: { operation: 'rename', path: 'missing.txt', to: 'x.txt' }, code: 'NOT_FOUND', message: 'missing.txt does not exist' },
  {
    label: 'rename: onto an existing file',
    op: { operation: 'rename', path: 'README.md', to: 'src/app.ts' },
    code: 'ALREADY_EXISTS',
    message: 'src/app.ts already exists (a file)',
    data: { to: 'src/app.ts' },
  },
  { label: 'rename: onto a directory', op: { operation: 'rename', path: 'README.md', to: 'docs' }, code: 'ALREADY_EXISTS', message: 'docs already exists (a directory)' },
  { label: 'rename: onto a symlink', op: { operation: 'rename', path: 'README.md', to: 'link' }, code: 'ALREADY_EXISTS', message: 'link already exists (a symlink)' },
  { label: 'rename: a directory', op: { operation: 'rename', path: 'docs', to: 'documentation' }, code: 'IS_A_DIRECTORY', message: 'docs is a directory' },
  { label: 'rename: onto itself', op: { operation: 'rename', path: 'README.md', to: 'README.md' }, code: 'INVALID_BATCH', message: 'rename of README.md onto itself' },
  {
    label: 'rename: below a file',
    op: { operation: 'rename', path: 'docs/guide.md', to: 'run.sh/guide.md' },
    code: 'NOT_A_DIRECTORY',
    message: 'run.sh is a file, so run.sh/guide.md cannot be created under it',
    data: { blockedBy: 'run.sh' },
  },
  { label: 'chmod: missing', op: { operation: 'chmod', path: 'missing', mode: '100755' }, code: 'NOT_FOUND', message: 'missing does not exist' },
  { label: 'chmod: a directory', op: { operation: 'chmod', path: 'docs', mode: '100755' }, code: 'IS_A_DIRECTORY', message: 'docs is a directory' },
  { label: 'chmod: a symlink', op: { operation: 'chmod', path: 'link', mode: '100755' }, code: 'NOT_A_FILE', message: 'link is a symlink' },
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
  { label: 'write: below a symlink', op: { operation: 'write', path: 'link/x', content: 'x' }, code: 'NOT_A_DIRECTORY', message: 'link is a file, so link/x cannot be created under it' },
  { label: 'write: onto a directory', op: { operation: 'write', path: 'docs', content: 'x' }, code: 'IS_A_DIRECTORY', message: 'docs is a directory' },
  { label: 'write: onto a nested directory', op: { operation: 'write', path: 'src', content: 'x' }, code: 'IS_A_DIRECTORY', message: 'src is a directory' },
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
    assert.equal(result.error, { code: p.code, message: p.message, ...(p.hint === undefined ? {} : { hint: p.hint }), ...(p.data === undefined ? {} : { data: p.data }) });
  });
}

Errors('content of exactly the limit is accepted', () => {
  const { r } = run([{ operation: 'write', path: 'big.txt', content: 'x'.repeat(MAX) }]);
  assert.equal(r.problems, []);
  assert.is(r.results[0]!.status, 'created');
  assert.is(r.blobs.get(blobId('x'.repeat(MAX)))!.length, MAX);
});

Errors('a mistyped edit (debug(2) for debug(1)) fails EDIT_NO_MATCH with the closest line, though its new text is in the file', () => {
  const method = 'save() {\n  debug(1);\n  return this;\n}\n';
  const { r } = run([{ operation: 'edit', path: 'method.ts', old_content: '  debug(2);\n  return this;', content: '  return this;' }], OPTIONS, { 'method.ts': method });
  assert.equal(r.results.map((x) => x.status), ['failed']);
  assert.is(r.problems[0]!.code, 'EDIT_NO_MATCH');
  assert.is(r.problems[0]!.message, 'old_content was not found in method.ts (0 matches); closest: line 2: "debug(1);"');
  assert.equal(r.problems[0]!.data, { matches: 0, closest: [{ line: 2, text: '  debug(1);', kind: 'similar' }] });
  assert.is(r.changes.size, 0);
});

Errors('a patch already in place fails, saying so: it is never taken for success by a guess', () => {
  const { r } = run([{ operation: 'patch', path: 'twenty.txt', diff: twoHunkDiff() }], OPTIONS, { 'twenty.txt': PATCHED_20 });
  assert.equal(
    r.results.map((x) => x.status),
    ['failed'],
  );
  assert.is(r.problems[0]!.code, 'PATCH_FAILED');
  assert.match(r.problems[0]!.message, /^hunk 1 of 2 \(@@ -2,3 \+2,3 @@\) does not apply: expected line 3 to be "line 3" but found "LINE 3"; the file already holds what the diff makes$/);
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
  assert.equal(again.r.problems.map((p) => [p.code, p.message]), [['ALREADY_EXISTS', 'the diff creates made.txt, which already exists, the content this diff makes']]);
  assert.equal(again.after(), { 'made.txt': file('a\nb\n') });
});

Errors('a patch deleting a file that is gone fails NOT_FOUND', () => {
  const { r } = run([{ operation: 'patch', path: 'gone.txt', diff: '--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n' }]);
  assert.equal(r.problems.map((p) => [p.code, p.message]), [['NOT_FOUND', 'the diff deletes gone.txt, which does not exist']]);
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
