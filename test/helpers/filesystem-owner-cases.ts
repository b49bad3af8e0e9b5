import { LIB_CASES, LINES } from './filesystem-owner-lib-cases.js';
import type { OwnerCase } from './filesystem-owner-case.js';

export { OWNER, type Expectation, type OwnerCase } from './filesystem-owner-case.js';

/*
 * The MCP filesystem server's own cases, as data: each from its tests
 * (src/filesystem/__tests__/*.test.ts, by `describe > it`) or its README's
 * documented behaviours (src/filesystem/README.md), at the commit below.
 * Each case runs in a directory of its own, `<dir>` (absolute; `<rel>`
 * relative to the repository's root, `<root>` the root itself), with the
 * files it starts from. Expected texts and bytes are the server's, read off
 * its tests; where a test mocks the disk, the bytes it expects written.
 * A case shadow answers differently on purpose carries `differs`: the
 * reason, and what shadow answers instead (held as exactly).
 */

const TREE = {
  '.env': 'SECRET=value',
  '.env.local': 'LOCAL_SECRET=value',
  'src/index.js': 'console.log("hello");',
  'package.json': '{}',
  'node_modules/module.js': 'module.exports = {};',
  'nested/node_modules/deep.js': 'module.exports = {};',
};
const DT = '__tests__/directory-tree.test.ts > buildTree exclude patterns >';
const GIT_DIR = {
  reason:
    "the server's fixture has an empty .git directory inside the tree; in a repository .git is git's own, never part of the draft's view (and git tracks no empty directory)",
};
const SC = { 'test.txt': 'test content', 'subdir/nested.txt': 'nested content' };
const SCS = '__tests__/structured-content.test.ts > structuredContent schema compliance >';

