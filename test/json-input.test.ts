import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { diagnoseJson } from '../src/core/json-diagnose.js';
import { parseJsonText, validateBatch, type InputProblem } from '../src/drafts/batch/batch-schema.js';
import { OPERATION_NAMES } from '../src/drafts/batch/ops.js';
import { caught } from './helpers/caught.js';

// ---------------------------------------------------------------- parseJsonText

const Json = suite('parseJsonText');

Json('valid JSON comes back as the value', () => {
  const cases: Array<[string, unknown]> = [
    ['{"operations":[{"operation":"delete","path":"a"}]}', { operations: [{ operation: 'delete', path: 'a' }] }],
    [' \n[1, true, null, "x\\n\\u00e9"]\n ', [1, true, null, 'x\né']],
    ['"just a string"', 'just a string'],
  ];
  for (const [text, value] of cases) assert.equal(parseJsonText(text), value);
});

const CUT_OFF = '{"operations":[{"operation":"write","path":"a.txt","content":"hel';

Json('a tool call cut off mid-string is INVALID_JSON, truncated, with where it stopped', () => {
  const e = caught(() => parseJsonText(CUT_OFF));
  assert.is(e.code, 'INVALID_JSON');
  assert.is(CUT_OFF.length, 65);
  assert.equal(e.data, {
    position: 65,
    line: 1,
    column: 66,
    truncated: true,
    inside: 'the string value of operations[0].content',
  });
  assert.is(
    e.message,
    'the batch JSON is cut off at character 65 (line 1, column 66): the text ends inside the string value of operations[0].content; it was probably truncated in transit',
  );
  assert.match(e.hint!, /resend the whole batch/);
});

Json('line and column count from the last newline', () => {
  const text = '{\n  "operations": [\n    {"operation": "write", "path": "a.txt", "content": "line1\\nli';
  const e = caught(() => parseJsonText(text));
  assert.equal(e.data, {
    position: 85,
    line: 3,
    column: 66,
    truncated: true,
    inside: 'the string value of operations[0].content',
  });
  assert.match(e.message, 'cut off at character 85 (line 3, column 66)');

  const e2 = caught(() => parseJsonText('{\n"a": 1,\n"b": x\n}'));
  assert.equal(e2.data, { position: 15, line: 3, column: 6, truncated: false, inside: 'b' });
  assert.match(e2.message, 'malformed at character 15 (line 3, column 6): unexpected character "x"');
});

Json('where the text ends decides what it was cut off inside', () => {
  const cases: Array<[string, string]> = [
    ['', 'the document'],
    ['   \n', 'the document'],
    ['{', 'the object'],
    ['{"a"', 'the object'],
    ['{"a":1', 'the object'],
    ['{"a":1,', 'the object'],
    ['{"a":', 'the value of a'],
    ['{"operations":[', 'the value of operations[0]'],
    ['{"operations":[{"op', 'a property name of operations[0]'],
    ['{"operations":[{"operation":"write"},', 'the value of operations[1]'],
    ['{"operations":[{"operation":"write"}', 'the array operations'],
    ['[1,2', 'the array'],
    ['{"a":tru', 'the literal true'],
    ['{"a":nul', 'the literal null'],
    ['{"a":f', 'the literal false'],
    ['{"a":"x\\', 'the string value of a'],
    ['{"a":"\\u00', 'the string value of a'],
    ['"abc', 'the string value'],
  ];
  for (const [text, inside] of cases) {
    const e = caught(() => parseJsonText(text));
    assert.is(e.code, 'INVALID_JSON', text);
    assert.equal(
      e.data,
      {
        position: text.length,
        line: text.split('\n').length,
        column: text.length - text.lastIndexOf('\n'),
        truncated: true,
        inside,
      },
      text,
    );
    assert.match(e.message, `the batch JSON is cut off at character ${text.length}`);
    assert.match(e.message, `the text ends inside ${inside}; it was probably truncated in transit`);
  }
});

