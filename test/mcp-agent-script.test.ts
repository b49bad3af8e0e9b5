import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo, treeHashes } from './helpers/disk-repo.js';
import { commits, connect, type Mcp } from './helpers/mcp-client.js';

/*
 * An agent session scripted through every shape a model knows, over stdio
 * with the official MCP SDK client against a real `shadow mcp --tools all`
 * on a small project: the text editor tool (create, view, str_replace,
 * insert, undo_edit), one multi-file Codex apply_patch, the filesystem
 * server's names; with a retry of a batch by its request id, a stale edit,
 * and a second agent writing to the same draft. Then the draft's commits,
 * read by git: one per write, none for the retry or the refusals, and the
 * person's working tree untouched.
 */

const FILES = { 'src/app.js': 'const a = 1;\nconst b = 2;\nmodule.exports = { a, b };\n', 'README.md': '# app\n' };
const REF = 'refs/shadow/drafts/default';

const Script = suite('a scripted agent, every tool shape');

Script(
  'editor, apply_patch and filesystem tools with a retry, a stale edit and a second agent: one commit per write, git reads them all',
  async () => {
    const repo = new DiskRepo(FILES);
    const before = treeHashes(repo.dir);
    let agent: Mcp | undefined;
    let other: Mcp | undefined;
    try {
      agent = await connect(repo, 'Scripted agent', ['--tools', 'all']);
      other = await connect(repo, 'Another agent', ['--tools', 'filesystem']);
      const ed = (args: Record<string, unknown>): ReturnType<Mcp['call']> =>
        agent!.call('str_replace_based_edit_tool', args);
      const path = `${repo.dir}/src/util.js`;

      // The text editor: create, view, str_replace, insert, undo_edit.
      assert.not.ok((await ed({ command: 'create', path, file_text: 'exports.twice = (x) => x * 2;\n' })).isError);
      assert.match((await ed({ command: 'view', path })).text, /twice/);
      assert.not.ok((await ed({ command: 'str_replace', path, old_str: 'x * 2', new_str: 'x + x' })).isError);
      assert.not.ok(
        (await ed({ command: 'insert', path, insert_line: 1, insert_text: 'exports.thrice = (x) => x * 3;\n' }))
          .isError,
      );
      assert.not.ok((await agent.call('str_replace_editor', { command: 'undo_edit', path })).isError);
      assert.is(repo.git('show', `${REF}:src/util.js`), 'exports.twice = (x) => x + x;\n');

      // One Codex patch over two files.
      const patch = [
        '*** Begin Patch',
        '*** Update File: src/app.js',
        '@@',
        ' const a = 1;',
        '-const b = 2;',
        '+const b = 3;',
        '*** Add File: src/c.js',
        '+exports.c = 4;',
        '*** End Patch',
      ].join('\n');
      const patched = await agent.call('apply_patch', { input: patch });
      assert.not.ok(patched.isError, patched.text);
      assert.match(patched.text, /Success\. Updated the following files:\nA src\/c\.js\nM src\/app\.js/);

      // A batch with a request id, sent twice (its answer lost): one commit.
      const batch = {
        intent: 'notes',
        request_id: 'agent-step-7',
        operations: [{ operation: 'write', path: 'NOTES.md', content: 'notes\n' }],
      };
      const first = await agent.call('batch_write', batch);
      const tip = repo.ref(REF);
      const retry = await agent.call('batch_write', batch);
      assert.not.ok(retry.isError, retry.text);
      assert.is(repo.ref(REF), tip, 'the retry committed nothing');
      assert.not.ok(first.isError);

      // A second agent changes src/app.js through the filesystem tools; the first agent's stale str_replace is refused.
      await agent.call('read_text_file', { path: 'src/app.js' });
      assert.not.ok(
        (
          await other.call('edit_file', {
            path: 'src/app.js',
            edits: [{ oldText: 'const a = 1;', newText: 'const a = 10;' }],
          })
        ).isError,
      );
      const stale = await ed({
        command: 'str_replace',
        path: `${repo.dir}/src/app.js`,
        old_str: 'const a = 1;',
        new_str: 'const a = 100;',
      });
      assert.ok(stale.isError);
      assert.is(
        repo.git('show', `${REF}:src/app.js`),
        'const a = 10;\nconst b = 3;\nmodule.exports = { a, b };\n',
        "the other agent's change stands",
      );
      assert.match((await agent.call('list_directory', { path: 'src' })).text, /\[FILE\] c\.js/);

      // What git sees: one commit per write (create, str_replace, insert, undo, patch, notes, the other's edit), nothing else.
      const log = commits(repo, `HEAD..${REF}`);
      assert.is(log.length, 7, log.map((c) => c.subject).join('\n'));
      assert.ok(log.every((c) => c.trailers['Shadow-Draft'] === 'default' && c.trailers['Shadow-Batch'] !== undefined));
      assert.is(log.filter((c) => c.trailers['Shadow-Request'] === 'agent-step-7').length, 1);
      assert.is(repo.gitResult('fsck', '--strict', '--no-progress').status, 0);
      assert.equal(treeHashes(repo.dir), before, "the person's working tree is untouched");
    } finally {
      await agent?.close();
      await other?.close();
      repo.cleanup();
    }
  },
);

Script.run();
