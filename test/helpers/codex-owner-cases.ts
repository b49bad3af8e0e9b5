import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesUnder } from './codex-patch-fixtures.js';

/*
 * Codex's own tests of its apply_patch (openai/codex, crate
 * codex-rs/apply-patch, Apache-2.0), as data: the scenario directories
 * copied under test/fixtures/codex-apply-patch/ (SOURCE.md there names
 * each file's commit) and the unit cases of its source files as tables,
 * each row naming the test it comes from. Paths the unit tests build under
 * a temporary directory are written here relative to it.
 */

export const REPO = 'openai/codex';
export const PARSER = {
  path: 'codex-rs/apply-patch/src/parser.rs',
  commit: '0e0fb63d029055d4aec1d536a3d72f70164ba8a6',
};
export const SEEK = {
  path: 'codex-rs/apply-patch/src/seek_sequence.rs',
  commit: 'cc532b07ba3c1b85f1d0dece3e629244616661c8',
};
export const LIB = { path: 'codex-rs/apply-patch/src/lib.rs', commit: '04f399d494f275d61851a1cf4122ba4fc63477ad' };

export const SCENARIOS = fileURLToPath(new URL('../../../test/fixtures/codex-apply-patch/', import.meta.url));

/** One scenario: the patch, the files before and the files Codex leaves after. */
export interface OwnerScenario {
  name: string;
  patch: string;
  input: Record<string, Buffer>;
  expected: Record<string, Buffer>;
}

/** Every scenario, in name order. */
export function ownerScenarios(): OwnerScenario[] {
  return readdirSync(SCENARIOS)
    .filter((name) => statSync(join(SCENARIOS, name)).isDirectory())
    .sort()
    .map((name) => {
      const dir = join(SCENARIOS, name);
      return {
        name,
        patch: readFileSync(join(dir, 'patch.txt'), 'utf8'),
        input: filesUnder(join(dir, 'input')),
        expected: filesUnder(join(dir, 'expected')),
      };
    });
}

/** A parsed section in Codex's terms (its `Hunk`, one `change_context` a chunk). */
export type CodexHunk =
  | { type: 'add'; path: string; contents: string }
  | { type: 'delete'; path: string }
  | {
      type: 'update';
      path: string;
      moveTo: string | null;
      chunks: Array<{ context: string | null; old: string[]; new: string[]; eof: boolean }>;
    };

/** A parser case: the text, and the hunks Codex parses from it or Codex's error text. */
export interface ParseCase {
  name: string;
  test: string;
  text: string;
  hunks?: CodexHunk[];
  /** Codex's error text; line numbers are those of `text` (the unit tests of single chunks pass made-up ones). */
  error?: string;
}

const wrap = (body: string): string => `*** Begin Patch\n${body}\n*** End Patch`;
const HEADERS = "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'";
const EVERY_LINE = "Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)";
const update = (
  path: string,
  chunks: Array<[string | null, string[], string[], boolean?]>,
  moveTo: string | null = null,
): CodexHunk => ({
  type: 'update',
  path,
  moveTo,
  chunks: chunks.map(([context, old, fresh, eof]) => ({ context, old, new: fresh, eof: eof === true })),
});
const HEREDOC_BODY = '*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch';
const HEREDOC_HUNKS = [update('file2.py', [[null, ['import foo'], ['import foo', 'bar']]])];

