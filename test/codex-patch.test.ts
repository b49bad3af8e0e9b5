import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  codexPatchPaths,
  parseCodexPatch,
  retargetCodexPatch,
  type PatchChunk,
} from '../src/drafts/codex-patch/codex-patch.js';
import { applyChunks, applyChunksNoted } from '../src/drafts/codex-patch/codex-patch-apply.js';
import { seek, trim } from '../src/drafts/codex-patch/codex-seek.js';
import { caught } from './helpers/caught.js';

/*
 * Codex's apply_patch format without I/O: the parser against the grammar
 * and the leniencies of Codex's own parser, the line matching of its
 * seek_sequence, and one file's changes applied to its text with its line
 * endings kept (the behaviour of codex-rs/apply-patch's own tests).
 */

const wrap = (...body: string[]): string => ['*** Begin Patch', ...body, '*** End Patch'].join('\n');
const chunksOf = (patch: string): PatchChunk[] => {
  const h = parseCodexPatch(patch)[0]!;
  if (h.type !== 'update') throw new Error('not an update');
  return h.chunks;
};
const applied = (text: string, ...body: string[]): string =>
  applyChunks(text, chunksOf(wrap('*** Update File: f.txt', ...body)), 'f.txt');

// ---------------------------------------------------------------- the parser

const Parse = suite('parseCodexPatch: the grammar');

Parse('add, delete, and an update with a move and an @@ line: each section with the line of its header', () => {
  const hunks = parseCodexPatch(
    wrap(
      '*** Add File: path/add.py',
      '+abc',
      '+def',
      '*** Delete File: path/delete.py',
      '*** Update File: path/update.py',
      '*** Move to: path/update2.py',
      '@@ def f():',
      '-    pass',
      '+    return 123',
    ),
  );
  assert.equal(hunks, [
    { type: 'add', path: 'path/add.py', contents: 'abc\ndef\n', line: 2 },
    { type: 'delete', path: 'path/delete.py', line: 5 },
    {
      type: 'update',
      path: 'path/update.py',
      moveTo: 'path/update2.py',
      chunks: [
        {
          anchors: ['def f():'],
          oldLines: ['    pass'],
          newLines: ['    return 123'],
          contextLines: [],
          endOfFile: false,
          line: 8,
        },
      ],
      line: 6,
    },
  ]);
});

Parse('an update followed by an add; a first change without its @@ line; context lines recorded on both sides', () => {
  const hunks = parseCodexPatch(wrap('*** Update File: file.py', '@@', '+line', '*** Add File: other.py', '+content'));
  assert.equal(
    hunks.map((h) => h.type),
    ['update', 'add'],
  );
  assert.equal(chunksOf(wrap('*** Update File: file2.py', ' import foo', '+bar')), [
    {
      anchors: [],
      oldLines: ['import foo'],
      newLines: ['import foo', 'bar'],
      contextLines: [[0, 0]],
      endOfFile: false,
      line: 3,
    },
  ]);
});

Parse(
  'an empty line inside a change is an empty context line; blank lines between changes are skipped; End of File marks the change',
  () => {
    const chunks = chunksOf(
      wrap(
        '*** Update File: f',
        '@@ change_context',
        '',
        ' context',
        '-remove',
        '+add',
        ' context2',
        '',
        '   ',
        '@@',
        '+line',
        '*** End of File',
        '',
        ' \t',
        '@@',
        '-last',
      ),
    );
    // Inside a change, the empty line and the one of spaces are context lines ("" and "  ").
    assert.equal(chunks[0], {
      anchors: ['change_context'],
      oldLines: ['', 'context', 'remove', 'context2', '', '  '],
      newLines: ['', 'context', 'add', 'context2', '', '  '],
      contextLines: [
        [0, 0],
        [1, 1],
        [3, 3],
        [4, 4],
        [5, 5],
      ],
      endOfFile: false,
      line: 3,
    });
    assert.equal(chunks[1], {
      anchors: [],
      oldLines: [],
      newLines: ['line'],
      contextLines: [],
      endOfFile: true,
      line: 11,
    });
    // After End of File, the blank lines before the next @@ belong to no change.
    assert.equal(chunks[2], {
      anchors: [],
      oldLines: ['last'],
      newLines: [],
      contextLines: [],
      endOfFile: false,
      line: 16,
    });
  },
);

