/**
 * `split` refuses bad input with a stable code and writes nothing: no ref
 * moves, no new draft, no ledger line. And what it writes is ordinary
 * batches: trailers, ledger events, a rollback that brings the hunks back,
 * approvals that stay with the draft they were given on. On memfs.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as git from 'isomorphic-git';
import type { Shadow } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';
import { codeOf } from './helpers/caught.js';
import { FsSeam } from './helpers/fs-seam.js';
import { openShadow } from '../src/index.js';

const forty = Array.from({ length: 40 }, (_, i) => `line ${i + 1}\n`);
const BASE = forty.join('');
const NEXT = forty
  .map((l, i) => (i === 2 ? 'three\n' : i === 19 ? 'twenty\n' : i === 36 ? 'thirty-seven\n' : l))
  .join('');

const refs = async (repo: MemRepo): Promise<string[]> => {
  const out: string[] = [];
  for (const r of await git.listRefs({ fs: repo.fs, gitdir: `${repo.dir}/.git`, filepath: 'refs/shadow/drafts' })) {
    out.push(`${r}=${await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref: `refs/shadow/drafts/${r}` })}`);
  }
  return out.sort();
};

async function withDraft(repo: MemRepo): Promise<Shadow> {
  const sh = await repo.open();
  const r = await sh.batch({
    intent: 'three hunks and a new file',
    operations: [
      { operation: 'write', path: 'a.txt', content: NEXT },
      { operation: 'write', path: 'b.txt', content: 'b\n' },
    ],
  });
  assert.ok(r.success);
  return sh;
}

const Guards = suite<{ repo: MemRepo }>('split: bad input writes nothing');
Guards.before.each(async (c) => {
  c.repo = await memRepo({ 'a.txt': BASE });
});

Guards('each bad selection or name has its code, and no ref, draft or ledger line changes', async ({ repo }) => {
  const sh = await withDraft(repo);
  await sh.draftNew('taken');
  const { files } = await sh.diff({ content: 'patch' });
  const firstId = files.find((f) => f.path === 'a.txt')!.hunks![0]!.id;
  const cases: Array<[string, () => Promise<unknown>, string]> = [
    ['an id the draft does not have', () => sh.split({ hunks: ['0123456789ab'] }), 'STALE_HUNKS'],
    ['an empty selection', () => sh.split({ hunks: [] }), 'INVALID_ARGUMENT'],
    ['no selection at all', () => sh.split({}), 'INVALID_ARGUMENT'],
    ['every change of the draft', () => sh.split({ hunks: ['a.txt', 'b.txt'] }), 'INVALID_ARGUMENT'],
    ['every hunk by number', () => sh.split({ hunks: ['a.txt:1-3', 'b.txt:1'] }), 'INVALID_ARGUMENT'],
    ['an index past the last hunk', () => sh.split({ hunks: ['a.txt:4'] }), 'INVALID_ARGUMENT'],
    ['a path the draft does not change', () => sh.split({ hunks: ['c.txt'] }), 'INVALID_ARGUMENT'],
    ['an unknown draft', () => sh.split({ draft: 'nope', hunks: ['a.txt:1'] }), 'DRAFT_NOT_FOUND'],
    ['an invalid new name', () => sh.split({ hunks: ['a.txt:1'], into: 'bad..name' }), 'INVALID_DRAFT_NAME'],
    ['a remote draft as the new name', () => sh.split({ hunks: ['a.txt:1'], into: 'origin/x' }), 'READ_ONLY'],
    ['an existing new name', () => sh.split({ hunks: ['a.txt:1'], into: 'taken' }), 'DRAFT_EXISTS'],
    ['the draft itself as the new name', () => sh.split({ hunks: ['a.txt:1'], into: 'default' }), 'DRAFT_EXISTS'],
    ['hunks and a patch', () => sh.split({ hunks: [firstId], patch: 'diff --git a/a b/a\n' }), 'INVALID_ARGUMENT'],
  ];
  const before = await refs(repo);
  const events = (await sh.events()).length;
  for (const [what, f, code] of cases) {
    assert.is(await codeOf(f), code, what);
    assert.equal(await refs(repo), before, `${what}: no ref moved or was made`);
  }
  assert.is((await sh.events()).length, events, 'no ledger line');
  assert.is(repo.exists('.git/shadow/drafts/default-split'), false, 'no new draft metadata');
});

Guards('a draft with a path in conflict since its rebase refuses to split it, not the others', async ({ repo }) => {
  const sh = await withDraft(repo);
  repo.write('a.txt', BASE.replace('line 3\n', 'mine\n'));
  const rebased = await sh.rebase();
  assert.equal(
    rebased.conflicts.map((c) => c.path),
    ['a.txt'],
  );
  const before = await refs(repo);
  assert.is(await codeOf(() => sh.split({ hunks: ['a.txt'] })), 'UNRESOLVED_CONFLICT');
  assert.equal(await refs(repo), before);
  const r = await sh.split({ hunks: ['b.txt'] });
  assert.equal(r.paths, [{ path: 'b.txt', moved: 'whole' }]);
});

Guards('an id listed before the draft moved is STALE_HUNKS: nothing written', async ({ repo }) => {
  const sh = await withDraft(repo);
  const { files } = await sh.diff({ content: 'patch' });
  const id = files.find((f) => f.path === 'a.txt')!.hunks![1]!.id;
  await sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: NEXT.replace('twenty', 'XX') }] });
  const before = await refs(repo);
  assert.is(await codeOf(() => sh.split({ hunks: [id] })), 'STALE_HUNKS');
  assert.equal(await refs(repo), before);
});

Guards(
  'the split is two ordinary batches, logged on both ledgers; rollback brings the hunks back',
  async ({ repo }) => {
    const sh = await withDraft(repo);
    const tip = (await sh.draftShow()).tip;
    const r = await sh.split({ hunks: ['a.txt:2', 'b.txt'], actor: 'alice', message: 'hand over the middle' });
    assert.is(r.into, 'default-split');
    assert.is(r.from, tip);
    assert.equal(r.paths, [
      { path: 'a.txt', moved: 'part' },
      { path: 'b.txt', moved: 'whole' },
    ]);
    assert.equal(r.partial, [{ path: 'a.txt', chosen: 1, hunks: 3 }]);
    const [mine] = await git.log({ fs: repo.fs, dir: repo.dir, ref: 'refs/shadow/drafts/default', depth: 1 });
    assert.match(mine!.commit.message, /^hand over the middle\n/);
    assert.match(
      mine!.commit.message,
      new RegExp(`\nShadow-Draft: default\nShadow-Batch: ${r.batch}\nShadow-Actor: alice\n`),
    );
    const [theirs] = await git.log({ fs: repo.fs, dir: repo.dir, ref: 'refs/shadow/drafts/default-split', depth: 1 });
    assert.match(theirs!.commit.message, /\nShadow-Draft: default-split\nShadow-Batch: 1\nShadow-Actor: alice\n/);
    assert.is(theirs!.commit.parent[0], (await sh.draftShow()).root, 'no capture: the root holds the bases');
    const split = (await sh.events()).filter((e) => e.type === 'draft/split');
    assert.equal(
      split.map((e) => [e.actor, e.data.into, e.data.to]),
      [['alice', 'default-split', r.tip]],
    );
    const into = (await sh.events({ draft: 'default-split' })).map((e) => e.type);
    assert.equal(into, ['draft/open', 'draft/split']);

    // The draft's diff is the two hunks left; the new draft's is the one moved and b.txt.
    const left = (await sh.diff({ content: 'patch' })).files;
    assert.equal(
      left.map((f) => [f.path, f.hunks!.length]),
      [['a.txt', 2]],
    );
    const moved = (await sh.diff({ draft: 'default-split', content: 'patch' })).files;
    assert.equal(
      moved.map((f) => [f.path, f.hunks!.map((h) => h.header)]),
      [
        ['a.txt', ['@@ -17,7 +17,7 @@ line 16']],
        ['b.txt', ['@@ -0,0 +1 @@']],
      ],
    );
    // A second split with no name takes the next free one.
    assert.is((await sh.split({ hunks: ['a.txt:1'] })).into, 'default-split-2');

    await sh.rollback(tip);
    assert.equal(
      (await sh.diff({ content: 'patch' })).files.map((f) => [f.path, f.hunks!.length]),
      [
        ['a.txt', 3],
        ['b.txt', 1],
      ],
      'rollback brings every hunk back',
    );
  },
);

Guards(
  'a patch moves what it holds; an edited hunk whose lines touch lines left behind is refused',
  async ({ repo }) => {
    const sh = await repo.open();
    const next = BASE.replace('line 3\n', 'three\n').replace('line 4\n', 'four\n').replace('line 30\n', 'thirty\n');
    await sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: next }] });
    const head = 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n';
    // Line 3 without line 4 beside it: the two cannot be told apart in the rest.
    const touching = `${head}@@ -2,3 +2,3 @@\n line 2\n-line 3\n+three\n line 4\n`;
    const before = await refs(repo);
    assert.is(await codeOf(() => sh.split({ patch: touching })), 'INVALID_ARGUMENT');
    assert.equal(await refs(repo), before);
    const off = `${head}@@ -2,3 +2,3 @@\n line 2\n-line 9\n+three\n line 4\n`;
    assert.is(await codeOf(() => sh.split({ patch: off })), 'PATCH_DOES_NOT_APPLY');
    assert.is(await codeOf(() => sh.split({ patch: 'not a patch' })), 'INVALID_PATCH');
    assert.equal(await refs(repo), before);
    const far = `${head}@@ -29,3 +29,3 @@\n line 29\n-line 30\n+thirty\n line 31\n`;
    const r = await sh.split({ patch: far, into: 'far' });
    assert.equal(r.partial, [{ path: 'a.txt', chosen: 1, hunks: 2 }]);
    const view = async (draft: string): Promise<string> => (await sh.cat('a.txt', { draft })).content.toString();
    assert.is(await view('far'), BASE.replace('line 30\n', 'thirty\n'));
    assert.is(await view('default'), BASE.replace('line 3\n', 'three\n').replace('line 4\n', 'four\n'));
  },
);

Guards(
  'a new draft that cannot be made puts the hunks back in the draft: they are never in neither',
  async ({ repo }) => {
    const sh = await withDraft(repo);
    const before = await refs(repo);
    const seam = new FsSeam(repo.fs);
    const c = repo.ctx;
    const failing = await openShadow({ dir: repo.dir, fs: seam.fs, clock: c.clock, ids: c.ids, env: c.env });
    seam.inject({ op: ['openSync', 'writeFileSync', 'renameSync'], path: /\/drafts\/moved\//, code: 'EIO' });
    // The disk's own error, as any write of draft metadata meets it.
    assert.is(await codeOf(() => failing.split({ hunks: ['a.txt:2'], into: 'moved' })), 'EIO');
    failing.close();
    assert.equal(await refs(repo), before, 'the draft is back at its tip; no new draft');
    assert.equal(
      (await sh.diff({ content: 'patch' })).files.map((f) => [f.path, f.hunks!.length]),
      [
        ['a.txt', 3],
        ['b.txt', 1],
      ],
    );
  },
);

Guards('an approval given on the draft does not let the new draft apply', async ({ repo }) => {
  await git.setConfig({ fs: repo.fs, dir: repo.dir, path: 'shadow.protect', value: '.github/**' });
  const sh = await repo.open();
  await sh.batch({
    operations: [
      { operation: 'write', path: '.github/ci.yml', content: 'on: push\n' },
      { operation: 'write', path: 'a.txt', content: NEXT },
    ],
  });
  const review = await sh.review();
  assert.equal(
    review.approvals.map((a) => a.kind),
    ['protected_path'],
  );
  for (const a of review.approvals) await sh.approve(a.id);
  await sh.split({ hunks: ['.github/ci.yml'], into: 'ci' });
  const r = await sh.apply({ draft: 'ci' });
  assert.is(r.applied, false, 'the new draft waits for its own approval');
  assert.equal(
    r.pendingApprovals.map((a) => a.kind),
    ['protected_path'],
  );
  assert.is(repo.exists('.github/ci.yml'), false);
});

Guards.run();
