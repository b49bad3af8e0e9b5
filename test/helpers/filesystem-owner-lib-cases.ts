import type { OwnerCase } from './filesystem-owner-case.js';

/*
 * The server's lib.test.ts (applyFileEdits, createUnifiedDiff, validatePath,
 * searchFilesWithValidation) and path-validation.test.ts cases, run through
 * the tools that use those functions. See filesystem-owner-cases.ts.
 */

export const LINES = { 'f.txt': 'line1\nline2\nline3\n' };
const LIB = '__tests__/lib.test.ts > applyFileEdits';
const PV = '__tests__/path-validation.test.ts > Path Validation >';
const NO_EMPTY_DIRS =
  'git keeps no empty directory, so create_directory writes nothing and a write makes the directories it needs (the draft is a tree of files)';

export const LIB_CASES: OwnerCase[] = [
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
    args: {
      path: '<dir>/f.txt',
      edits: [
        { oldText: 'line1', newText: 'first line' },
        { oldText: 'line3', newText: 'third line' },
      ],
    },
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
    args: {
      path: '<dir>/f.js',
      edits: [
        {
          oldText: '  console.log("hello");\n  return true;',
          newText: '  console.log("world");\n  console.log("test");\n  return false;',
        },
      ],
    },
    expect: {
      bytes: { 'f.js': 'function test() {\n  console.log("world");\n  console.log("test");\n  return false;\n}' },
    },
  },
  {
    source: `${LIB} > handles edits with different indentation patterns`,
    files: { 'f.js': '    if (condition) {\n        doSomething();\n    }' },
    tool: 'edit_file',
    args: {
      path: '<dir>/f.js',
      edits: [{ oldText: 'doSomething();', newText: 'doSomethingElse();\n        doAnotherThing();' }],
    },
    expect: { bytes: { 'f.js': '    if (condition) {\n        doSomethingElse();\n        doAnotherThing();\n    }' } },
  },
  {
    source: `${LIB} > handles CRLF line endings in file content`,
    files: { 'f.txt': 'line1\r\nline2\r\nline3\r\n' },
    tool: 'edit_file',
    args: { path: '<dir>/f.txt', edits: [{ oldText: 'line2', newText: 'modified line2' }] },
    expect: { bytes: { 'f.txt': 'line1\nmodified line2\nline3\n' } },
    differs: {
      reason:
        'line endings are kept as the file has them: the server rewrites every line of an edited CRLF file with LF, which git would show as a change of every line',
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
    expect: {
      text: '```diff\nIndex: <dir>/f.txt\n===================================================================\n--- <dir>/f.txt\toriginal\n+++ <dir>/f.txt\tmodified\n```\n\n',
    },
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
    differs: {
      reason: NO_EMPTY_DIRS,
      expect: {
        text: 'Successfully wrote to <dir>/nonexistent/newfile.txt',
        bytes: { 'nonexistent/newfile.txt': 'made\n' },
      },
    },
  },
  {
    source:
      '__tests__/lib.test.ts > validatePath > resolves relative paths against allowed directories instead of process.cwd()',
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
];
