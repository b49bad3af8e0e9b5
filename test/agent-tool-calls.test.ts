import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openShadow, type Shadow } from '../src/index.js';
import { callTool, type ToolConnection, type ToolOutcome } from '../src/agent-tools/call-tool.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { withReplacingRename } from './helpers/memfs-rename.js';
import { codeOf, okJson, STACK_LINE } from './helpers/tool-outcome.js';
import { BAD_ARGS, BAD_BATCHES, GOOD, SEED } from './helpers/tool-payloads.js';

/*
 * The agent tools in-process, on memfs: callTool as `shadow mcp` calls it,
 * checked against what the library does and writes, and against the
 * payloads the tools' schemas take.
 */

const TOKEN = 'ghp_' + 'k7Q2mZ9xR4tB8wN1vC6yL3pH5sD0fJ2gA9eU'; // made up, shaped like a classic GitHub token

/** Every error text any call produced, checked for stack traces at the end too. */
const errorTexts: string[] = [];

async function call(conn: ToolConnection, name: string, args: unknown): Promise<ToolOutcome> {
  const r = await callTool(conn, name, args);
  assert.type(r.isError, 'boolean');
  assert.type(r.text, 'string');
  if (r.isError) {
    errorTexts.push(r.text);
    assert.not.match(r.text, STACK_LINE, `a stack trace in the text of ${name}: ${r.text}`);
  }
  return r;
}

function tipOf(repo: MemRepo, draft = 'default'): string | undefined {
  const p = `${repo.dir}/.git/refs/shadow/drafts/${draft}`;
  return repo.fs.existsSync(p) ? String(repo.fs.readFileSync(p, 'utf8')).trim() : undefined;
}

interface Ctx {
  repo: MemRepo;
  sh: Shadow;
  conn: ToolConnection;
}

const FILES = {
  'README.md': 'Hello\n',
  'old.txt': 'old\n',
  'src/app.js': 'function greet(name) {\n  return "hi " + name;\n}\n\nmodule.exports = { greet };\n',
  '.gitignore': '*.log\nbuild/\n',
};

async function setup(c: Ctx, files: Record<string, string> = FILES): Promise<void> {
  c.repo = await memRepo(files);
  const { ctx } = c.repo;
  // Write sessions rename state.json over itself; memfs miscounts that (see memfs-rename.ts).
  c.sh = await openShadow({
    dir: c.repo.dir,
    fs: withReplacingRename(ctx.fs),
    clock: ctx.clock,
    ids: ctx.ids,
    env: ctx.env,
  });
  c.conn = { sh: c.sh, draft: 'default', actor: 'agent-x' };
}

const Tools = suite<Ctx>('callTool');
Tools.before.each(async (c) => setup(c));
Tools.after.each((c) => c.sh.close());

Tools(
  "batch_write: the seed batch lands as one commit by the connection's actor; read_file reads it back; the working tree is untouched",
  async ({ repo, sh, conn }) => {
    const r = okJson(await call(conn, 'batch_write', { intent: 'add greeting', ...SEED }));
    assert.is(r.success, true);
    assert.is(r.batch, 1);
    assert.is(r.draft, 'default');
    assert.equal(
      r.results.map((x: any) => [x.operation, x.path, x.status]),
      [
        ['write', 'src/hello.ts', 'created'],
        ['edit', 'README.md', 'updated'],
        ['delete', 'old.txt', 'deleted'],
      ],
    );
    assert.is(tipOf(repo), r.commit);
    const hello = await call(conn, 'read_file', { path: 'src/hello.ts' });
    assert.is(hello.text, 'src/hello.ts (from the draft): lines 1-1 of 1\n     1\texport const hi = 1');
    assert.is(
      (await call(conn, 'read_file', { path: 'README.md' })).text,
      'README.md (from the draft): lines 1-1 of 1\n     1\tHello, world',
    );
    assert.is(codeOf(await call(conn, 'read_file', { path: 'old.txt' })), 'NOT_FOUND');
    assert.is((await sh.cat('src/hello.ts')).content.toString(), 'export const hi = 1\n');
    const [entry] = await sh.log();
    assert.equal([entry!.batch, entry!.actor, entry!.intent, entry!.ops.length], [1, 'agent-x', 'add greeting', 3]);
    assert.is(repo.read('README.md'), 'Hello\n');
    assert.is(repo.exists('old.txt'), true);
    assert.is(repo.exists('src/hello.ts'), false);
  },
);

