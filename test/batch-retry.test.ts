import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { parseTrailers } from '../src/drafts/commit-message.js';
import { opsFingerprint } from '../src/drafts/batch/ops-fingerprint.js';
import type { BatchResult, FileOperation, Shadow } from '../src/index.js';

/**
 * A batch sent again is recognised by its identity (the `Shadow-Ops`
 * fingerprint its commit records), never by guessing from a file's
 * content: only a batch whose commit is the draft's tip is
 * `already_applied`. Any other edit whose old_content is absent fails with
 * the closest lines, whatever else the file holds.
 */

const DRAFT = 'refs/shadow/drafts/default';
const METHOD = 'class A {\n  save() {\n    debug(1);\n    return this;\n  }\n}\n';

async function tip(repo: MemRepo): Promise<string> {
  return git.resolveRef({ fs: repo.fs, dir: repo.dir, ref: DRAFT });
}

async function fileAt(repo: MemRepo, path: string): Promise<string | undefined> {
  try {
    const { blob } = await git.readBlob({ fs: repo.fs, dir: repo.dir, oid: await tip(repo), filepath: path });
    return Buffer.from(blob).toString('utf8');
  } catch {
    return undefined;
  }
}

function statuses(r: BatchResult): string[] {
  return r.results.map((x) => x.status);
}

type Ctx = { repo: MemRepo; sh: Shadow };
const Retry = suite<Ctx>('batch retries');
Retry.before.each(async (ctx) => {
  ctx.repo = await memRepo({ 'src/a.ts': METHOD, 'notes.md': 'one\n', 'old.txt': 'old\n', 'mv.txt': 'move me\n' });
  ctx.sh = await ctx.repo.open();
});

// A batch no content-based rule can answer twice: the edit still matches after it landed, the delete and rename no longer can.
const NOT_IDEMPOTENT: FileOperation[] = [
  { operation: 'edit', path: 'notes.md', old_content: 'one', content: 'one, two' },
  { operation: 'delete', path: 'old.txt' },
  { operation: 'rename', path: 'mv.txt', to: 'moved.txt' },
  { operation: 'write', path: 'new.txt', content: 'new\n' },
];

Retry(
  'the mistyped edit fails EDIT_NO_MATCH with the closest lines, though its new text is in the file',
  async ({ repo, sh }) => {
    await sh.batch({ operations: [{ operation: 'write', path: 'seed.txt', content: 'seed\n' }] });
    const before = await tip(repo);
    const r = await sh.edit('src/a.ts', '    debug(2);\n    return this;', '    return this;');
    assert.is(r.success, false);
    assert.is(r.error?.code, 'EDIT_NO_MATCH');
    assert.match(
      r.error!.message,
      /old_content was not found in src\/a\.ts \(0 matches\); closest: line 3: "debug\(1\);"$/,
    );
    assert.equal(statuses(r), ['failed']);
    assert.is(await tip(repo), before);
    assert.is(await fileAt(repo, 'src/a.ts'), METHOD);
  },
);

Retry(
  'an identical batch sent right after is already_applied: no commit, the tip unchanged, nothing applied twice',
  async ({ repo, sh }) => {
    const first = await sh.batch({ intent: 'tidy', operations: NOT_IDEMPOTENT });
    assert.ok(first.success, JSON.stringify(first.error));
    const landed = await tip(repo);
    const again = await sh.batch({ intent: 'tidy', operations: NOT_IDEMPOTENT });
    assert.is(again.success, true, JSON.stringify(again.error));
    assert.equal(statuses(again), ['already_applied', 'already_applied', 'already_applied', 'already_applied']);
    assert.equal(again.results[2], {
      operation: 'rename',
      path: 'mv.txt',
      to: 'moved.txt',
      success: true,
      status: 'already_applied',
    });
    assert.is(again.unchanged, true);
    assert.is(again.batch, null);
    assert.is(again.commit, landed);
    assert.is(await tip(repo), landed);
    assert.is(await fileAt(repo, 'notes.md'), 'one, two\n');
    // Another handle (another process) knows it the same way: from the commit, not from memory.
    const other = await repo.open();
    assert.equal(statuses(await other.batch({ operations: NOT_IDEMPOTENT })), [
      'already_applied',
      'already_applied',
      'already_applied',
      'already_applied',
    ]);
    assert.is(await tip(repo), landed);
  },
);

Retry(
  'the commit records the fingerprint of the operations as Shadow-Ops; intent and actor are not part of it',
  async ({ repo, sh }) => {
    await sh.batch({ intent: 'tidy', operations: NOT_IDEMPOTENT }, { actor: 'agent-1' });
    const { commit } = await git.readCommit({ fs: repo.fs, dir: repo.dir, oid: await tip(repo) });
    assert.is(parseTrailers(commit.message).ops, opsFingerprint(NOT_IDEMPOTENT));
    const reworded = await sh.batch({ intent: 'tidy up, again', operations: NOT_IDEMPOTENT }, { actor: 'agent-2' });
    assert.equal(statuses(reworded), ['already_applied', 'already_applied', 'already_applied', 'already_applied']);
  },
);

Retry(
  'an identical batch after a different batch is a new request: its edit fails EDIT_NO_MATCH, nothing is guessed',
  async ({ repo, sh }) => {
    const edit: FileOperation[] = [{ operation: 'edit', path: 'notes.md', old_content: 'one', content: 'uno' }];
    assert.ok((await sh.batch({ operations: edit })).success);
    assert.ok((await sh.batch({ operations: [{ operation: 'write', path: 'other.txt', content: 'x\n' }] })).success);
    const between = await tip(repo);
    const again = await sh.batch({ operations: edit });
    assert.is(again.success, false);
    assert.is(again.error?.code, 'EDIT_NO_MATCH');
    assert.is(await tip(repo), between);
  },
);

