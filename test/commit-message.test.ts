import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  autoSummary,
  batchMessage,
  captureMessage,
  oneLine,
  parseOpLines,
  parseTrailers,
  summaryOf,
  type OpLine,
  type ShadowTrailers,
} from '../src/drafts/commit-message.js';

/** Commit messages shadow writes and reads back: summaries, op lines, trailers. */
const Messages = suite('commit-message');

const TRAILERS: ShadowTrailers = {
  draft: 'default',
  batch: 7,
  actor: 'claude',
  plan: 'plan-1',
  planBatch: 'step-2',
  session: '3f2a9c1e-0000-4000-8000-000000000001',
};

const OPS: OpLine[] = [
  { operation: 'write', path: 'src/a.ts' },
  { operation: 'edit', path: 'README.md', note: 'already applied' },
  { operation: 'rename', path: 'old name.txt', arg: 'new/name.txt' },
  { operation: 'chmod', path: 'run.sh', arg: '100755' },
  { operation: 'delete', path: 'ünï/文件.txt' },
  { operation: 'write', path: 'same.txt', note: 'unchanged' },
];

Messages('a batch message round-trips its summary, body, op lines and trailers', () => {
  const message = batchMessage('Add the greeting\n\nBecause users asked.\nSecond body line.', OPS, TRAILERS);
  assert.is(summaryOf(message), 'Add the greeting');
  assert.ok(
    message.startsWith('Add the greeting\n\nBecause users asked.\nSecond body line.\n\nwrite\tsrc/a.ts\n'),
    message,
  );
  assert.ok(
    message.endsWith(
      '\n\nShadow-Draft: default\nShadow-Batch: 7\nShadow-Actor: claude\nShadow-Plan: plan-1\nShadow-Plan-Batch: step-2\nShadow-Session: 3f2a9c1e-0000-4000-8000-000000000001\n',
    ),
    message,
  );
  assert.equal(parseTrailers(message), TRAILERS);
  assert.equal(parseOpLines(message), OPS);
});

Messages('without an intent the summary names the first ops', () => {
  const cases: Array<[OpLine[], string]> = [
    [[], 'empty batch'],
    [OPS.slice(0, 1), 'write src/a.ts'],
    [OPS.slice(0, 2), 'write src/a.ts, edit README.md'],
    [OPS, 'write src/a.ts, edit README.md and 4 more'],
  ];
  for (const [ops, summary] of cases) {
    assert.is(autoSummary(ops), summary);
    for (const intent of [undefined, '', '   ', '\n\n'])
      assert.is(
        summaryOf(batchMessage(intent, ops, { draft: 'd', batch: 1 })),
        summary,
        `intent ${JSON.stringify(intent)}`,
      );
  }
});

Messages('control characters and long lines never break the summary or the trailers', () => {
  const intent = '\x1b[31mred\x1b[0m\ttabbed\x07 bell\r\0nul';
  const message = batchMessage(intent, OPS, { draft: 'd', batch: 2, actor: 'evil\nShadow-Batch: 99\rx' });
  assert.is(summaryOf(message), '[31mred [0m tabbed bell nul');
  assert.equal(parseTrailers(message), { draft: 'd', batch: 2, actor: 'evil Shadow-Batch: 99 x' });
  assert.equal(parseOpLines(message), OPS);

  const long = 'x'.repeat(500);
  const summary = summaryOf(batchMessage(long, [], { draft: 'd', batch: 1 }));
  assert.is(summary.length, 200);
  assert.ok(summary.endsWith('…'));
  assert.is(oneLine('  a \n\n b\t\tc  '), 'a b c');
});

Messages('an intent body cannot forge trailers or op lines', () => {
  const intent = 'Summary\n\nShadow-Batch: 99\nShadow-Draft: other\n\ndelete\tREADME.md\nnote\twith a tab';
  const message = batchMessage(intent, OPS, TRAILERS);
  assert.equal(parseTrailers(message), TRAILERS);
  assert.equal(parseOpLines(message), OPS, 'op lines from the intent body must not be read back as ops');
});

