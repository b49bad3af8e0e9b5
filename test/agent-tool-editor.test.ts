import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openShadow, type Shadow } from '../src/index.js';
import type { ToolConnection, ToolOutcome } from '../src/agent-tools/call-tool.js';
import { insertAfterLine, maybeTruncate, shownPath, TRUNCATED_MESSAGE } from '../src/agent-tools/editor-text.js';
import { lastEditOf, revertedBy } from '../src/agent-tools/editor-undo.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { withReplacingRename } from './helpers/memfs-rename.js';
import { codeOf } from './helpers/tool-outcome.js';
import { checkedCall } from './helpers/tool-schemas.js';

/*
 * Anthropic's text editor tool in-process, on memfs, through callTool as
 * `shadow mcp --tools anthropic` calls it: each command, its texts and
 * structured content (held to the outputSchema), one batch per write, the
 * compare-and-swap that keeps another agent's change, and undo_edit. The
 * texts are the reference implementation's (mcp-editor-reference.test.ts
 * holds them to its own answers case by case).
 */

const FILES = {
  'README.md': 'Hello\n',
  'src/app.js': 'function greet(name) {\n  return "hi " + name;\n}\n\nmodule.exports = { greet };\n',
  'notes/a.txt': 'one\ntwo\nthree\ntwo\n',
  'notes/deep/b.txt': 'b\n',
  'notes/deep/deeper/c.txt': 'c\n',
  'crlf.txt': 'a\r\nb\r\n',
  '.hidden/x.txt': 'x\n',
};

interface Ctx {
  repo: MemRepo;
  sh: Shadow;
  conn: ToolConnection;
  other: ToolConnection;
}

const Editor = suite<Ctx>('the text editor tool (callTool)');
Editor.before.each(async (c) => {
  c.repo = await memRepo(FILES);
  const { ctx } = c.repo;
  c.sh = await openShadow({
    dir: c.repo.dir,
    fs: withReplacingRename(ctx.fs),
    clock: ctx.clock,
    ids: ctx.ids,
    env: ctx.env,
  });
  c.conn = { sh: c.sh, draft: 'default', actor: 'claude', profiles: ['anthropic'] };
  c.other = { sh: c.sh, draft: 'default', actor: 'codex', profiles: ['anthropic', 'filesystem'] };
});
Editor.after.each((c) => c.sh.close());

const edit = (conn: ToolConnection, args: Record<string, unknown>): Promise<ToolOutcome> =>
  checkedCall(conn, 'str_replace_based_edit_tool', args);
const okText = (r: ToolOutcome): string => {
  assert.is(r.isError, false, r.text);
  return r.text;
};
const bytes = async (sh: Shadow, path: string): Promise<string> => (await sh.cat(path)).content.toString('utf8');
const batches = async (sh: Shadow): Promise<number> => (await sh.log()).length;

