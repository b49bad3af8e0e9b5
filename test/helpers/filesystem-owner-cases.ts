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

export const OWNER = { repo: 'modelcontextprotocol/servers', commit: '76d64c822f5125032f89eb71dbdb94e42b434821', folder: 'src/filesystem' };

export interface Expectation {
  /** The whole answer text. */
  text?: string;
  /** Pieces the answer text holds, and pieces it must not. */
  contains?: string[];
  lacks?: string[];
  /** The answer's lines in any order (the server lists in readdir order, which the file system decides). */
  lines?: string[];
  /** An error whose text holds this (the server's message). */
  error?: string;
  /** Files of the draft afterwards, relative to `<dir>`, as native git reads them. */
  bytes?: Record<string, string>;
  /** directory_tree: names at the top level of the tree it has, and lacks. */
  names?: { has?: string[]; lacks?: string[]; under?: string };
  /** get_file_info: its keys, in order. */
  keys?: string[];
}

export interface OwnerCase {
  source: string;
  files?: Record<string, string>;
  tool: string;
  args: Record<string, unknown>;
  expect: Expectation;
  differs?: { reason: string; expect: Expectation };
}

const LINES = { 'f.txt': 'line1\nline2\nline3\n' };
const LIB = '__tests__/lib.test.ts > applyFileEdits';
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
  reason: "the server's fixture has an empty .git directory inside the tree; in a repository .git is git's own, never part of the draft's view (and git tracks no empty directory)",
};
const SC = { 'test.txt': 'test content', 'subdir/nested.txt': 'nested content' };
const SCS = '__tests__/structured-content.test.ts > structuredContent schema compliance >';
const PV = '__tests__/path-validation.test.ts > Path Validation >';
const NO_EMPTY_DIRS = 'git keeps no empty directory, so create_directory writes nothing and a write makes the directories it needs (the draft is a tree of files)';