Tools(
  'batch_write: an actor field in the arguments does not change who acts (the connection decides)',
  async ({ sh, conn }) => {
    const r = await call(conn, 'batch_write', {
      actor: 'mallory',
      operations: [{ operation: 'write', path: 'm.txt', content: 'm\n' }],
    });
    assert.is(r.isError, false, r.text);
    const [entry] = await sh.log();
    assert.is(entry!.actor, 'agent-x');
  },
);

Tools(
  'batch_write: every bad batch returns isError with the code sh.batch gives (INVALID_BATCH), and writes nothing',
  async ({ repo, sh, conn }) => {
    for (const [what, batch] of BAD_BATCHES) {
      const lib = await sh.batch(batch);
      assert.is(lib.success, false, what);
      assert.is(lib.error!.code, 'INVALID_BATCH', `${what}: ${lib.error!.code}`);
      const r = await call(conn, 'batch_write', batch);
      assert.is(codeOf(r), lib.error!.code, what);
      // The message names the problem as the library does.
      assert.ok(r.text.includes(lib.error!.message), `${what}:\n${r.text}\nvs\n${lib.error!.message}`);
      assert.match(r.text, /Nothing was written/);
    }
    assert.is(tipOf(repo), undefined);
    assert.equal(await sh.draftList(), []);
  },
);

Tools(
  'batch_write: operations sent as a JSON string are parsed; cut off, they are INVALID_JSON saying so',
  async ({ repo, conn }) => {
    const ops = JSON.stringify([{ operation: 'write', path: 'notes/todo.md', content: '- one\n- two\n' }]);
    const r = okJson(await call(conn, 'batch_write', { intent: 'as a string', operations: ops }));
    assert.is(r.batch, 1);
    assert.is(
      (await call(conn, 'read_file', { path: 'notes/todo.md' })).text,
      'notes/todo.md (from the draft): lines 1-2 of 2\n     1\t- one\n     2\t- two',
    );
    const tip = tipOf(repo);
    const cut = JSON.stringify([
      { operation: 'write', path: 'big.md', content: 'a long file that the transport cut off in the middle of' },
    ]).slice(0, -12);
    const bad = await call(conn, 'batch_write', { operations: cut });
    assert.is(codeOf(bad), 'INVALID_JSON');
    assert.match(bad.text, /cut off/);
    assert.match(bad.text, /truncated/);
    assert.match(bad.text, /"truncated":true/);
    // Not JSON at all: malformed, not cut off.
    const junk = await call(conn, 'batch_write', { operations: '[{"operation": write}]' });
    assert.is(codeOf(junk), 'INVALID_JSON');
    assert.match(junk.text, /malformed/);
    assert.not.match(junk.text, /cut off/);
    // JSON, but not operations.
    assert.is(
      codeOf(await call(conn, 'batch_write', { operations: '{"operation":"delete","path":"README.md"}' })),
      'INVALID_BATCH',
    );
    assert.is(tipOf(repo), tip);
  },
);

Tools('batch_write: EDIT_NO_MATCH names the closest lines; EDIT_AMBIGUOUS the match count', async ({ repo, conn }) => {
  const r = await call(conn, 'batch_write', {
    operations: [
      { operation: 'write', path: 'new.txt', content: 'new\n' },
      {
        operation: 'edit',
        path: 'src/app.js',
        old_content: '  return "hello " + name;',
        content: '  return `hello ${name}`;',
      },
    ],
  });
  assert.is(codeOf(r), 'EDIT_NO_MATCH');
  // The closest line, as the file holds it (not the old_content sent), and its number.
  assert.ok(r.text.includes('return \\"hi \\" + name;'), r.text);
  assert.match(r.text, /line 2/);
  assert.match(r.text, /"status": "not_applied"/);
  assert.is(tipOf(repo), undefined);
  const dup = await call(conn, 'batch_write', {
    operations: [
      { operation: 'write', path: 'd.txt', content: 'x\ny\nx\n' },
      { operation: 'edit', path: 'd.txt', old_content: 'x', content: 'z' },
    ],
  });
  assert.is(codeOf(dup), 'EDIT_AMBIGUOUS');
  assert.match(dup.text, /2 matches|matches: 2|"matches":2|"matches": 2/);
});