Editor(
  'view: a file as cat -n, the empty line after a last newline numbered, a final newline; view_range as the reference bounds it; the path as pathlib prints it; the blob id in the structured content',
  async ({ conn, sh }) => {
    const whole = await edit(conn, { command: 'view', path: '/repo/notes/a.txt' });
    assert.is(
      okText(whole),
      "Here's the result of running `cat -n` on /repo/notes/a.txt:\n     1\tone\n     2\ttwo\n     3\tthree\n     4\ttwo\n     5\t\n",
    );
    assert.equal(whole.structured, {
      command: 'view',
      path: '/repo/notes/a.txt',
      kind: 'file',
      content: FILES['notes/a.txt'],
      start_line: 1,
      end_line: 5,
      total_lines: 5,
      oid: (await sh.cat('notes/a.txt')).oid,
    });
    assert.is(
      okText(await edit(conn, { command: 'view', path: 'notes/a.txt', view_range: [2, 3] })),
      "Here's the result of running `cat -n` on notes/a.txt:\n     2\ttwo\n     3\tthree\n",
    );
    assert.is(
      okText(await edit(conn, { command: 'view', path: './notes//a.txt', view_range: [3, -1] })),
      "Here's the result of running `cat -n` on notes/a.txt:\n     3\tthree\n     4\ttwo\n     5\t\n",
    );
    const past = await edit(conn, { command: 'view', path: 'notes/a.txt', view_range: [4, 99] });
    assert.is(codeOf(past), 'INVALID_ARGUMENT');
    assert.match(
      past.text,
      /^INVALID_ARGUMENT: Invalid `view_range`: \[4, 99\]\. Its second element `99` should be smaller than the number of lines in the file: `5`\n/,
    );
    assert.match(
      (await edit(conn, { command: 'view', path: 'notes/a.txt', view_range: [0, 2] })).text,
      /^INVALID_ARGUMENT: Invalid `view_range`: \[0, 2\]\. Its first element `0` should be within the range of lines of the file: \[1, 5\]\n/,
    );
    assert.match(
      (await edit(conn, { command: 'view', path: 'notes/a.txt', view_range: [3, 2] })).text,
      /^INVALID_ARGUMENT: Invalid `view_range`: \[3, 2\]\. Its second element `2` should be larger or equal than its first `3`\n/,
    );
    assert.is(codeOf(await edit(conn, { command: 'view', path: 'notes/a.txt', view_range: [1] })), 'INVALID_ARGUMENT');
    const missing = await edit(conn, { command: 'view', path: 'notes/none.txt' });
    assert.is(codeOf(missing), 'NOT_FOUND');
    assert.match(
      missing.text,
      /^NOT_FOUND: The path notes\/none\.txt does not exist\. Please provide a valid path\.\n/,
    );
  },
);

Editor(
  'view: a directory as find -maxdepth 2 lists it (the path first, hidden entries left out, a blank line after), by name; view_range there is refused',
  async ({ conn }) => {
    const r = await edit(conn, { command: 'view', path: '/repo/' });
    assert.is(
      okText(r),
      "Here's the files and directories up to 2 levels deep in /repo, excluding hidden items:\n/repo\n/repo/README.md\n/repo/crlf.txt\n/repo/notes\n/repo/notes/a.txt\n/repo/notes/deep\n/repo/src\n/repo/src/app.js\n\n",
    );
    assert.equal(r.structured!.kind, 'directory');
    assert.is(
      okText(await edit(conn, { command: 'view', path: 'notes' })).split(':\n')[1],
      'notes\nnotes/a.txt\nnotes/deep\nnotes/deep/b.txt\nnotes/deep/deeper\n\n',
    );
    // find's -not -path '*/.*' leaves out everything under a hidden directory given as the path, itself included.
    assert.is(okText(await edit(conn, { command: 'view', path: '/repo/.hidden' })).split(':\n')[1], '\n');
    const ranged = await edit(conn, { command: 'view', path: 'notes', view_range: [1, 2] });
    assert.match(
      ranged.text,
      /^INVALID_ARGUMENT: The `view_range` parameter is not allowed when `path` points to a directory\.\n/,
    );
  },
);