export const PARSE_CASES: ParseCase[] = [
  {
    name: 'not a patch',
    test: 'test_parse_patch',
    text: 'bad',
    error: "invalid patch: The first line of the patch must be '*** Begin Patch'",
  },
  {
    name: 'no End Patch',
    test: 'test_parse_patch',
    text: '*** Begin Patch\nbad',
    error: "invalid patch: The last line of the patch must be '*** End Patch'",
  },
  {
    name: 'markers padded with spaces',
    test: 'test_parse_patch',
    text: '*** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch',
    hunks: [{ type: 'add', path: 'foo', contents: 'hi\n' }],
  },
  {
    name: 'an update with no change',
    test: 'test_parse_patch',
    text: '*** Begin Patch\n*** Update File: test.py\n*** End Patch',
    error: "invalid hunk at line 2, Update file hunk for path 'test.py' is empty",
  },
  // Codex parses no hunk here and its apply then says so; either way the call fails and writes nothing.
  {
    name: 'nothing between the markers',
    test: 'test_parse_patch (then apply_hunks_to_files)',
    text: '*** Begin Patch\n*** End Patch',
    error: 'No files were modified.',
  },
  {
    name: 'add, delete, update with a move',
    test: 'test_parse_patch',
    text: '*** Begin Patch\n*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123\n*** End Patch',
    hunks: [
      { type: 'add', path: 'path/add.py', contents: 'abc\ndef\n' },
      { type: 'delete', path: 'path/delete.py' },
      update('path/update.py', [['def f():', ['    pass'], ['    return 123']]], 'path/update2.py'),
    ],
  },
  {
    name: 'an update followed by an add',
    test: 'test_parse_patch',
    text: '*** Begin Patch\n*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content\n*** End Patch',
    hunks: [update('file.py', [[null, [], ['line']]]), { type: 'add', path: 'other.py', contents: 'content\n' }],
  },
  { name: 'a first change without its @@ line', test: 'test_parse_patch', text: HEREDOC_BODY, hunks: HEREDOC_HUNKS },
  {
    name: 'a heredoc: <<EOF',
    test: 'test_parse_patch_lenient',
    text: `<<EOF\n${HEREDOC_BODY}\nEOF\n`,
    hunks: HEREDOC_HUNKS,
  },
  {
    name: "a heredoc: <<'EOF'",
    test: 'test_parse_patch_lenient',
    text: `<<'EOF'\n${HEREDOC_BODY}\nEOF\n`,
    hunks: HEREDOC_HUNKS,
  },
  {
    name: 'a heredoc: <<"EOF"',
    test: 'test_parse_patch_lenient',
    text: `<<"EOF"\n${HEREDOC_BODY}\nEOF\n`,
    hunks: HEREDOC_HUNKS,
  },
  {
    name: 'a heredoc with mismatched quotes',
    test: 'test_parse_patch_lenient',
    text: `<<"EOF'\n${HEREDOC_BODY}\nEOF\n`,
    error: "invalid patch: The first line of the patch must be '*** Begin Patch'",
  },
  {
    name: 'a heredoc whose patch has no End Patch',
    test: 'test_parse_patch_lenient',
    text: '<<EOF\n*** Begin Patch\n*** Update File: file2.py\nEOF\n',
    error: "invalid patch: The last line of the patch must be '*** End Patch'",
  },
  {
    name: 'an unknown section header',
    test: 'test_parse_one_hunk',
    text: wrap('bad'),
    error: `invalid hunk at line 2, 'bad' is not a valid hunk header. ${HEADERS}`,
  },
  {
    name: 'a second change without its @@ line',
    test: 'test_update_file_chunk',
    text: wrap('*** Update File: f\n@@\n-a\n*** End of File\nbad'),
    error: "invalid hunk at line 6, Expected update hunk to start with a @@ context marker, got: 'bad'",
  },
  {
    name: 'an @@ line and nothing after it',
    test: 'test_update_file_chunk',
    text: wrap('*** Update File: f\n@@'),
    error: 'invalid hunk at line 4, Update hunk does not contain any lines',
  },
  {
    name: 'an @@ line and a line that is no change line',
    test: 'test_update_file_chunk',
    text: wrap('*** Update File: f\n@@\nbad'),
    error: `invalid hunk at line 4, Unexpected line found in update hunk: 'bad'. ${EVERY_LINE}`,
  },
  {
    name: 'an @@ line and End of File only',
    test: 'test_update_file_chunk',
    text: wrap('*** Update File: f\n@@\n*** End of File'),
    error: 'invalid hunk at line 4, Update hunk does not contain any lines',
  },
  {
    name: 'a change with an @@ context, an empty line and context on both sides',
    test: 'test_update_file_chunk',
    text: wrap('*** Update File: f\n@@ change_context\n\n context\n-remove\n+add\n context2'),
    hunks: [
      update('f', [['change_context', ['', 'context', 'remove', 'context2'], ['', 'context', 'add', 'context2']]]),
    ],
  },
  {
    name: 'an addition at End of File',
    test: 'test_update_file_chunk',
    text: wrap('*** Update File: f\n@@\n+line\n*** End of File'),
    hunks: [update('f', [[null, [], ['line'], true]])],
  },
  {
    name: 'relative and absolute paths parse alike',
    test: 'test_parse_patch_accepts_relative_and_absolute_hunk_paths',
    text: wrap(
      '*** Add File: relative-add.py\n+content\n*** Delete File: /tmp/dir/absolute-delete.py\n*** Update File: /tmp/dir/absolute-update.py\n@@\n-old\n+new',
    ),
    hunks: [
      { type: 'add', path: 'relative-add.py', contents: 'content\n' },
      { type: 'delete', path: '/tmp/dir/absolute-delete.py' },
      update('/tmp/dir/absolute-update.py', [[null, ['old'], ['new']]]),
    ],
  },
];