Tools(
  'read_file: line ranges, the "more with start_line" note, 2,000 lines at most, ranges past the end',
  async ({ repo, conn }) => {
    const long = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    okJson(await call(conn, 'batch_write', { operations: [{ operation: 'write', path: 'long.txt', content: long }] }));
    const part = await call(conn, 'read_file', { path: 'long.txt', start_line: 5, end_line: 7 });
    assert.is(
      part.text,
      'long.txt (from the draft): lines 5-7 of 2500; more with start_line 8\n     5\tline 5\n     6\tline 6\n     7\tline 7',
    );
    const head = (await call(conn, 'read_file', { path: 'long.txt' })).text.split('\n');
    assert.is(head[0], 'long.txt (from the draft): lines 1-2000 of 2500; more with start_line 2001');
    assert.is(head.length, 2001);
    assert.is(head[2000], '  2000\tline 2000');
    const tail = (await call(conn, 'read_file', { path: 'long.txt', start_line: 2001 })).text.split('\n');
    assert.is(tail[0], 'long.txt (from the draft): lines 2001-2500 of 2500');
    assert.is(tail.length, 501);
    assert.is(tail[500], '  2500\tline 2500');
    // end_line past the end is the end; start_line past it is an error.
    assert.is(
      (await call(conn, 'read_file', { path: 'long.txt', start_line: 2499, end_line: 9999 })).text,
      'long.txt (from the draft): lines 2499-2500 of 2500\n  2499\tline 2499\n  2500\tline 2500',
    );
    const past = await call(conn, 'read_file', { path: 'long.txt', start_line: 2501 });
    assert.is(codeOf(past), 'INVALID_ARGUMENT');
    assert.match(past.text, /past the end.*2500 lines/);
    // A file of the working tree the draft did not touch.
    assert.is(
      (await call(conn, 'read_file', { path: 'src/app.js', start_line: 2, end_line: 2 })).text,
      'src/app.js (from the working tree): lines 2-2 of 5; more with start_line 3\n     2\t  return "hi " + name;',
    );
    repo.write('untracked.txt', 'one\ntwo');
    assert.is(
      (await call(conn, 'read_file', { path: 'untracked.txt' })).text,
      'untracked.txt (from the working tree): lines 1-2 of 2\n     1\tone\n     2\ttwo',
    );
    // A binary file is described, not dumped.
    okJson(
      await call(conn, 'batch_write', {
        operations: [
          {
            operation: 'write',
            path: 'logo.bin',
            content: Buffer.from([0, 1, 2, 255, 0]).toString('base64'),
            encoding: 'base64',
          },
        ],
      }),
    );
    assert.match(
      (await call(conn, 'read_file', { path: 'logo.bin' })).text,
      /^logo\.bin is a binary file of 5 bytes \(blob [0-9a-f]{40}\); it is not shown$/,
    );
    // Unsafe and missing paths.
    assert.is(codeOf(await call(conn, 'read_file', { path: '../etc/passwd' })), 'INVALID_PATH');
    assert.is(codeOf(await call(conn, 'read_file', { path: '.git/config' })), 'INVALID_PATH');
    assert.is(codeOf(await call(conn, 'read_file', { path: 'nope.txt' })), 'NOT_FOUND');
  },
);

Tools('read_file: end_line before start_line is refused, not answered with "lines 10-5"', async ({ conn }) => {
  const r = await call(conn, 'read_file', { path: 'src/app.js', start_line: 4, end_line: 2 });
  assert.is(codeOf(r), 'INVALID_ARGUMENT', r.text);
});