Json('a text that stops in the middle of a number is cut off too', () => {
  for (const text of ['{"a":-', '{"a":1.', '{"a":1e', '{"a":2E+', '[-']) {
    const e = caught(() => parseJsonText(text));
    assert.is(e.code, 'INVALID_JSON', text);
    assert.is(e.data.truncated, true, `${text}: ${e.message}`);
    assert.match(e.message, 'cut off', text);
  }
});

Json('malformed JSON is INVALID_JSON, not truncated, with the reason and position', () => {
  const cases: Array<[string, number, string]> = [
    ['{"operations":[]} x', 18, 'unexpected text after the end of the document'],
    ['{"a":"b"}}', 9, 'unexpected text after the end of the document'],
    ['{"a":"x\ty"}', 7, 'a raw control character in a string (escape it, e.g. \\n)'],
    ['{"a":"x\ny"}', 7, 'a raw control character in a string (escape it, e.g. \\n)'],
    ["{'a':1}", 1, 'expected a double-quoted property name'],
    ['{"a":1,}', 7, 'expected a double-quoted property name'],
    ['{"a" 1}', 5, 'expected ":" after the property name "a"'],
    ['{"a":1 "b":2}', 7, 'expected "," or "}" after a property value'],
    ['[1 2]', 3, 'expected "," or "]" after an array element'],
    ['{"a":"\\x"}', 7, 'a bad escape "\\x"'],
    ['{"a":"\\u12G4"}', 7, 'a bad \\u escape'],
    ['{"a":NaN}', 5, 'unexpected character "N"'],
    ['{"a":undefined}', 5, 'unexpected character "u"'],
  ];
  for (const [text, position, reason] of cases) {
    const e = caught(() => parseJsonText(text));
    assert.is(e.code, 'INVALID_JSON', text);
    assert.is(e.data.truncated, false, text);
    assert.is(e.data.position, position, text);
    assert.is(
      e.message,
      `the batch JSON is malformed at character ${position} (line 1, column ${position + 1}): ${reason}`,
      text,
    );
    assert.is(e.hint, 'send one valid JSON document');
  }
});

Json('a bad \\u escape at the very end is malformed, not cut off', () => {
  const d = diagnoseJson('"ab\\u12"');
  assert.is(d.truncated, false, d.reason);
  assert.match(d.reason, '\\u');
});

Json('names what it parses in the message', () => {
  const e = caught(() => parseJsonText('{"steps": [', 'plan'));
  assert.match(e.message, /^the plan JSON is cut off /);
  assert.match(e.hint!, /resend the whole plan/);
});

Json.run();

// ---------------------------------------------------------------- validateBatch

const Validate = suite('validateBatch');