Retry('after a rollback past it, the same batch applies again', async ({ repo, sh }) => {
  const write: FileOperation[] = [{ operation: 'write', path: 'w.txt', content: 'w\n' }];
  assert.ok((await sh.batch({ operations: write })).success);
  await sh.rollback('~1');
  assert.is(await fileAt(repo, 'w.txt'), undefined);
  const again = await sh.batch({ operations: write });
  assert.equal(statuses(again), ['created']);
  assert.is(await fileAt(repo, 'w.txt'), 'w\n');
});

Retry('the same edit inside a different batch is not already_applied by guessing', async ({ repo, sh }) => {
  const edit = { operation: 'edit' as const, path: 'notes.md', old_content: 'one', content: 'one, two' };
  assert.ok((await sh.batch({ operations: [edit] })).success);
  const landed = await tip(repo);
  const r = await sh.batch({ operations: [edit, { operation: 'write', path: 'extra.txt', content: 'extra\n' }] });
  // 'one' is still in 'one, two': without the identity it would apply twice; with it, it would not. It is a new batch.
  assert.equal(statuses(r), ['updated', 'created']);
  assert.is(await fileAt(repo, 'notes.md'), 'one, two, two\n');
  assert.is.not(await tip(repo), landed);
  const unrelated = await sh.batch({
    operations: [
      { operation: 'edit', path: 'src/a.ts', old_content: 'debug(2);', content: 'return this;' },
      { operation: 'write', path: 'y.txt', content: 'y' },
    ],
  });
  assert.equal(statuses(unrelated), ['failed', 'not_applied']);
  assert.is(unrelated.error?.code, 'EDIT_NO_MATCH');
});

Retry(
  'a batch that loses the race to another batch holding its new text fails CONFLICT, never already_applied',
  async ({ repo, sh }) => {
    const other = await repo.open();
    const mine = sh.batch({
      operations: [{ operation: 'edit', path: 'notes.md', old_content: 'one', content: 'two' }],
    });
    const theirs = other.batch({
      operations: [
        { operation: 'edit', path: 'notes.md', old_content: 'one', content: 'two' },
        { operation: 'write', path: 't.txt', content: 't' },
      ],
    });
    const [a, b] = await Promise.all([mine, theirs]);
    const won = [a, b].filter((r) => r.success);
    const lost = [a, b].filter((r) => !r.success);
    assert.is(won.length, 1, JSON.stringify([a.error, b.error]));
    assert.is(lost[0]!.error?.code, 'CONFLICT', 'both resolved on one tip, and the loser saw its path changed');
    assert.is(await fileAt(repo, 'notes.md'), 'two\n');
  },
);

Retry(
  'the same batch sent twice at once lands once: the one that lost the race to its twin is already_applied',
  async ({ repo, sh }) => {
    const other = await repo.open();
    const ops: FileOperation[] = [{ operation: 'edit', path: 'notes.md', old_content: 'one', content: 'one, two' }];
    const [a, b] = await Promise.all([sh.batch({ operations: ops }), other.batch({ operations: ops })]);
    assert.equal([statuses(a)[0], statuses(b)[0]].sort(), ['already_applied', 'updated']);
    assert.is(await fileAt(repo, 'notes.md'), 'one, two\n');
    const log = await git.log({ fs: repo.fs, dir: repo.dir, ref: DRAFT });
    assert.is(log.filter((c) => parseTrailers(c.commit.message).batch !== undefined).length, 1);
  },
);

Retry('plan steps with the same operations are distinct batches: both run', async ({ repo, sh }) => {
  const step = { operations: [{ operation: 'edit', path: 'notes.md', old_content: 'one', content: 'one, two' }] };
  const out = await sh.runPlan(
    JSON.stringify({
      id: 'twice',
      batches: [
        { id: 1, ...step },
        { id: 2, ...step },
      ],
    }),
  );
  assert.is(out.status, 'complete');
  assert.is(await fileAt(repo, 'notes.md'), 'one, two, two\n');
});

Retry.run();

const Cli = suite<{ repo: DiskRepo }>('batch retries: the CLI');
Cli.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'src/a.ts': METHOD });
});
Cli.after.each((ctx) => ctx.repo.cleanup());

Cli(
  '`shadow edit` mistyped: exit 1 with EDIT_NO_MATCH; sent twice when right: exit 0, already_applied, one commit',
  ({ repo }) => {
    const wrong = repo.shadow([
      'edit',
      'src/a.ts',
      '--old',
      '    debug(2);\n    return this;',
      '--new',
      '    return this;',
      '--json',
    ]);
    assert.is(wrong.status, 1, wrong.stdout + wrong.stderr);
    assert.is(wrong.json().error.code, 'EDIT_NO_MATCH');
    assert.match(wrong.json().error.message, /closest: line 3: "debug\(1\);"/);
    assert.is(repo.ref(DRAFT), undefined, 'a rejected first batch leaves no draft');

    const args = ['edit', 'src/a.ts', '--old', '    debug(1);\n    return this;', '--new', '    return this;'];
    assert.is(repo.shadow(args).status, 0);
    const landed = repo.ref(DRAFT);
    assert.is(
      repo.git('log', '-1', '--format=%(trailers:key=Shadow-Ops,valueonly)', DRAFT).trim().length,
      64,
      'git reads the trailer',
    );
    const again = repo.shadow(args);
    assert.is(again.status, 0, again.stdout + again.stderr);
    assert.is(
      again.stdout,
      'nothing to change on draft default: every operation was already in place\n  already_applied src/a.ts\n',
    );
    assert.is(repo.ref(DRAFT), landed);
  },
);

Cli.run();
