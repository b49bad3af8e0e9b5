import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { DiskRepo, type CliResult } from './helpers/disk-repo.js';
import { openShadow } from '../src/index.js';

/**
 * Bad input through the CLI with --json: the exit status, the exact error
 * code, a message that says what is wrong, and proof that nothing moved —
 * the draft ref, every other ref, the reflogs, the object count, shadow's own
 * files and the working tree are byte for byte what they were.
 *
 * Each suite shares one repository across its table of inputs: every test
 * snapshots the repository right before its command and compares right
 * after, so an input that changed anything fails on its own, and a
 * repository that never changes is the claim under test. (A fresh repository
 * per input would cost more than the CLI run it checks.)
 */

const DRAFT = 'refs/shadow/drafts/default';
const MIB = 1024 * 1024;
const MULTI = 'x = 1\ny = 2\nx = 1\nz\nx = 1\n';

type Ctx = { repo: DiskRepo };

/** A repository with a draft (one batch), an ignored .env and a symlink out of the working tree. */
async function fixture(ctx: Ctx): Promise<void> {
  const repo = new DiskRepo({
    'README.md': 'Hello\n',
    'multi.txt': MULTI,
    'src/app.ts': 'export const app = 1\n',
    '.gitignore': '.env\nbuild/\n',
  });
  ctx.repo = repo;
  repo.write('.env', 'SECRET=1\n');
  mkdirSync(join(repo.root, 'outside'));
  writeFileSync(join(repo.root, 'outside', 'victim.txt'), 'outside\n');
  symlinkSync(join(repo.root, 'outside'), repo.path('link'));
  const sh = await openShadow({ dir: repo.dir, env: repo.env });
  try {
    const r = await sh.batch({
      intent: 'seed',
      operations: [{ operation: 'write', path: 'notes.txt', content: 'notes\n' }],
    });
    if (!r.success) throw new Error(`fixture batch failed: ${JSON.stringify(r.error)}`);
  } finally {
    sh.close();
  }
}

/** Every file under `dir` (symlinks as links, never followed), with its bytes. */
function files(dir: string, skip: (rel: string) => boolean, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    if (skip(r)) continue;
    const full = join(dir, name);
    const st = lstatSync(full);
    if (st.isSymbolicLink()) out[r] = `-> ${readlinkSync(full)}`;
    else if (st.isDirectory()) Object.assign(out, files(full, skip, r));
    else out[r] = `${(st.mode & 0o777).toString(8)} ${readFileSync(full).toString('base64')}`;
  }
  return out;
}

/**
 * Everything a rejected command must leave as it found it. One git process
 * a snapshot (two run per input): the draft's value is its line of git's
 * ref listing, and the object database is compared byte for byte (every
 * loose object, pack and index), which any object written would change.
 */
function snapshot(repo: DiskRepo): Record<string, unknown> {
  const refs = repo.git('for-each-ref', '--format=%(refname) %(objectname)');
  return {
    draft: new RegExp(`^${DRAFT} ([0-9a-f]{40})$`, 'm').exec(refs)?.[1],
    refs,
    objects: files(join(repo.dir, '.git', 'objects'), () => false),
    reflogs: files(join(repo.dir, '.git', 'logs'), () => false),
    shadow: files(join(repo.dir, '.git', 'shadow'), () => false),
    config: readFileSync(join(repo.dir, '.git', 'config'), 'utf8'),
    worktree: files(repo.dir, (r) => r === '.git'),
  };
}

function teardown(ctx: Partial<Ctx>): void {
  ctx.repo?.cleanup();
  delete ctx.repo;
}

