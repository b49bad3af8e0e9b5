import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Shadow } from '../src/index.js';
import type { ToolConnection, ToolOutcome } from '../src/agent-tools/call-tool.js';
import { dateText } from '../src/agent-tools/filesystem-info.js';
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

const Fs = suite<Ctx>("the filesystem server's tools (callTool)");
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

Fs(
  'read_text_file and read_file: the text, head and tail lines, both refused; absolute paths inside the repository only',
  async ({ conn }) => {
    for (const name of ['read_text_file', 'read_file']) {
      assert.is(said(await checkedCall(conn, name, { path: '/repo/src/app.ts' })), FILES['src/app.ts']);
      assert.is(
        said(await checkedCall(conn, name, { path: 'src/app.ts', head: 2 })),
        'export const a = 1;\nexport const b = 2;',
      );
      // As that server's tail: the empty piece after the last newline counts as a line.
      assert.is(said(await checkedCall(conn, name, { path: 'src/app.ts', tail: 2 })), 'export const a2 = 1;\n');
      assert.is(said(await checkedCall(conn, name, { path: 'src/app.ts', tail: 1 })), '');
      const both = await checkedCall(conn, name, { path: 'src/app.ts', head: 1, tail: 1 });
      assert.is(
        both.text.split('\n')[0],
        'INVALID_ARGUMENT: Cannot specify both head and tail parameters simultaneously',
      );
      const outside = await checkedCall(conn, name, { path: '/etc/hostname' });
      assert.is(
        outside.text.split('\n')[0],
        'INVALID_PATH: Access denied - path outside allowed directories: /etc/hostname not in /repo',
      );
      assert.is(
        (await checkedCall(conn, name, { path: 'src' })).text.split('\n')[0],
        'IS_A_DIRECTORY: EISDIR: illegal operation on a directory, read',
      );
      assert.is(
        (await checkedCall(conn, name, { path: 'gone/x.ts' })).text.split('\n')[0],
        'NOT_FOUND: Parent directory does not exist: /repo/gone',
      );
    }
    const many = said(
      await checkedCall(conn, 'read_multiple_files', {
        paths: ['README.md', 'nope.md', '/repo/docs/guide.md', '../out'],
      }),
    );
    assert.is(
      many,
      "README.md:\nHello\n\n\n---\nnope.md: Error - ENOENT: no such file or directory, open '/repo/nope.md'\n---\n/repo/docs/guide.md:\n# Guide\n\nline\n\n" +
        '\n---\n../out: Error - Access denied - path outside allowed directories: /out not in /repo',
    );
  },
);

Fs('write_file: one batch, byte for byte, the working tree untouched', async ({ repo, conn, sh }) => {
  assert.is(
    said(await checkedCall(conn, 'write_file', { path: '/repo/new/dir/file.txt', content: 'made\n' })),
    'Successfully wrote to /repo/new/dir/file.txt',
  );
  assert.is(
    said(await checkedCall(conn, 'write_file', { path: 'README.md', content: 'Bye' })),
    'Successfully wrote to README.md',
  );
  assert.is(await bytes(sh, 'new/dir/file.txt'), 'made\n');
  assert.is(await bytes(sh, 'README.md'), 'Bye');
  const log = await sh.log();
  assert.equal(
    log.map((e) => [e.batch, e.actor, e.ops]),
    [
      [2, 'fs-client', [{ operation: 'write', path: 'README.md' }]],
      [1, 'fs-client', [{ operation: 'write', path: 'new/dir/file.txt' }]],
    ],
  );
  assert.is(repo.read('README.md'), 'Hello\n');
  assert.is(codeOf(await checkedCall(conn, 'write_file', { path: '../x', content: 'x' })), 'INVALID_PATH');
});

