import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Shadow } from '../src/index.js';
import { memRepo, type MemRepo } from './helpers/mem-repo.js';

const View = suite<{ repo: MemRepo; sh: Shadow }>('view');
View.before.each(async (ctx) => {
  ctx.repo = await memRepo({ 'README.md': 'Hello\n', 'src/a.ts': 'a\n', 'src/b.ts': 'b\n', 'docs/x.md': 'x\n' });
  ctx.sh = await ctx.repo.open();
});

View('before the first batch the view is the working tree as it is', async ({ repo, sh }) => {
  repo.write('untracked.txt', 'u\n');
  assert.is((await sh.cat('untracked.txt')).content.toString(), 'u\n');
  assert.is((await sh.cat('README.md')).source, 'lower');
  assert.equal(
    (await sh.ls()).map((e) => e.name),
    ['README.md', 'docs', 'src', 'untracked.txt'],
  );
  assert.is(await sh.hasDraft(), false);
});

View('touched paths come from the draft, every other path from the live working tree', async ({ repo, sh }) => {
  await sh.batch({
    operations: [
      { operation: 'write', path: 'src/new.ts', content: 'new\n' },
      { operation: 'delete', path: 'src/a.ts' },
      { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hi' },
    ],
  });
  repo.write('docs/x.md', 'changed by the user\n');
  repo.write('README.md', 'user edit after the draft took it\n');
  const readme = await sh.cat('README.md');
  assert.is(readme.source, 'draft');
  assert.is(readme.content.toString(), 'Hi\n');
  assert.is((await sh.cat('docs/x.md')).content.toString(), 'changed by the user\n');
  try {
    await sh.cat('src/a.ts');
    assert.unreachable();
  } catch (e) {
    assert.is((e as { code: string }).code, 'NOT_FOUND');
  }
  const src = await sh.ls('src');
  assert.equal(
    src.map((e) => [e.name, e.source]),
    [
      ['b.ts', 'lower'],
      ['new.ts', 'draft'],
    ],
  );
  assert.equal(
    (await sh.ls('')).map((e) => e.name),
    ['README.md', 'docs', 'src'],
  );
});

View('a directory the draft creates is listed; cat of a directory says so', async ({ sh }) => {
  await sh.batch({ operations: [{ operation: 'write', path: 'lib/deep/f.txt', content: 'f\n' }] });
  assert.equal(
    (await sh.ls('lib')).map((e) => [e.name, e.type]),
    [['deep', 'dir']],
  );
  assert.equal(
    (await sh.ls('lib/deep')).map((e) => e.name),
    ['f.txt'],
  );
  try {
    await sh.cat('lib');
    assert.unreachable();
  } catch (e) {
    assert.is((e as { code: string }).code, 'IS_A_DIRECTORY');
  }
});

View('binary content is returned byte for byte', async ({ sh }) => {
  const bytes = Buffer.from([0, 1, 2, 255, 254, 10]);
  await sh.write('bin/blob.dat', bytes);
  assert.equal([...(await sh.cat('bin/blob.dat')).content], [...bytes]);
});

const Bases = suite<{ repo: MemRepo; sh: Shadow }>('bases');
Bases.before.each(async (ctx) => {
  ctx.repo = await memRepo({ 'README.md': 'Hello\n', 'keep.txt': 'keep\n', 'gone.txt': 'gone\n' });
  ctx.sh = await ctx.repo.open();
});

Bases(
  'the cache in draft.json always equals what the history says, up to the commit it names',
  async ({ repo, sh }) => {
    repo.write('README.md', 'Hello\nuser\n');
    repo.write('untracked.txt', 'mine\n');
    await sh.batch({ operations: [{ operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hi' }] });
    await sh.batch({
      operations: [
        { operation: 'delete', path: 'gone.txt' },
        { operation: 'edit', path: 'untracked.txt', old_content: 'mine', content: 'ours' },
        { operation: 'write', path: 'tmp.txt', content: 't\n' },
        { operation: 'delete', path: 'tmp.txt' },
      ],
    });
    const cached = await sh.diff();
    const metaPath = `${repo.dir}/.git/shadow/drafts/default/draft.json`;
    // Two small batches: the file still holds the bases of the draft's start, true as of the commit it names.
    const lagging = JSON.parse(String(repo.fs.readFileSync(metaPath, 'utf8')));
    assert.is(lagging.bases_tip, lagging.root);
    assert.equal(lagging.bases, {});
    for (const damage of ['lagging', 'delete', 'corrupt']) {
      if (damage === 'delete') repo.fs.unlinkSync(metaPath);
      else if (damage === 'corrupt') repo.fs.writeFileSync(metaPath, '{"version":1,');
      const fresh = await repo.open();
      assert.equal(await fresh.diff(), cached, `after ${damage}`);
      if (damage !== 'lagging') {
        // Rebuilt from the history, and written at once.
        const rebuilt = JSON.parse(String(repo.fs.readFileSync(metaPath, 'utf8')));
        assert.equal(
          Object.keys(rebuilt.bases).sort(),
          ['README.md', 'gone.txt', 'untracked.txt'],
          `bases rebuilt after ${damage}`,
        );
        // An untracked file's base is its working-tree content, recorded by the capture commit.
        assert.equal(rebuilt.bases['untracked.txt'], {
          mode: '100644',
          oid: '351be5bf6e17c59ea560546d69654115ecb2fd8d',
        });
      }
    }
  },
);

Bases(
  'small batches rewrite draft.json every few batches, a large one at once; a new handle reads the commits since',
  async ({ repo, sh }) => {
    const metaPath = `${repo.dir}/.git/shadow/drafts/default/draft.json`;
    const onDisk = (): { tip: string; bases: string[] } => {
      const m = JSON.parse(String(repo.fs.readFileSync(metaPath, 'utf8')));
      return { tip: m.bases_tip, bases: Object.keys(m.bases).sort() };
    };
    const tips: string[] = [];
    for (let i = 0; i < 8; i++)
      tips.push(
        (await sh.batch({ operations: [{ operation: 'write', path: `n${i}.txt`, content: `${i}\n` }] })).commit!,
      );
    // Each counts 2 (a commit, a path) against a limit of 16: the eighth batch writes the file.
    assert.is(onDisk().tip, tips[7]);
    assert.equal(onDisk().bases, ['n0.txt', 'n1.txt', 'n2.txt', 'n3.txt', 'n4.txt', 'n5.txt', 'n6.txt', 'n7.txt']);
    await sh.batch({ operations: [{ operation: 'write', path: 'later.txt', content: 'l\n' }] });
    assert.is(onDisk().tip, tips[7], 'one more small batch leaves it');
    const fresh = await repo.open();
    assert.equal((await fresh.status()).changed.map((c) => c.path).sort(), [
      'later.txt',
      'n0.txt',
      'n1.txt',
      'n2.txt',
      'n3.txt',
      'n4.txt',
      'n5.txt',
      'n6.txt',
      'n7.txt',
    ]);
    const big = await sh.batch({
      operations: Array.from({ length: 20 }, (_, i) => ({
        operation: 'write' as const,
        path: `big/${i}.txt`,
        content: `${i}\n`,
      })),
    });
    assert.is(onDisk().tip, big.commit, 'a large batch writes it at once');
    assert.is(onDisk().bases.length, 29);
  },
);

Bases(
  'in a draft of many bases the lag allowed grows with them: rewrites stay O(1) per path changed',
  async ({ repo, sh }) => {
    const metaPath = `${repo.dir}/.git/shadow/drafts/default/draft.json`;
    const onDisk = (): { tip: string; bases: number } => {
      const m = JSON.parse(String(repo.fs.readFileSync(metaPath, 'utf8')));
      return { tip: m.bases_tip, bases: Object.keys(m.bases).length };
    };
    const batchOf = async (prefix: string, n: number): Promise<string> =>
      (
        await sh.batch({
          operations: Array.from({ length: n }, (_, i) => ({
            operation: 'write' as const,
            path: `${prefix}/${i}.txt`,
            content: `${i}\n`,
          })),
        })
      ).commit!;
    const first = await batchOf('a', 400);
    assert.equal(onDisk(), { tip: first, bases: 400 }, 'a batch over the limit writes the file');
    // 400 bases allow a lag of 400/8 = 50 units: a batch of 30 paths (31 units) leaves the file...
    await batchOf('b', 30);
    assert.equal(onDisk(), { tip: first, bases: 400 });
    // ...the next one (62 units) writes it.
    const third = await batchOf('c', 30);
    assert.equal(onDisk(), { tip: third, bases: 460 });
    const fourth = await batchOf('d', 30);
    assert.is(onDisk().tip, third);
    // A new handle catches up from the commits since; having walked 31 units
    // (more than 16), it writes the file, so the next new handle need not.
    const fresh = await repo.open();
    assert.is((await fresh.status()).changed.length, 490);
    assert.is((await fresh.status()).tip, fourth);
    assert.equal(onDisk(), { tip: fourth, bases: 490 });
  },
);

Bases('status lists the changes and the paths the working tree moved away from', async ({ repo, sh }) => {
  await sh.batch({
    operations: [
      { operation: 'edit', path: 'keep.txt', old_content: 'keep', content: 'kept' },
      { operation: 'delete', path: 'gone.txt' },
    ],
  });
  repo.write('keep.txt', 'the user changed it again\n');
  const s = await sh.status();
  assert.is(s.exists, true);
  assert.is(s.batches, 1);
  assert.equal(
    s.changed.map((c) => [c.status, c.path]),
    [
      ['D', 'gone.txt'],
      ['M', 'keep.txt'],
    ],
  );
  assert.equal(
    s.drifted.map((d) => d.path),
    ['keep.txt'],
  );
});

Bases('diff with content gives git-style patches and line counts', async ({ sh }) => {
  await sh.batch({
    operations: [
      { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, world' },
      { operation: 'write', path: 'n.txt', content: 'one\ntwo\n' },
    ],
  });
  const { files } = await sh.diff({ content: 'patch' });
  const readme = files.find((f) => f.path === 'README.md')!;
  assert.is(readme.insertions, 1);
  assert.is(readme.deletions, 1);
  assert.match(
    readme.patch!,
    /^diff --git a\/README.md b\/README.md\nindex [0-9a-f]{7}\.\.[0-9a-f]{7} 100644\n--- a\/README.md\n\+\+\+ b\/README.md\n@@ -1 \+1 @@\n-Hello\n\+Hello, world\n$/,
  );
  const added = files.find((f) => f.path === 'n.txt')!;
  assert.match(added.patch!, /new file mode 100644/);
  assert.match(added.patch!, /--- \/dev\/null\n\+\+\+ b\/n.txt\n@@ -0,0 \+1,2 @@\n\+one\n\+two\n/);
});

View.run();
Bases.run();