Parse('several @@ lines in a row (as Codex tells models to write them): anchors found one after the other', () => {
  assert.equal(
    chunksOf(
      wrap('*** Update File: f.py', '@@ class A:', '@@     def run(self):', '@@', '-        pass', '+        return 1'),
    )[0]!.anchors,
    ['class A:', '    def run(self):'],
  );
  const py = 'class A:\n    def run(self):\n        pass\n\nclass B:\n    def run(self):\n        pass\n';
  assert.is(
    applied(py, '@@ class B:', '@@     def run(self):', '-        pass', '+        return 1'),
    py.replace(/pass\n$/, 'return 1\n'),
  );
});

Parse('an added file with no line is empty; one of several lines keeps every line end', () => {
  assert.equal(parseCodexPatch(wrap('*** Add File: empty.txt')), [
    { type: 'add', path: 'empty.txt', contents: '', line: 2 },
  ]);
  assert.equal(parseCodexPatch(wrap('*** Add File: a.md', '+# A', '+', '+text')), [
    { type: 'add', path: 'a.md', contents: '# A\n\ntext\n', line: 2 },
  ]);
});

const Lenient = suite("parseCodexPatch: Codex's leniencies");

Lenient('whitespace around the markers, the headers and the whole text; CRLF line ends', () => {
  const plain = parseCodexPatch(wrap('*** Update File: file.txt', '@@', '-one', '+two'));
  for (const text of [
    ' *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch \n',
    '*** Begin Patch \n  *** Update File: file.txt  \n@@\n-one\n+two\n *** End Patch\n',
    '*** Begin Patch\r\n*** Update File: file.txt\r\n@@\r\n-one\r\n+two\r\n*** End Patch\r\n',
  ]) {
    assert.equal(
      parseCodexPatch(text).map((h) => ({ ...h, line: 0 })),
      plain.map((h) => ({ ...h, line: 0 })),
      JSON.stringify(text),
    );
  }
  // Leading blank lines count in the line numbers of the text sent.
  assert.is(parseCodexPatch(`\n\n${wrap('*** Delete File: x')}`)[0]!.line, 4);
});

Lenient('a heredoc around the patch: <<EOF, quoted either way, and with apply_patch in front', () => {
  const body = wrap('*** Update File: file2.py', ' import foo', '+bar');
  const expected = parseCodexPatch(body).map((h) => h.path);
  for (const text of [
    `<<EOF\n${body}\nEOF\n`,
    `<<'EOF'\n${body}\nEOF\n`,
    `<<"EOF"\n${body}\nEOF`,
    `apply_patch <<'PATCH'\n${body}\nPATCH\n`,
    `applypatch <<EOF\n${body}\nEOF\n`,
  ]) {
    assert.equal(
      parseCodexPatch(text).map((h) => h.path),
      expected,
      text.split('\n')[0],
    );
  }
  assert.is(
    caught(() => parseCodexPatch(`<<"EOF'\n${body}\nEOF\n`)).message,
    `${FIRST}\ninvalid patch at line 1: the first line must be "*** Begin Patch", not "<<\\"EOF'"`,
  );
  assert.is(
    caught(() => parseCodexPatch('<<EOF\n*** Begin Patch\n*** Update File: file2.py\nEOF\n')).message,
    `${LAST}\ninvalid patch at line 3: the last line must be "*** End Patch", not "*** Update File: file2.py"`,
  );
});

const Errors = suite('parseCodexPatch: INVALID_PATCH, with the line');

/* Codex's own texts (codex-rs/apply-patch/src/parser.rs and lib.rs at 0e0fb63d029055d4aec1d536a3d72f70164ba8a6) come first. */
const FIRST = "invalid patch: The first line of the patch must be '*** Begin Patch'";
const LAST = "invalid patch: The last line of the patch must be '*** End Patch'";
const HEADER = (line: number, text: string): string =>
  `invalid hunk at line ${line}, '${text}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'`;
const BAD_LINE = "'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)";

