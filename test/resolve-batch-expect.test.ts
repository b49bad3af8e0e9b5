import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import type { FileOperation } from '../src/drafts/batch/ops.js';
import { blobId, run } from './helpers/resolve-source.js';

/* resolveBatch: an operation's expect (a blob id or sha256) checked against the file it acts on. */

const sha256 = (content: string): string => createHash('sha256').update(content).digest('hex');

// ---------------------------------------------------------------- expect

const Expect = suite('resolveBatch: expect');

Expect('a matching blob id or sha256 lets the op through', () => {
  const readme = 'Hello\n';
  const good = [
    blobId(readme),
    blobId(readme).toUpperCase(),
    `sha256:${sha256(readme)}`,
    `SHA256:${sha256(readme).toUpperCase()}`,
    ` ${blobId(readme)} `,
  ];
  for (const expect of good) {
    const { r } = run([{ operation: 'write', path: 'README.md', content: 'new', expect }]);
    assert.equal(r.problems, [], expect);
    assert.equal(
      r.results.map((x) => x.status),
      ['updated'],
    );
  }
  // expect is checked against what earlier ops of the batch left.
  const { r } = run([
    { operation: 'write', path: 'README.md', content: 'v2' },
    { operation: 'edit', path: 'README.md', old_content: 'v2', content: 'v3', expect: blobId('v2') },
    { operation: 'delete', path: 'README.md', expect: `sha256:${sha256('v3')}` },
  ]);
  assert.equal(r.problems, []);
  assert.equal(
    r.results.map((x) => x.status),
    ['updated', 'updated', 'deleted'],
  );
});

Expect('a mismatch is EXPECT_FAILED naming what was expected and found', () => {
  const found = blobId('Hello\n');
  const other = blobId('something else');
  const cases: Array<[FileOperation, string, Record<string, unknown>]> = [
    [
      { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'x', expect: other },
      `README.md no longer holds the expected content (expected ${other}, found blob ${found})`,
      { expected: other, found },
    ],
    [
      { operation: 'delete', path: 'README.md', expect: `sha256:${sha256('old')}` },
      `README.md no longer holds the expected content (expected sha256:${sha256('old')}, found blob ${found})`,
      { expected: `sha256:${sha256('old')}`, found },
    ],
    [
      { operation: 'write', path: 'new.txt', content: 'x', expect: other },
      `new.txt is absent, so it cannot match expect ${other}`,
      { found: null },
    ],
    [
      { operation: 'write', path: 'docs', content: 'x', expect: other },
      `docs is a directory, so it cannot match expect ${other}`,
      { found: null },
    ],
  ];
  for (const [op, message, data] of cases) {
    const { r } = run([op]);
    assert.is(r.ok, false);
    assert.is(r.problems.length, 1);
    const p = r.problems[0]!;
    assert.is(p.code, 'EXPECT_FAILED', message);
    assert.is(p.message, message);
    assert.equal(p.data, data);
    assert.is(p.hint, 'read the path again and resend the batch');
    assert.is(r.results[0]!.status, 'failed');
    assert.equal(r.results[0]!.error?.code, 'EXPECT_FAILED');
  }
});

Expect('an expect that is neither a blob id nor sha256:<hex> is INVALID_BATCH', () => {
  for (const expect of [
    'abc',
    'sha256:xyz',
    `sha1:${blobId('x')}`,
    blobId('x').slice(0, 39),
    `sha256:${sha256('x').slice(1)}`,
  ]) {
    const { r } = run([{ operation: 'delete', path: 'README.md', expect }]);
    assert.is(r.problems[0]?.code, 'INVALID_BATCH', expect);
    assert.match(r.problems[0]!.message, 'is neither a blob id nor sha256:<hex>');
  }
});

Expect.run();