Fs(
  "edit_file: a dry run shows the git-style diff headed by the absolute path and writes nothing; the edits land as one batch in order; the first of several places is taken; no match fails in that server's words",
  async ({ conn, sh }) => {
    const edits = [
      { oldText: 'export const b = 2;', newText: 'export const b = 3;' },
      { oldText: 'export const b = 3;\n', newText: 'export const b = 3;\nexport const c = 4;\n' },
    ];
    const diff = said(await checkedCall(conn, 'edit_file', { path: 'src/app.ts', edits, dryRun: true }));
    assert.is(
      diff,
      '```diff\nIndex: /repo/src/app.ts\n===================================================================\n--- /repo/src/app.ts\toriginal\n+++ /repo/src/app.ts\tmodified\n' +
        '@@ -1,3 +1,4 @@\n export const a = 1;\n-export const b = 2;\n+export const b = 3;\n+export const c = 4;\n export const a2 = 1;\n```\n\n',
    );
    assert.is(await batches(sh), 0);
    assert.is(said(await checkedCall(conn, 'edit_file', { path: 'src/app.ts', edits })), diff);
    assert.is(
      await bytes(sh, 'src/app.ts'),
      'export const a = 1;\nexport const b = 3;\nexport const c = 4;\nexport const a2 = 1;\n',
    );
    const [entry] = await sh.log();
    assert.equal(entry!.ops, [{ operation: 'write', path: 'src/app.ts' }]);

    for (const dryRun of [true, false]) {
      const none = await checkedCall(conn, 'edit_file', {
        path: 'src/app.ts',
        edits: [
          { oldText: 'export const b = 3;', newText: 'x' },
          { oldText: 'export const d = 1;', newText: 'x' },
        ],
        dryRun,
      });
      assert.is(codeOf(none), 'EDIT_NO_MATCH');
      assert.ok(
        none.text.startsWith('EDIT_NO_MATCH: Could not find exact match for edit:\nexport const d = 1;\nhint: '),
        none.text,
      );
      assert.equal(none.structured!.error, { ...(none.structured!.error as object), data: { edit: 1 } });
    }
    assert.is(await batches(sh), 1);
    // Line endings kept as the file has them (the server writes LF): a kept line keeps its own, a new line takes the more common one.
    assert.ok(
      (
        await sh.batch(
          { operations: [{ operation: 'write', path: 'mixed.txt', content: 'a\r\nb\nc\r\n' }] },
          { actor: 'x' },
        )
      ).success,
    );
    const crlf = said(
      await checkedCall(conn, 'edit_file', { path: 'mixed.txt', edits: [{ oldText: 'c', newText: 'C\nD' }] }),
    );
    assert.match(crlf, /\n-c\n\+C\n\+D\n/);
    assert.is(await bytes(sh, 'mixed.txt'), 'a\r\nb\nC\r\nD\r\n');
    // An argument the tool does not have is refused, not dropped: a misspelt dryRun must not write.
    const misspelt = await checkedCall(conn, 'edit_file', {
      path: 'src/app.ts',
      edits: [{ oldText: 'b = 3', newText: 'b = 5' }],
      dry_run: true,
    });
    assert.is(codeOf(misspelt), 'INVALID_ARGUMENT');
    assert.match(misspelt.text, /dry_run/);
    // As that server: the first place ' = 1;' occurs.
    said(await checkedCall(conn, 'edit_file', { path: 'src/app.ts', edits: [{ oldText: ' = 1;', newText: ' = 9;' }] }));
    assert.is(
      await bytes(sh, 'src/app.ts'),
      'export const a = 9;\nexport const b = 3;\nexport const c = 4;\nexport const a2 = 1;\n',
    );
    assert.is(await batches(sh), 4);
    assert.is(
      said(await checkedCall(conn, 'edit_file', { path: 'src/app.ts', edits: [] })),
      '```diff\nIndex: /repo/src/app.ts\n===================================================================\n--- /repo/src/app.ts\toriginal\n+++ /repo/src/app.ts\tmodified\n```\n\n',
    );
    assert.is(await batches(sh), 4);
  },
);

