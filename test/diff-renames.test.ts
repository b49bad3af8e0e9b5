import { spawnSync } from 'node:child_process';
import { rmSync, symlinkSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { prng } from './helpers/prng.js';
import type { DiffFile } from '../src/index.js';

/**
 * Rename detection (`sh.diff({ renames })`, `shadow diff -M`) against
 * native `git diff -M` on the same two trees: the pairs and their scores
 * (`--name-status`: R<score>, old, new), the patch headers (`similarity
 * index`, `rename from`/`to`) byte for byte. Both ways shadow diffs:
 * between two commits, and a draft against its captured bases (which no
 * tree holds).
 */

type Files = Record<string, string | Buffer | { link: string }>;

/** The files as git's --name-status writes them. */
const nameStatusText = (files: readonly DiffFile[]): string =>
  files
    .map((f) =>
      f.status === 'R' ? `R${String(f.similarity).padStart(3, '0')}\t${f.from}\t${f.path}` : `${f.status}\t${f.path}`,
    )
    .join('\n');

const Renames = suite<{ repo: DiskRepo }>('diff -M against git diff -M');
Renames.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'keep.txt': 'kept\n' });
});
Renames.after.each((ctx) => ctx.repo.cleanup());

/** Make the working tree hold exactly `files` (and keep.txt), commit it; the commit. */
function commitTree(repo: DiskRepo, files: Files, message: string): string {
  for (const p of repo
    .git('ls-files')
    .split('\n')
    .filter((p) => p && p !== 'keep.txt'))
    rmSync(repo.path(p), { force: true });
  for (const [path, content] of Object.entries(files)) {
    if (typeof content === 'object' && 'link' in content) {
      repo.write(path, '');
      rmSync(repo.path(path));
      symlinkSync(content.link, repo.path(path));
    } else repo.write(path, content);
  }
  repo.git('add', '-A');
  repo.git('commit', '-q', '--allow-empty', '-m', message);
  return repo.git('rev-parse', 'HEAD').trim();
}

function gitNameStatus(repo: DiskRepo, from: string, to: string, m: string, paths: string[] = []): string {
  return repo
    .git(
      '-c',
      'core.quotepath=false',
      'diff',
      '--no-ext-diff',
      '--no-color',
      `-M${m}`,
      '--name-status',
      from,
      to,
      '--',
      ...paths,
    )
    .trimEnd();
}

/** The -M spellings tried: git's word and the percentage sh.diff takes. */
const THRESHOLDS: Array<[string, true | number]> = [
  ['', true],
  ['30%', 30],
  ['75%', 75],
  ['9', 90],
  ['100%', 100],
];

async function compareRange(repo: DiskRepo, a: string, b: string, what: string): Promise<void> {
  await withShadow(repo, async (sh) => {
    if (!(await sh.hasDraft())) await sh.draftNew('default');
    for (const [m, renames] of THRESHOLDS) {
      const r = await sh.diff({ range: `${a}..${b}`, renames });
      assert.is(nameStatusText(r.files), gitNameStatus(repo, a, b, m), `${what}, -M${m}`);
    }
  });
}

const lines = (n: number, tag: string): string =>
  Array.from({ length: n }, (_, i) => `${String(i).padStart(4, '0')} ${tag} line ${i}\n`).join('');
const edit = (text: string, every: number, tag: string): string =>
  text
    .split('\n')
    .map((l, i) => (l && i % every === 0 ? `${l} ${tag}` : l))
    .join('\n');

