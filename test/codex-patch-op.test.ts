import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MODE } from '../src/git/format/git-objects.js';
import type { FileOperation } from '../src/drafts/batch/ops.js';
import { opPaths } from '../src/drafts/batch/ops.js';
import { validateBatch } from '../src/drafts/batch/batch-schema.js';
import { batchTooLarge } from '../src/drafts/batch/batch-bounds.js';
import { opsFingerprint } from '../src/drafts/batch/ops-fingerprint.js';
import { parseOpLines } from '../src/drafts/commit-message.js';
import { BASE, F, file, run, type Spec } from './helpers/resolve-source.js';
import { patchFixtures, specOf } from './helpers/codex-patch-fixtures.js';
import { memRepo } from './helpers/mem-repo.js';

/*
 * The apply_patch batch op resolved in memory (resolveBatch on an in-memory
 * tree): the whole corpus of test/fixtures/codex-patch, then what the op
 * reports, records and leaves when it shares a batch with other ops.
 */

const op = (...body: string[]): FileOperation => ({
  operation: 'apply_patch',
  patch: ['*** Begin Patch', ...body, '*** End Patch', ''].join('\n'),
});

// ---------------------------------------------------------------- the corpus

const Corpus = suite('apply_patch op: the corpus, in memory');

for (const f of patchFixtures()) {
  Corpus(f.name, () => {
    const r = run([{ operation: 'apply_patch', patch: f.patch }], undefined, specOf(f.input));
    if (f.error) {
      assert.is(r.r.ok, false, `${f.name} should be refused`);
      const p = r.r.problems[0]!;
      assert.is(p.code, f.error.code, p.message);
      assert.match(p.message, f.error.message);
      assert.type(p.hint, 'string', 'every refusal says what to do');
      assert.is(r.r.results[0]!.status, 'failed');
      // Nothing of a refused patch stays pending, not even the sections before the one that failed.
      assert.is(r.r.changes.size, 0, `${f.name}: ${[...r.r.changes.keys()].join(', ')}`);
      return;
    }
    assert.ok(r.r.ok, `${f.name}: ${JSON.stringify(r.r.problems)}`);
    const expected: Record<string, string> = {};
    for (const [path, bytes] of Object.entries(f.expected!)) expected[path] = file(bytes.toString('utf8'));
    assert.equal(r.after(), expected);
  });
}

// ---------------------------------------------------------------- results, lines, paths

const Op = suite('apply_patch op: results and records');

Op(
  'one result for the op, naming its first file, with each file and what became of it; one commit line per file',
  () => {
    const r = run([
      op(
        '*** Add File: new.txt',
        '+new',
        '*** Update File: README.md',
        '@@',
        '-Hello',
        '+Hi',
        '*** Delete File: docs/guide.md',
        '*** Update File: src/app.ts',
        '*** Move to: lib/app.ts',
        '@@',
        '-export const y = 2;',
        '+export const y = 3;',
      ),
    ]);
    assert.ok(r.r.ok, JSON.stringify(r.r.problems));
    assert.equal(r.r.results, [
      {
        operation: 'apply_patch',
        path: 'new.txt',
        success: true,
        status: 'updated',
        files: [
          { path: 'new.txt', status: 'created', section: 'add' },
          { path: 'README.md', status: 'updated', section: 'update' },
          { path: 'docs/guide.md', status: 'deleted', section: 'delete' },
          { path: 'src/app.ts', status: 'renamed', to: 'lib/app.ts', section: 'update' },
        ],
      },
    ]);
    assert.equal(r.r.opLines, [
      { operation: 'apply_patch', path: 'new.txt', note: 'created' },
      { operation: 'apply_patch', path: 'README.md', note: 'updated' },
      { operation: 'apply_patch', path: 'docs/guide.md', note: 'deleted' },
      { operation: 'apply_patch', path: 'src/app.ts', arg: 'lib/app.ts', note: 'renamed' },
    ]);
    // The commit body's lines read back as ops (shadow log shows them).
    assert.equal(
      parseOpLines('s\n\napply_patch\tsrc/app.ts\tlib/app.ts\t(renamed)\n').map((l) => [
        l.operation,
        l.path,
        l.arg,
        l.note,
      ]),
      [['apply_patch', 'src/app.ts', 'lib/app.ts', 'renamed']],
    );
    const after = r.after();
    assert.is(after['lib/app.ts'], file('export const x = 1;\nexport const y = 3;\n'));
    assert.is(after['src/app.ts'], undefined);
    assert.is(after['docs/guide.md'], undefined);
  },
);

