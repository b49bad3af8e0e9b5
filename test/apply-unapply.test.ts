import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PathConflict } from '../src/index.js';
import type { MemRepo } from './helpers/mem-repo.js';
import { batch, blobOid, codeOf, EXPECTED_SET, standardFixture, type Fixture } from './helpers/apply-fixture.js';
import { journals, records, SHADOW } from './helpers/apply-state.js';
import { nodeAt, ROOT, worktree } from './helpers/working-tree.js';

/*
 * Applying again and unapplying on memfs: after an apply the bases are the
 * published contents; unapply restores the last apply, guarded as apply is.
 */

// ---------------------------------------------------------------- apply, unapply, apply again

const Cycle = suite<Fixture>('apply: bases, unapply, apply again');
Cycle.before.each(standardFixture);

Cycle(
  'after apply the bases are the published contents: the agent keeps working on the draft and applies again',
  async ({ repo, sh }) => {
    const first = await sh.apply();
    const again = await sh.apply({ dryRun: true });
    assert.equal(again.paths, [], 'nothing left to publish');
    assert.equal(again.conflicts, []);

    await batch(sh, [
      { operation: 'edit', path: 'a.txt', old_content: 'LOCAL', content: 'LOCAL 2' },
      { operation: 'write', path: 'old/gone.txt', content: 'back\n' },
    ]);
    const second = await sh.apply();
    assert.equal(
      second.paths.map((p) => [p.path, p.action, p.old, p.new]),
      [
        ['a.txt', 'modify', blobOid('a\nLOCAL\n'), blobOid('a\nLOCAL 2\n')],
        ['old/gone.txt', 'create', null, blobOid('back\n')],
      ],
    );
    assert.is(repo.read('a.txt'), 'a\nLOCAL 2\n');
    assert.is(repo.read('old/gone.txt'), 'back\n');
    assert.is(records(repo.fs).length, 2);

    // The user edits a published file: the draft's next change to it is guarded against the published content.
    repo.write('src/app.ts', 'user after apply\n');
    await batch(sh, [{ operation: 'write', path: 'src/app.ts', content: 'agent again\n' }]);
    const e = await codeOf(() => sh.apply());
    assert.is(e.code, 'CONFLICT');
    assert.equal(
      (e.data.conflicts as PathConflict[]).map((c) => [c.path, c.expected, c.found]),
      [['src/app.ts', blobOid('export const app = 1\n'), 'modified']],
    );
    assert.ok(first.id && second.id && first.id !== second.id);
  },
);

Cycle(
  'unapply restores every path of the last apply; applying again publishes the same changes',
  async ({ repo, sh }) => {
    const before = worktree(repo.fs);
    const first = await sh.apply();
    const applied = worktree(repo.fs);
    const u = await sh.unapply();
    assert.is(u.reverted, first.id);
    assert.equal(
      u.paths.map((p) => p.path).sort(),
      EXPECTED_SET.map((p) => p.path),
    );
    assert.equal(worktree(repo.fs), before, 'the working tree is back, emptied directories included');
    assert.equal(records(repo.fs), []);
    assert.equal(journals(repo.fs), []);

    const plan = await sh.apply({ dryRun: true });
    assert.equal(plan.paths, first.paths, 'the same changes are due again');
    const second = await sh.apply();
    assert.equal(second.paths, first.paths);
    assert.equal(worktree(repo.fs), applied);

    const none = await sh.unapply();
    assert.is(none.reverted, second.id);
    const e = await codeOf(() => sh.unapply());
    assert.is(e.code, 'NOTHING_TO_UNDO');
    assert.equal(worktree(repo.fs), before);
  },
);

Cycle('two applies unwind one at a time, newest first', async ({ repo, sh }) => {
  const before = worktree(repo.fs);
  await sh.apply();
  const mid = worktree(repo.fs);
  await batch(sh, [{ operation: 'edit', path: 'src/app.ts', old_content: 'app = 1', content: 'app = 2' }]);
  await sh.apply();
  assert.is(repo.read('src/app.ts'), 'export const app = 2\n');
  await sh.unapply();
  assert.equal(worktree(repo.fs), mid);
  await sh.unapply();
  assert.equal(worktree(repo.fs), before);
});