Renames(
  'a corpus of exact, edited, ambiguous, binary, symlink and empty renames pairs as git pairs it, at every threshold',
  async ({ repo }) => {
    const big = lines(40, 'big');
    const before: Files = {
      'src/exact.ts': lines(20, 'exact'),
      'src/moved-away.ts': lines(30, 'away'),
      'src/edited.ts': big,
      'src/half.ts': lines(10, 'half'),
      'src/twin-a.txt': lines(12, 'twin'),
      'src/twin-b.txt': lines(12, 'twin'),
      'docs/guide.md': lines(25, 'guide'),
      'docs/other/guide.md': lines(25, 'guide2'),
      'assets/logo.bin': Buffer.concat([Buffer.from([0, 1, 2, 3]), Buffer.from(lines(30, 'bin'))]),
      'crlf.txt': lines(15, 'crlf'),
      'empty-a': '',
      link: { link: 'src/exact.ts' },
      link2: { link: 'somewhere' },
      'grow.txt': lines(4, 'grow'),
    };
    const after: Files = {
      'lib/exact.ts': lines(20, 'exact'),
      'lib/renamed.ts': lines(30, 'away'),
      'lib/edited.ts': edit(big, 5, 'changed'),
      'lib/half.ts': edit(lines(10, 'half'), 2, 'rewritten and longer than before'),
      'twin.txt': lines(12, 'twin'),
      'lib/guide.md': edit(lines(25, 'guide'), 4, 'x'),
      'lib/deep/guide.md': edit(lines(25, 'guide2'), 3, 'y'),
      'assets/logo2.bin': Buffer.concat([Buffer.from([0, 1, 2, 3]), Buffer.from(edit(lines(30, 'bin'), 6, 'b'))]),
      'crlf2.txt': lines(15, 'crlf').replace(/\n/g, '\r\n'),
      'empty-b': '',
      'link-moved': { link: 'src/exact.ts' },
      'link2-moved': { link: 'elsewhere' },
      'grow2.txt': lines(4, 'grow') + lines(3, 'more'),
    };
    const a = commitTree(repo, before, 'before');
    const b = commitTree(repo, after, 'after');
    // The corpus has what it claims, as git sees it.
    const git = gitNameStatus(repo, a, b, '');
    for (const expected of [
      /^R100\tsrc\/exact\.ts\tlib\/exact\.ts$/m,
      /^R100\tempty-a\tempty-b$/m,
      /^R100\tlink\tlink-moved$/m,
      /^D\tlink2$/m,
      /^R\d\d\d\tassets\/logo\.bin\tassets\/logo2\.bin$/m,
      /^D\tsrc\/half\.ts$/m,
      /^R\d\d\d\tcrlf\.txt\tcrlf2\.txt$/m,
    ]) {
      assert.match(git, expected);
    }
    await compareRange(repo, a, b, 'corpus');
  },
);

Renames(
  'several sources for one destination and one source for several: each source once, the best first, ties to the same file name',
  async ({ repo }) => {
    const base = lines(30, 'shared');
    const before: Files = {
      'a/one.txt': base,
      'b/one.txt': edit(base, 7, 'b'),
      'c/two.txt': edit(base, 3, 'c'),
      'dup1.txt': lines(8, 'dup'),
      'dup2.txt': lines(8, 'dup'),
    };
    const after: Files = {
      'x/one.txt': edit(base, 10, 'x'),
      'y/one.txt': edit(base, 9, 'y'),
      'z/three.txt': edit(base, 2, 'z'),
      'd1/dup2.txt': lines(8, 'dup'),
      'd2/other.txt': lines(8, 'dup'),
      'd3/dup1.txt': lines(8, 'dup'),
    };
    const a = commitTree(repo, before, 'before');
    const b = commitTree(repo, after, 'after');
    await compareRange(repo, a, b, 'candidates');
  },
);

/** Commit each of `trees` (each whole, keep.txt beside it) in one `git fast-import`; their commits, in order. */
function importTrees(repo: DiskRepo, trees: ReadonlyArray<Record<string, string | Buffer>>): string[] {
  const parts: Buffer[] = [];
  const data = (b: Buffer): void => {
    parts.push(Buffer.from(`data ${b.length}\n`), b, Buffer.from('\n'));
  };
  trees.forEach((tree, i) => {
    parts.push(Buffer.from(`commit refs/heads/corpus\ncommitter T <t@e> ${i} +0000\n`));
    data(Buffer.from(`tree ${i}`));
    parts.push(Buffer.from('deleteall\n'));
    for (const [path, content] of Object.entries({ 'keep.txt': 'kept\n', ...tree })) {
      parts.push(Buffer.from(`M 100644 inline ${path}\n`));
      data(Buffer.from(content));
    }
  });
  const r = spawnSync('git', ['fast-import', '--quiet'], { cwd: repo.dir, env: repo.env, input: Buffer.concat(parts) });
  assert.is(r.status, 0, String(r.stderr));
  return repo.git('rev-list', '--reverse', 'refs/heads/corpus').trim().split('\n');
}

/** git diff-tree -M<m> --name-status from each pair's first commit to its second, in one run: by the second. */
function gitNameStatuses(repo: DiskRepo, pairs: ReadonlyArray<[string, string]>, m: string): Map<string, string> {
  // A line of --stdin is a commit and then the parents it is compared with.
  const input = pairs.map(([a, b]) => `${b} ${a}\n`).join('');
  const r = spawnSync('git', ['diff-tree', '--stdin', '--always', '-r', `-M${m}`, '--name-status'], {
    cwd: repo.dir,
    env: repo.env,
    input,
    encoding: 'utf8',
  });
  assert.is(r.status, 0, r.stderr);
  const out = new Map<string, string>();
  let at = '';
  for (const line of r.stdout.split('\n')) {
    if (/^[0-9a-f]{40}$/.test(line)) out.set((at = line), '');
    else if (line) out.set(at, `${out.get(at)}${out.get(at) ? '\n' : ''}${line}`);
  }
  return out;
}