Tools('read_file: an empty file reads differently from a file holding one empty line', async ({ conn }) => {
  okJson(
    await call(conn, 'batch_write', {
      operations: [
        { operation: 'write', path: 'empty.txt', content: '' },
        { operation: 'write', path: 'blank.txt', content: '\n' },
      ],
    }),
  );
  const empty = await call(conn, 'read_file', { path: 'empty.txt' });
  const blank = await call(conn, 'read_file', { path: 'blank.txt' });
  assert.is(empty.isError, false);
  assert.is(blank.text, 'blank.txt (from the draft): lines 1-1 of 1\n     1\t');
  assert.is.not(
    empty.text.replace('empty.txt', 'blank.txt'),
    blank.text,
    `an empty file reads as one empty line: ${JSON.stringify(empty.text)}`,
  );
});

Tools(
  'read_file keeps to the tool output limit (100,000 characters) on a minified one-line file, saying how to see the rest',
  async ({ conn }) => {
    okJson(
      await call(conn, 'batch_write', {
        operations: [{ operation: 'write', path: 'dist/app.min.js', content: 'var a=1;'.repeat(60_000) + '\n' }],
      }),
    );
    const r = await call(conn, 'read_file', { path: 'dist/app.min.js' });
    assert.is(r.isError, false);
    assert.ok(r.text.length <= 101_000, `read_file returned ${r.text.length} characters of one line`);
    assert.match(r.text, /cut/);
  },
);

Tools('a bad argument names the field and what it must be (start_line 0: at least 1)', async ({ conn }) => {
  const r = await call(conn, 'read_file', { path: 'README.md', start_line: 0 });
  assert.is(codeOf(r), 'INVALID_ARGUMENT');
  assert.match(r.text, /start_line/);
  assert.match(r.text, /at least 1|>= ?1|greater than or equal to 1/, r.text);
});

Tools(
  "list_files: a directory (dirs with /, draft entries with *), and recursive, skipping .gitignore'd files",
  async ({ repo, conn }) => {
    repo.write('debug.log', 'needle in a log\n');
    repo.write('build/out.js', 'needle in a build\n');
    repo.write('notes.txt', 'needle, untracked\n');
    okJson(await call(conn, 'batch_write', SEED));
    assert.is(
      (await call(conn, 'list_files', {})).text,
      ['.gitignore', 'README.md  *', 'build/', 'debug.log', 'notes.txt', 'src/  *'].join('\n'),
    );
    assert.is((await call(conn, 'list_files', { path: 'src' })).text, 'app.js\nhello.ts  *');
    const all = (await call(conn, 'list_files', { recursive: true })).text.split('\n');
    assert.is(all[0], '5 files; * marks what the draft changed');
    assert.equal(all.slice(1), ['.gitignore', 'README.md  *', 'notes.txt', 'src/app.js', 'src/hello.ts  *']);
    assert.equal((await call(conn, 'list_files', { path: 'src', recursive: true })).text.split('\n').slice(1), [
      'src/app.js',
      'src/hello.ts  *',
    ]);
    assert.is(codeOf(await call(conn, 'list_files', { path: 'nowhere' })), 'NOT_FOUND');
    assert.is(codeOf(await call(conn, 'list_files', { path: '../' })), 'INVALID_PATH');
  },
);