const PARSE_ERRORS: Array<[string, string, string, string]> = [
  ['not a patch', 'bad', FIRST, 'invalid patch at line 1: the first line must be "*** Begin Patch", not "bad"'],
  [
    'no End Patch (cut off)',
    '*** Begin Patch\n*** Add File: a\n+a',
    LAST,
    'invalid patch at line 3: the last line must be "*** End Patch", not "+a"',
  ],
  ['empty text', ' \n\t\n', LAST, 'invalid patch: the patch is empty'],
  ['nothing between the markers', wrap(), 'No files were modified.', 'invalid patch: the patch changes no file'],
  [
    'an unknown header',
    wrap('*** Frobnicate File: foo'),
    HEADER(2, '*** Frobnicate File: foo'),
    'invalid patch at line 2: "*** Frobnicate File: foo" is not a file header: a section starts with "*** Add File: <path>", "*** Delete File: <path>" or "*** Update File: <path>"',
  ],
  [
    'an update with no change',
    wrap('*** Update File: test.py'),
    "invalid hunk at line 2, Update file hunk for path 'test.py' is empty",
    'invalid patch at line 2: "*** Update File: test.py" has no change under it',
  ],
  [
    'an @@ line and nothing under it',
    wrap('*** Update File: f', '@@'),
    'invalid hunk at line 4, Update hunk does not contain any lines',
    'invalid patch at line 3: the change of f at line 3 has no line',
  ],
  [
    'an @@ line and End of File only',
    wrap('*** Update File: f', '@@', '*** End of File'),
    'invalid hunk at line 4, Update hunk does not contain any lines',
    'invalid patch at line 4: the change of f at line 3 has no line',
  ],
  [
    'a line that is no change line',
    wrap('*** Update File: f', '@@', 'bad'),
    `invalid hunk at line 4, Unexpected line found in update hunk: 'bad${BAD_LINE}`,
    'invalid patch at line 4: "bad" is not a line of a change of f',
  ],
  [
    'a second change without its @@ line',
    wrap('*** Update File: f', '@@', '-a', '*** End of File', '-b'),
    "invalid hunk at line 6, Expected update hunk to start with a @@ context marker, got: '-b'",
    'invalid patch at line 6: expected an @@ line to start the next change of f, got "-b"',
  ],
  [
    'an added file line without +',
    wrap('*** Add File: a.txt', '+one', 'two'),
    HEADER(4, 'two'),
    'invalid patch at line 4: "two" is not a file header: a section starts with "*** Add File: <path>", "*** Delete File: <path>" or "*** Update File: <path>"',
  ],
];

Errors('each malformed patch: its message and a hint saying what to send', () => {
  for (const [what, text, codex, own] of PARSE_ERRORS) {
    const e = caught(() => parseCodexPatch(text));
    assert.is(e.code, 'INVALID_PATCH', what);
    assert.is(e.message, `${codex}\n${own}`, what);
    assert.is(e.data?.codex, codex, what);
    assert.type(e.hint, 'string', what);
  }
  assert.match(
    caught(() => parseCodexPatch(wrap('*** Add File: a.txt', '+one', 'two'))).hint!,
    /every line of an added file starts with "\+"/,
  );
  assert.match(caught(() => parseCodexPatch('*** Begin Patch\n*** Add File: a\n+a')).hint!, /cut off/);
});

const Paths = suite('codexPatchPaths and retargetCodexPatch');

Paths('the paths a patch names, each once, moves included; headers rewritten, nothing else', () => {
  // Lines of changes and of added files are not headers, however they read; a padded header is one.
  const text = wrap(
    '*** Update File: a.txt',
    '*** Move to: b.txt',
    '@@',
    '-*** Update File: a.txt',
    ' *** Delete File: e.txt',
    '+x',
    '*** Add File: a.txt',
    '+*** Add File: d',
    '  *** Delete File: c.txt',
  );
  assert.equal(codexPatchPaths(text), ['a.txt', 'b.txt', 'c.txt']);
  const moved = retargetCodexPatch(
    text,
    new Map([
      ['a.txt', 'sub/a.txt'],
      ['c.txt', 'sub/c.txt'],
    ]),
  );
  assert.equal(codexPatchPaths(moved), ['sub/a.txt', 'b.txt', 'sub/c.txt']);
  assert.match(moved, /\n-\*\*\* Update File: a\.txt\n/);
  assert.match(moved, /\n\+\*\*\* Add File: d\n/);
  assert.is(retargetCodexPatch('not a patch', new Map([['a', 'b']])), 'not a patch');
});