Renames('400 seeded random corpora: the same pairs and scores as git at every threshold', async ({ repo }) => {
  const uniform = prng(20260514);
  const rnd = (n: number): number => Math.floor(uniform() * n);
  const dirs = ['', 'src/', 'lib/', 'src/util/', 'docs/'];
  const names = ['index.ts', 'util.ts', 'a.txt', 'b.txt', 'notes.md', 'data.bin', 'main.c'];
  // Lines short and long (git cuts a chunk at 64 bytes), some ending in CRLF.
  const vocabulary = Array.from(
    { length: 60 },
    (_, i) => `token${i} ${'x'.repeat((i * 13) % 150)}${i % 11 === 0 ? '\r' : ''}`,
  );
  const text = (n: number): string =>
    Array.from({ length: n }, () => `${vocabulary[rnd(vocabulary.length)]} ${rnd(1000)}\n`).join('');
  const mutate = (t: string): string => {
    const ls = t.split('\n');
    const share = uniform();
    return (
      ls.map((l) => (l && uniform() < share ? `${l} ~${rnd(100)}` : l)).join('\n') +
      (uniform() < 0.3 ? text(rnd(10)) : '')
    );
  };
  const trees: Array<Record<string, string | Buffer>> = [];
  for (let round = 0; round < 400; round++) {
    const before: Record<string, string | Buffer> = {};
    for (let i = 0; i < 4 + rnd(8); i++) {
      const path = `${dirs[rnd(dirs.length)]}${rnd(3) === 0 ? `f${i}-` : ''}${names[rnd(names.length)]}`;
      before[path] = rnd(8) === 0 ? Buffer.from(`\0${text(3 + rnd(20))}`) : text(rnd(4) === 0 ? rnd(3) : 3 + rnd(30));
    }
    const after: Record<string, string | Buffer> = {};
    for (const [path, content] of Object.entries(before)) {
      const fate = rnd(6);
      const body = typeof content === 'string' ? content : content.toString('latin1');
      const next = (): string => (rnd(4) === 0 ? body : rnd(10) === 0 ? body.replace(/\r?\n/g, '\r\n') : mutate(body));
      if (fate === 0) after[path] = content;
      else if (fate === 1) after[path] = next();
      else if (fate >= 3) {
        const to = `${dirs[rnd(dirs.length)]}${rnd(2) === 0 ? path.slice(path.lastIndexOf('/') + 1) : `n${round}-${names[rnd(names.length)]}`}`;
        if (!(to in before)) after[to] = next();
        const copy = `copy-${to.replace(/\//g, '_')}`;
        if (fate === 5 && !(copy in before)) after[copy] = next();
      }
    }
    for (let i = rnd(3); i > 0; i--) after[`new${round}-${i}.txt`] = text(2 + rnd(20));
    trees.push(before, after);
  }
  const commits = importTrees(repo, trees);
  const pairs = Array.from({ length: trees.length / 2 }, (_, i): [string, string] => [
    commits[2 * i]!,
    commits[2 * i + 1]!,
  ]);
  const mismatches: string[] = [];
  let renamesSeen = 0;
  let inexact = 0;
  await withShadow(repo, async (sh) => {
    await sh.draftNew('default');
    for (const [m, renames] of THRESHOLDS) {
      const git = gitNameStatuses(repo, pairs, m);
      for (const [a, b] of pairs) {
        const ours = nameStatusText((await sh.diff({ range: `${a}..${b}`, renames })).files);
        const theirs = git.get(b) ?? '';
        renamesSeen += (theirs.match(/^R/gm) ?? []).length;
        inexact += (theirs.match(/^R0\d\d/gm) ?? []).length;
        if (ours !== theirs) mismatches.push(`${a}..${b} -M${m}:\n--- git\n${theirs}\n--- shadow\n${ours}`);
      }
    }
  });
  assert.is(mismatches.length, 0, mismatches.slice(0, 3).join('\n\n'));
  assert.ok(
    renamesSeen > 600 && inexact > 200,
    `the corpora hold renames, exact and not: ${renamesSeen}, ${inexact} inexact`,
  );
});