/** Exactly one JSON document on stdout with an `error` of `code`; its error. */
function jsonError(r: CliResult, status: number, code: string, what: string): any {
  assert.is(r.status, status, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  let doc: any;
  try {
    doc = r.json();
  } catch {
    assert.unreachable(`${what}: stdout is not one JSON document:\n${r.stdout}`);
  }
  assert.ok(doc.error, `${what}: no error in ${r.stdout}`);
  assert.is(doc.error.code, code, `${what}: ${doc.error.message}`);
  assert.type(doc.error.message, 'string');
  assert.type(doc.error.hint, 'string', `${what}: the error says what to do`);
  return doc;
}

const ops = (...operations: unknown[]): string => JSON.stringify({ operations });

// ---------------------------------------------------------------- batch documents

interface BatchVariant {
  name: string;
  input: string | (() => string);
  code: string;
  message: RegExp;
  /** Config for this input only; undone after it. */
  config?: Record<string, string>;
  check?: (doc: any) => void;
}

const jsonVariants: BatchVariant[] = [
  {
    name: 'malformed JSON: a doubled comma',
    input: '{"operations":[{"operation":"write",,"path":"a.txt"}]}',
    code: 'INVALID_JSON',
    message:
      /^the batch JSON is malformed at character 36 \(line 1, column 37\): expected a double-quoted property name$/,
    check: (doc) =>
      assert.equal(
        { ...doc.error.data, inside: undefined },
        { position: 36, line: 1, column: 37, truncated: false, inside: undefined },
      ),
  },
  {
    name: 'malformed JSON on line 3: a missing comma',
    input: '{\n  "operations": [\n    {"operation": "write" "path": "a.txt", "content": "a"}\n  ]\n}\n',
    code: 'INVALID_JSON',
    message:
      /^the batch JSON is malformed at character 46 \(line 3, column 27\): expected "," or "}" after a property value$/,
  },
  {
    name: 'malformed JSON: text after the document',
    input: `${ops({ operation: 'delete', path: 'README.md' })} and more`,
    code: 'INVALID_JSON',
    message:
      /^the batch JSON is malformed at character \d+ \(line 1, column \d+\): unexpected text after the end of the document$/,
  },
  {
    name: 'malformed JSON: single quotes',
    input: "{'operations': []}",
    code: 'INVALID_JSON',
    message: /^the batch JSON is malformed at character 1 \(line 1, column 2\)/,
  },
  {
    name: 'truncated JSON: cut off inside a string',
    input: '{"operations":[{"operation":"write","path":"a.txt","content":"trunc',
    code: 'INVALID_JSON',
    message:
      /^the batch JSON is cut off at character 67 \(line 1, column 68\): the text ends inside the string value of operations\[0\]\.content; it was probably truncated in transit$/,
    check: (doc) => {
      assert.is(doc.error.data.truncated, true);
      assert.is(doc.error.data.position, 67);
    },
  },
  {
    name: 'truncated JSON: cut off inside a string, then the newline echo adds',
    input: '{"operations":[{"operation":"write","path":"a.txt","content":"trunc\n',
    code: 'INVALID_JSON',
    message: /cut off at character 6[78] .*probably truncated/,
    check: (doc) =>
      assert.is(
        doc.error.data.truncated,
        true,
        'a text that stops inside a string was cut off, whatever whitespace follows',
      ),
  },
  {
    name: 'truncated JSON: cut off between operations',
    input: '{"operations":[{"operation":"delete","path":"README.md"},',
    code: 'INVALID_JSON',
    message:
      /^the batch JSON is cut off at character 57 \(line 1, column 58\): the text ends inside the value of operations\[1\]; it was probably truncated in transit$/,
  },
  {
    name: 'empty input',
    input: '',
    code: 'INVALID_JSON',
    message: /^the batch JSON is cut off at character 0 \(line 1, column 1\)/,
  },
];

const schemaVariants: BatchVariant[] = [
  {
    name: 'an unknown operation',
    input: ops({ operation: 'frob', path: 'a.txt' }),
    code: 'INVALID_BATCH',
    message:
      /operations\[0\]\.operation "frob" is not an operation; use one of write, edit, patch, delete, rename, chmod/,
  },
  {
    name: 'an operation without "operation"',
    input: ops({ path: 'a.txt', content: 'a' }),
    code: 'INVALID_BATCH',
    message: /operations\[0\]\.operation is missing/,
  },
  {
    name: 'write without content',
    input: ops({ operation: 'write', path: 'a.txt' }),
    code: 'INVALID_BATCH',
    message: /operations\[0\]\.content is missing \(expected string\)/,
  },
  {
    name: 'delete without path',
    input: ops({ operation: 'delete' }),
    code: 'INVALID_BATCH',
    message: /operations\[0\]\.path is missing/,
  },
  {
    name: 'rename without to',
    input: ops({ operation: 'rename', path: 'README.md' }),
    code: 'INVALID_BATCH',
    message: /operations\[0\]\.to is missing/,
  },
  {
    name: 'an extra field on an operation',
    input: ops({ operation: 'write', path: 'a.txt', content: 'a', overwrite: true }),
    code: 'INVALID_BATCH',
    message: /operations\[0\] has unknown field "overwrite"/,
  },
  {
    name: 'an extra field on the batch',
    input: JSON.stringify({ force: true, operations: [{ operation: 'delete', path: 'README.md' }] }),
    code: 'INVALID_BATCH',
    message: /\(document\) has unknown field "force"/,
  },
  {
    name: 'no operations field',
    input: JSON.stringify({ intent: 'x' }),
    code: 'INVALID_BATCH',
    message: /operations is missing \(expected array\)/,
  },
  { name: 'empty operations', input: ops(), code: 'INVALID_BATCH', message: /operations is empty; send at least one/ },
  {
    name: 'content of the wrong type',
    input: ops({ operation: 'write', path: 'a.txt', content: 5 }),
    code: 'INVALID_BATCH',
    message: /operations\[0\]\.content must be a string, got a number/,
  },
  {
    name: 'a mode git does not have',
    input: ops({ operation: 'write', path: 'a.txt', content: 'a', mode: '777' }),
    code: 'INVALID_BATCH',
    message: /operations\[0\]\.mode must be one of "100644", "100755", got "777"/,
  },
  {
    name: 'an unknown encoding',
    input: ops({ operation: 'write', path: 'a.txt', content: 'a', encoding: 'hex' }),
    code: 'INVALID_BATCH',
    message: /operations\[0\]\.encoding must be one of "utf8", "base64"/,
  },
  {
    name: 'every problem is listed at once',
    input: ops(
      { operation: 'write', path: '../a', content: 'a' },
      { operation: 'delete', path: 'README.md' },
      { operation: 'frob', path: 'x' },
    ),
    code: 'INVALID_BATCH',
    message: /^the batch is invalid \(2 problems\): operations\[0\]\.path .*; operations\[2\]\.operation "frob"/,
    check: (doc) => {
      assert.equal(
        doc.error.data.problems.map((p: any) => p.path),
        ['operations[0].path', 'operations[2].operation'],
      );
      assert.equal(
        doc.results.map((r: any) => r.status),
        ['failed', 'not_applied', 'failed'],
      );
    },
  },
];

const LONG_PATH = `${`${'d'.repeat(100)}/`.repeat(41)}f.txt`;
const pathVariants: BatchVariant[] = (
  [
    ['../x', /the path has a "\.\." segment/],
    ['/etc/passwd', /the path is absolute/],
    ['a/../../b', /the path has a "\.\." segment/],
    ['.git/config', /the path goes into \.git/],
    ['.GIT/HEAD', /the path goes into \.git/],
    ['a/.git/b', /the path goes into \.git/],
    ['a\u0000b', /the path contains a NUL byte at index 1/],
    ['a\u0007b', /the path contains the control character U\+0007 at index 1/],
    ['a\nb', /the path contains the control character U\+000a at index 1/],
    [LONG_PATH, /the path is longer than 4096 bytes/],
    ['', /the path is empty/],
    ['a\\..\\b', /the path contains a backslash/],
  ] as Array<[string, RegExp]>
).flatMap(([path, why]): BatchVariant[] => [
  {
    name: `path ${JSON.stringify(path.length > 40 ? `${path.slice(0, 20)}…(${Buffer.byteLength(path)} bytes)` : path)}`,
    input: ops({ operation: 'write', path, content: 'x' }),
    code: 'INVALID_BATCH',
    message: new RegExp(`operations\\[0\\]\\.path ${why.source}`),
  },
]);
pathVariants.push(
  {
    name: 'rename to ../escape',
    input: ops({ operation: 'rename', path: 'README.md', to: '../escape' }),
    code: 'INVALID_BATCH',
    message: /operations\[0\]\.to the path has a "\.\." segment/,
  },
  {
    name: 'delete /etc/passwd',
    input: ops({ operation: 'delete', path: '/etc/passwd' }),
    code: 'INVALID_BATCH',
    message: /operations\[0\]\.path the path is absolute/,
  },
);

const opVariants: BatchVariant[] = [
  {
    name: 'edit with zero matches names the closest line',
    input: ops({ operation: 'edit', path: 'multi.txt', old_content: 'y  =  2', content: 'q' }),
    code: 'EDIT_NO_MATCH',
    message:
      /#1 edit multi\.txt: old_content was not found in multi\.txt \(0 matches\); closest: line 2 \(differs in whitespace\): "y = 2"$/,
    check: (doc) => assert.is(doc.error.data.failures[0].data.matches, 0),
  },
  {
    name: 'edit with several matches says how many and where',
    input: ops({ operation: 'edit', path: 'multi.txt', old_content: 'x = 1', content: 'q' }),
    code: 'EDIT_AMBIGUOUS',
    message: /old_content occurs 3 times in multi\.txt \(lines 1, 3, 5\); it must occur exactly once$/,
    check: (doc) => assert.equal(doc.error.data.failures[0].data, { matches: 3, lines: [1, 3, 5] }),
  },
  {
    name: 'a patch whose second hunk does not apply',
    input: ops({
      operation: 'patch',
      path: 'multi.txt',
      diff: '--- a/multi.txt\n+++ b/multi.txt\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n@@ -4,2 +4,2 @@\n-q\n+z\n x = 1\n',
    }),
    code: 'PATCH_FAILED',
    message: /hunk 2 of 2 \(@@ -4,2 \+4,2 @@\) does not apply: expected line 4 to be "q" but found "z"$/,
    check: (doc) => assert.is(doc.error.data.failures[0].data.hunk, 2),
  },
  {
    name: 'a patch that is no diff',
    input: ops({ operation: 'patch', path: 'multi.txt', diff: 'not a diff' }),
    code: 'PATCH_FAILED',
    message: /the diff has no hunk/,
  },
  {
    name: 'delete of a missing path',
    input: ops({ operation: 'delete', path: 'missing.txt' }),
    code: 'NOT_FOUND',
    message: /#1 delete missing\.txt: missing\.txt does not exist$/,
  },
  {
    name: 'rename of a missing path',
    input: ops({ operation: 'rename', path: 'missing.txt', to: 'b.txt' }),
    code: 'NOT_FOUND',
    message: /#1 rename missing\.txt: missing\.txt does not exist$/,
  },
  {
    name: 'rename onto an existing path',
    input: ops({ operation: 'rename', path: 'README.md', to: 'src/app.ts' }),
    code: 'ALREADY_EXISTS',
    message: /src\/app\.ts already exists \(a file\)$/,
  },
  {
    name: 'delete of a directory',
    input: ops({ operation: 'delete', path: 'src' }),
    code: 'IS_A_DIRECTORY',
    message: /src is a directory/,
  },
  {
    name: 'write below a file',
    input: ops({ operation: 'write', path: 'README.md/x', content: 'x' }),
    code: 'NOT_A_DIRECTORY',
    message: /README\.md is a file, so README\.md\/x cannot be created under it/,
  },
  {
    name: 'invalid base64',
    input: ops({ operation: 'write', path: 'a.bin', content: 'aGVs!!!!', encoding: 'base64' }),
    code: 'INVALID_BASE64',
    message: /content is not valid base64: unexpected character at position 4$/,
  },
  {
    name: 'base64 cut short',
    input: ops({ operation: 'write', path: 'a.bin', content: 'aGVsb', encoding: 'base64' }),
    code: 'INVALID_BASE64',
    message: /its length 5 is not a multiple of 4 \(truncated\?\)$/,
  },
  {
    name: 'content over the default 10 MiB',
    input: () => ops({ operation: 'write', path: 'big.txt', content: 'a'.repeat(10 * MIB + 1) }),
    code: 'CONTENT_TOO_LARGE',
    message: /#1 write big\.txt: Content exceeds 10MB limit$/,
    check: (doc) => assert.equal(doc.error.data.failures[0].data, { size: 10 * MIB + 1, limit: 10 * MIB }),
  },
  {
    name: 'content over shadow.maxContentBytes',
    config: { 'shadow.maxContentBytes': '1024' },
    input: ops({ operation: 'write', path: 'big.txt', content: 'a'.repeat(1025) }),
    code: 'CONTENT_TOO_LARGE',
    message: /Content exceeds 1KB limit$/,
  },
  {
    name: 'an edit that grows a file over shadow.maxContentBytes',
    config: { 'shadow.maxContentBytes': '1024' },
    input: ops({ operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'a'.repeat(1100) }),
    code: 'CONTENT_TOO_LARGE',
    message: /Content exceeds 1KB limit$/,
  },
  {
    name: 'expect that no longer holds',
    input: ops({ operation: 'delete', path: 'README.md', expect: `sha256:${'0'.repeat(64)}` }),
    code: 'EXPECT_FAILED',
    message: /README\.md no longer holds the expected content \(expected sha256:0{64}, found blob [0-9a-f]{40}\)$/,
  },
  {
    name: 'expect that is neither a blob id nor sha256',
    input: ops({ operation: 'delete', path: 'README.md', expect: 'yesterday' }),
    code: 'INVALID_BATCH',
    message: /expect "yesterday" is neither a blob id nor sha256:<hex>$/,
  },
  {
    name: 'one bad operation among good ones rejects them all',
    input: ops(
      { operation: 'write', path: 'good.txt', content: 'good' },
      { operation: 'delete', path: 'missing.txt' },
      { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Bye' },
    ),
    code: 'NOT_FOUND',
    message:
      /^batch rejected, nothing was written: 1 of 3 operations failed: #2 delete missing\.txt: missing\.txt does not exist$/,
    check: (doc) => {
      assert.is(doc.success, false);
      assert.is(doc.batch, null);
      assert.equal(
        doc.results.map((r: any) => r.status),
        ['not_applied', 'failed', 'not_applied'],
      );
    },
  },
  {
    name: 'two bad operations are both listed',
    input: ops(
      { operation: 'delete', path: 'gone1' },
      { operation: 'write', path: 'ok.txt', content: 'x' },
      { operation: 'edit', path: 'multi.txt', old_content: 'x = 1', content: 'q' },
    ),
    code: 'NOT_FOUND',
    message:
      /2 of 3 operations failed: #1 delete gone1: gone1 does not exist; #3 edit multi\.txt: old_content occurs 3 times/,
    check: (doc) =>
      assert.equal(
        doc.error.data.failures.map((f: any) => [f.index, f.code]),
        [
          [0, 'NOT_FOUND'],
          [2, 'EDIT_AMBIGUOUS'],
        ],
      ),
  },
];

const environmentVariants: BatchVariant[] = [
  {
    name: 'a path that crosses a symlink in the working tree',
    input: ops({ operation: 'write', path: 'link/victim.txt', content: 'pwned' }),
    code: 'SYMLINK_IN_PATH',
    message: /link\/victim\.txt crosses a symlink in the working tree: link -> /,
    check: (doc) => assert.is(doc.error.data.failures[0].data.symlink, 'link'),
  },
  {
    name: 'an edit through a symlinked directory',
    input: ops({ operation: 'edit', path: 'link/victim.txt', old_content: 'outside', content: 'pwned' }),
    code: 'SYMLINK_IN_PATH',
    message: /crosses a symlink/,
  },
  {
    name: 'an ignored path (.env)',
    input: ops({ operation: 'write', path: '.env', content: 'SECRET=2\n' }),
    code: 'IGNORED_PATH',
    message: /#1 write \.env: \.env is ignored by \.gitignore; shadow keeps ignored files out of drafts$/,
  },
  {
    name: 'an edit of an ignored file that exists',
    input: ops({ operation: 'edit', path: '.env', old_content: 'SECRET=1', content: 'SECRET=2' }),
    code: 'IGNORED_PATH',
    message: /\.env is ignored/,
  },
  {
    name: 'a path under an ignored directory',
    input: ops({ operation: 'write', path: 'build/out.js', content: 'x' }),
    code: 'IGNORED_PATH',
    message: /build\/out\.js is ignored/,
  },
];

const Batch = suite<Ctx>('bad input: batch documents (shadow batch - --json)');
Batch.before(fixture);
Batch.after(teardown);

for (const v of [...jsonVariants, ...schemaVariants, ...pathVariants, ...opVariants, ...environmentVariants]) {
  Batch(v.name, ({ repo }) => {
    const config = Object.entries(v.config ?? {});
    for (const [key, value] of config) repo.git('config', key, value);
    try {
      const before = snapshot(repo);
      const input = typeof v.input === 'function' ? v.input() : v.input;
      const r = repo.shadow(['batch', '-', '--json'], { input });
      const doc = jsonError(r, 1, v.code, v.name);
      assert.is(doc.success, false);
      assert.match(doc.error.message, v.message, `the message: ${doc.error.message}`);
      v.check?.(doc);
      assert.equal(snapshot(repo), before, 'nothing moved: refs, reflogs, objects, shadow files, working tree');
    } finally {
      for (const [key] of config) repo.git('config', '--unset', key);
    }
  });
}

Batch('a rejected first batch leaves no draft behind', ({ repo }) => {
  const before = snapshot(repo);
  const r = repo.shadow(['batch', '-', '--json', '--draft', 'fresh'], {
    input: ops({ operation: 'write', path: 'ok.txt', content: 'x' }, { operation: 'delete', path: 'missing.txt' }),
  });
  jsonError(r, 1, 'NOT_FOUND', 'first batch of draft fresh');
  assert.is(repo.ref('refs/shadow/drafts/fresh'), undefined);
  assert.equal(snapshot(repo), before);
});

Batch('text mode: the reason on stdout, the hint on stderr, exit 1', ({ repo }) => {
  const before = snapshot(repo);
  const r = repo.shadow(['batch', '-'], {
    input: ops({ operation: 'edit', path: 'multi.txt', old_content: 'x = 1', content: 'q' }),
  });
  assert.is(r.status, 1);
  assert.is(
    r.stdout,
    'batch rejected on draft default, nothing was written: 1 of 1 operation failed\n  failed          multi.txt\n      old_content occurs 3 times in multi.txt (lines 1, 3, 5); it must occur exactly once\n',
  );
  assert.is(r.stderr, 'hint: include more surrounding lines in old_content to make it unique\n');
  const t = repo.shadow(['batch', '-'], { input: '{"operations":[' });
  assert.is(t.status, 1);
  assert.match(t.stdout, /the batch JSON is cut off at character 15 \(line 1, column 16\)/);
  assert.match(t.stderr, /^hint: resend the whole batch/m);
  assert.equal(snapshot(repo), before);
});

Batch.run();

// ---------------------------------------------------------------- commands

interface CommandVariant {
  name: string;
  args: string[];
  input?: string | (() => string);
  code: string;
  message: RegExp;
}

const commandVariants: CommandVariant[] = [
  {
    name: 'write ../x',
    args: ['write', '../x'],
    input: 'x',
    code: 'INVALID_PATH',
    message: /^"\.\.\/x" is outside the repository at /,
  },
  {
    name: 'write .git/config',
    args: ['write', '.git/config'],
    input: 'x',
    code: 'INVALID_BATCH',
    message: /operations\[0\]\.path the path goes into \.git/,
  },
  {
    name: 'write .env',
    args: ['write', '.env'],
    input: 'SECRET=2',
    code: 'IGNORED_PATH',
    message: /\.env is ignored by \.gitignore/,
  },
  {
    name: 'write link/victim.txt',
    args: ['write', 'link/victim.txt'],
    input: 'pwned',
    code: 'SYMLINK_IN_PATH',
    message: /crosses a symlink in the working tree: link -> /,
  },
  {
    name: 'write with stdin over 10 MiB',
    args: ['write', 'big.txt'],
    input: () => 'b'.repeat(10 * MIB + 1),
    code: 'CONTENT_TOO_LARGE',
    message: /Content exceeds 10MB limit$/,
  },
  {
    name: 'edit with several matches',
    args: ['edit', 'multi.txt', '--old', 'x = 1', '--new', 'q'],
    code: 'EDIT_AMBIGUOUS',
    message: /occurs 3 times in multi\.txt \(lines 1, 3, 5\)/,
  },
  {
    name: 'edit with no match',
    args: ['edit', 'multi.txt', '--old', 'w = 9', '--new', 'nowhere'],
    code: 'EDIT_NO_MATCH',
    message: /\(0 matches\)/,
  },
  {
    name: 'rm of a missing path',
    args: ['rm', 'README.md', 'missing.txt'],
    code: 'NOT_FOUND',
    message: /1 of 2 operations failed: #2 delete missing\.txt: missing\.txt does not exist$/,
  },
  {
    name: 'mv onto an existing path',
    args: ['mv', 'README.md', 'src/app.ts'],
    code: 'ALREADY_EXISTS',
    message: /src\/app\.ts already exists/,
  },
  {
    name: 'batch of a file that does not exist',
    args: ['batch', 'no-such-batch.json'],
    code: 'NOT_FOUND',
    message: /^cannot read no-such-batch\.json/,
  },
  {
    name: 'cat ../x',
    args: ['cat', '../x'],
    code: 'INVALID_PATH',
    message: /^"\.\.\/x" is outside the repository at /,
  },
  {
    name: 'cat .git/config',
    args: ['cat', '.git/config'],
    code: 'INVALID_PATH',
    message: /^(?!.*(batch|operations\[)).*goes into \.git/,
  },
  {
    name: 'cat /etc/passwd',
    args: ['cat', '/etc/passwd'],
    code: 'INVALID_PATH',
    message: /^"\/etc\/passwd" is outside the repository at /,
  },
  {
    name: 'cat link/victim.txt',
    args: ['cat', 'link/victim.txt'],
    code: 'SYMLINK_IN_PATH',
    message: /crosses a symlink/,
  },
  { name: 'ls link', args: ['ls', 'link'], code: 'SYMLINK_IN_PATH', message: /symlink/ },
  {
    name: 'rollback to nothing',
    args: ['rollback', 'nowhere'],
    code: 'INVALID_TARGET',
    message: /^cannot roll back to "nowhere"/,
  },
  {
    name: 'checkpoint named like a batch number',
    args: ['checkpoint', '7'],
    code: 'INVALID_CHECKPOINT_NAME',
    message: /plain number/,
  },
  {
    name: 'a draft from a commit that does not exist',
    args: ['draft', 'new', 'x', '--from', 'no-such-branch'],
    code: 'INVALID_TARGET',
    message: /no-such-branch/,
  },
];

const Commands = suite<Ctx>('bad input: command arguments (--json)');
Commands.before(fixture);
Commands.after(teardown);

for (const v of commandVariants) {
  Commands(v.name, ({ repo }) => {
    const before = snapshot(repo);
    const input = typeof v.input === 'function' ? v.input() : v.input;
    const doc = jsonError(repo.shadow([...v.args, '--json'], { input }), 1, v.code, v.name);
    assert.match(doc.error.message, v.message, `the message: ${doc.error.message}`);
    assert.equal(snapshot(repo), before, 'nothing moved');
  });
}

Commands.run();

// ---------------------------------------------------------------- draft names, repositories

const Names = suite<Ctx>('bad input: draft names and repositories');
Names.before(fixture);
Names.after(teardown);

const BAD_DRAFT_NAMES = [
  'bad..name',
  'a b',
  'x.lock',
  '.hidden',
  'a:b',
  'a~1',
  'a^b',
  'a?',
  'a*b',
  'a[b',
  'trailing.',
  'a@{1}',
  'a\\b',
];

Names('a draft name git would reject is refused everywhere a draft is named', ({ repo }) => {
  const before = snapshot(repo);
  for (const name of BAD_DRAFT_NAMES) {
    const git = spawnSync('git', ['check-ref-format', `refs/shadow/drafts/${name}`], { cwd: repo.dir, env: repo.env });
    assert.is.not(git.status, 0, `git check-ref-format rejects "${name}"`);
  }
  // A few through every door: draft new, --draft, SHADOW_DRAFT, draft show/drop.
  const doors: Array<[string, string[], Record<string, string>?, string?]> = BAD_DRAFT_NAMES.slice(0, 7).map(
    (name): [string, string[]] => [name, ['draft', 'new', name]],
  );
  doors.push(
    ['a b', ['batch', '-', '--draft', 'a b'], undefined, ops({ operation: 'write', path: 'a.txt', content: 'a' })],
    ['x.lock', ['write', 'a.txt'], { SHADOW_DRAFT: 'x.lock' }, 'a'],
    ['bad..name', ['status'], { SHADOW_DRAFT: 'bad..name' }],
    ['.hidden', ['draft', 'show', '.hidden']],
    ['a:b', ['draft', 'drop', 'a:b']],
    ['a@{1}', ['log', '--draft', 'a@{1}']],
    ['trailing.', ['checkpoint', 'c', '--draft', 'trailing.']],
  );
  for (const [name, args, env, input] of doors) {
    const doc = jsonError(
      repo.shadow([...args, '--json'], { env, input }),
      1,
      'INVALID_DRAFT_NAME',
      `${args.join(' ')} (${name})`,
    );
    assert.ok(doc.error.message.startsWith(`"${name}" is not a valid draft name: `), doc.error.message);
  }
  assert.equal(snapshot(repo), before, 'no ref, no file');
});

Names('a directory that is not a git repository', ({ repo }) => {
  const outside = join(repo.root, 'plain');
  mkdirSync(outside);
  writeFileSync(join(outside, 'file.txt'), 'plain\n');
  const runs: Array<[string[], string?]> = [
    [['batch', '-'], ops({ operation: 'write', path: 'a.txt', content: 'a' })],
    [['write', 'a.txt'], 'a'],
    [['status']],
    [['draft', 'new', 'x']],
  ];
  for (const [args, input] of runs) {
    const doc = jsonError(
      repo.shadow([...args, '--json'], { cwd: outside, input }),
      1,
      'NOT_A_REPOSITORY',
      args.join(' '),
    );
    assert.is(doc.error.message, `${outside} is not inside a git repository`);
    assert.match(doc.error.hint, /git init/);
  }
  jsonError(repo.shadow(['-C', outside, 'log', '--json']), 1, 'NOT_A_REPOSITORY', '-C <plain dir>');
  const text = repo.shadow(['status'], { cwd: outside });
  assert.is(text.status, 1);
  assert.is(text.stdout, '');
  assert.match(text.stderr, /^error: .* is not inside a git repository\nhint: /);
  assert.equal(
    files(outside, () => false),
    { 'file.txt': `644 ${Buffer.from('plain\n').toString('base64')}` },
    'nothing was created there',
  );
});

Names.run();

// ---------------------------------------------------------------- usage

const usageVariants: Array<{ name: string; args: string[]; input?: string }> = [
  { name: 'an unknown command', args: ['frobnicate'] },
  { name: 'batch without a file', args: ['batch'] },
  { name: 'write without a path', args: ['write'], input: 'content' },
  { name: 'write with a mode git does not have', args: ['write', 'a.txt', '--mode', '644'], input: 'a' },
  { name: 'edit without --new', args: ['edit', 'README.md', '--old', 'Hello'] },
  { name: 'mv with one path', args: ['mv', 'README.md'] },
  { name: 'cat without a path', args: ['cat'] },
  { name: 'checkpoint without a name', args: ['checkpoint'] },
  { name: 'rollback without a target', args: ['rollback'] },
  { name: 'undo with an extra argument', args: ['undo', 'now'] },
  { name: 'status with an unknown option', args: ['status', '--bogus'] },
  { name: 'draft without a subcommand', args: ['draft'] },
  { name: '--draft without a value', args: ['status', '--draft'] },
];

const Usage = suite<Ctx>('bad input: usage errors exit 2 and do nothing');
Usage.before(fixture);
Usage.after(teardown);

for (const v of usageVariants) {
  Usage(v.name, ({ repo }) => {
    const before = snapshot(repo);
    const r = repo.shadow([...v.args, '--json'], { input: v.input ?? '' });
    const doc = jsonError(r, 2, 'USAGE', v.name);
    assert.equal(Object.keys(doc), ['error'], 'one error document, nothing else');
    assert.match(doc.error.hint, /shadow --help/);
    assert.equal(snapshot(repo), before, 'a usage error runs nothing');
  });
}

Usage('text mode: the usage error on stderr, exit 2', ({ repo }) => {
  const before = snapshot(repo);
  const r = repo.shadow(['rollback']);
  assert.is(r.status, 2, r.stderr);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /^error: [^\n]+\nhint: run `shadow --help` for the commands and their options\n$/);
  assert.equal(snapshot(repo), before);
});

Usage.run();