Tools(
  'search: substring, regex, case, path, max_results; ignored files skipped; an invalid regex is INVALID_ARGUMENT',
  async ({ repo, conn }) => {
    repo.write('debug.log', 'greet in a log\n');
    repo.write('build/out.js', 'greet in a build\n');
    okJson(
      await call(conn, 'batch_write', {
        operations: [{ operation: 'write', path: 'src/more.js', content: 'const GREETING = greet("x");\n' }],
      }),
    );
    assert.is(
      (await call(conn, 'search', { pattern: 'greet' })).text,
      [
        '3 matching lines in 5 files searched',
        'src/app.js:1: function greet(name) {',
        'src/app.js:5: module.exports = { greet };',
        'src/more.js:1: const GREETING = greet("x");',
      ].join('\n'),
    );
    assert.is(
      (await call(conn, 'search', { pattern: 'gre+t\\(', regex: true })).text,
      '2 matching lines in 5 files searched\nsrc/app.js:1: function greet(name) {\nsrc/more.js:1: const GREETING = greet("x");',
    );
    const cut = (
      await call(conn, 'search', { pattern: 'GREET', case_sensitive: false, path: 'src', max_results: 1 })
    ).text.split('\n');
    assert.is(cut.length, 2);
    assert.match(cut[0]!, /^1 matching line in \d files searched \(cut short: narrow the path or the pattern\)$/);
    assert.is(cut[1], 'src/app.js:1: function greet(name) {');
    assert.is(
      (await call(conn, 'search', { pattern: 'GREET', case_sensitive: false })).text.split('\n')[0],
      '3 matching lines in 5 files searched',
    );
    assert.is((await call(conn, 'search', { pattern: 'no such text' })).text, '0 matching lines in 5 files searched\n');
    const bad = await call(conn, 'search', { pattern: '(unclosed', regex: true });
    assert.is(codeOf(bad), 'INVALID_ARGUMENT');
    assert.match(bad.text, /regular expression/);
  },
);

Tools('diff (patch and stat, whole draft and a range, renames, paths), log, status', async ({ conn }) => {
  assert.is((await call(conn, 'diff', {})).text, 'no changes');
  okJson(await call(conn, 'batch_write', { intent: 'seed', ...SEED }));
  okJson(
    await call(conn, 'batch_write', {
      intent: 'second',
      operations: [{ operation: 'edit', path: 'src/hello.ts', old_content: '1', content: '2' }],
    }),
  );
  const patch = (await call(conn, 'diff', {})).text;
  assert.match(patch, /^diff --git a\/README\.md b\/README\.md\n/);
  assert.ok(patch.includes('--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-Hello\n+Hello, world\n'), patch);
  assert.ok(patch.includes('deleted file mode 100644'), patch);
  assert.ok(patch.includes('--- /dev/null\n+++ b/src/hello.ts\n@@ -0,0 +1 @@\n+export const hi = 2\n'), patch);
  assert.is(
    (await call(conn, 'diff', { stat: true })).text,
    ['M         README.md  +1 -1', 'D         old.txt  +0 -1', 'A         src/hello.ts  +1 -0'].join('\n'),
  );
  const second = (await call(conn, 'diff', { range: '1..2' })).text;
  assert.ok(second.includes('-export const hi = 1\n+export const hi = 2\n'), second);
  assert.not.ok(second.includes('README.md'), second);
  assert.is(codeOf(await call(conn, 'diff', { range: 'nowhere..' })), 'INVALID_TARGET');
  // A rename, paired when asked; a pathspec limits the diff.
  okJson(
    await call(conn, 'batch_write', {
      intent: 'move',
      operations: [{ operation: 'rename', path: 'src/hello.ts', to: 'lib/hello.ts' }],
    }),
  );
  assert.is(
    (await call(conn, 'diff', { range: '2..3', stat: true, renames: true })).text,
    'R         src/hello.ts -> lib/hello.ts  +0 -0',
  );
  assert.is(
    (await call(conn, 'diff', { range: '2..3', stat: true })).text,
    ['A         lib/hello.ts  +1 -0', 'D         src/hello.ts  +0 -1'].join('\n'),
  );
  assert.is((await call(conn, 'diff', { stat: true, paths: ['lib/'] })).text, 'A         lib/hello.ts  +1 -0');
  assert.is(codeOf(await call(conn, 'diff', { paths: ['../x'] })), 'INVALID_ARGUMENT');
  const log = okJson(await call(conn, 'log', {}));
  assert.equal(
    log.map((b: any) => [b.batch, b.actor, b.intent, b.ops.length]),
    [
      [3, 'agent-x', 'move', 1],
      [2, 'agent-x', 'second', 1],
      [1, 'agent-x', 'seed', 3],
    ],
  );
  assert.equal(
    okJson(await call(conn, 'log', { limit: 1 })).map((b: any) => b.batch),
    [3],
  );
  const status = okJson(await call(conn, 'status', {}));
  assert.equal([status.draft, status.exists, status.batches], ['default', true, 3]);
  assert.equal(
    status.changed.map((c: any) => `${c.status} ${c.path}`),
    ['M README.md', 'A lib/hello.ts', 'D old.txt'],
  );
  assert.equal(status.drifted, []);
});