/** A seek case: lines, pattern, where the search starts, End of File, and where Codex finds it. */
export interface SeekCase {
  name: string;
  test: string;
  lines: string[];
  pattern: string[];
  start: number;
  eof: boolean;
  at: number | undefined;
}

export const SEEK_CASES: SeekCase[] = [
  {
    name: 'exact match',
    test: 'test_exact_match_finds_sequence',
    lines: ['foo', 'bar', 'baz'],
    pattern: ['bar', 'baz'],
    start: 0,
    eof: false,
    at: 1,
  },
  {
    name: 'trailing whitespace ignored',
    test: 'test_rstrip_match_ignores_trailing_whitespace',
    lines: ['foo   ', 'bar\t\t'],
    pattern: ['foo', 'bar'],
    start: 0,
    eof: false,
    at: 0,
  },
  {
    name: 'whitespace at both ends ignored',
    test: 'test_trim_match_ignores_leading_and_trailing_whitespace',
    lines: ['    foo   ', '   bar\t'],
    pattern: ['foo', 'bar'],
    start: 0,
    eof: false,
    at: 0,
  },
  {
    name: 'a pattern longer than the file',
    test: 'test_pattern_longer_than_input_returns_none',
    lines: ['just one line'],
    pattern: ['too', 'many', 'lines'],
    start: 0,
    eof: false,
    at: undefined,
  },
];

/** An apply case: files before, the patch, and the files after with the answer's A/M/D lines, or a failure. */
export interface LibCase {
  name: string;
  test: string;
  files: Record<string, string>;
  patch: string;
  after?: Record<string, string>;
  answer?: string[];
  /** Windows-only in Codex's suite (`#[cfg(windows)]`): its CRLF handling, which shadow has on every platform. */
  windows?: true;
}

const p = (body: string): string => wrap(body);