Fs(
  'edit_file: a write that lands between its read and its batch is never overwritten: EXPECT_FAILED, though its oldText still matches',
  async ({ conn, sh }) => {
    let raced = false;
    // The handle as the tool sees it: the first read of the file lets another agent's write land right after it.
    const racing = new Proxy(sh, {
      get(target, key) {
        if (key !== 'cat') return Reflect.get(target, key, target);
        return async (...args: Parameters<Shadow['cat']>) => {
          const f = await target.cat(...args);
          if (!raced) {
            raced = true;
            const r = await target.batch(
              {
                operations: [{ operation: 'write', path: 'src/app.ts', content: `// theirs\n${FILES['src/app.ts']}` }],
              },
              { actor: 'other' },
            );
            assert.ok(r.success);
          }
          return f;
        };
      },
    });
    const r = await checkedCall({ ...conn, sh: racing }, 'edit_file', {
      path: 'src/app.ts',
      edits: [{ oldText: 'export const b = 2;', newText: 'export const b = 3;' }],
    });
    assert.is(codeOf(r), 'EXPECT_FAILED');
    assert.is(await bytes(sh, 'src/app.ts'), `// theirs\n${FILES['src/app.ts']}`);
    assert.equal(
      (await sh.log()).map((e) => e.actor),
      ['other'],
    );
  },
);

Fs(
  'create_directory writes nothing and succeeds, unless a file is in the way; list_directory and list_directory_with_sizes',
  async ({ conn, sh }) => {
    assert.is(
      said(await checkedCall(conn, 'create_directory', { path: '/repo/src/new/deeper' })),
      'Successfully created directory /repo/src/new/deeper',
    );
    assert.is(
      (await checkedCall(conn, 'create_directory', { path: 'README.md/x' })).text.split('\n')[0],
      "NOT_A_DIRECTORY: ENOTDIR: not a directory, realpath '/repo/README.md/x'",
    );
    assert.is(
      (await checkedCall(conn, 'create_directory', { path: 'README.md' })).text.split('\n')[0],
      "NOT_A_DIRECTORY: EEXIST: file already exists, mkdir '/repo/README.md'",
    );
    assert.is(await batches(sh), 0);
    assert.is(said(await checkedCall(conn, 'list_directory', { path: '/repo/src' })), '[FILE] app.ts\n[DIR] lib');
    // By name as that server sorts (localeCompare: case aside), not git's byte order.
    const byName = said(await checkedCall(conn, 'list_directory_with_sizes', { path: '/repo' }))
      .split('\n')
      .slice(0, 5);
    assert.equal(
      byName.map((l) => l.split(/ +/)[1]),
      ['.gitignore', 'build', 'docs', 'README.md', 'src'],
    );
    assert.is(
      (await checkedCall(conn, 'list_directory', { path: 'docs/none' })).text.split('\n')[0],
      "NOT_FOUND: ENOENT: no such file or directory, scandir '/repo/docs/none'",
    );
    assert.is(
      (await checkedCall(conn, 'list_directory', { path: 'README.md' })).text.split('\n')[0],
      "NOT_A_DIRECTORY: ENOTDIR: not a directory, scandir '/repo/README.md'",
    );
    assert.is(
      (await checkedCall(conn, 'directory_tree', { path: 'README.md' })).text.split('\n')[0],
      "NOT_A_DIRECTORY: ENOTDIR: not a directory, scandir '/repo/README.md'",
    );
    const sized = said(await checkedCall(conn, 'list_directory_with_sizes', { path: '.', sortBy: 'size' }));
    assert.is(sized.split('\n')[0], `[FILE] ${'.gitignore'.padEnd(30)} ${'7 B'.padStart(10)}`);
    assert.match(sized, /\nTotal: 2 files, 3 directories\nCombined size: 13 B$/);
    assert.equal(
      [formatSize(0), formatSize(1023), formatSize(1536), formatSize(3 * 1024 ** 3)],
      ['0 B', '1023 B', '1.50 KB', '3.00 GB'],
    );
  },
);