Op("a patch of one file takes that file's status; one that changes nothing is unchanged and commits nothing", () => {
  assert.is(run([op('*** Delete File: README.md')]).r.results[0]!.status, 'deleted');
  const same = run([op('*** Update File: README.md', '@@', '-Hello', '+Hello')]);
  assert.is(same.r.results[0]!.status, 'unchanged');
  assert.is(same.r.changes.size, 0);
});

Op(
  'the paths of the op, known before it resolves: in order, moves included, once each, only valid ones; none when it does not parse',
  () => {
    const o = op(
      '*** Update File: ./a.txt',
      '*** Move to: b/c.txt',
      '@@',
      '-a',
      '+b',
      '*** Add File: a.txt',
      '+x',
      '*** Delete File: /etc/passwd',
      '*** Delete File: .git/config',
    );
    assert.equal(opPaths(o), ['a.txt', 'b/c.txt']);
    assert.equal(opPaths({ operation: 'apply_patch', patch: 'not a patch' }), []);
  },
);

Op(
  'modes: an update keeps an executable bit, a move carries it; an added file is 100644; a symlink is not text to patch',
  () => {
    const spec: Spec = { ...BASE, 'tool.sh': new F('echo a\n', MODE.executable) };
    const r = run(
      [
        op(
          '*** Update File: run.sh',
          '@@',
          '-echo hi',
          '+echo bye',
          '*** Update File: tool.sh',
          '*** Move to: bin/tool.sh',
          '@@',
          '-echo a',
          '+echo b',
          '*** Add File: new.sh',
          '+echo new',
        ),
      ],
      undefined,
      spec,
    );
    const after = r.after();
    assert.is(after['run.sh'], file('echo bye\n', MODE.executable));
    assert.is(after['bin/tool.sh'], file('echo b\n', MODE.executable));
    assert.is(after['new.sh'], file('echo new\n'));
    const link = run([op('*** Update File: link', '@@', '-README.md', '+other')]);
    assert.is(link.r.problems[0]!.code, 'NOT_A_FILE');
    assert.match(link.r.problems[0]!.message, /^Update File link \(patch line 2\): link is a symlink$/);
  },
);

Op(
  'Add File over a file keeps its mode, as a write to it does; over a symlink, or a move onto one, is NOT_A_FILE and writes nothing',
  () => {
    const over = run([op('*** Add File: run.sh', '+echo new')]);
    assert.ok(over.r.ok, JSON.stringify(over.r.problems));
    assert.is(over.after()['run.sh'], file('echo new\n', MODE.executable));
    assert.equal(over.r.results[0]!.files, [
      { path: 'run.sh', status: 'updated', section: 'add', notes: ['Add File replaced the file that was there'] },
    ]);
    for (const body of [
      ['*** Add File: link', '+text'],
      ['*** Update File: README.md', '*** Move to: link', '@@', '-Hello', '+Hi'],
    ]) {
      const r = run([op(...body)]);
      assert.is(r.r.problems[0]!.code, 'NOT_A_FILE', body[0]);
      assert.match(r.r.problems[0]!.message, /link is a symlink; (Add File|Move to) replaces regular files only$/);
      assert.is(r.r.changes.size, 0);
    }
  },
);

Op(
  'in a batch with other ops: they see each other in order; a patch that fails undoes its own sections, so the next op sees the files as they were',
  () => {
    const ok = run([
      { operation: 'write', path: 'new.txt', content: 'one\n' },
      op('*** Update File: new.txt', '@@', '-one', '+two'),
      { operation: 'edit', path: 'new.txt', old_content: 'two', content: 'three' },
    ]);
    assert.ok(ok.r.ok, JSON.stringify(ok.r.problems));
    assert.is(ok.after()['new.txt'], file('three\n'));
    const failed = run([
      op(
        '*** Delete File: README.md',
        '*** Add File: added.txt',
        '+a',
        '*** Update File: missing.txt',
        '@@',
        '-a',
        '+b',
      ),
      { operation: 'write', path: 'README.md', content: 'Bye\n' },
      { operation: 'delete', path: 'added.txt' },
    ]);
    assert.is(failed.r.ok, false);
    assert.equal(
      failed.r.results.map((x) => x.status),
      ['failed', 'not_applied', 'failed'],
    );
    // README.md is there again for the write (updated, not created); added.txt is gone for the delete.
    assert.is(failed.r.problems.length, 2);
    assert.is(failed.r.problems[1]!.code, 'NOT_FOUND');
    assert.match(failed.r.problems[1]!.message, /added\.txt does not exist/);
    assert.equal(failed.r.results[0]!.path, 'README.md');
    assert.is(failed.r.results[0]!.error!.data!.file, 'missing.txt');
  },
);

