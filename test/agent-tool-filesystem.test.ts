import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Shadow } from '../src/index.js';
import type { ToolConnection, ToolOutcome } from '../src/agent-tools/call-tool.js';
import { formatSize } from '../src/agent-tools/filesystem-walk.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { codeOf } from './helpers/tool-outcome.js';
import { checkedCall } from './helpers/tool-schemas.js';

/*
 * The MCP filesystem server's tools in-process, on memfs, through callTool
 * as `shadow mcp --tools filesystem` calls them: the texts that server
 * answers with and `{ content }`, each write one batch on the draft, the
 * compare-and-swap of edit_file against a write that lands between its read
 * and its batch, and the name shared with shadow's read_file.
 */

const FILES = {
  'README.md': 'Hello\n',
  'src/app.ts': 'export const a = 1;\nexport const b = 2;\nexport const a2 = 1;\n',
  'src/lib/util.ts': 'export function id<T>(x: T): T {\n  return x;\n}\n',
  'src/lib/util.test.ts': 'test\n',
  'docs/guide.md': '# Guide\n\nline\n',
  '.gitignore': 'build/\n',
  'build/out.js': 'ignored\n',
};

interface Ctx {
  repo: MemRepo;
  sh: Shadow;
  conn: ToolConnection;
}

const Fs = suite<Ctx>('the filesystem server\'s tools (callTool)');
Fs.before.each(async (c) => {
  c.repo = await memRepo(FILES);
  c.sh = await c.repo.open();
  c.conn = { sh: c.sh, draft: 'default', actor: 'fs-client', profiles: ['filesystem'] };
});
Fs.after.each((c) => c.sh.close());

const said = (r: ToolOutcome): string => {
  assert.is(r.isError, false, r.text);
  assert.equal(r.structured, { content: r.text });
  return r.text;
};
const bytes = async (sh: Shadow, path: string): Promise<string> => (await sh.cat(path)).content.toString('utf8');
const batches = async (sh: Shadow): Promise<number> => (await sh.log()).length;

Fs('read_text_file and read_file: the text, head and tail lines, both refused; absolute paths inside the repository only', async ({ conn }) => {
  for (const name of ['read_text_file', 'read_file']) {
    assert.is(said(await checkedCall(conn, name, { path: '/repo/src/app.ts' })), FILES['src/app.ts']);
    assert.is(said(await checkedCall(conn, name, { path: 'src/app.ts', head: 2 })), 'export const a = 1;\nexport const b = 2;');
    assert.is(said(await checkedCall(conn, name, { path: 'src/app.ts', tail: 1 })), 'export const a2 = 1;');
    assert.is(codeOf(await checkedCall(conn, name, { path: 'src/app.ts', head: 1, tail: 1 })), 'INVALID_ARGUMENT');
    assert.is(codeOf(await checkedCall(conn, name, { path: '/etc/hostname' })), 'INVALID_PATH');
    assert.is(codeOf(await checkedCall(conn, name, { path: 'src' })), 'IS_A_DIRECTORY');
  }
  const many = said(await checkedCall(conn, 'read_multiple_files', { paths: ['README.md', 'nope.md', '/repo/docs/guide.md'] }));
  assert.is(many, `README.md:\nHello\n\n\n---\nnope.md: Error - NOT_FOUND: nope.md does not exist in the view of draft "default"\n---\n/repo/docs/guide.md:\n# Guide\n\nline\n\n`);
});

Fs('write_file: one batch, byte for byte, the working tree untouched', async ({ repo, conn, sh }) => {
  assert.is(said(await checkedCall(conn, 'write_file', { path: '/repo/new/dir/file.txt', content: 'made\n' })), 'Successfully wrote to /repo/new/dir/file.txt');
  assert.is(said(await checkedCall(conn, 'write_file', { path: 'README.md', content: 'Bye' })), 'Successfully wrote to README.md');
  assert.is(await bytes(sh, 'new/dir/file.txt'), 'made\n');
  assert.is(await bytes(sh, 'README.md'), 'Bye');
  const log = await sh.log();
  assert.equal(log.map((e) => [e.batch, e.actor, e.ops]), [
    [2, 'fs-client', [{ operation: 'write', path: 'README.md' }]],
    [1, 'fs-client', [{ operation: 'write', path: 'new/dir/file.txt' }]],
  ]);
  assert.is(repo.read('README.md'), 'Hello\n');
  assert.is(codeOf(await checkedCall(conn, 'write_file', { path: '../x', content: 'x' })), 'INVALID_PATH');
});