// ---------------------------------------------------------------- seek

const Seek = suite("seek: Codex's seek_sequence");

Seek(
  'exact first, then without trailing whitespace, then without leading whitespace too, then typography read as ASCII',
  () => {
    assert.equal(seek(['foo', 'bar', 'baz'], ['bar', 'baz'], 0, false), { at: [1], pass: 0 });
    assert.equal(seek(['foo   ', 'bar\t\t'], ['foo', 'bar'], 0, false), { at: [0], pass: 1 });
    // Codex's third pass: indentation does not count.
    assert.equal(seek(['    foo   ', '   bar\t'], ['foo', 'bar'], 0, false), { at: [0], pass: 2 });
    assert.equal(seek(['    \u2018quoted\u2019 \u2014 value   '], ["    'quoted' - value"], 0, false), {
      at: [0],
      pass: 3,
    });
    assert.equal(seek(['    \u2018quoted\u2019 \u2014 value'], ["   'quoted' - value"], 0, false), {
      at: [0],
      pass: 3,
    });
    assert.is(seek(['just one line'], ['too', 'many', 'lines'], 0, false), undefined);
    // Whitespace inside a line always counts.
    assert.is(seek(['a  b'], ['a b'], 0, false), undefined);
    // The strictest pass that finds any wins, with every start it finds; an earlier place of a later pass loses.
    assert.equal(seek(['x ', 'x', 'y', 'x'], ['x'], 0, false, 10), { at: [1, 3], pass: 0 });
    assert.equal(seek(['  x', 'x '], ['x'], 0, false, 10), { at: [1], pass: 1 });
  },
);

Seek('End of File: only the end is tried, whatever the start (Codex has no fallback)', () => {
  assert.equal(seek(['target', 'middle', 'target   '], ['target'], 0, true), { at: [2], pass: 1 });
  assert.is(seek(['before', 'target', 'not the target'], ['target'], 1, true), undefined);
  assert.equal(seek(['target'], ['target'], 1, true), { at: [0], pass: 0 });
});

Seek("whitespace is Rust's: a byte order mark is not trimmed, U+0085 is", () => {
  assert.is(trim('\uFEFFx\u0085'), '\uFEFFx');
});

// ---------------------------------------------------------------- applying a file's changes

const Apply = suite('applyChunks: one file');

Apply('several changes in order; an @@ line narrows the search to after it', () => {
  assert.is(
    applied('line1\nline2\nline3\nline4\n', '@@', '-line2', '+changed2', '@@', '-line4', '+changed4'),
    'line1\nchanged2\nline3\nchanged4\n',
  );
  const py = 'def a():\n    return 1\n\ndef b():\n    return 1\n';
  assert.is(
    applied(py, '@@ def b():', '-    return 1', '+    return 2'),
    'def a():\n    return 1\n\ndef b():\n    return 2\n',
  );
});

Apply('a change with nothing to remove goes at the end of the file, before a last empty line, which stays', () => {
  assert.is(applied('a\nb\n', '@@', '+c', '+d'), 'a\nb\nc\nd\n');
  // compute_replacements in lib.rs puts it before the last empty line; older Codex then dropped that line, shadow keeps it.
  assert.is(applied('a\n\n', '@@', '+c'), 'a\nc\n\n');
  assert.is(applied('', '@@', '+first'), 'first\n');
  // Its @@ line is looked for, but the addition still goes at the end, as under Codex.
  assert.is(applied('def f():\n    pass\nz\n', '@@ def f():', '+    y = 1'), 'def f():\n    pass\nz\n    y = 1\n');
});

Apply('End of File anchors a change to the end when the lines occur earlier too', () => {
  assert.is(applied('x\nend\nx\nend\n', '@@', ' x', '-end', '+END', '*** End of File'), 'x\nend\nx\nEND\n');
});