Fs(
  'directory_tree, search_files (globs, excludePatterns, directories too, full paths), get_file_info, list_allowed_directories; ignored files left out',
  async ({ conn }) => {
    const tree = JSON.parse(said(await checkedCall(conn, 'directory_tree', { path: 'src' })));
    assert.equal(tree, [
      { name: 'app.ts', type: 'file' },
      {
        name: 'lib',
        type: 'directory',
        children: [
          { name: 'util.test.ts', type: 'file' },
          { name: 'util.ts', type: 'file' },
        ],
      },
    ]);
    const pruned = JSON.parse(
      said(await checkedCall(conn, 'directory_tree', { path: '/repo', excludePatterns: ['lib', '*.md'] })),
    );
    assert.equal(
      pruned.map((e: any) => e.name),
      ['.gitignore', 'docs', 'src'],
    );
    assert.equal(pruned[2].children, [{ name: 'app.ts', type: 'file' }]);
    // As that server's globs: '*.md' stays within the walk's top directory.
    assert.equal(pruned[1].children, [{ name: 'guide.md', type: 'file' }]);
    assert.is(
      said(await checkedCall(conn, 'search_files', { path: '/repo', pattern: '**/*.ts' })),
      '/repo/src/app.ts\n/repo/src/lib/util.test.ts\n/repo/src/lib/util.ts',
    );
    assert.is(
      said(
        await checkedCall(conn, 'search_files', { path: 'src', pattern: '**/*.ts', excludePatterns: ['**/*.test.ts'] }),
      ),
      '/repo/src/app.ts\n/repo/src/lib/util.ts',
    );
    assert.is(said(await checkedCall(conn, 'search_files', { path: 'src', pattern: 'lib' })), '/repo/src/lib');
    // As that server's search: an exclude pattern is a glob on the path below `path`, a plain name only at its top.
    assert.is(
      said(await checkedCall(conn, 'search_files', { path: '/repo', pattern: '**/util.ts', excludePatterns: ['lib'] })),
      '/repo/src/lib/util.ts',
    );
    assert.is(
      said(
        await checkedCall(conn, 'search_files', { path: '/repo/src', pattern: '**/util.ts', excludePatterns: ['lib'] }),
      ),
      'No matches found',
    );
    assert.is(said(await checkedCall(conn, 'search_files', { path: '.', pattern: '**/out.js' })), 'No matches found');
    assert.is(said(await checkedCall(conn, 'list_allowed_directories', {})), 'Allowed directories:\n/repo');
  },
);

Fs(
  "get_file_info: that server's seven fields; the working tree's stat where the draft changed nothing, the draft's size, mode and batch time where it did",
  async ({ repo, conn, sh }) => {
    const clock = repo.ctx.clock;
    const info = async (path: string): Promise<string[]> =>
      said(await checkedCall(conn, 'get_file_info', { path })).split('\n');
    const stat = (path: string, isFile: boolean): string[] => {
      const st = repo.fs.statSync(`/repo/${path}`);
      return [
        `size: ${st.size}`,
        `created: ${dateText(st.birthtimeMs, clock)}`,
        `modified: ${dateText(st.mtimeMs, clock)}`,
        `accessed: ${dateText(st.atimeMs, clock)}`,
        `isDirectory: ${!isFile}`,
        `isFile: ${isFile}`,
        `permissions: ${st.mode.toString(8).slice(-3)}`,
      ];
    };
    assert.equal(await info('src/app.ts'), stat('src/app.ts', true));
    assert.equal(await info('/repo/src'), stat('src', false));
    const created = stat('src/app.ts', true)[1];
    repo.ctx.advance(3_600_000);
    said(await checkedCall(conn, 'write_file', { path: 'src/app.ts', content: 'x\n' }));
    repo.ctx.advance(60_000);
    said(await checkedCall(conn, 'write_file', { path: 'new/run.sh', content: 'echo\n' }));
    const [second, first] = (await sh.log()).map((e) => dateText(Date.parse(e.time), clock));
    assert.ok(first !== second && first !== created);
    assert.equal(await info('src/app.ts'), [
      'size: 2',
      created,
      `modified: ${first}`,
      `accessed: ${first}`,
      'isDirectory: false',
      'isFile: true',
      'permissions: 644',
    ]);
    assert.equal(await info('new/run.sh'), [
      'size: 5',
      `created: ${second}`,
      `modified: ${second}`,
      `accessed: ${second}`,
      'isDirectory: false',
      'isFile: true',
      'permissions: 644',
    ]);
    assert.equal(await info('new'), [
      'size: 0',
      `created: ${second}`,
      `modified: ${second}`,
      `accessed: ${second}`,
      'isDirectory: true',
      'isFile: false',
      'permissions: 755',
    ]);
    // A working tree's file the draft turned into a directory: the draft's directory, not the disk's file.
    const turned = await sh.batch(
      {
        operations: [
          { operation: 'delete', path: 'docs/guide.md' },
          { operation: 'write', path: 'docs/guide.md/part.md', content: 'p\n' },
        ],
      },
      { actor: 'x' },
    );
    assert.ok(turned.success, JSON.stringify(turned));
    assert.equal((await info('docs/guide.md')).slice(4), ['isDirectory: true', 'isFile: false', 'permissions: 755']);
    assert.is(
      (await checkedCall(conn, 'get_file_info', { path: 'nope' })).text.split('\n')[0],
      "NOT_FOUND: ENOENT: no such file or directory, stat '/repo/nope'",
    );
    // Date#toString's form, at the clock's offset.
    assert.equal(
      [
        dateText(Date.UTC(2023, 0, 2), { tzOffsetMinutes: () => 0 }),
        dateText(Date.UTC(2023, 0, 2), { tzOffsetMinutes: () => -330 }),
      ],
      ['Mon Jan 02 2023 00:00:00 GMT+0000', 'Sun Jan 01 2023 18:30:00 GMT-0530'],
    );
  },
);

