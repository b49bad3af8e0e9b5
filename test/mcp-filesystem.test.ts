import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import AjvModule from 'ajv/dist/2020.js';
import { DiskRepo, treeHashes } from './helpers/disk-repo.js';
import {
  commits,
  connect,
  fsck,
  showAll,
  TOOL_NAMES,
  type Commit,
  type Mcp,
  type Outcome,
} from './helpers/mcp-client.js';
import { codeOf } from './helpers/tool-outcome.js';
import { FILESYSTEM_TOOL_NAMES } from './helpers/tool-names.js';

/*
 * `shadow mcp --tools filesystem` over stdio, spoken to by the MCP SDK's
 * client as a client set up for the MCP filesystem server speaks: every one
 * of its tools by name and arguments, on a real repository; each write one
 * commit on the draft's ref (native git reads the bytes), the reads seeing
 * the draft, the working tree untouched. Then the profiles: `--tools all`
 * and a name that is not one.
 */

const Ajv2020 = AjvModule.default;
const DRAFT = 'refs/shadow/drafts/default';

const FILES = {
  'README.md': '# demo\n',
  'src/index.ts': 'export const answer = 42;\nexport const question = "?";\n',
  'src/lib/math.ts': 'export const add = (a: number, b: number) => a + b;\n',
  'docs/notes.md': 'one\ntwo\nthree\n',
};

interface Ctx {
  repo: DiskRepo;
  mcp: Mcp;
  worktree: Record<string, string>;
}

const Fs = suite<Ctx>('shadow mcp --tools filesystem over stdio');
Fs.before(async (c) => {
  c.repo = new DiskRepo(FILES);
  c.worktree = treeHashes(c.repo.dir);
  c.mcp = await connect(c.repo, 'fs-client', ['--tools', 'filesystem']);
});
Fs.after(async (c) => {
  await c.mcp.close();
  c.repo.cleanup();
});

/** The filesystem server's answer: the text, also as { content }. */
const said = (r: Outcome): string => {
  assert.is(r.isError, false, r.text);
  assert.equal(r.structured, { content: r.text });
  return r.text;
};
const batchCommits = (repo: DiskRepo): Commit[] =>
  commits(repo, `main..${DRAFT}`).filter((c) => c.trailers['Shadow-Batch'] !== undefined);

Fs(
  "tools/list: the filesystem server's fourteen tools with their annotations; every input and output schema compiles strictly",
  async ({ repo, mcp }) => {
    const tools = (await mcp.client.listTools()).tools;
    assert.equal(
      tools.map((t) => t.name),
      FILESYSTEM_TOOL_NAMES,
    );
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    for (const t of tools) {
      ajv.compile(t.inputSchema);
      const out = ajv.compile(t.outputSchema!);
      assert.ok(
        out(
          t.name === 'read_media_file'
            ? { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] }
            : { content: 'x' },
        ),
        t.name,
      );
      assert.is(typeof t.annotations?.readOnlyHint, 'boolean', t.name);
    }
    assert.is(tools.find((t) => t.name === 'write_file')!.annotations!.destructiveHint, true);
    assert.match(mcp.client.getInstructions() ?? '', /list_allowed_directories/);
    assert.is(said(await mcp.call('list_allowed_directories', {})), `Allowed directories:\n${repo.dir}`);
  },
);

Fs(
  'reads: read_text_file (head, tail), read_file, read_multiple_files, list_directory, list_directory_with_sizes, directory_tree, search_files, get_file_info',
  async ({ repo, mcp }) => {
    const abs = (p: string): string => `${repo.dir}/${p}`;
    assert.is(said(await mcp.call('read_text_file', { path: abs('docs/notes.md') })), 'one\ntwo\nthree\n');
    assert.is(said(await mcp.call('read_text_file', { path: abs('docs/notes.md'), head: 1 })), 'one');
    // As that server's tail: the empty piece after the last newline counts as a line.
    assert.is(said(await mcp.call('read_text_file', { path: 'docs/notes.md', tail: 2 })), 'three\n');
    assert.is(said(await mcp.call('read_file', { path: 'README.md' })), '# demo\n');
    assert.is(
      said(await mcp.call('read_multiple_files', { paths: [abs('README.md'), 'src/lib/math.ts'] })),
      `${abs('README.md')}:\n# demo\n\n\n---\nsrc/lib/math.ts:\n${FILES['src/lib/math.ts']}\n`,
    );
    assert.is(said(await mcp.call('list_directory', { path: repo.dir })), '[FILE] README.md\n[DIR] docs\n[DIR] src');
    const size = `${FILES['src/index.ts'].length} B`;
    assert.is(
      said(await mcp.call('list_directory_with_sizes', { path: abs('src') })),
      `[FILE] ${'index.ts'.padEnd(30)} ${size.padStart(10)}\n[DIR] ${'lib'.padEnd(30)} \n\nTotal: 1 files, 1 directories\nCombined size: ${size}`,
    );
    assert.equal(JSON.parse(said(await mcp.call('directory_tree', { path: abs('src') }))), [
      { name: 'index.ts', type: 'file' },
      { name: 'lib', type: 'directory', children: [{ name: 'math.ts', type: 'file' }] },
    ]);
    assert.is(
      said(await mcp.call('search_files', { path: repo.dir, pattern: '**/*.ts' })),
      `${abs('src/index.ts')}\n${abs('src/lib/math.ts')}`,
    );
    assert.match(
      said(await mcp.call('get_file_info', { path: abs('README.md') })),
      /^size: 7\ncreated: .+\nmodified: .+\naccessed: .+\nisDirectory: false\nisFile: true\npermissions: \d{3}$/,
    );
    const outside = await mcp.call('read_text_file', { path: '/etc/hostname' });
    assert.is(codeOf(outside), 'INVALID_PATH');
    assert.is((outside.structured!.error as any).code, 'INVALID_PATH');
  },
);