Tools(
  'checkpoint and rollback: to a checkpoint, ~N, a batch number; the state left is kept',
  async ({ repo, conn }) => {
    const one = okJson(
      await call(conn, 'batch_write', { operations: [{ operation: 'write', path: 'a.txt', content: 'one\n' }] }),
    );
    const cp = okJson(await call(conn, 'checkpoint', { name: 'first', message: 'a.txt is one' }));
    assert.equal([cp.name, cp.commit, cp.batch, cp.auto], ['first', one.commit, 1, false]);
    assert.is(codeOf(await call(conn, 'checkpoint', { name: 'first' })), 'CHECKPOINT_EXISTS');
    assert.is(codeOf(await call(conn, 'checkpoint', { name: 'bad name' })), 'INVALID_CHECKPOINT_NAME');
    const two = okJson(
      await call(conn, 'batch_write', {
        operations: [{ operation: 'edit', path: 'a.txt', old_content: 'one', content: 'two' }],
      }),
    );
    okJson(await call(conn, 'batch_write', { operations: [{ operation: 'write', path: 'b.txt', content: 'b\n' }] }));
    const back = okJson(await call(conn, 'rollback', { target: 'first' }));
    assert.equal([back.to, back.kept], [one.commit, 'auto-1']);
    assert.is(tipOf(repo), one.commit);
    assert.is(
      (await call(conn, 'read_file', { path: 'a.txt' })).text,
      'a.txt (from the draft): lines 1-1 of 1\n     1\tone',
    );
    assert.is(codeOf(await call(conn, 'read_file', { path: 'b.txt' })), 'NOT_FOUND');
    // Forward again by batch number (found through the kept checkpoint), then ~1.
    okJson(await call(conn, 'rollback', { target: '2' }));
    assert.is(tipOf(repo), two.commit);
    assert.match((await call(conn, 'read_file', { path: 'a.txt' })).text, /\n {5}1\ttwo$/);
    okJson(await call(conn, 'rollback', { target: '~1' }));
    assert.is(tipOf(repo), one.commit);
    assert.is(codeOf(await call(conn, 'rollback', { target: 'nowhere' })), 'INVALID_TARGET');
    assert.is(tipOf(repo), one.commit);
  },
);

Tools(
  "propose freezes the diff; apply_status lists a secret's pending approval (redacted) and writes nothing",
  async ({ repo, sh, conn }) => {
    assert.is(codeOf(await call(conn, 'propose', {})), 'DRAFT_NOT_FOUND');
    okJson(await call(conn, 'batch_write', { operations: [{ operation: 'write', path: 'tmp.txt', content: 'x\n' }] }));
    okJson(await call(conn, 'batch_write', { operations: [{ operation: 'delete', path: 'tmp.txt' }] }));
    assert.is(codeOf(await call(conn, 'propose', {})), 'NOTHING_TO_PROPOSE');
    okJson(
      await call(conn, 'batch_write', {
        operations: [{ operation: 'write', path: 'src/config.ts', content: `export const token = "${TOKEN}";\n` }],
      }),
    );
    const p = okJson(await call(conn, 'propose', { message: 'config' }));
    assert.match(p.patch_fingerprint, /^patchset:[0-9a-f]{64}$/);
    assert.equal(p.target_files, ['src/config.ts']);
    assert.is(p.contains_secret_introductions, true);
    assert.is(p.actor, 'agent-x');
    assert.is((await sh.review()).status, 'proposed');
    const r = await call(conn, 'apply_status', {});
    const s = okJson(r);
    assert.is(s.can_apply, false);
    assert.equal(s.paths, ['create src/config.ts']);
    assert.equal(s.conflicts, []);
    assert.equal(
      s.pending_approvals.map((a: any) => a.kind),
      ['secrets_override'],
    );
    assert.match(s.pending_approvals[0].id, /^ap-[0-9a-f]{10}$/);
    assert.equal(s.pending_approvals[0].paths, ['src/config.ts']);
    assert.not.ok(r.text.includes(TOKEN.slice(4)), 'the secret is shown');
    assert.is(repo.exists('src/config.ts'), false);
    assert.is(repo.read('README.md'), 'Hello\n');
  },
);