export const CASES: OwnerCase[] = [
  ...LIB_CASES,
  // directory-tree.test.ts (its tree, but for the empty .git directory, which a repository cannot hold).
  {
    source: `${DT} should exclude files matching simple patterns`,
    files: TREE,
    tool: 'directory_tree',
    args: { path: '<dir>', excludePatterns: ['.env'] },
    expect: { names: { lacks: ['.env'], has: ['.env.local', 'src', 'package.json'] } },
  },
  {
    source: `${DT} should exclude directories matching simple patterns`,
    files: TREE,
    tool: 'directory_tree',
    args: { path: '<dir>', excludePatterns: ['node_modules'] },
    expect: { names: { lacks: ['node_modules'], has: ['src', '.git'] } },
    differs: { ...GIT_DIR, expect: { names: { lacks: ['node_modules', '.git'], has: ['src'] } } },
  },
  {
    source: `${DT} should exclude nested directories with same pattern`,
    files: TREE,
    tool: 'directory_tree',
    args: { path: '<dir>', excludePatterns: ['node_modules'] },
    expect: { names: { under: 'nested', lacks: ['node_modules'] } },
  },
  {
    source: `${DT} should handle glob patterns correctly`,
    files: TREE,
    tool: 'directory_tree',
    args: { path: '<dir>', excludePatterns: ['*.env'] },
    expect: { names: { lacks: ['.env'], has: ['.env.local', 'src'] } },
  },
  {
    source: `${DT} should handle dot files correctly`,
    files: TREE,
    tool: 'directory_tree',
    args: { path: '<dir>', excludePatterns: ['.git'] },
    expect: { names: { lacks: ['.git'], has: ['.env'] } },
  },
  {
    source: `${DT} should work with multiple exclude patterns`,
    files: TREE,
    tool: 'directory_tree',
    args: { path: '<dir>', excludePatterns: ['node_modules', '.env', '.git'] },
    expect: { names: { lacks: ['node_modules', '.env', '.git'], has: ['src', 'package.json'] } },
  },
  {
    source: `${DT} should handle empty exclude patterns`,
    files: TREE,
    tool: 'directory_tree',
    args: { path: '<dir>', excludePatterns: [] },
    expect: { names: { has: ['node_modules', '.env', '.git', 'src'] } },
    differs: { ...GIT_DIR, expect: { names: { has: ['node_modules', '.env', 'src'], lacks: ['.git'] } } },
  },
  // structured-content.test.ts: every answer a string, also as { content }.
  {
    source: `${SCS} directory_tree > should return structuredContent.content as a string, not an array`,
    files: SC,
    tool: 'directory_tree',
    args: { path: '<dir>' },
    expect: { names: { has: ['test.txt', 'subdir'] } },
  },
  {
    source: `${SCS} list_directory_with_sizes > should return structuredContent.content as a string, not an array`,
    files: SC,
    tool: 'list_directory_with_sizes',
    args: { path: '<dir>' },
    expect: { contains: ['[FILE]'] },
  },
  {
    source: `${SCS} move_file > should return structuredContent.content as a string, not an array`,
    files: SC,
    tool: 'move_file',
    args: { source: '<dir>/test.txt', destination: '<dir>/moved.txt' },
    expect: { text: 'Successfully moved <dir>/test.txt to <dir>/moved.txt', bytes: { 'moved.txt': 'test content' } },
  },
  {
    source: `${SCS} list_directory (control - already working) > should return structuredContent.content as a string`,
    files: SC,
    tool: 'list_directory',
    args: { path: '<dir>' },
    expect: { lines: ['[DIR] subdir', '[FILE] test.txt'] },
  },
  {
    source: `${SCS} search_files (control - already working) > should return structuredContent.content as a string`,
    files: SC,
    tool: 'search_files',
    args: { path: '<dir>', pattern: '*.txt' },
    expect: { text: '<dir>/test.txt' },
  },
  // README.md: documented behaviours.
  {
    source: 'README.md > read_text_file > Cannot specify both head and tail simultaneously',
    files: LINES,
    tool: 'read_text_file',
    args: { path: '<dir>/f.txt', head: 1, tail: 1 },
    expect: { error: 'Cannot specify both head and tail parameters simultaneously' },
  },
  {
    source: 'README.md > read_text_file > head: First N lines',
    files: LINES,
    tool: 'read_text_file',
    args: { path: '<dir>/f.txt', head: 2 },
    expect: { text: 'line1\nline2' },
  },
  {
    source: 'README.md > read_text_file > tail: Last N lines (lib.ts tailFile counts the piece after the last newline)',
    files: LINES,
    tool: 'read_text_file',
    args: { path: '<dir>/f.txt', tail: 2 },
    expect: { text: 'line3\n' },
  },
  {
    source: "README.md > read_multiple_files > Failed reads won't stop the entire operation",
    files: { 'a.txt': 'A' },
    tool: 'read_multiple_files',
    args: { paths: ['<dir>/a.txt', '<dir>/missing.txt'] },
    expect: {
      text: "<dir>/a.txt:\nA\n\n---\n<dir>/missing.txt: Error - ENOENT: no such file or directory, open '<dir>/missing.txt'",
    },
  },
  {
    source: 'README.md > write_file > Create new file or overwrite existing',
    files: { 'w.txt': 'old\n' },
    tool: 'write_file',
    args: { path: '<dir>/w.txt', content: 'new\n' },
    expect: { text: 'Successfully wrote to <dir>/w.txt', bytes: { 'w.txt': 'new\n' } },
  },
  {
    source: 'README.md > create_directory > Succeeds silently if directory exists',
    files: { 'a.txt': 'a' },
    tool: 'create_directory',
    args: { path: '<dir>' },
    expect: { text: 'Successfully created directory <dir>' },
  },
  {
    source: 'README.md > create_directory > Creates parent directories if needed',
    files: { 'a.txt': 'a' },
    tool: 'create_directory',
    args: { path: '<dir>/x/y/z' },
    expect: { text: 'Successfully created directory <dir>/x/y/z' },
  },
  {
    source: 'README.md > move_file > Fails if destination exists',
    files: { 'a.txt': 'a', 'b.txt': 'b' },
    tool: 'move_file',
    args: { source: '<dir>/a.txt', destination: '<dir>/b.txt' },
    expect: { error: 'already exists', bytes: { 'a.txt': 'a', 'b.txt': 'b' } },
  },
  {
    source: 'README.md > list_directory_with_sizes > sortBy size; total files, directories, and combined size',
    files: { 'small.txt': 'ab', 'big.txt': 'abcdef', 'sub/x.txt': 'x' },
    tool: 'list_directory_with_sizes',
    args: { path: '<dir>', sortBy: 'size' },
    expect: {
      text: `[FILE] ${'big.txt'.padEnd(30)} ${'6 B'.padStart(10)}\n[FILE] ${'small.txt'.padEnd(30)} ${'2 B'.padStart(10)}\n[DIR] ${'sub'.padEnd(30)} \n\nTotal: 2 files, 1 directories\nCombined size: 8 B`,
    },
  },
  {
    source: 'README.md > search_files > Returns full paths to matches',
    files: TREE,
    tool: 'search_files',
    args: { path: '<dir>', pattern: '**/*.js', excludePatterns: ['node_modules/**'] },
    expect: { lines: ['<dir>/src/index.js', '<dir>/nested/node_modules/deep.js'] },
  },
  {
    source: 'README.md > get_file_info > size, creation, modified and access times, type, permissions',
    files: { 'i.txt': 'info\n' },
    tool: 'get_file_info',
    args: { path: '<dir>/i.txt' },
    expect: {
      contains: ['size: 5\n', 'isFile: true'],
      keys: ['size', 'created', 'modified', 'accessed', 'isDirectory', 'isFile', 'permissions'],
    },
  },
  {
    source: 'README.md > list_allowed_directories',
    tool: 'list_allowed_directories',
    args: {},
    expect: { text: 'Allowed directories:\n<root>' },
  },
];