Apply(
  'context matched without its trailing whitespace, or with typographic punctuation, stays as the file has it',
  () => {
    assert.is(applied('keep  \nold\n', '@@', ' keep', '-old', '+new'), 'keep  \nnew\n');
    assert.is(applied('naïve café\n', '@@', '-naïve café', '+naïve café ✅'), 'naïve café ✅\n');
    assert.is(applied('say \u201chi\u201d\nold\n', '@@', ' say "hi"', '-old', '+new'), 'say \u201chi\u201d\nnew\n');
  },
);

Apply(
  'deletion only; a file without a final line end gets one; a last empty line of a change stands for the final line end',
  () => {
    assert.is(applied('a\nb\nc\n', '@@', ' a', '-b', ' c'), 'a\nc\n');
    assert.is(
      applied('no newline at end', '@@', '-no newline at end', '+first line', '+second line'),
      'first line\nsecond line\n',
    );
    assert.is(applied('a\nlast\n', '@@', ' a', '-last', '+LAST', ''), 'a\nLAST\n');
  },
);

Apply(
  "CRLF files keep CRLF; mixed line ends stay where untouched; context lines keep theirs (codex's own cases)",
  () => {
    assert.is(
      applied('one\r\ntwo\r\nthree\r\n', '@@', '-one', '+uno', '@@', ' two', '+', '+between', ' three'),
      'uno\r\ntwo\r\n\r\nbetween\r\nthree\r\n',
    );
    assert.is(
      applied('one\r\ntwo\nthree\r\nfour\n', '@@', ' one', ' two', '-three', '+THREE', ' four'),
      'one\r\ntwo\nTHREE\r\nfour\n',
    );
    assert.is(applied('same\r\nsame\n', '@@', '-same', ' same'), 'same\n');
    assert.is(applied('one\r\ntwo', '@@', '-one', '+ONE'), 'ONE\r\ntwo\r\n');
    assert.is(applied('a\nb\n', '@@', '-a', '-b', '+b', '+b', '+a'), 'b\nb\na\n');
  },
);

Apply(
  "deliberate difference: context lines matched by a fuzzy pass stay as the file has them (Codex writes the patch's text over them)",
  () => {
    // Codex would leave 'a\nB\n': it replaces the whole matched region with the patch's lines.
    assert.is(applied('a  \nb\n', '@@', ' a', '-b', '+B'), 'a  \nB\n');
    assert.is(applied('    a\nb\n', '@@', ' a', '-b', '+B'), '    a\nB\n');
  },
);

const ApplyErrors = suite('applyChunks: changes that do not fit');

ApplyErrors('lines not in the file: PATCH_FAILED naming the change, the closest place and the file there', () => {
  const e = caught(() =>
    applied('def f():\n    x = 1\n    y = 2\n', '@@ def f():', '     x = 1', '-    y = 3', '+    y = 4'),
  );
  assert.is(e.code, 'PATCH_FAILED');
  assert.is(e.data.codex, 'Failed to find expected lines in f.txt:\n    x = 1\n    y = 3');
  assert.is(
    e.message,
    'Failed to find expected lines in f.txt:\n    x = 1\n    y = 3\nchange 1 of 1 of f.txt (patch line 3) does not apply: the lines it replaces ("    x = 1" and 1 more line) are not in the file after line 1; closest: line 2, where 1 of its 2 lines match (the file from there is in details)',
  );
  assert.equal(e.data.closest, { line: 2, matching: 1, lines: 2 });
  assert.equal(e.data.file_lines, ['2:     x = 1', '3:     y = 2']);
  assert.match(e.hint!, /read the file again/);
  const none = caught(() => applied('line1\nline2\n', '@@', '-missing', '+changed'));
  assert.match(none.message, /no line like them is in the file \(2 lines\)$/);
  // A one-line change that matches no line exactly: the lines most like it, as the edit op finds them.
  const typo = caught(() =>
    applied(
      'def greet(name):\n    return "hi " + name\n',
      '@@ def greet(name):',
      '-    return "hello " + name',
      '+    return name',
    ),
  );
  assert.match(
    typo.message,
    /are not in the file after line 1; closest: line 2: "return "hi " \+ name" \(the file from there is in details\)$/,
  );
  assert.equal(typo.data.file_lines, ['2:     return "hi " + name']);
});