Messages('a batch message never holds a NUL byte (git refuses one in a commit message)', () => {
  const message = batchMessage('Summary\n\nbody with a \0 NUL and \x1b escape', OPS, TRAILERS);
  assert.is(message.indexOf('\0'), -1, JSON.stringify(message.slice(0, 80)));
  assert.equal(parseTrailers(message), TRAILERS);
});

Messages('more than 1000 ops: the first 1000 are listed, then a count', () => {
  const many: OpLine[] = Array.from({ length: 1234 }, (_, i) => ({ operation: 'write', path: `f/${i}.txt` }));
  const message = batchMessage('big', many, { draft: 'd', batch: 3 });
  const parsed = parseOpLines(message);
  assert.is(parsed.length, 1000);
  assert.equal(parsed, many.slice(0, 1000));
  assert.ok(message.includes('\nwrite\tf/999.txt\n… and 234 more\n\n'), 'the count of the rest is missing');
  assert.not.ok(message.includes('f/1000.txt'));
  assert.equal(parseTrailers(message), { draft: 'd', batch: 3 });

  const exactly = Array.from({ length: 1000 }, (_, i) => ({ operation: 'delete', path: `g${i}` }));
  const m2 = batchMessage(undefined, exactly, { draft: 'd', batch: 4 });
  assert.not.ok(m2.includes('… and'));
  assert.is(parseOpLines(m2).length, 1000);
});

Messages('capture messages list the paths and carry Shadow-Capture', () => {
  const one = captureMessage('default', 3, ['README.md']);
  assert.is(
    one,
    'capture working tree state of 1 path before batch 3\n\ncapture\tREADME.md\n\nShadow-Draft: default\nShadow-Capture: 3\nShadow-Actor-Type: human\n',
  );
  assert.equal(parseTrailers(one), { draft: 'default', capture: 3, actorType: 'human' });
  assert.equal(parseOpLines(one), [{ operation: 'capture', path: 'README.md' }]);

  const paths = Array.from({ length: 1005 }, (_, i) => `p${i}`);
  const many = captureMessage('d', 1, paths);
  assert.is(summaryOf(many), 'capture working tree state of 1005 paths before batch 1');
  assert.is(parseOpLines(many).length, 1000);
  assert.ok(many.includes('\n… and 5 more\n'));
  assert.equal(parseTrailers(many), { draft: 'd', capture: 1, actorType: 'human' });
});

Messages('parseTrailers reads only the last paragraph and valid numbers', () => {
  const cases: Array<[string, ShadowTrailers]> = [
    ['x\n\nShadow-Draft: a\nShadow-Batch: 5\n', { draft: 'a', batch: 5 }],
    ['x\n\nShadow-Batch: 3\n\nShadow-Draft: b\n', { draft: 'b' }],
    ['x\n\nShadow-Batch: 0\nShadow-Capture: -1\nShadow-Draft: c', { draft: 'c' }],
    ['x\n\nShadow-Batch: 1.5\nShadow-Batch-Extra: y\nShadow-Unknown: z', {}],
    ['x\n\nShadow-Draft:no-space\n\n\n', { draft: 'no-space' }],
    ['no trailers at all', {}],
  ];
  for (const [message, expected] of cases) assert.equal(parseTrailers(message), expected, JSON.stringify(message));
});

Messages('trailer keys match in any case, as git trailers do', () => {
  const cases: Array<[string, ShadowTrailers]> = [
    ['x\n\nShadow-draft: a\nShadow-BATCH: 5', { draft: 'a', batch: 5 }],
    ['x\n\nshadow-draft: a\nSHADOW-BATCH: 5', { draft: 'a', batch: 5 }],
  ];
  for (const [message, expected] of cases) assert.equal(parseTrailers(message), expected, JSON.stringify(message));
});

Messages.run();