Renames(
  'a draft against its captured bases (no tree holds them): the pairs, scores and patch headers of git diff -M between HEAD and the draft',
  async ({ repo }) => {
    commitTree(
      repo,
      { 'src/api.ts': lines(30, 'api'), 'src/util.ts': lines(20, 'util'), 'old/name.txt': lines(10, 'name') },
      'before',
    );
    await withShadow(repo, async (sh) => {
      const r = await sh.batch({
        operations: [
          { operation: 'rename', path: 'src/api.ts', to: 'lib/api.ts' },
          {
            operation: 'edit',
            path: 'lib/api.ts',
            old_content: '0004 api line 4\n',
            content: '0004 api line 4, changed\n',
          },
          { operation: 'rename', path: 'src/util.ts', to: 'src/helpers.ts' },
          { operation: 'delete', path: 'old/name.txt' },
          {
            operation: 'write',
            path: 'new/name.txt',
            content: edit(lines(10, 'name'), 2, 'rewritten in half of its lines, so no longer the same file'),
          },
        ],
      });
      assert.ok(r.success, JSON.stringify(r.error));
      const draft = 'refs/shadow/drafts/default';
      for (const [m, renames] of THRESHOLDS) {
        assert.is(nameStatusText((await sh.diff({ renames })).files), gitNameStatus(repo, 'HEAD', draft, m), `-M${m}`);
      }
      const d = await sh.diff({ renames: true, content: 'patch' });
      const patch = d.files.map((f) => f.patch).join('');
      assert.is(patch, repo.git('diff', '--no-color', '-M', 'HEAD', draft));
      assert.match(
        patch,
        /^diff --git a\/src\/api\.ts b\/lib\/api\.ts\nsimilarity index 9\d%\nrename from src\/api\.ts\nrename to lib\/api\.ts\nindex [0-9a-f]{7}\.\.[0-9a-f]{7} 100644\n--- a\/src\/api\.ts\n\+\+\+ b\/lib\/api\.ts\n/m,
      );
      assert.match(
        patch,
        /^diff --git a\/src\/util\.ts b\/src\/helpers\.ts\nsimilarity index 100%\nrename from src\/util\.ts\nrename to src\/helpers\.ts\n(?!index)/m,
      );
      const api = d.files.find((f) => f.path === 'lib/api.ts')!;
      assert.equal([api.status, api.from, api.insertions, api.deletions], ['R', 'src/api.ts', 1, 1]);
      // Without renames, what it always was: a deletion and an addition.
      const plain = await sh.diff();
      assert.is(
        nameStatusText(plain.files),
        'A\tlib/api.ts\nA\tnew/name.txt\nD\told/name.txt\nD\tsrc/api.ts\nA\tsrc/helpers.ts\nD\tsrc/util.ts',
      );
      assert.not.ok(
        plain.files.some((f) => 'from' in f || 'similarity' in f),
        'no new fields without renames',
      );
    });
  },
);

Renames(
  'more candidates than diff.renameLimit allows: only exact renames, as git, and the result says so',
  async ({ repo }) => {
    const a = commitTree(
      repo,
      { 'p.txt': lines(10, 'p'), 'q.txt': lines(10, 'q'), 'same.txt': lines(5, 's') },
      'before',
    );
    const b = commitTree(
      repo,
      { 'p2.txt': edit(lines(10, 'p'), 5, '!'), 'q2.txt': edit(lines(10, 'q'), 5, '!'), 'same2.txt': lines(5, 's') },
      'after',
    );
    repo.git('config', 'diff.renameLimit', '1');
    await withShadow(repo, async (sh) => {
      await sh.draftNew('default');
      const r = await sh.diff({ range: `${a}..${b}`, renames: true });
      assert.is(nameStatusText(r.files), gitNameStatus(repo, a, b, ''));
      assert.is(r.renames_limited, true);
      assert.match(nameStatusText(r.files), /^R100\tsame\.txt\tsame2\.txt$/m);
      assert.match(nameStatusText(r.files), /^D\tp\.txt$/m);
    });
    repo.git('config', 'diff.renameLimit', '0');
    await withShadow(repo, async (sh) => {
      const unlimited = await sh.diff({ range: `${a}..${b}`, renames: true });
      assert.is(nameStatusText(unlimited.files), gitNameStatus(repo, a, b, ''));
      assert.match(nameStatusText(unlimited.files), /^R\d\d\d\tp\.txt\tp2\.txt$/m);
      assert.is(unlimited.renames_limited, undefined);
    });
  },
);

Renames.run();