Editor(
  'create: one batch per file, byte for byte whatever the content; an existing file or directory is refused, viewed or not; the working tree untouched',
  async ({ repo, conn, sh }) => {
    const texts = [
      'plain\n',
      'no newline at the end',
      'crlf\r\nlines\r\n',
      'ünïcödé ✓\n\n\ttabs\n',
      '+++ b/x\n--- a/y\n@@ -1 +1 @@\n',
      '',
    ];
    for (const [i, text] of texts.entries()) {
      const before = await batches(sh);
      const r = await edit(conn, { command: 'create', path: `/repo/made/f${i}.txt`, file_text: text });
      assert.is(okText(r), `File created successfully at: /repo/made/f${i}.txt`);
      assert.is(await bytes(sh, `made/f${i}.txt`), text, JSON.stringify(text));
      assert.is(await batches(sh), before + 1);
      assert.is(r.structured!.batch, before + 1);
    }
    assert.is(repo.exists('made'), false);
    const batchesBefore = await batches(sh);
    for (const seen of [false, true]) {
      if (seen) okText(await edit(conn, { command: 'view', path: 'README.md' }));
      const again = await edit(conn, { command: 'create', path: 'README.md', file_text: 'replaced\n' });
      assert.match(
        again.text,
        /^ALREADY_EXISTS: File already exists at: README\.md\. Cannot overwrite files using command `create`\.\n/,
      );
      assert.is(await bytes(sh, 'README.md'), 'Hello\n');
    }
    assert.is(codeOf(await edit(conn, { command: 'create', path: 'notes', file_text: 'x' })), 'ALREADY_EXISTS');
    assert.match(
      (await edit(conn, { command: 'create', path: 'x.txt' })).text,
      /^INVALID_ARGUMENT: Parameter `file_text` is required for command: create\n/,
    );
    assert.is(await batches(sh), batchesBefore);
  },
);