export const CASES: OwnerCase[] = [
  // lib.test.ts: applyFileEdits, on 'line1\nline2\nline3\n' unless the case says otherwise.
  {
    source: `${LIB} > applies simple text replacement`,
    files: LINES,
    tool: 'edit_file',
    args: { path: '<dir>/f.txt', edits: [{ oldText: 'line2', newText: 'modified line2' }] },
    expect: { contains: ['modified line2'], bytes: { 'f.txt': 'line1\nmodified line2\nline3\n' } },
  },
  {
    source: `${LIB} > treats dollar signs in replacement text literally`,
    files: LINES,
    tool: 'edit_file',
    args: { path: '<dir>/f.txt', edits: [{ oldText: 'line2', newText: "price=$$; match=$&; before=$`; after=$'" }] },
    expect: { bytes: { 'f.txt': "line1\nprice=$$; match=$&; before=$`; after=$'\nline3\n" } },
  },
  {
    source: `${LIB} > handles dry run mode`,
    files: LINES,
    tool: 'edit_file',
    args: { path: '<dir>/f.txt', edits: [{ oldText: 'line2', newText: 'modified line2' }], dryRun: true },
    expect: { contains: ['modified line2'], bytes: LINES },
  },
  {
    source: `${LIB} > applies multiple edits sequentially`,
    files: LINES,
    tool: 'edit_file',
    args: { path: '<dir>/f.txt', edits: [{ oldText: 'line1', newText: 'first line' }, { oldText: 'line3', newText: 'third line' }] },
    expect: { bytes: { 'f.txt': 'first line\nline2\nthird line\n' } },
  },
  {
    source: `${LIB} > handles whitespace-flexible matching`,
    files: { 'f.txt': '  line1\n    line2\n  line3\n' },
    tool: 'edit_file',
    args: { path: '<dir>/f.txt', edits: [{ oldText: 'line2', newText: 'modified line2' }] },
    expect: { bytes: { 'f.txt': '  line1\n    modified line2\n  line3\n' } },
  },
  {
    source: `${LIB} > throws error for non-matching edits`,
    files: LINES,
    tool: 'edit_file',
    args: { path: '<dir>/f.txt', edits: [{ oldText: 'nonexistent line', newText: 'replacement' }] },
    expect: { error: 'Could not find exact match for edit:\nnonexistent line', bytes: LINES },
  },
  {
    source: `${LIB} > handles complex multi-line edits with indentation`,
    files: { 'f.js': 'function test() {\n  console.log("hello");\n  return true;\n}' },
    tool: 'edit_file',
    args: { path: '<dir>/f.js', edits: [{ oldText: '  console.log("hello");\n  return true;', newText: '  console.log("world");\n  console.log("test");\n  return false;' }] },
    expect: { bytes: { 'f.js': 'function test() {\n  console.log("world");\n  console.log("test");\n  return false;\n}' } },
  },
  {
    source: `${LIB} > handles edits with different indentation patterns`,
    files: { 'f.js': '    if (condition) {\n        doSomething();\n    }' },
    tool: 'edit_file',
    args: { path: '<dir>/f.js', edits: [{ oldText: 'doSomething();', newText: 'doSomethingElse();\n        doAnotherThing();' }] },
    expect: { bytes: { 'f.js': '    if (condition) {\n        doSomethingElse();\n        doAnotherThing();\n    }' } },
  },
  {
    source: `${LIB} > handles CRLF line endings in file content`,
    files: { 'f.txt': 'line1\r\nline2\r\nline3\r\n' },
    tool: 'edit_file',
    args: { path: '<dir>/f.txt', edits: [{ oldText: 'line2', newText: 'modified line2' }] },
    expect: { bytes: { 'f.txt': 'line1\nmodified line2\nline3\n' } },
    differs: {
      reason: 'line endings are kept as the file has them: the server rewrites every line of an edited CRLF file with LF, which git would show as a change of every line',
      expect: { bytes: { 'f.txt': 'line1\r\nmodified line2\r\nline3\r\n' } },
    },
  },
  {
    // The README's "whitespace normalization with indentation preservation", the bytes as lib.ts's applyFileEdits computes them.
    source: 'README.md > edit_file > Whitespace normalization with indentation preservation',
    files: { 'f.py': 'def f():\n    if x:\n        return 1\n' },
    tool: 'edit_file',
    args: { path: '<dir>/f.py', edits: [{ oldText: 'if x:\n    return 1', newText: 'if y:\n    return 2' }] },
    expect: { bytes: { 'f.py': 'def f():\n    if y:\n    return 2\n' } },
  },
  // lib.test.ts: createUnifiedDiff, as edit_file's dry run shows it.
  {
    source: '__tests__/lib.test.ts > createUnifiedDiff > creates diff for simple changes',
    files: { 'test.txt': 'line1\nline2\nline3' },
    tool: 'edit_file',
    args: { path: '<dir>/test.txt', edits: [{ oldText: 'line2', newText: 'modified line2' }], dryRun: true },
    expect: { contains: ['--- <dir>/test.txt', '+++ <dir>/test.txt', '-line2', '+modified line2'] },
  },
  {
    source: '__tests__/lib.test.ts > createUnifiedDiff > handles CRLF normalization',
    files: { 'f.txt': 'line1\r\nline2\r\n' },
    tool: 'edit_file',
    args: { path: '<dir>/f.txt', edits: [{ oldText: 'line2', newText: 'modified line2' }], dryRun: true },
    expect: { contains: ['-line2\n', '+modified line2\n'], lacks: ['\r'] },
  },
  {
    source: '__tests__/lib.test.ts > createUnifiedDiff > handles identical content',
    files: { 'f.txt': 'line1\nline2\nline3' },
    tool: 'edit_file',
    args: { path: '<dir>/f.txt', edits: [], dryRun: true },
    expect: { text: '```diff\nIndex: <dir>/f.txt\n===================================================================\n--- <dir>/f.txt\toriginal\n+++ <dir>/f.txt\tmodified\n```\n\n' },
  },
  {
    source: '__tests__/lib.test.ts > createUnifiedDiff > handles custom filename',
    files: { 'custom.txt': 'old' },
    tool: 'edit_file',
    args: { path: '<dir>/custom.txt', edits: [{ oldText: 'old', newText: 'new' }], dryRun: true },
    expect: { contains: ['--- <dir>/custom.txt', '+++ <dir>/custom.txt', '-old', '+new'] },
  },
  // lib.test.ts: validatePath, as every tool checks its path.
  {
    source: '__tests__/lib.test.ts > validatePath > validates allowed paths',
    files: { 'file.txt': 'x\n' },
    tool: 'read_text_file',
    args: { path: '<dir>/file.txt' },
    expect: { text: 'x\n' },
  },
  {
    source: '__tests__/lib.test.ts > validatePath > rejects disallowed paths',
    tool: 'read_text_file',
    args: { path: '/etc/passwd' },
    expect: { error: 'Access denied - path outside allowed directories: /etc/passwd not in <root>' },
  },
  {
    source: '__tests__/lib.test.ts > validatePath > handles non-existent files by checking parent directory',
    files: { 'keep.txt': '' },
    tool: 'write_file',
    args: { path: '<dir>/newfile.txt', content: 'made\n' },
    expect: { text: 'Successfully wrote to <dir>/newfile.txt', bytes: { 'newfile.txt': 'made\n' } },
  },
  {
    source: '__tests__/lib.test.ts > validatePath > rejects when parent directory does not exist',
    files: { 'keep.txt': '' },
    tool: 'read_text_file',
    args: { path: '<dir>/nonexistent/newfile.txt' },
    expect: { error: 'Parent directory does not exist: <dir>/nonexistent' },
  },
  {
    source: '__tests__/lib.test.ts > validatePath > rejects when parent directory does not exist (a write)',
    files: { 'keep.txt': '' },
    tool: 'write_file',
    args: { path: '<dir>/nonexistent/newfile.txt', content: 'made\n' },
    expect: { error: 'Parent directory does not exist: <dir>/nonexistent' },
    differs: { reason: NO_EMPTY_DIRS, expect: { text: 'Successfully wrote to <dir>/nonexistent/newfile.txt', bytes: { 'nonexistent/newfile.txt': 'made\n' } } },
  },
  {
    source: '__tests__/lib.test.ts > validatePath > resolves relative paths against allowed directories instead of process.cwd()',
    files: { 'test-file.txt': 'rel\n' },
    tool: 'read_text_file',
    args: { path: '<rel>/test-file.txt' },
    expect: { text: 'rel\n' },
  },
  // lib.test.ts: searchFilesWithValidation.
  {
    source: '__tests__/lib.test.ts > searchFilesWithValidation > excludes files matching exclude patterns',
    files: { 'test.txt': 't', 'test.log': 'l', 'node_modules/test.js': 'm' },
    tool: 'search_files',
    args: { path: '<dir>', pattern: '*test*', excludePatterns: ['*.log', 'node_modules'] },
    expect: { text: '<dir>/test.txt' },
  },
  {
    source: '__tests__/lib.test.ts > searchFilesWithValidation > handles complex exclude patterns with wildcards',
    files: { 'test.txt': 't', 'test.backup': 'b', 'important_test.js': 'j' },
    tool: 'search_files',
    args: { path: '<dir>', pattern: '*test*', excludePatterns: ['*.backup'] },
    expect: { lines: ['<dir>/test.txt', '<dir>/important_test.js'] },
  },
  // path-validation.test.ts, through read_text_file.
  {
    source: `${PV} blocks similar directory names (prefix vulnerability)`,
    tool: 'read_text_file',
    args: { path: '<root>2/file.txt' },
    expect: { error: 'Access denied - path outside allowed directories: <root>2/file.txt not in <root>' },
  },
  {
    source: `${PV} blocks parent and sibling directories`,
    tool: 'list_directory',
    args: { path: '<root>/..' },
    expect: { error: 'Access denied - path outside allowed directories' },
  },
  {
    source: `${PV} Validation Tests - Path Traversal > blocks path traversal attempts`,
    tool: 'read_text_file',
    args: { path: '<dir>/../../../../../../../../../../../etc/passwd' },
    expect: { error: 'Access denied - path outside allowed directories: /etc/passwd not in <root>' },
  },
  {
    source: `${PV} allows exact directory match`,
    files: { 'a.txt': 'a' },
    tool: 'list_directory',
    args: { path: '<dir>' },
    expect: { text: '[FILE] a.txt' },
  },
  {
    source: `${PV} Unicode and special characters > handles unicode characters in paths`,
    files: { 'ünïcödé/файл.txt': 'u\n' },
    tool: 'read_text_file',
    args: { path: '<dir>/ünïcödé/файл.txt' },
    expect: { text: 'u\n' },
  },
  {
    source: `${PV} Unicode and special characters > handles paths with spaces correctly`,
    files: { 'my folder/my file.txt': 's\n' },
    tool: 'read_text_file',
    args: { path: '<dir>/my folder/my file.txt' },
    expect: { text: 's\n' },
  },
  {
    source: `${PV} Validation Tests - Special Characters > allows percent signs in filenames`,
    files: { 'report%20.txt': 'p\n' },
    tool: 'read_text_file',
    args: { path: '<dir>/report%20.txt' },
    expect: { text: 'p\n' },
  },
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
    expect: { text: "<dir>/a.txt:\nA\n\n---\n<dir>/missing.txt: Error - ENOENT: no such file or directory, open '<dir>/missing.txt'" },
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
    expect: { text: `[FILE] ${'big.txt'.padEnd(30)} ${'6 B'.padStart(10)}\n[FILE] ${'small.txt'.padEnd(30)} ${'2 B'.padStart(10)}\n[DIR] ${'sub'.padEnd(30)} \n\nTotal: 2 files, 1 directories\nCombined size: 8 B` },
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
    expect: { contains: ['size: 5\n', 'isFile: true'], keys: ['size', 'created', 'modified', 'accessed', 'isDirectory', 'isFile', 'permissions'] },
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
export const MEDIA: Array<{ source: string; name: string; bytes: number[]; type: 'image' | 'audio' | 'resource'; mimeType: string; uri?: RegExp }> = [
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
    cases: [[0, '0 B'], [512, '512 B'], [1024, '1.00 KB'], [1536, '1.50 KB'], [1048576, '1.00 MB'], [1073741824, '1.00 GB'], [1099511627776, '1.00 TB']],
  },
  { source: 'handles edge cases', cases: [[1023, '1023 B'], [1025, '1.00 KB'], [1048575, '1024.00 KB']] },
  {
    source: 'handles very large numbers beyond TB',
    cases: [[1024 ** 5, '1024.00 TB'], [Number.MAX_SAFE_INTEGER, /TB/]],
  },
  { source: 'handles negative numbers', cases: [[-1024, /NaN/], [-0, '0 B']] },
  { source: 'handles decimal numbers', cases: [[1536.5, '1.50 KB'], [1023.9, '1023.9 B']] },
  { source: 'handles very small positive numbers', cases: [[1, '1 B'], [0.5, '0.5 B'], [0.1, '0.1 B']] },
];