Fs(
  'writes: write_file, edit_file (dry run first), move_file, create_directory: one commit each (none for the directory), the bytes git reads, the working tree untouched',
  async ({ repo, mcp, worktree }) => {
    assert.is(
      said(await mcp.call('write_file', { path: `${repo.dir}/src/new.ts`, content: 'export {};\n' })),
      `Successfully wrote to ${repo.dir}/src/new.ts`,
    );
    const edits = [{ oldText: 'export const answer = 42;', newText: 'export const answer = 43;' }];
    const dry = said(await mcp.call('edit_file', { path: 'src/index.ts', edits, dryRun: true }));
    assert.match(dry, /^```diff\n[\s\S]*-export const answer = 42;\n\+export const answer = 43;\n[\s\S]*```\n\n$/);
    assert.is(batchCommits(repo).length, 1);
    assert.is(said(await mcp.call('edit_file', { path: 'src/index.ts', edits })), dry);
    assert.match(
      said(await mcp.call('create_directory', { path: 'empty/dir' })),
      /^Successfully created directory empty\/dir/,
    );
    assert.is(
      said(await mcp.call('move_file', { source: 'docs', destination: `${repo.dir}/documentation` })),
      `Successfully moved docs to ${repo.dir}/documentation`,
    );
    const log = batchCommits(repo);
    assert.equal(
      log.map((c) => [c.author, c.subject]),
      [
        ['fs-client', 'move docs to documentation'],
        ['fs-client', 'edit src/index.ts'],
        ['fs-client', 'write src/new.ts'],
      ],
    );
    const tip = showAll(repo, DRAFT, ['src/new.ts', 'src/index.ts', 'documentation/notes.md']);
    assert.equal(
      [...tip.values()],
      ['export {};\n', FILES['src/index.ts'].replace('42', '43'), FILES['docs/notes.md']],
    );
    assert.is(repo.gitResult('cat-file', '-e', `${DRAFT}:docs/notes.md`).status, 128);
    // The reads see the draft.
    assert.is(said(await mcp.call('read_text_file', { path: 'documentation/notes.md', head: 1 })), 'one');
    assert.is(codeOf(await mcp.call('read_text_file', { path: 'docs/notes.md' })), 'NOT_FOUND');
    assert.equal(treeHashes(repo.dir), worktree);
    fsck(repo);
  },
);

Fs(
  'failures: isError, the code first in the text and in structuredContent, nothing committed',
  async ({ repo, mcp }) => {
    const tip = repo.ref(DRAFT);
    const none = await mcp.call('edit_file', {
      path: 'src/index.ts',
      edits: [{ oldText: 'export const answr = 43;', newText: 'x' }],
    });
    assert.is(codeOf(none), 'EDIT_NO_MATCH');
    assert.ok(
      none.text.startsWith('EDIT_NO_MATCH: Could not find exact match for edit:\nexport const answr = 43;\n'),
      none.text,
    );
    assert.is(
      codeOf(await mcp.call('move_file', { source: 'README.md', destination: 'src/index.ts' })),
      'ALREADY_EXISTS',
    );
    // The batch refuses the path, with the batch's code (as batch_write does).
    const git = await mcp.call('write_file', { path: '.git/hooks/pre-commit', content: 'x' });
    assert.is(codeOf(git), 'INVALID_BATCH');
    assert.match(git.text, /\.git/);
    const bad = await mcp.call('read_text_file', { path: 'README.md', head: 1, tail: 1 });
    assert.is(codeOf(bad), 'INVALID_ARGUMENT');
    assert.equal(Object.keys(bad.structured!), ['error']);
    assert.is(repo.ref(DRAFT), tip);
  },
);

Fs.run();

const Profiles = suite<{ repo: DiskRepo }>('shadow mcp --tools: profiles');
Profiles.before((c) => {
  c.repo = new DiskRepo(FILES);
});
Profiles.after((c) => c.repo.cleanup());

Profiles(
  "--tools all serves every shape, read_file once (shadow's); shadow tools --tools prints the same; an unknown profile is a usage error",
  async ({ repo }) => {
    const mcp = await connect(repo, 'all-client', ['--tools', 'all']);
    try {
      const names = (await mcp.client.listTools()).tools.map((t) => t.name);
      assert.equal(names.slice(0, TOOL_NAMES.length), TOOL_NAMES);
      assert.equal(names.filter((n) => n === 'read_file').length, 1);
      assert.ok(
        names.includes('str_replace_based_edit_tool') &&
          names.includes('read_text_file') &&
          names.includes('list_allowed_directories'),
      );
      assert.match(
        (await mcp.call('read_file', { path: 'README.md' })).text,
        /^README\.md \(from the working tree\): lines 1-1 of 1/,
      );
      const printed = repo.shadow(['tools', '--tools', 'shadow,anthropic,filesystem']);
      assert.is(printed.status, 0, printed.stderr);
      assert.equal(
        (printed.json() as any[]).map((d) => d.name),
        names,
      );
    } finally {
      await mcp.close();
    }
    const bad = repo.shadow(['tools', '--tools', 'vscode']);
    assert.is(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, /unknown tool profile: vscode/);
    const served = repo.shadow(['mcp', '--tools', 'shadow,nope'], { input: '' });
    assert.is(served.status, 2, served.stderr);
    assert.match(served.stderr, /nope/);
  },
);

Profiles.run();