Editor(
  "str_replace: the edit op in one batch, the reference's snippet after; no match and several matches in the reference's words, with the closest lines and the matches' lines; nothing written then",
  async ({ conn, sh }) => {
    const r = await edit(conn, {
      command: 'str_replace',
      path: '/repo/src/app.js',
      old_str: '  return "hi " + name;',
      new_str: '  return `hi ${name}`;',
    });
    assert.is(
      okText(r),
      "The file /repo/src/app.js has been edited. Here's the result of running `cat -n` on a snippet of /repo/src/app.js:\n" +
        '     1\tfunction greet(name) {\n     2\t  return `hi ${name}`;\n     3\t}\n     4\t\n     5\tmodule.exports = { greet };\n     6\t\n' +
        'Review the changes and make sure they are as expected. Edit the file again if necessary.',
    );
    assert.is(
      await bytes(sh, 'src/app.js'),
      'function greet(name) {\n  return `hi ${name}`;\n}\n\nmodule.exports = { greet };\n',
    );
    const [entry] = await sh.log();
    assert.equal([entry!.batch, entry!.actor, entry!.ops], [1, 'claude', [{ operation: 'edit', path: 'src/app.js' }]]);

    const none = await edit(conn, {
      command: 'str_replace',
      path: 'src/app.js',
      old_str: 'function greet(nome) {',
      new_str: 'x',
    });
    assert.is(codeOf(none), 'EDIT_NO_MATCH');
    assert.match(
      none.text,
      /^EDIT_NO_MATCH: No replacement was performed, old_str `function greet\(nome\) \{` did not appear verbatim in src\/app\.js\.\n/,
    );
    assert.match(none.text, /closest lines:\n {5}1\tfunction greet\(name\) \{/);
    assert.equal((none.structured!.error as any).data.closest[0].line, 1);
    const many = await edit(conn, { command: 'str_replace', path: 'notes/a.txt', old_str: 'two', new_str: '2' });
    assert.is(codeOf(many), 'EDIT_AMBIGUOUS');
    assert.match(
      many.text,
      /^EDIT_AMBIGUOUS: No replacement was performed\. Multiple occurrences of old_str `two` in lines \[2, 4\]\. Please ensure it is unique\n/,
    );
    assert.equal((many.structured!.error as any).data.lines, [2, 4]);
    assert.is(await batches(sh), 1);
    assert.is(await bytes(sh, 'notes/a.txt'), FILES['notes/a.txt']);
    // new_str left out deletes; a CRLF file matches an LF old_str and keeps its line ends.
    okText(await edit(conn, { command: 'str_replace', path: 'notes/a.txt', old_str: 'three\n' }));
    assert.is(await bytes(sh, 'notes/a.txt'), 'one\ntwo\ntwo\n');
    okText(await edit(conn, { command: 'str_replace', path: 'crlf.txt', old_str: 'a\nb', new_str: 'A\nB' }));
    assert.is(await bytes(sh, 'crlf.txt'), 'A\r\nB\r\n');
    assert.is(codeOf(await edit(conn, { command: 'str_replace', path: 'crlf.txt', old_str: '' })), 'INVALID_ARGUMENT');
  },
);

Editor(
  'str_replace counts as str.count does, without overlaps: `}\\n}` is once in `}\\n}\\n}` at home, so it is replaced at the first place, in one batch; two apart are still several',
  async ({ conn, sh }) => {
    await sh.write('braces.js', 'if (a) {\n  if (b) {\n}\n}\n}\n');
    const r = await edit(conn, { command: 'str_replace', path: 'braces.js', old_str: '}\n}', new_str: '  }\n}' });
    okText(r);
    // Python: 'if (a) {\n  if (b) {\n}\n}\n}\n'.replace('}\n}', '  }\n}') replaces the one non-overlapping match.
    assert.is(await bytes(sh, 'braces.js'), 'if (a) {\n  if (b) {\n  }\n}\n}\n');
    assert.is(await batches(sh), 2);
    await sh.write('twice.js', '}\n}\n}\n}\n');
    const many = await edit(conn, { command: 'str_replace', path: 'twice.js', old_str: '}\n}', new_str: 'x' });
    assert.is(codeOf(many), 'EDIT_AMBIGUOUS');
    assert.is(await bytes(sh, 'twice.js'), '}\n}\n}\n}\n');
  },
);

Editor(
  'insert: after line N as the reference splits lines (0: the top; after the empty last line: the very end), insert_text or new_str; CRLF kept; out of range names the range',
  async ({ conn, sh }) => {
    const r = await edit(conn, {
      command: 'insert',
      path: 'notes/a.txt',
      insert_line: 1,
      insert_text: 'one and a half',
    });
    assert.match(
      okText(r),
      /^The file notes\/a\.txt has been edited\. Here's the result of running `cat -n` on a snippet of the edited file:\n {5}1\tone\n {5}2\tone and a half\n {5}3\ttwo\n/,
    );
    assert.is(await bytes(sh, 'notes/a.txt'), 'one\none and a half\ntwo\nthree\ntwo\n');
    okText(await edit(conn, { command: 'insert', path: 'notes/a.txt', insert_line: 0, new_str: 'zero' }));
    okText(await edit(conn, { command: 'insert', path: 'notes/a.txt', insert_line: 6, insert_text: 'end\nreally' }));
    assert.is(await bytes(sh, 'notes/a.txt'), 'zero\none\none and a half\ntwo\nthree\ntwo\nend\nreally\n');
    okText(await edit(conn, { command: 'insert', path: 'crlf.txt', insert_line: 1, insert_text: 'mid' }));
    assert.is(await bytes(sh, 'crlf.txt'), 'a\r\nmid\r\nb\r\n');
    assert.is(await batches(sh), 4);
    const far = await edit(conn, { command: 'insert', path: 'crlf.txt', insert_line: 9, insert_text: 'x' });
    assert.is(codeOf(far), 'INVALID_ARGUMENT');
    assert.match(
      far.text,
      /^INVALID_ARGUMENT: Invalid `insert_line` parameter: 9\. It should be within the range of lines of the file: \[0, 4\]\n/,
    );
    assert.match(
      (await edit(conn, { command: 'insert', path: 'crlf.txt', insert_line: 1 })).text,
      /^INVALID_ARGUMENT: Parameter `insert_text` is required for command: insert\n/,
    );
    assert.match(
      (await checkedCall(conn, 'str_replace_editor', { command: 'insert', path: 'crlf.txt', insert_line: 1 })).text,
      /^INVALID_ARGUMENT: Parameter `new_str` is required/,
    );
    assert.is(
      codeOf(await edit(conn, { command: 'insert', path: 'crlf.txt', insert_line: 1, insert_text: 'a', new_str: 'b' })),
      'INVALID_ARGUMENT',
    );
    assert.is(
      codeOf(await edit(conn, { command: 'insert', path: 'crlf.txt', insert_line: -1, insert_text: 'a' })),
      'INVALID_ARGUMENT',
    );
    assert.is(await batches(sh), 4);
  },
);

Editor(
  'a stale edit: another agent writes the file between view and edit; str_replace and insert fail with EXPECT_FAILED and keep its change; viewed again, the edit lands',
  async ({ conn, other, sh }) => {
    okText(await edit(conn, { command: 'view', path: 'src/app.js' }));
    // Another agent on the same draft, through the filesystem shape: a change elsewhere in the file.
    okText(
      await checkedCall(other, 'edit_file', {
        path: 'src/app.js',
        edits: [{ oldText: 'module.exports = { greet };', newText: 'module.exports = { greet, hello: greet };' }],
      }),
    );
    const theirs = await bytes(sh, 'src/app.js');
    for (const args of [
      {
        command: 'str_replace',
        path: 'src/app.js',
        old_str: '  return "hi " + name;',
        new_str: '  return "hello " + name;',
      },
      { command: 'insert', path: 'src/app.js', insert_line: 0, insert_text: '// greeting' },
    ]) {
      const r = await edit(conn, args);
      assert.is(codeOf(r), 'EXPECT_FAILED', r.text);
      assert.match(r.text, /changed since you last viewed it/);
      assert.is(await bytes(sh, 'src/app.js'), theirs);
    }
    assert.is(await batches(sh), 1);
    okText(await edit(conn, { command: 'view', path: 'src/app.js' }));
    okText(
      await edit(conn, {
        command: 'str_replace',
        path: 'src/app.js',
        old_str: '  return "hi " + name;',
        new_str: '  return "hello " + name;',
      }),
    );
    assert.is(await bytes(sh, 'src/app.js'), theirs.replace('"hi "', '"hello "'));
    // Its own writes keep it current: the next edit needs no new view.
    okText(await edit(conn, { command: 'insert', path: 'src/app.js', insert_line: 0, insert_text: '// greeting' }));
    assert.match(await bytes(sh, 'src/app.js'), /^\/\/ greeting\nfunction greet/);
  },
);

Editor(
  "undo_edit (str_replace_editor only): back edit by edit, each a revert batch; the create undone removes the file; NOTHING_TO_UNDO; refuses a batch of other paths and another actor's",
  async ({ conn, other, sh }) => {
    const undo = (c: ToolConnection, path: string): Promise<ToolOutcome> =>
      checkedCall(c, 'str_replace_editor', { command: 'undo_edit', path });
    const unknown = await edit(conn, { command: 'undo_edit', path: 'README.md' });
    assert.match(
      unknown.text,
      /^INVALID_ARGUMENT: Unrecognized command undo_edit\. The allowed commands for the str_replace_based_edit_tool tool are: view, create, str_replace, insert\n/,
    );
    assert.match((await undo(conn, 'README.md')).text, /^NOTHING_TO_UNDO: No edit history found for README\.md\.\n/);
    okText(await edit(conn, { command: 'create', path: 'u.txt', file_text: 'v1\n' }));
    okText(await edit(conn, { command: 'str_replace', path: 'u.txt', old_str: 'v1', new_str: 'v2' }));
    okText(await edit(conn, { command: 'insert', path: 'u.txt', insert_line: 1, insert_text: 'v3' }));
    assert.is(await bytes(sh, 'u.txt'), 'v2\nv3\n');
    const one = await undo(conn, '/repo/u.txt');
    assert.is(
      okText(one),
      "Last edit to /repo/u.txt undone successfully. Here's the result of running `cat -n` on /repo/u.txt:\n     1\tv2\n     2\t\n",
    );
    assert.equal([one.structured!.batch, one.structured!.undone], [4, 3]);
    okText(await undo(conn, 'u.txt'));
    assert.is(await bytes(sh, 'u.txt'), 'v1\n');
    assert.match(
      okText(await undo(conn, 'u.txt')),
      /^Last edit to u\.txt undone successfully\. The file no longer exists: that edit created it\.$/,
    );
    await sh.cat('u.txt').then(
      () => assert.unreachable('u.txt is still there'),
      (e: { code: string }) => assert.is(e.code, 'NOT_FOUND'),
    );
    assert.is(codeOf(await undo(conn, 'u.txt')), 'NOT_FOUND');
    assert.is(await batches(sh), 6);

    await sh.batch(
      {
        operations: [
          { operation: 'write', path: 'README.md', content: 'both\n' },
          { operation: 'write', path: 'other.txt', content: 'o\n' },
        ],
      },
      { actor: 'claude' },
    );
    const wide = await undo(conn, 'README.md');
    assert.is(codeOf(wide), 'INVALID_TARGET');
    assert.match(wide.text, /also changed other\.txt/);
    okText(await edit(other, { command: 'view', path: 'notes/a.txt' }));
    okText(await edit(other, { command: 'insert', path: 'notes/a.txt', insert_line: 0, insert_text: 'theirs' }));
    const foreign = await undo(conn, 'notes/a.txt');
    assert.is(codeOf(foreign), 'CONFLICT');
    assert.match(foreign.text, /by codex, not yours/);
    assert.is(await bytes(sh, 'notes/a.txt'), `theirs\n${FILES['notes/a.txt']}`);
    assert.is(await batches(sh), 8);
  },
);

Editor(
  "paths and arguments: outside the repository INVALID_PATH, .git refused, a symlink NOT_A_FILE, missing fields and unknown commands in the reference's words; the tools only under their profile; str_replace_editor answers too",
  async ({ repo, conn, sh }) => {
    for (const path of ['/etc/passwd', '../outside.txt', '/repo/../etc/x'])
      assert.is(codeOf(await edit(conn, { command: 'view', path })), 'INVALID_PATH', path);
    assert.is(codeOf(await edit(conn, { command: 'create', path: '.git/config', file_text: 'x' })), 'INVALID_PATH');
    const missing = await edit(conn, { command: 'str_replace', path: 'README.md', new_str: 'x' });
    assert.is(codeOf(missing), 'INVALID_ARGUMENT');
    assert.match(missing.text, /^INVALID_ARGUMENT: Parameter `old_str` is required for command: str_replace\n/);
    assert.match(
      (await checkedCall(conn, 'str_replace_editor', { command: 'delete', path: 'README.md' })).text,
      /^INVALID_ARGUMENT: Unrecognized command delete\. The allowed commands for the str_replace_editor tool are: view, create, str_replace, insert, undo_edit\n/,
    );
    assert.match(
      (await edit(conn, { command: 'str_replace', path: 'notes', old_str: 'x' })).text,
      /^IS_A_DIRECTORY: The path notes is a directory and only the `view` command can be used on directories\n/,
    );
    assert.is(codeOf(await edit(conn, { command: 'view', path: 'README.md', extra: 1 })), 'INVALID_ARGUMENT');
    assert.match(
      okText(await checkedCall(conn, 'str_replace_editor', { command: 'view', path: 'README.md' })),
      /1\tHello/,
    );
    // A symlink, here one leaving the repository, is neither read nor written through (the reference follows it).
    (repo.fs as unknown as { symlinkSync(target: string, path: string): void }).symlinkSync(
      '/etc/passwd',
      `${repo.dir}/out-link`,
    );
    for (const args of [
      { command: 'view', path: 'out-link' },
      { command: 'str_replace', path: 'out-link', old_str: 'root', new_str: 'x' },
      { command: 'insert', path: 'out-link', insert_line: 0, insert_text: 'x' },
    ]) {
      assert.match(
        (await edit(conn, args)).text,
        /^NOT_A_FILE: out-link is a symlink \(to \/etc\/passwd\)\n/,
        args.command,
      );
    }
    const shadowOnly = { ...conn, profiles: undefined };
    for (const name of ['str_replace_based_edit_tool', 'str_replace_editor'])
      assert.is(
        codeOf(await checkedCall(shadowOnly, name, { command: 'view', path: 'README.md' })),
        'INVALID_ARGUMENT',
      );
    assert.is(await batches(sh), 0);
  },
);

Editor.run();

const Text = suite("the editor's text and undo helpers");

Text(
  "insertAfterLine: the reference's lines[:n] + text.split('\\n') + lines[n:] joined by \\n, at the top, the middle and the end; a CRLF file's new line ends CRLF",
  () => {
    const cases: Array<[string, number, string, string]> = [
      ['a\nb\n', 0, 'x', 'x\na\nb\n'],
      ['a\nb\n', 1, 'x\n', 'a\nx\n\nb\n'],
      ['a\nb\n', 3, 'x', 'a\nb\n\nx'],
      ['a\nb\n', 2, 'x', 'a\nb\nx\n'],
      ['a\nb', 2, 'x', 'a\nb\nx'],
      ['a\nb', 1, 'x', 'a\nx\nb'],
      ['', 0, 'x', 'x\n'],
      ['', 0, '', '\n'],
      ['a\r\nb\r\n', 2, 'x\ny', 'a\r\nb\r\nx\r\ny\r\n'],
      ['a\r\nb\r\n', 0, 'x', 'x\r\na\r\nb\r\n'],
      ['a\r\nb\r\n', 1, 'x', 'a\r\nx\r\nb\r\n'],
      ['a\r\nb\r\n', 3, 'x', 'a\r\nb\r\n\r\nx'],
    ];
    for (const [text, after, insert, want] of cases)
      assert.is(insertAfterLine(text, after, insert), want, JSON.stringify([text, after, insert]));
  },
);

Text(
  "shownPath: a path as Python's str(Path(p)) prints it; maybeTruncate: cut after 16000 code points, as Python counts them",
  () => {
    const paths: Array<[string, string]> = [
      ['/repo/', '/repo'],
      ['./a//b/', 'a/b'],
      ['.', '.'],
      ['./', '.'],
      ['/', '/'],
      ['//x', '//x'],
      ['///x', '/x'],
      ['a/../b', 'a/../b'],
      ['/a/./b', '/a/b'],
    ];
    for (const [given, shown] of paths) assert.is(shownPath(given), shown, given);
    const face = '\u{1F600}';
    assert.is(maybeTruncate(face.repeat(16000)), face.repeat(16000));
    assert.is(maybeTruncate(face.repeat(16001)), `${face.repeat(16000)}${TRUNCATED_MESSAGE}`);
    assert.is(maybeTruncate('x'.repeat(16001)), `${'x'.repeat(16000)}${TRUNCATED_MESSAGE}`);
  },
);

Text(
  'lastEditOf: the newest batch still in effect on the path; reverts and what they reverted passed over; renames count both ends',
  () => {
    const e = (batch: number, intent: string, ops: Array<[string, string, string?]>) => ({
      batch,
      commit: '',
      actor: 'a',
      time: '',
      intent,
      ops: ops.map(([operation, path, arg]) => ({ operation, path, ...(arg ? { arg } : {}) })),
      captured: [],
    });
    const log = [
      e(5, 'revert batch 4 (edit a), batch 2 (x)', []),
      e(4, 'edit a', [['edit', 'a']]),
      e(3, 'rename', [['rename', 'b', 'a']]),
      e(2, 'x', [['write', 'a']]),
      e(1, 'w', [['write', 'a']]),
    ];
    assert.equal(revertedBy(log[0]!), [4, 2]);
    assert.equal(revertedBy({ intent: 'reverted nothing' }), []);
    assert.is(lastEditOf(log as never, 'a')?.batch, 3);
    assert.is(lastEditOf(log as never, 'b')?.batch, 3);
    assert.is(lastEditOf(log as never, 'c'), undefined);
  },
);

Text.run();