Op('a patch whose text holds a lone surrogate is refused, as any op text is', () => {
  const r = run([{ operation: 'apply_patch', patch: '*** Begin Patch\n*** Add File: a.txt\n+\ud800\n*** End Patch' }]);
  assert.is(r.r.problems[0]!.code, 'INVALID_CONTENT');
});

// ---------------------------------------------------------------- the boundary

const Boundary = suite('apply_patch op: the batch schema, bounds and fingerprint');

Boundary('the schema takes {operation, patch} and refuses a path, an expect or an empty patch', () => {
  assert.equal(
    validateBatch({ operations: [{ operation: 'apply_patch', patch: '*** Begin Patch\n*** End Patch' }] })
      .operations[0],
    { operation: 'apply_patch', patch: '*** Begin Patch\n*** End Patch' },
  );
  for (const bad of [
    { operation: 'apply_patch' },
    { operation: 'apply_patch', patch: '' },
    { operation: 'apply_patch', patch: 'x', path: 'a.txt' },
    { operation: 'apply_patch', patch: 'x', expect: 'sha256:00' },
  ]) {
    let code = 'none';
    try {
      validateBatch({ operations: [bad] });
    } catch (e) {
      code = (e as { code: string }).code;
    }
    assert.is(code, 'INVALID_BATCH', JSON.stringify(bad));
  }
});

Boundary("a patch's text counts against shadow.maxBatchBytes; its text is part of the batch's fingerprint", () => {
  const big = { operations: [{ operation: 'apply_patch', patch: 'x'.repeat(2000) }] };
  assert.is(batchTooLarge(big, { maxOps: 10, maxBytes: 1000 })?.code, 'BATCH_TOO_LARGE');
  const a = opsFingerprint([{ operation: 'apply_patch', patch: 'A' }]);
  assert.is.not(a, opsFingerprint([{ operation: 'apply_patch', patch: 'B' }]));
  assert.is(a, opsFingerprint([{ operation: 'apply_patch', patch: 'A' }]));
});

// ---------------------------------------------------------------- racing another writer

const Race = suite('apply_patch op: racing another writer on the same draft');

const TWO_PARTS = 'top\n\n// middle\n\nbottom\n';

Race(
  'a patch that only updates a file merges with an edit of another part of it, whichever lands first: both land',
  async () => {
    for (const patchFirst of [true, false]) {
      const repo = await memRepo({ 'a.txt': TWO_PARTS, 'seed.txt': 'seed\n' });
      const [one, two] = [await repo.open(), await repo.open()];
      await one.write('seed.txt', 'seeded\n');
      const patch = (): Promise<unknown> =>
        one.batch({ operations: [op('*** Update File: a.txt', '@@', '-top', '+TOP')] });
      const edit = (): Promise<unknown> =>
        two.batch({ operations: [{ operation: 'edit', path: 'a.txt', old_content: 'bottom', content: 'BOTTOM' }] });
      // The batch started second resolves on the tip the first one is about to move, and loses the race.
      const results = (await Promise.all(patchFirst ? [patch(), edit()] : [edit(), patch()])) as Array<{
        success: boolean;
        error?: unknown;
      }>;
      assert.ok(
        results.every((r) => r.success),
        JSON.stringify(results.map((r) => r.error)),
      );
      assert.is((await one.cat('a.txt')).content.toString(), 'TOP\n\n// middle\n\nBOTTOM\n');
      one.close();
      two.close();
    }
  },
);

Race(
  'a patch that deletes a file another writer changed meanwhile, or the writer that loses to it: CONFLICT, never a silent loss',
  async () => {
    const repo = await memRepo({ 'a.txt': TWO_PARTS, 'seed.txt': 'seed\n' });
    const [one, two] = [await repo.open(), await repo.open()];
    await one.write('seed.txt', 'seeded\n');
    const [a, b] = await Promise.all([
      one.batch({ operations: [op('*** Delete File: a.txt')] }),
      two.batch({ operations: [{ operation: 'edit', path: 'a.txt', old_content: 'bottom', content: 'BOTTOM' }] }),
    ]);
    const lost = [a, b].filter((r) => !r.success);
    assert.is(lost.length, 1, JSON.stringify([a.error, b.error]));
    assert.is(lost[0]!.error!.code, 'CONFLICT', lost[0]!.error!.message);
    one.close();
    two.close();
  },
);

Corpus.run();
Op.run();
Boundary.run();
Race.run();