Fs('edit_file: a dry run shows the git-style diff and writes nothing; the edits land as one batch in order; no match and several matches fail with the batch codes', async ({ conn, sh }) => {
  const edits = [
    { oldText: 'export const b = 2;', newText: 'export const b = 3;' },
    { oldText: 'export const b = 3;\n', newText: 'export const b = 3;\nexport const c = 4;\n' },
  ];
  const diff = said(await checkedCall(conn, 'edit_file', { path: 'src/app.ts', edits, dryRun: true }));
  assert.is(
    diff,
    '```diff\nIndex: src/app.ts\n===================================================================\n--- src/app.ts\toriginal\n+++ src/app.ts\tmodified\n' +
      '@@ -1,3 +1,4 @@\n export const a = 1;\n-export const b = 2;\n+export const b = 3;\n+export const c = 4;\n export const a2 = 1;\n```\n\n',
  );
  assert.is(await batches(sh), 0);
  assert.is(said(await checkedCall(conn, 'edit_file', { path: 'src/app.ts', edits })), diff);
  assert.is(await bytes(sh, 'src/app.ts'), 'export const a = 1;\nexport const b = 3;\nexport const c = 4;\nexport const a2 = 1;\n');
  const [entry] = await sh.log();
  assert.equal(entry!.ops, [{ operation: 'edit', path: 'src/app.ts' }, { operation: 'edit', path: 'src/app.ts' }]);

  for (const dryRun of [true, false]) {
    const none = await checkedCall(conn, 'edit_file', { path: 'src/app.ts', edits: [{ oldText: 'export const d = 1;', newText: 'x' }], dryRun });
    assert.is(codeOf(none), 'EDIT_NO_MATCH');
    assert.match(none.text, /closest/);
    const many = await checkedCall(conn, 'edit_file', { path: 'src/app.ts', edits: [{ oldText: ' = 1;', newText: ' = 9;' }], dryRun });
    assert.is(codeOf(many), 'EDIT_AMBIGUOUS');
    assert.match(many.text, /lines 1, 4/);
  }
  assert.is(await batches(sh), 1);
  assert.is(said(await checkedCall(conn, 'edit_file', { path: 'src/app.ts', edits: [] })), '```diff\nIndex: src/app.ts\n===================================================================\n--- src/app.ts\toriginal\n+++ src/app.ts\tmodified\n```\n\n');
});

Fs('edit_file: a write that lands between its read and its batch is never overwritten: EXPECT_FAILED, though its oldText still matches', async ({ conn, sh }) => {
  let raced = false;
  // The handle as the tool sees it: the first read of the file lets another agent's write land right after it.
  const racing = new Proxy(sh, {
    get(target, key) {
      if (key !== 'cat') return Reflect.get(target, key, target);
      return async (...args: Parameters<Shadow['cat']>) => {
        const f = await target.cat(...args);
        if (!raced) {
          raced = true;
          const r = await target.batch({ operations: [{ operation: 'write', path: 'src/app.ts', content: `// theirs\n${FILES['src/app.ts']}` }] }, { actor: 'other' });
          assert.ok(r.success);
        }
        return f;
      };
    },
  });
  const r = await checkedCall({ ...conn, sh: racing }, 'edit_file', { path: 'src/app.ts', edits: [{ oldText: 'export const b = 2;', newText: 'export const b = 3;' }] });
  assert.is(codeOf(r), 'EXPECT_FAILED');
  assert.is(await bytes(sh, 'src/app.ts'), `// theirs\n${FILES['src/app.ts']}`);
  assert.equal((await sh.log()).map((e) => e.actor), ['other']);
});

Fs('create_directory writes nothing and succeeds, unless a file is in the way; list_directory and list_directory_with_sizes', async ({ conn, sh }) => {
  assert.match(said(await checkedCall(conn, 'create_directory', { path: '/repo/src/new/deeper' })), /^Successfully created directory \/repo\/src\/new\/deeper/);
  assert.is(codeOf(await checkedCall(conn, 'create_directory', { path: 'README.md/x' })), 'NOT_A_DIRECTORY');
  assert.is(await batches(sh), 0);
  assert.is(said(await checkedCall(conn, 'list_directory', { path: '/repo/src' })), '[FILE] app.ts\n[DIR] lib');
  const sized = said(await checkedCall(conn, 'list_directory_with_sizes', { path: '.', sortBy: 'size' }));
  assert.is(sized.split('\n')[0], `[FILE] ${'.gitignore'.padEnd(30)} ${'7 B'.padStart(10)}`);
  assert.match(sized, /\nTotal: 2 files, 3 directories\nCombined size: 13 B$/);
  assert.equal([formatSize(0), formatSize(1023), formatSize(1536), formatSize(3 * 1024 ** 3)], ['0 B', '1023 B', '1.50 KB', '3.00 GB']);
});