export const LIB_CASES: LibCase[] = [
  {
    name: 'Add File creates the file',
    test: 'test_add_file_hunk_creates_file_with_contents',
    files: {},
    patch: p('*** Add File: add.txt\n+ab\n+cd'),
    after: { 'add.txt': 'ab\ncd\n' },
    answer: ['A add.txt'],
  },
  {
    name: 'Delete File removes the file',
    test: 'test_delete_file_hunk_removes_file',
    files: { 'del.txt': 'x' },
    patch: p('*** Delete File: del.txt'),
    after: {},
    answer: ['D del.txt'],
  },
  {
    name: 'Update File changes it',
    test: 'test_update_file_hunk_modifies_content',
    files: { 'update.txt': 'foo\nbar\n' },
    patch: p('*** Update File: update.txt\n@@\n foo\n-bar\n+baz'),
    after: { 'update.txt': 'foo\nbaz\n' },
    answer: ['M update.txt'],
  },
  {
    name: 'Move to moves it',
    test: 'test_update_file_hunk_can_move_file',
    files: { 'src.txt': 'line\n' },
    patch: p('*** Update File: src.txt\n*** Move to: dst.txt\n@@\n-line\n+line2'),
    after: { 'dst.txt': 'line2\n' },
    answer: ['M dst.txt'],
  },
  {
    name: 'two changes of one file, listed once',
    test: 'test_multiple_update_chunks_apply_to_single_file',
    files: { 'multi.txt': 'foo\nbar\nbaz\nqux\n' },
    patch: p('*** Update File: multi.txt\n@@\n foo\n-bar\n+BAR\n@@\n baz\n-qux\n+QUX'),
    after: { 'multi.txt': 'foo\nBAR\nbaz\nQUX\n' },
    answer: ['M multi.txt'],
  },
  {
    name: 'interleaved changes and an addition at End of File',
    test: 'test_update_file_hunk_interleaved_changes',
    files: { 'interleaved.txt': 'a\nb\nc\nd\ne\nf\n' },
    patch: p('*** Update File: interleaved.txt\n@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n*** End of File'),
    after: { 'interleaved.txt': 'a\nB\nc\nd\nE\nf\ng\n' },
    answer: ['M interleaved.txt'],
  },
  {
    name: 'CRLF kept on update',
    test: 'test_preserve_crlf_line_endings_on_update',
    windows: true,
    files: { 'crlf.txt': 'a\r\nb\r\nc\r\n' },
    patch: p('*** Update File: crlf.txt\n@@\n a\n-b\n+B\n@@\n c\n+d\n*** End of File'),
    after: { 'crlf.txt': 'a\r\nB\r\nc\r\nd\r\n' },
  },
  {
    name: 'a lone CR inside a CRLF line is kept on append',
    test: 'test_preserve_crlf_embedded_carriage_returns_on_append',
    windows: true,
    files: { 'crlf_cr_content.txt': 'foo\r\r\nbar\r\n' },
    patch: p('*** Update File: crlf_cr_content.txt\n@@\n+BAZ\n*** End of File'),
    after: { 'crlf_cr_content.txt': 'foo\r\r\nbar\r\nBAZ\r\n' },
  },
  {
    name: 'a pure addition, then a removal from the top',
    test: 'test_pure_addition_chunk_followed_by_removal',
    files: { 'panic.txt': 'line1\nline2\nline3\n' },
    patch: p(
      '*** Update File: panic.txt\n@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement',
    ),
    after: { 'panic.txt': 'line1\nline2-replacement\nafter-context\nsecond-line\n' },
  },
  {
    name: 'ASCII dashes match typographic ones',
    test: 'test_update_line_with_unicode_dash',
    files: { 'unicode.py': 'import asyncio  # local import \u2013 avoids top\u2011level dep\n' },
    patch: p(
      '*** Update File: unicode.py\n@@\n-import asyncio  # local import - avoids top-level dep\n+import asyncio  # HELLO',
    ),
    after: { 'unicode.py': 'import asyncio  # HELLO\n' },
    answer: ['M unicode.py'],
  },
  {
    name: 'the first line replaced',
    test: 'test_unified_diff_first_line_replacement',
    files: { 'first.txt': 'foo\nbar\nbaz\n' },
    patch: p('*** Update File: first.txt\n@@\n-foo\n+FOO\n bar\n'),
    after: { 'first.txt': 'FOO\nbar\nbaz\n' },
  },
  {
    name: 'the last line replaced',
    test: 'test_unified_diff_last_line_replacement',
    files: { 'last.txt': 'foo\nbar\nbaz\n' },
    patch: p('*** Update File: last.txt\n@@\n foo\n bar\n-baz\n+BAZ\n'),
    after: { 'last.txt': 'foo\nbar\nBAZ\n' },
  },
  {
    name: 'an LF file keeps its one final newline',
    test: 'test_derive_new_contents_lf_trailing_newline',
    files: { 'lf_trailing_newline.txt': 'foo\nbar\n' },
    patch: p('*** Update File: lf_trailing_newline.txt\n@@\n foo\n-bar\n+BAR\n'),
    after: { 'lf_trailing_newline.txt': 'foo\nBAR\n' },
  },
  {
    name: 'an insertion at End of File',
    test: 'test_unified_diff_insert_at_eof',
    files: { 'insert.txt': 'foo\nbar\nbaz\n' },
    patch: p('*** Update File: insert.txt\n@@\n+quux\n*** End of File\n'),
    after: { 'insert.txt': 'foo\nbar\nbaz\nquux\n' },
  },
  {
    name: 'interleaved changes with one line of context',
    test: 'test_unified_diff_interleaved_changes',
    files: { 'interleaved.txt': 'a\nb\nc\nd\ne\nf\n' },
    patch: p('*** Update File: interleaved.txt\n@@\n a\n-b\n+B\n@@\n d\n-e\n+E\n@@\n f\n+g\n*** End of File'),
    after: { 'interleaved.txt': 'a\nB\nc\nd\nE\nf\ng\n' },
  },
  {
    name: 'a relative path is read from the working directory',
    test: 'test_apply_patch_should_resolve_absolute_paths_in_cwd',
    files: { 'source.txt': 'session directory content\n' },
    patch:
      '*** Begin Patch\n*** Update File: source.txt\n@@\n-session directory content\n+updated session directory content\n*** End Patch',
    after: { 'source.txt': 'updated session directory content\n' },
  },
];