Tools(
  'apply: not offered and INVALID_ARGUMENT unless allowed; allowed, it publishes into the working tree',
  async ({ repo, conn }) => {
    okJson(await call(conn, 'batch_write', SEED));
    const refused = await call(conn, 'apply', {});
    assert.is(codeOf(refused), 'INVALID_ARGUMENT');
    assert.match(refused.text, /shadow apply/);
    assert.not.match(refused.text.split('\n')[1]!, /\bapply\b(?!_status)/);
    assert.is(repo.read('README.md'), 'Hello\n');
    const allowed = { ...conn, allowApply: true };
    const r = okJson(await call(allowed, 'apply', {}));
    assert.equal([r.ok, r.applied], [true, true]);
    assert.is(repo.read('README.md'), 'Hello, world\n');
    assert.is(repo.read('src/hello.ts'), 'export const hi = 1\n');
    assert.is(repo.exists('old.txt'), false);
  },
);

Tools(
  'apply (allowed) with approvals pending is an error result naming them, and writes nothing',
  async ({ repo, conn }) => {
    okJson(
      await call(conn, 'batch_write', {
        operations: [{ operation: 'write', path: 'src/config.ts', content: `export const token = "${TOKEN}";\n` }],
      }),
    );
    const r = await call({ ...conn, allowApply: true }, 'apply', {});
    assert.is(repo.exists('src/config.ts'), false);
    assert.match(r.text, /ap-[0-9a-f]{10}/);
    assert.not.ok(r.text.includes(TOKEN.slice(4)), 'the secret is shown');
    assert.is(
      r.isError,
      true,
      `apply wrote nothing (approvals pending) but the result is not an error:\n${r.text.slice(0, 400)}`,
    );
  },
);

Tools(
  'write sessions: begin, append in pieces, finalize; a failed validation is corrected at finalize; a DONE line commits',
  async ({ repo, conn }) => {
    const b = okJson(
      await call(conn, 'begin_write', { target_file: 'docs/guide.md', operation: 'create', intent: 'the guide' }),
    );
    assert.match(b.session_id, /^[0-9a-f-]{36}$/);
    assert.is(b.stage, 'awaiting_content');
    assert.match(b.instructions, /append_content.*finalize_write/s);
    assert.is(
      codeOf(await call(conn, 'begin_write', { target_file: 'docs/other.md', operation: 'create' })),
      'SESSION_ACTIVE',
    );
    const a1 = okJson(
      await call(conn, 'append_content', { session_id: b.session_id, content: '# Guide\n\nFirst par' }),
    );
    assert.equal([a1.session_id, a1.bytes >= 9], [b.session_id, true]);
    okJson(
      await call(conn, 'append_content', { session_id: b.session_id, content: 'agraph. We are DONE when it ships.\n' }),
    );
    const f = okJson(await call(conn, 'finalize_write', { session_id: b.session_id }));
    assert.equal([f.success, f.batch], [true, 1]);
    assert.is(
      (await call(conn, 'read_file', { path: 'docs/guide.md' })).text,
      'docs/guide.md (from the draft): lines 1-3 of 3\n     1\t# Guide\n     2\t\n     3\tFirst paragraph. We are DONE when it ships.',
    );
    assert.is(codeOf(await call(conn, 'finalize_write', { session_id: b.session_id })), 'SESSION_NOT_FOUND');
    assert.is(
      codeOf(await call(conn, 'append_content', { session_id: 'no-such-session', content: 'x' })),
      'SESSION_NOT_FOUND',
    );

    // A JSON target that does not parse: VALIDATION_FAILED keeps the session; the corrected content commits.
    const j = okJson(await call(conn, 'begin_write', { target_file: 'config.json', operation: 'create' }));
    okJson(await call(conn, 'append_content', { session_id: j.session_id, content: '{"a": 1,\n' }));
    const bad = await call(conn, 'finalize_write', { session_id: j.session_id });
    assert.is(codeOf(bad), 'VALIDATION_FAILED');
    assert.match(bad.text, /Nothing was written/);
    const fixed = okJson(await call(conn, 'finalize_write', { session_id: j.session_id, content: '{"a": 1}\n' }));
    assert.is(fixed.batch, 2);
    assert.match((await call(conn, 'read_file', { path: 'config.json' })).text, /\n {5}1\t\{"a": 1\}$/);

    // A line that is exactly DONE ends the content and commits it at once.
    const d = okJson(await call(conn, 'begin_write', { target_file: 'README.md', operation: 'append' }));
    const done = okJson(
      await call(conn, 'append_content', { session_id: d.session_id, content: 'more\nDONE\nnot content\n' }),
    );
    assert.equal([done.success, done.batch], [true, 3]);
    assert.is(
      (await call(conn, 'read_file', { path: 'README.md' })).text,
      'README.md (from the draft): lines 1-2 of 2\n     1\tHello\n     2\tmore',
    );
    assert.is(repo.read('README.md'), 'Hello\n');
  },
);