Fs(
  "move_file: a file, or a directory's files, in one batch; an existing destination and a missing source fail, writing nothing",
  async ({ conn, sh }) => {
    assert.is(
      said(await checkedCall(conn, 'move_file', { source: 'README.md', destination: '/repo/docs/README.md' })),
      'Successfully moved README.md to /repo/docs/README.md',
    );
    assert.is(
      said(await checkedCall(conn, 'move_file', { source: 'src/lib', destination: 'lib' })),
      'Successfully moved src/lib to lib',
    );
    assert.is(await bytes(sh, 'lib/util.ts'), FILES['src/lib/util.ts']);
    const [moved] = await sh.log();
    assert.equal(moved!.ops, [
      { operation: 'rename', path: 'src/lib/util.test.ts', arg: 'lib/util.test.ts' },
      { operation: 'rename', path: 'src/lib/util.ts', arg: 'lib/util.ts' },
    ]);
    const first = async (args: Record<string, string>): Promise<string> =>
      (await checkedCall(conn, 'move_file', args)).text.split('\n')[0]!;
    assert.is(
      await first({ source: 'src/app.ts', destination: 'docs/guide.md' }),
      "ALREADY_EXISTS: EEXIST: file already exists, rename '/repo/src/app.ts' -> '/repo/docs/guide.md'",
    );
    assert.is(
      await first({ source: 'gone.txt', destination: 'x.txt' }),
      "NOT_FOUND: ENOENT: no such file or directory, rename '/repo/gone.txt' -> '/repo/x.txt'",
    );
    assert.is(
      await first({ source: 'src', destination: 'src/inner' }),
      "INVALID_ARGUMENT: EINVAL: invalid argument, rename '/repo/src' -> '/repo/src/inner'",
    );
    assert.is(await batches(sh), 2);
  },
);

Fs(
  "profiles: with shadow and filesystem both on, read_file is shadow's (numbered lines), read_text_file the filesystem server's",
  async ({ conn }) => {
    const both = { ...conn, profiles: ['shadow', 'filesystem'] as const };
    assert.is(
      (await checkedCall(both, 'read_file', { path: 'README.md' })).text,
      'README.md (from the working tree): lines 1-1 of 1\n     1\tHello',
    );
    assert.is(said(await checkedCall(both, 'read_text_file', { path: 'README.md' })), 'Hello\n');
    assert.is(codeOf(await checkedCall(conn, 'batch_write', { operations: [] })), 'INVALID_ARGUMENT');
  },
);

Fs.run();