Fs('directory_tree, search_files (globs, excludePatterns, directories too, full paths), get_file_info, list_allowed_directories; ignored files left out', async ({ conn }) => {
  const tree = JSON.parse(said(await checkedCall(conn, 'directory_tree', { path: 'src' })));
  assert.equal(tree, [
    { name: 'app.ts', type: 'file' },
    { name: 'lib', type: 'directory', children: [{ name: 'util.test.ts', type: 'file' }, { name: 'util.ts', type: 'file' }] },
  ]);
  const pruned = JSON.parse(said(await checkedCall(conn, 'directory_tree', { path: '/repo', excludePatterns: ['lib', '*.md'] })));
  assert.equal(pruned.map((e: any) => e.name), ['.gitignore', 'docs', 'src']);
  assert.equal(pruned[2].children, [{ name: 'app.ts', type: 'file' }]);
  // As that server's globs: '*.md' stays within the walk's top directory.
  assert.equal(pruned[1].children, [{ name: 'guide.md', type: 'file' }]);
  assert.is(said(await checkedCall(conn, 'search_files', { path: '/repo', pattern: '**/*.ts' })), '/repo/src/app.ts\n/repo/src/lib/util.test.ts\n/repo/src/lib/util.ts');
  assert.is(said(await checkedCall(conn, 'search_files', { path: 'src', pattern: '**/*.ts', excludePatterns: ['**/*.test.ts'] })), '/repo/src/app.ts\n/repo/src/lib/util.ts');
  assert.is(said(await checkedCall(conn, 'search_files', { path: 'src', pattern: 'lib' })), '/repo/src/lib');
  assert.is(said(await checkedCall(conn, 'search_files', { path: '.', pattern: '**/out.js' })), 'No matches found');
  assert.is(said(await checkedCall(conn, 'get_file_info', { path: 'src/app.ts' })).split('\n').slice(0, 5).join('\n'), `size: ${FILES['src/app.ts'].length}\nisDirectory: false\nisFile: true\nisSymbolicLink: false\npermissions: 644`);
  assert.match(said(await checkedCall(conn, 'get_file_info', { path: '/repo/src' })), /^size: 0\nisDirectory: true\nisFile: false\nentries: 2/);
  assert.is(said(await checkedCall(conn, 'list_allowed_directories', {})), 'Allowed directories:\n/repo');
});

Fs('move_file: a file, or a directory\'s files, in one batch; an existing destination and a missing source fail, writing nothing', async ({ conn, sh }) => {
  assert.is(said(await checkedCall(conn, 'move_file', { source: 'README.md', destination: '/repo/docs/README.md' })), 'Successfully moved README.md to /repo/docs/README.md');
  assert.is(said(await checkedCall(conn, 'move_file', { source: 'src/lib', destination: 'lib' })), 'Successfully moved src/lib to lib');
  assert.is(await bytes(sh, 'lib/util.ts'), FILES['src/lib/util.ts']);
  const [moved] = await sh.log();
  assert.equal(moved!.ops, [
    { operation: 'rename', path: 'src/lib/util.test.ts', arg: 'lib/util.test.ts' },
    { operation: 'rename', path: 'src/lib/util.ts', arg: 'lib/util.ts' },
  ]);
  assert.is(codeOf(await checkedCall(conn, 'move_file', { source: 'src/app.ts', destination: 'docs/guide.md' })), 'ALREADY_EXISTS');
  assert.is(codeOf(await checkedCall(conn, 'move_file', { source: 'gone.txt', destination: 'x.txt' })), 'NOT_FOUND');
  assert.is(codeOf(await checkedCall(conn, 'move_file', { source: 'src', destination: 'src/inner' })), 'INVALID_ARGUMENT');
  assert.is(await batches(sh), 2);
});

Fs('profiles: with shadow and filesystem both on, read_file is shadow\'s (numbered lines), read_text_file the filesystem server\'s', async ({ conn }) => {
  const both = { ...conn, profiles: ['shadow', 'filesystem'] as const };
  assert.is((await checkedCall(both, 'read_file', { path: 'README.md' })).text, 'README.md (from the working tree): lines 1-1 of 1\n     1\tHello');
  assert.is(said(await checkedCall(both, 'read_text_file', { path: 'README.md' })), 'Hello\n');
  assert.is(codeOf(await checkedCall(conn, 'batch_write', { operations: [] })), 'INVALID_ARGUMENT');
});

Fs.run();