Tools(
  'unknown tools and bad arguments of every tool are INVALID_ARGUMENT; nothing is written',
  async ({ repo, conn }) => {
    const unknown = await call(conn, 'rm_rf', {});
    assert.is(codeOf(unknown), 'INVALID_ARGUMENT');
    assert.match(unknown.text, /the tools are: batch_write, apply_patch, read_file/);
    for (const [name, args] of BAD_ARGS) {
      const r = await call(conn, name, args);
      assert.is(codeOf(r), 'INVALID_ARGUMENT', `${name} ${JSON.stringify(args)}: ${r.text}`);
    }
    assert.is(tipOf(repo), undefined);
  },
);

Tools('the payloads the schemas take are never refused by the tools as bad arguments', async ({ conn }) => {
  for (const [name, payloads] of Object.entries(GOOD)) {
    for (const p of payloads) {
      const r = await call({ ...conn, allowApply: true }, name, p);
      if (r.isError)
        assert.not.match(r.text, /^(INVALID_ARGUMENT|INVALID_BATCH):/, `${name} ${JSON.stringify(p)}: ${r.text}`);
    }
  }
});

Tools('an unexpected failure is INTERNAL, one line, no stack', async ({ conn }) => {
  const broken = {
    ...conn,
    sh: { status: async () => Promise.reject(new Error('disk on fire')) } as unknown as Shadow,
  };
  const r = await call(broken, 'status', {});
  assert.is(r.text, 'INTERNAL: disk on fire (this is a bug in shadow, not in the call)');
  const r2 = await call({ ...conn, sh: {} as Shadow }, 'log', {});
  assert.is(codeOf(r2), 'INTERNAL');
  assert.not.match(r2.text, STACK_LINE);
});

Tools("a connection's draft: calls of a connection pinned to another draft land there", async ({ repo, sh, conn }) => {
  const pinned = { ...conn, draft: 'feature-x', actor: 'bob' };
  const r = okJson(await call(pinned, 'batch_write', SEED));
  assert.is(r.draft, 'feature-x');
  assert.is(tipOf(repo, 'feature-x'), r.commit);
  assert.is(tipOf(repo, 'default'), undefined);
  assert.is(codeOf(await call(conn, 'read_file', { path: 'src/hello.ts' })), 'NOT_FOUND');
  assert.match((await call(pinned, 'read_file', { path: 'src/hello.ts' })).text, /^src\/hello\.ts \(from the draft\)/);
  assert.is((await sh.log({ draft: 'feature-x' }))[0]!.actor, 'bob');
});

Tools('no error text carried a stack trace', () => {
  assert.ok(errorTexts.length > 50, `only ${errorTexts.length} errors seen`);
  for (const t of errorTexts) assert.not.match(t, STACK_LINE);
});

Tools.run();