function problemsOf(input: unknown): InputProblem[] {
  const e = caught(() => validateBatch(input));
  assert.is(e.code, 'INVALID_BATCH');
  const problems = e.data.problems as InputProblem[];
  const noun = problems.length === 1 ? 'problem' : 'problems';
  assert.is(
    e.message,
    `the batch is invalid (${problems.length} ${noun}): ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
  );
  assert.match(e.hint!, /nothing was written/);
  return problems;
}

Validate('a valid batch comes back unchanged', () => {
  const batch = {
    intent: 'do things',
    actor: 'agent',
    operations: [
      { operation: 'write', path: 'a.txt', content: 'x', encoding: 'utf8', mode: '100755', expect: 'sha256:00' },
      { operation: 'edit', path: 'a.txt', old_content: 'x', content: '' },
      { operation: 'patch', path: 'b.txt', diff: '@@' },
      { operation: 'delete', path: 'c.txt' },
      { operation: 'rename', path: 'd.txt', to: 'e/d.txt' },
      { operation: 'chmod', path: 'e/d.txt', mode: '100644' },
    ],
  };
  assert.equal(validateBatch(JSON.parse(JSON.stringify(batch))), batch);
});

const OP = (extra: Record<string, unknown>): unknown => ({
  operations: [{ operation: 'write', path: 'a.txt', content: 'x', ...extra }],
});
const ALL_OPS = OPERATION_NAMES.join(', ');

const SHAPE_CASES: Array<[string, unknown, InputProblem[]]> = [
  [
    'unknown operation',
    { operations: [{ operation: 'move', path: 'a' }] },
    [{ path: 'operations[0].operation', message: `"move" is not an operation; use one of ${ALL_OPS}` }],
  ],
  [
    'missing operation',
    { operations: [{ path: 'a' }] },
    [{ path: 'operations[0].operation', message: `is missing (one of ${ALL_OPS})` }],
  ],
  [
    'missing content',
    { operations: [{ operation: 'write', path: 'a' }] },
    [{ path: 'operations[0].content', message: 'is missing (expected string)' }],
  ],
  [
    'missing path',
    { operations: [{ operation: 'delete' }] },
    [{ path: 'operations[0].path', message: 'is missing (expected string)' }],
  ],
  [
    'missing rename target',
    { operations: [{ operation: 'rename', path: 'a' }] },
    [{ path: 'operations[0].to', message: 'is missing (expected string)' }],
  ],
  ['missing operations', {}, [{ path: 'operations', message: 'is missing (expected array)' }]],
  ['extra field', OP({ foo: 1 }), [{ path: 'operations[0]', message: 'has unknown field "foo"' }]],
  ['extra fields', OP({ foo: 1, bar: 2 }), [{ path: 'operations[0]', message: 'has unknown fields "foo", "bar"' }]],
  [
    'a field of another op',
    OP({ old_content: 'x' }),
    [{ path: 'operations[0]', message: 'has unknown field "old_content"' }],
  ],
  [
    'extra top-level field',
    { operations: [{ operation: 'delete', path: 'a' }], dry_run: true },
    [{ path: '(document)', message: 'has unknown field "dry_run"' }],
  ],
  ['empty operations', { operations: [] }, [{ path: 'operations', message: 'is empty; send at least one' }]],
  ['operations not an array', { operations: {} }, [{ path: 'operations', message: 'must be an array, got an object' }]],
  [
    'content a number',
    OP({ content: 5 }),
    [{ path: 'operations[0].content', message: 'must be a string, got a number' }],
  ],
  [
    'path null',
    { operations: [{ operation: 'delete', path: null }] },
    [{ path: 'operations[0].path', message: 'must be a string, got null' }],
  ],
  [
    'path an array',
    { operations: [{ operation: 'delete', path: ['a'] }] },
    [{ path: 'operations[0].path', message: 'must be a string, got an array' }],
  ],
  [
    'bad mode',
    { operations: [{ operation: 'chmod', path: 'a', mode: '777' }] },
    [{ path: 'operations[0].mode', message: 'must be one of "100644", "100755", got "777"' }],
  ],
  [
    'mode as a number',
    { operations: [{ operation: 'chmod', path: 'a', mode: 100755 }] },
    [{ path: 'operations[0].mode', message: 'must be one of "100644", "100755", got 100755' }],
  ],
  [
    'bad encoding',
    OP({ encoding: 'hex' }),
    [{ path: 'operations[0].encoding', message: 'must be one of "utf8", "base64", got "hex"' }],
  ],
  [
    'empty old_content',
    { operations: [{ operation: 'edit', path: 'a', old_content: '', content: 'x' }] },
    [{ path: 'operations[0].old_content', message: 'must not be empty' }],
  ],
  [
    'empty diff',
    { operations: [{ operation: 'patch', path: 'a', diff: '' }] },
    [{ path: 'operations[0].diff', message: 'must not be empty' }],
  ],
  [
    'intent too long',
    { intent: 'x'.repeat(10_001), operations: [{ operation: 'delete', path: 'a' }] },
    [{ path: 'intent', message: 'must be at most 10000 characters' }],
  ],
  [
    'empty actor',
    { actor: '', operations: [{ operation: 'delete', path: 'a' }] },
    [{ path: 'actor', message: 'must not be empty' }],
  ],
  ['document null', null, [{ path: '(document)', message: 'must be an object, got null' }]],
  ['document an array', [], [{ path: '(document)', message: 'must be an object, got an array' }]],
  [
    'an op that is a string',
    { operations: ['write'] },
    [{ path: 'operations[0]', message: 'must be an object, got a string' }],
  ],
];

for (const [label, input, expected] of SHAPE_CASES) {
  Validate(`INVALID_BATCH: ${label}`, () => {
    assert.equal(problemsOf(input), expected);
  });
}

const BAD_PATHS: Array<[string, string]> = [
  ['../x', 'the path has a ".." segment; give the path without it'],
  ['/etc/passwd', 'the path is absolute; give it relative to the repository root'],
  ['a/../../b', 'the path has a ".." segment; give the path without it'],
  ['.git/config', 'the path goes into .git, which shadow never writes'],
  ['.GIT/HEAD', 'the path goes into .git, which shadow never writes'],
  ['a/.git/b', 'the path goes into .git, which shadow never writes'],
  ['.git./x', 'the path goes into .git, which shadow never writes'],
  ['git~1/x', 'the path goes into .git, which shadow never writes'],
  ['a\0b', 'the path contains a NUL byte at index 1'],
  ['a\x01b', 'the path contains the control character U+0001 at index 1'],
  ['line\nbreak', 'the path contains the control character U+000a at index 4'],
  ['x\x7f', 'the path contains the control character U+007f at index 1'],
  ['a\\b', 'the path contains a backslash; use forward slashes'],
  ['', 'the path is empty'],
  ['a//b', 'the path has an empty segment (a doubled or trailing slash)'],
  ['./a', 'the path has a "." segment; give the path without it'],
  [`${'d/'.repeat(2048)}f`, 'the path is longer than 4096 bytes'],
  [`dir/${'n'.repeat(256)}`, 'a path component is longer than 255 bytes'],
];

Validate('every bad path is INVALID_BATCH naming operations[i].path', () => {
  for (const [path, message] of BAD_PATHS) {
    for (const [op, field] of [
      [{ operation: 'write', path, content: '' }, 'path'],
      [{ operation: 'delete', path }, 'path'],
      [{ operation: 'rename', path: 'ok.txt', to: path }, 'to'],
    ] as const) {
      const problems = problemsOf({ operations: [{ operation: 'delete', path: 'fine.txt' }, op] });
      assert.equal(
        problems,
        [{ path: `operations[1].${field}`, message }],
        `${JSON.stringify(path.slice(0, 40))} as ${field} of ${op.operation}`,
      );
    }
  }
});

Validate('several problems are all listed, in order', () => {
  const operations = BAD_PATHS.map(([path]) => ({ operation: 'delete', path }));
  const problems = problemsOf({ operations });
  assert.equal(
    problems,
    BAD_PATHS.map(([, message], i) => ({ path: `operations[${i}].path`, message })),
  );

  const mixed = problemsOf({
    actor: '',
    operations: [
      { operation: 'write', path: 'ok.txt', content: 'fine' },
      { operation: 'write', path: '../up' },
      { operation: 'teleport', path: 'a' },
      { operation: 'chmod', path: '.git/x', mode: '777', extra: true },
    ],
  });
  const paths = mixed.map((p) => p.path);
  for (const expected of [
    'actor',
    'operations[1].path',
    'operations[1].content',
    'operations[2].operation',
    'operations[3].path',
    'operations[3].mode',
    'operations[3]',
  ]) {
    assert.ok(paths.includes(expected), `${expected} is not listed: ${JSON.stringify(mixed)}`);
  }
  assert.is(mixed.length, 7);
});

Validate.run();