/** README.md's table of tool annotations: readOnlyHint, idempotentHint, destructiveHint ('-': not meaningful for a read). */
export const ANNOTATIONS: Record<string, [boolean, boolean | '-', boolean | '-']> = {
  read_text_file: [true, '-', '-'],
  read_media_file: [true, '-', '-'],
  read_multiple_files: [true, '-', '-'],
  list_directory: [true, '-', '-'],
  list_directory_with_sizes: [true, '-', '-'],
  directory_tree: [true, '-', '-'],
  search_files: [true, '-', '-'],
  get_file_info: [true, '-', '-'],
  list_allowed_directories: [true, '-', '-'],
  create_directory: [false, true, false],
  write_file: [false, true, true],
  edit_file: [false, false, true],
  move_file: [false, false, true],
};

/** structured-content.test.ts's read_media_file cases: the file, the block it answers with. */
export const MEDIA: Array<{
  source: string;
  name: string;
  bytes: number[];
  type: 'image' | 'audio' | 'resource';
  mimeType: string;
  uri?: RegExp;
}> = [
  {
    source: `${SCS} read_media_file (issue #4029) > returns type "image" for image files, round-tripping the bytes`,
    name: 'pixel.png',
    bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    type: 'image',
    mimeType: 'image/png',
  },
  {
    source: `${SCS} read_media_file (issue #4029) > returns type "audio" for audio files, round-tripping the bytes`,
    name: 'clip.mp3',
    bytes: [0x49, 0x44, 0x33, 0x04],
    type: 'audio',
    mimeType: 'audio/mpeg',
  },
  {
    source: `${SCS} read_media_file (issue #4029) > returns an embedded resource (never "blob") for non-media binaries`,
    name: 'data.bin',
    bytes: [0x00, 0x01, 0x02, 0x03, 0xff, 0xfe],
    type: 'resource',
    mimeType: 'application/octet-stream',
    uri: /^file:\/\//,
  },
  {
    source: `${SCS} read_media_file (issue #4029) > percent-encodes spaces and non-ASCII chars in the resource uri`,
    name: 'my café.bin',
    bytes: [0x10, 0x20, 0x30],
    type: 'resource',
    mimeType: 'application/octet-stream',
    uri: /%20.*(%C3%A9|%CC%81)/,
  },
];

/** lib.test.ts's formatSize cases (the sizes list_directory_with_sizes prints). */
export const SIZES: Array<{ source: string; cases: Array<[number, string | RegExp]> }> = [
  {
    source: 'formats bytes correctly',
    cases: [
      [0, '0 B'],
      [512, '512 B'],
      [1024, '1.00 KB'],
      [1536, '1.50 KB'],
      [1048576, '1.00 MB'],
      [1073741824, '1.00 GB'],
      [1099511627776, '1.00 TB'],
    ],
  },
  {
    source: 'handles edge cases',
    cases: [
      [1023, '1023 B'],
      [1025, '1.00 KB'],
      [1048575, '1024.00 KB'],
    ],
  },
  {
    source: 'handles very large numbers beyond TB',
    cases: [
      [1024 ** 5, '1024.00 TB'],
      [Number.MAX_SAFE_INTEGER, /TB/],
    ],
  },
  {
    source: 'handles negative numbers',
    cases: [
      [-1024, /NaN/],
      [-0, '0 B'],
    ],
  },
  {
    source: 'handles decimal numbers',
    cases: [
      [1536.5, '1.50 KB'],
      [1023.9, '1023.9 B'],
    ],
  },
  {
    source: 'handles very small positive numbers',
    cases: [
      [1, '1 B'],
      [0.5, '0.5 B'],
      [0.1, '0.1 B'],
    ],
  },
];