Cycle(
  'a draft applied many times reads one apply record per command, not all of them, and a handle none again until they change; the fold they make is checked against the records and rebuilt',
  async ({ repo, sh, seam, viaSeam }) => {
    await sh.apply();
    for (let i = 2; i <= 6; i++) {
      await batch(sh, [{ operation: 'write', path: `step/${i}.txt`, content: `step ${i}\n` }]);
      await sh.apply();
    }
    assert.is(records(repo.fs).length, 6);
    const recordReads = (): number =>
      seam.log.filter((c) => c.op === 'readFileSync' && c.path!.includes('/applies/') && c.path!.endsWith('.json'))
        .length;
    seam.arm();
    const plan = await viaSeam.apply({ dryRun: true });
    assert.equal(plan.paths, []);
    assert.is(recordReads(), 1, 'only the newest record (what unapply reverses) is read');
    await viaSeam.apply({ dryRun: true });
    await viaSeam.status();
    assert.is(recordReads(), 1, 'a handle reads no record again while the applies stay the same');

    // An unapply: the fold of all but the newest was kept, so still one record is read.
    await sh.unapply();
    assert.is(nodeAt(repo.fs, 'step/6.txt'), null);
    seam.log.length = 0;
    const after = await viaSeam.apply({ dryRun: true });
    assert.equal(
      after.paths.map((p) => p.path),
      ['step/6.txt'],
      'the reverted apply is due again',
    );
    assert.is(recordReads(), 1);

    // A record removed by hand (the documented way to forget an apply): the fold no longer matches and is rebuilt.
    const third = records(repo.fs).find((n) => recordPaths(repo, n).includes('step/3.txt'))!;
    repo.fs.unlinkSync(`${SHADOW}/drafts/default/applies/${third}`);
    const forgot = await sh.apply({ dryRun: true });
    assert.equal(
      forgot.paths.map((p) => [p.path, p.old]),
      [
        ['step/3.txt', null],
        ['step/6.txt', null],
      ],
      'its path falls back to its captured base',
    );
    assert.equal(forgot.conflicts, [], 'the working tree holds what the draft has there: nothing to merge');
    assert.equal(
      forgot.paths.map((p) => p.merge),
      ['merged', 'clean'],
    );

    // A damaged fold is ignored.
    repo.fs.writeFileSync(`${SHADOW}/drafts/default/applies/fold.cache`, '{"version":1,"key":');
    const again = await sh.apply({ dryRun: true });
    assert.equal(
      again.paths.map((p) => p.path),
      ['step/3.txt', 'step/6.txt'],
    );
  },
);

/** The paths an apply record of the default draft lists. */
function recordPaths(repo: MemRepo, name: string): string[] {
  const record = JSON.parse(String(repo.fs.readFileSync(`${SHADOW}/drafts/default/applies/${name}`, 'utf8'))) as {
    entries: Array<{ path: string }>;
  };
  return record.entries.map((e) => e.path);
}

Cycle(
  "unapply of a file you rewrote since (the apply's line among yours): CONFLICT with the hunk, nothing written, the apply stays recorded",
  async ({ repo, sh }) => {
    await sh.apply();
    repo.write('src/app.ts', 'user\n');
    const before = worktree(repo.fs);
    const e = await codeOf(() => sh.unapply());
    assert.is(e.code, 'CONFLICT');
    const conflicts = e.data.conflicts as PathConflict[];
    assert.equal(
      conflicts.map((c) => [c.path, c.expected, c.found, c.reason]),
      [['src/app.ts', blobOid('export const app = 1\n'), 'modified', 'overlap']],
    );
    assert.is(conflicts[0]!.hunks!.length, 1);
    assert.equal(worktree(repo.fs), before);
    assert.is(records(repo.fs).length, 1);
    assert.equal(journals(repo.fs), []);
  },
);

const YOURS: Array<{ name: string; make(r: MemRepo): void; path: string }> = [
  {
    name: 'a created file you deleted',
    make: (r) => r.fs.unlinkSync(`${ROOT}/src/new/feature.ts`),
    path: 'src/new/feature.ts',
  },
  { name: 'a deleted path you made again', make: (r) => r.write('old/gone.txt', 'user\n'), path: 'old/gone.txt' },
];

for (const g of YOURS) {
  Cycle(`unapply leaves ${g.name} as you have it, and puts back the rest`, async ({ repo, sh }) => {
    const start = worktree(repo.fs);
    await sh.apply();
    g.make(repo);
    const mine = worktree(repo.fs)[g.path];
    const r = await sh.unapply();
    assert.equal(r.kept, [g.path]);
    const after = worktree(repo.fs);
    assert.is(after[g.path], mine);
    // The path and the directories it was made in (you emptied them, or made them again) are yours.
    const rest = (w: Record<string, unknown>): Record<string, unknown> =>
      Object.fromEntries(Object.entries(w).filter(([p]) => p !== g.path && !g.path.startsWith(`${p}/`)));
    assert.equal(rest(after), rest(start));
    assert.is(records(repo.fs).length, 0);
    assert.equal(journals(repo.fs), []);
  });
}

Cycle.run();