ApplyErrors(
  'a change already in place says so; one before the place an earlier change reached says the order is wrong',
  () => {
    const done = caught(() => applied('a\nB\n', '@@', '-b', '+B'));
    assert.is(done.data.in_place, true);
    assert.match(done.message, /the file already holds what this change makes$/);
    const order = caught(() => applied('a\nb\nc\n', '@@', '-c', '+C', '@@', '-a', '+A'));
    assert.match(
      order.message,
      /\nchange 2 of 2 of f\.txt .*they stand at line 1, before the place an earlier change of this patch moved past/,
    );
  },
);

ApplyErrors('an @@ line that is no line of the file; one written as line numbers gets a hint about the format', () => {
  const e = caught(() => applied('def a():\n    pass\n', '@@ def b():', '-    pass', '+    return'));
  assert.is(e.code, 'PATCH_FAILED');
  assert.match(
    e.message,
    /^Failed to find context 'def b\(\):' in f\.txt\nchange 1 of 1 of f\.txt \(patch line 3\): its @@ line "def b\(\):" is no line of the file; closest: line 1: "def a\(\):"$/,
  );
  assert.match(caught(() => applied('a\n', '@@ -1,2 +1,2 @@', '-a', '+b')).hint!, /not line numbers/);
});

ApplyErrors('whitespace inside the lines is the only difference: the message says so', () => {
  const e = caught(() => applied('x  =  1\ny = 2\n', '@@', '-x = 1', '+x = 3'));
  assert.is(e.code, 'PATCH_FAILED');
  assert.match(e.message, /at line 1 they differ from the file only in whitespace inside the lines/);
  assert.equal(e.data.closest, { line: 1, whitespace_only: true });
});

const Places = suite('applyChunksNoted: where Codex puts a change, and the notes');

Places(
  'several places: the first from where the search starts, as Codex; noted unless a later change takes the others',
  () => {
    const text = 'def a():\n    pass\ndef b():\n    pass\n';
    const one = applyChunksNoted(
      text,
      chunksOf(wrap('*** Update File: f.txt', '@@', '-    pass', '+    return 1')),
      'f.txt',
    );
    assert.is(one.text, 'def a():\n    return 1\ndef b():\n    pass\n');
    assert.equal(one.notes, ['the change matched the first of 2 places (lines 2, 4)']);
    // The patch's own order settles it: the second change takes the other place, so nothing is noted.
    const both = applyChunksNoted(
      text,
      chunksOf(wrap('*** Update File: f.txt', '@@', '-    pass', '+    return 0', '@@', '-    pass', '+    return 1')),
      'f.txt',
    );
    assert.is(both.text, 'def a():\n    return 0\ndef b():\n    return 1\n');
    assert.equal(both.notes, []);
    // An @@ line narrows the search: from after it, one place is left.
    const anchored = applyChunksNoted(
      text,
      chunksOf(wrap('*** Update File: f.txt', '@@ def b():', '-    pass', '+    return 1')),
      'f.txt',
    );
    assert.is(anchored.text, 'def a():\n    pass\ndef b():\n    return 1\n');
    assert.equal(anchored.notes, []);
    // The search starts where the change before ended, not at the top.
    const after = applyChunksNoted(
      'x\ny\nx\ny\nx\n',
      chunksOf(wrap('*** Update File: f.txt', '@@', '-y', '+Y', '@@', '-x', '+X')),
      'f.txt',
    );
    assert.is(after.text, 'x\nY\nX\ny\nx\n');
    assert.equal(after.notes, [
      'change 1 of 2 matched the first of 2 places (lines 2, 4)',
      'change 2 of 2 matched the first of 2 places (lines 3, 5)',
    ]);
  },
);

Places(
  "a change found only with its indentation ignored applies with the patch's lines, and says indentation was the difference",
  () => {
    const r = applyChunksNoted(
      'if x:\n    a = 1\n',
      chunksOf(wrap('*** Update File: f.txt', '@@', '-  a = 1', '+  a = 2')),
      'f.txt',
    );
    assert.is(r.text, 'if x:\n  a = 2\n');
    assert.equal(r.notes, [
      "the change matched only with leading indentation ignored (line 2): its added lines keep the patch's indentation",
    ]);
  },
);

Parse.run();
Places.run();
Lenient.run();
Errors.run();
Paths.run();
Seek.run();
Apply.run();
ApplyErrors.run();
