/**
 * `shadow diff` writes what `git diff` writes for the same two trees, byte
 * for byte, where paths and widths make git's output differ from the plain
 * case: unusual paths quoted (`core.quotePath` on and off), a tab after a
 * name with a space, `--stat` at 80 columns, at `COLUMNS`, with
 * `diff.statGraphWidth`, its graph scaled, long names shortened, binary
 * files as `Bin <old> -> <new> bytes`, the summary without a zero count,
 * and nothing for no change. A patch with quoted names is read back by
 * `sh.apply({ patch })`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Readable } from 'node:stream';
import { run as runCli } from '../cli/run.js';
import { parseDiff } from '../cli/hunk-prompt/parse-diff.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { both, DRAFT, sameAsGit, withRange } from './helpers/diff-as-git.js';

const lines = (from: number, to: number, step = 1): string => {
  let s = '';
  for (let i = from; i <= to; i += step) s += `${i}\n`;
  return s;
};
const DEEP = 'very/long/directory/name/that/goes/on/and/on/for/quite/a/while/file.txt';
const BINARY = Buffer.from([0, 1, 2, 3, 0, 255, 10]);

type Ctx = { repo: DiskRepo };

async function fresh(ctx: Ctx): Promise<void> {
  ctx.repo = new DiskRepo({
    'big.txt': lines(1, 200),
    'mid.txt': lines(1, 30),
    [DEEP]: lines(1, 5),
    'café.txt': 'a\n',
    'q"uote.txt': 'q\n',
    'my file.txt': 'one\n',
    'gone file.txt': 'bye\n',
    'old name.txt': 'the same text, long enough to pair\n'.repeat(4),
    '日本語/ファイル.txt': 'x\n',
    'run.sh': 'echo hi\n',
    'empty.txt': '',
  });
  ctx.repo.write('bin.dat', BINARY);
  ctx.repo.write('same.bin', Buffer.concat([BINARY, BINARY]));
  ctx.repo.git('add', '-A');
  ctx.repo.git('commit', '-q', '-m', 'binaries');
  await withShadow(ctx.repo, async (sh) => {
    const r = await sh.batch({
      operations: [
        { operation: 'write', path: 'big.txt', content: lines(1, 200, 2) },
        { operation: 'write', path: 'mid.txt', content: lines(1, 60).replace(/^1/gm, 'x') },
        { operation: 'write', path: DEEP, content: `${lines(1, 5)}q\n` },
        { operation: 'write', path: 'café.txt', content: 'a\nb\n' },
        { operation: 'write', path: 'q"uote.txt', content: 'q\nr\n' },
        { operation: 'write', path: 'my file.txt', content: 'one\ntwo\n' },
        { operation: 'delete', path: 'gone file.txt' },
        { operation: 'write', path: 'new file.txt', content: 'new\n' },
        { operation: 'rename', path: 'old name.txt', to: 'café b.txt' },
        { operation: 'write', path: '日本語/ファイル.txt', content: 'y\n' },
        { operation: 'chmod', path: 'run.sh', mode: '100755' },
        {
          operation: 'write',
          path: 'bin.dat',
          content: Buffer.concat([BINARY, BINARY, BINARY]).toString('base64'),
          encoding: 'base64',
        },
        { operation: 'write', path: 'new.bin', content: BINARY.toString('base64'), encoding: 'base64' },
        { operation: 'rename', path: 'same.bin', to: 'moved.bin' },
        { operation: 'write', path: 'empty new.txt', content: '' },
        { operation: 'delete', path: 'empty.txt' },
      ],
    });
    assert.ok(r.success, JSON.stringify(r.error));
  });
}

const AsGit = suite<Ctx>('shadow diff writes what git diff writes');
AsGit.before.each(fresh);
AsGit.after.each((ctx) => ctx.repo.cleanup());

AsGit('the patch: quoted names, a tab after a name with a space, renames quoted, binary files', ({ repo }) => {
  sameAsGit(repo, [[], ['-M'], ['--color=always'], ['-M', '--color=always']]);
  const { ours } = both(repo, ['-M']);
  assert.match(ours, 'diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"\n');
  assert.match(
    ours,
    'diff --git a/old name.txt "b/caf\\303\\251 b.txt"\nsimilarity index 100%\nrename from old name.txt\n',
  );
  assert.match(ours, '--- a/my file.txt\t\n+++ b/my file.txt\t\n');
  assert.match(ours, '--- a/gone file.txt\t\n+++ /dev/null\n');
  assert.match(ours, 'diff --git "a/q\\"uote.txt" "b/q\\"uote.txt"\n');
  // An empty file added has no ---/+++ lines: git writes them with the first hunk.
  assert.match(
    both(repo, []).ours,
    'diff --git a/empty new.txt b/empty new.txt\nnew file mode 100644\nindex 0000000..e69de29\ndiff',
  );
});

AsGit('--name-status: quoted as git quotes, with core.quotePath on and off', ({ repo }) => {
  for (const args of [['--name-status'], ['-M', '--name-status']]) {
    const { ours, git } = both(repo, args);
    assert.is(ours, git, args.join(' '));
    assert.match(
      ours,
      'M\t"\\346\\227\\245\\346\\234\\254\\350\\252\\236/\\343\\203\\225\\343\\202\\241\\343\\202\\244\\343\\203\\253.txt"',
    );
  }
  repo.git('config', 'core.quotePath', 'false');
  const { ours, git } = both(repo, ['-M', '--name-status']);
  assert.is(ours, git);
  assert.match(ours, 'M\t日本語/ファイル.txt\n');
  assert.match(ours, 'R100\told name.txt\tcafé b.txt\n');
  assert.match(ours, 'M\t"q\\"uote.txt"\n');
});

AsGit(
  '--stat at 80 columns: the graph scaled, a long name shortened from the left, Bin sizes, the summary',
  ({ repo }) => {
    sameAsGit(repo, [['--stat'], ['-M', '--stat']]);
    const { ours } = both(repo, ['-M', '--stat']);
    assert.match(ours, /^ big\.txt +\| 100 -+$/m);
    assert.match(ours, /^ \.\.\.\/[^|]*while\/file\.txt \| +1 \+$/m);
    assert.match(ours, /^ bin\.dat +\| Bin 7 -> 21 bytes$/m);
    assert.match(ours, /^ same\.bin => moved\.bin +\| Bin$/m);
    assert.match(ours, /^ \d+ files changed, \d+ insertions\(\+\), \d+ deletions\(-\)$/m);
  },
);

AsGit('--stat at COLUMNS=200, 60 and 10, with diff.statGraphWidth, on and off core.quotePath, coloured', ({ repo }) => {
  for (const columns of ['200', '60', '10', 'x']) {
    const { ours, git } = both(repo, ['-M', '--stat'], { COLUMNS: columns });
    assert.is(ours, git, `COLUMNS=${columns}`);
  }
  repo.git('config', 'diff.statGraphWidth', '12');
  assert.is(both(repo, ['--stat']).ours, both(repo, ['--stat']).git, 'diff.statGraphWidth=12');
  repo.git('config', 'core.quotePath', 'false');
  // Not narrower: git before its fix f85b49f3 (2026) shortens a name by its bytes rather than its columns, and
  // shadow shortens as git does now; a quoted name is ASCII, where the two agree.
  for (const columns of ['80', '200']) {
    const { ours, git } = both(repo, ['-M', '--stat'], { COLUMNS: columns });
    assert.is(ours, git, `core.quotePath=false, COLUMNS=${columns}`);
  }
  const { ours, git } = both(repo, ['-M', '--stat', '--color=always']);
  assert.is(ours, git, '--color=always');
});

AsGit('--stat: only insertions, only deletions, one file; nothing at all for no change', ({ repo }) => {
  const cases = [
    ['--', 'café.txt'],
    ['--', 'big.txt'],
    ['--', 'café.txt', 'big.txt'],
    ['--', 'run.sh'],
    ['--', 'no-such-path'],
  ];
  for (const spec of cases) {
    const ours = repo.shadow(['diff', '--stat', ...spec]);
    assert.is(ours.status, 0, ours.stderr);
    const git = repo.git('diff', '--no-renames', '--stat', 'HEAD', DRAFT, ...spec);
    assert.is(ours.stdout, git, spec.join(' '));
  }
  assert.is(repo.shadow(['diff', '--stat', '--', 'no-such-path']).stdout, '');
  assert.match(repo.shadow(['diff', '--stat', '--', 'café.txt']).stdout, / 1 file changed, 1 insertion\(\+\)\n$/);
});

AsGit(
  "--numstat, --shortstat, --name-only, --stat=<width>[,<name-width>[,<count>]] and --stat-*: git's bytes; --name-* drop the counts",
  ({ repo }) => {
    sameAsGit(
      repo,
      [
        ['--numstat'],
        ['-M', '--numstat'],
        ['--shortstat'],
        ['--name-only'],
        ['-M', '--name-only'],
        ['--stat=60'],
        ['--stat=100,20'],
        ['-M', '--stat=80,30,5'],
        ['--stat=0'],
        ['--stat-width=50'],
        ['--stat-name-width=15'],
        ['--stat-graph-width=10'],
        ['--stat-count=3'],
        ['--numstat', '--stat', '--shortstat'],
        ['--name-status', '--stat'],
        ['--name-only', '--numstat'],
        ['--shortstat', '--', 'no-such-path'],
      ],
      { COLUMNS: '120' },
    );
    assert.match(both(repo, ['--numstat']).ours, /^-\t-\tbin\.dat$/m);
    assert.match(both(repo, ['--stat-count=3']).ours, /^ \.\.\.$/m);
  },
);

AsGit('--diff-filter: upper case keeps, lower case leaves out, * keeps all or none, as git', ({ repo }) => {
  sameAsGit(repo, [
    ['--diff-filter=A', '--name-status'],
    ['--diff-filter=d', '--name-status'],
    ['--diff-filter=MD', '--stat'],
    ['--diff-filter=ad'],
    ['-M', '--diff-filter=R', '--name-status'],
    ['-M', '--diff-filter=r', '--numstat'],
    ['--diff-filter=*', '--name-only'],
    ['--diff-filter=M*', '--name-only'],
    ['--diff-filter=X*', '--name-only'],
    ['--diff-filter=U', '--shortstat'],
  ]);
  assert.match(both(repo, ['--diff-filter=A', '--name-status']).ours, /^A\tnew file\.txt$/m);
  const bad = repo.shadow(['diff', '--diff-filter=Q']);
  assert.is(bad.status, 2);
  assert.match(bad.stderr, "unknown change class 'Q'");
});

AsGit(
  '-z: --name-only, --name-status and --numstat with paths as they are, each field ended by a NUL, as git',
  ({ repo }) => {
    sameAsGit(repo, [
      ['-z', '--name-only'],
      ['-z', '--name-status'],
      ['-M', '-z', '--name-status'],
      ['-z', '--numstat'],
      ['-M', '-z', '--numstat'],
      ['-z', '--numstat', '--stat'],
      ['-z', '--shortstat'],
    ]);
    assert.match(both(repo, ['-z', '--name-only']).ours, 'café.txt\0');
    assert.match(both(repo, ['-M', '-z', '--numstat']).ours, '0\t0\t\0old name.txt\0café b.txt\0');
  },
);

AsGit(
  '--no-prefix, --src-prefix, --dst-prefix and diff.noPrefix as git; the library keeps a/ and b/, and the hunks their ids',
  async ({ repo }) => {
    sameAsGit(repo, [
      ['--no-prefix'],
      ['--src-prefix=x/', '--dst-prefix=y/'],
      ['--src-prefix='],
      ['-M', '--no-prefix'],
    ]);
    assert.match(both(repo, ['--no-prefix']).ours, 'diff --git big.txt big.txt\n');
    const hunks = (args: string[]): unknown =>
      (repo.shadow(['diff', '--json', ...args]).json() as { files: Array<{ hunks: unknown }> }).files.map(
        (f) => f.hunks,
      );
    const plain = hunks([]);
    repo.git('config', 'diff.noPrefix', 'true');
    assert.is(both(repo, []).ours, both(repo, []).git, 'diff.noPrefix');
    assert.match(both(repo, []).ours, '--- big.txt\n+++ big.txt\n');
    // git 2.41's --default-prefix brings a/ and b/ back over the config.
    assert.match(repo.shadow(['diff', '--default-prefix']).stdout, '--- a/big.txt\n+++ b/big.txt\n');
    assert.equal(hunks([]), plain, 'the hunks and their ids do not follow the prefixes');
    await withShadow(repo, async (sh) => {
      const [first] = (await sh.diff({ content: 'patch' })).files;
      assert.ok(first!.patch!.startsWith('diff --git a/'), 'the library reads no diff.noPrefix');
    });
  },
);

AsGit(
  '-R: the sides swapped, prefixes too, renames looked for on the swapped pairs, as git; no hunks to apply',
  ({ repo }) => {
    sameAsGit(repo, [
      ['-R'],
      ['-R', '-M'],
      ['-R', '--stat'],
      ['-R', '-M', '--numstat'],
      ['-R', '--name-status'],
      ['-R', '--src-prefix=x/'],
      ['-R', '-U1', '--color=always'],
    ]);
    assert.match(both(repo, ['-R']).ours, 'diff --git b/gone file.txt a/gone file.txt\nnew file mode 100644\n');
    const files = repo.shadow(['diff', '-R', '--json']).json() as { files: Array<{ status: string; hunks?: unknown }> };
    assert.ok(files.files.some((f) => f.status === 'A'));
    assert.ok(files.files.every((f) => f.hunks === undefined));
  },
);

AsGit(
  '--exit-code and --quiet: exit 1 when anything differs, 0 when nothing does, as git; --quiet prints nothing',
  ({ repo }) => {
    for (const args of [
      ['--exit-code'],
      ['--quiet'],
      ['--exit-code', '--stat'],
      ['--quiet', '--', 'no-such-path'],
      ['--exit-code', '--', 'no-such-path'],
      ['--quiet', '--diff-filter=X'],
      ['--quiet', '--stat', '--name-only'],
    ]) {
      const ours = repo.shadow(['diff', ...args]);
      const theirs = spawnSync('git', ['diff', '--no-renames', ...withRange(args)], {
        cwd: repo.dir,
        env: repo.env,
        encoding: 'utf8',
      });
      assert.is(ours.status, theirs.status, args.join(' '));
      assert.is(ours.stdout, theirs.stdout, args.join(' '));
      assert.is(ours.stderr, '', args.join(' '));
    }
  },
);

AsGit('a bad --stat value is USAGE (exit 2), naming it', ({ repo }) => {
  for (const bad of ['--stat=x', '--stat=1,2,3,4', '--stat-width=-1', '--stat-count=']) {
    const r = repo.shadow(['diff', bad]);
    assert.is(r.status, 2, bad);
    assert.match(r.stderr, 'stat', bad);
    assert.is(r.stdout, '', bad);
  }
  const both2 = repo.shadow(['diff', '--name-only', '--name-status']);
  assert.is(both2.status, 2);
  assert.match(both2.stderr, 'cannot be used together');
});

AsGit('on a terminal, --stat takes the terminal width unless COLUMNS says otherwise', async ({ repo }) => {
  const onTerminal = async (columns: number, env: Record<string, string> = {}): Promise<string> => {
    let stdout = '';
    const status = await runCli(['diff', '--stat', '--no-pager', '--color=never'], {
      cwd: repo.dir,
      env: { ...repo.env, TERM: 'xterm', ...env },
      stdout: (s) => (stdout += typeof s === 'string' ? s : Buffer.from(s).toString()),
      stderr: () => undefined,
      stdin: Readable.from([]),
      isTTY: true,
      columns: () => columns,
    });
    assert.is(status, 0);
    return stdout;
  };
  assert.is(await onTerminal(200), both(repo, ['--stat'], { COLUMNS: '200' }).git);
  assert.is(await onTerminal(40), both(repo, ['--stat'], { COLUMNS: '40' }).git);
  assert.is(await onTerminal(40, { COLUMNS: '120' }), both(repo, ['--stat'], { COLUMNS: '120' }).git);
});

AsGit('a patch with quoted names and a tab after a spaced name is read back by apply({ patch })', async ({ repo }) => {
  const paths = ['café.txt', 'my file.txt', 'q"uote.txt', 'gone file.txt'];
  const ours = repo.shadow(['diff', '--', ...paths]).stdout;
  assert.is(ours, repo.git('diff', 'HEAD', DRAFT, '--', ...paths), "the same bytes as git's");
  assert.match(ours, '"a/caf\\303\\251.txt"');
  await withShadow(repo, async (sh) => {
    const r = await sh.apply({ patch: ours });
    assert.ok(r.applied, JSON.stringify(r));
    assert.equal(r.paths.map((p) => p.path).sort(), [...paths].sort());
  });
  assert.is(repo.read('café.txt'), 'a\nb\n');
  assert.is(repo.read('my file.txt'), 'one\ntwo\n');
  assert.is(repo.read('q"uote.txt'), 'q\nr\n');
  assert.not.ok(repo.exists('gone file.txt'));
  assert.is(repo.read('big.txt'), lines(1, 200), 'a file the patch does not name is left');
});

AsGit("apply -p's reading of the diff names each file as git apply does: unquoted, without the tab", ({ repo }) => {
  const text = repo.shadow(['diff', '--', 'café.txt', 'my file.txt', 'new file.txt', 'gone file.txt']).stdout;
  assert.equal(
    parseDiff(text).map((f) => f.path),
    ['café.txt', 'gone file.txt', 'my file.txt', 'new file.txt'],
  );
});

// ---------------------------------------------------------------- function lines

const LONG = `int a_function_whose_signature_is_longer_than_eighty_bytes(int first_argument, int second) {`;
const SOURCE = [
  'top line one',
  ...Array.from({ length: 6 }, (_, i) => `  top ${i}`),
  'int main(void) {',
  ...Array.from({ length: 30 }, (_, i) => `    x = ${i};`),
  '}',
  '_private_helper() {',
  ...Array.from({ length: 12 }, (_, i) => `    p = ${i};`),
  '$dollar:\r',
  ...Array.from({ length: 12 }, (_, i) => `    d = ${i};`),
  LONG,
  ...Array.from({ length: 12 }, (_, i) => `    l = ${i};`),
  'élan() {',
  ...Array.from({ length: 12 }, (_, i) => `    e = ${i};`),
].join('\n');

/** The draft's src/a.c made `text` (and a final newline), in one batch. */
async function writeSource(repo: DiskRepo, text: string): Promise<void> {
  await withShadow(repo, async (sh) => {
    const r = await sh.batch({ operations: [{ operation: 'write', path: 'src/a.c', content: `${text}\n` }] });
    assert.ok(r.success, JSON.stringify(r.error));
  });
}

const Functions = suite<Ctx>("shadow diff's hunk headers name the function line as git's do");
Functions.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'src/a.c': `${SOURCE}\n` });
});
Functions.after.each((ctx) => ctx.repo.cleanup());

Functions(
  'the nearest line above that starts a name, cut to 80 bytes; two hunks in one function both name it; none at the top',
  async ({ repo }) => {
    const changed = SOURCE.replace('  top 1', '  top one')
      .replace('    x = 5;', '    x = 500;')
      .replace('    x = 25;', '    x = 2500;')
      .replace('    p = 8;', '    p = 800;')
      .replace('    d = 8;', '    d = 800;')
      .replace('    l = 8;', '    l = 800;')
      .replace('    e = 8;', '    e = 800;');
    await writeSource(repo, changed);
    const { ours, git } = both(repo, []);
    assert.is(ours, git);
    const headers = ours.split('\n').filter((l) => l.startsWith('@@'));
    const cut = LONG.slice(0, 80).trimEnd();
    // élan does not start with an ASCII letter: its hunk keeps the line of the hunk before.
    assert.equal(
      headers.map((h) => h.replace(/^@@ [^@]* @@ ?/, '')),
      ['', 'int main(void) {', 'int main(void) {', '_private_helper() {', '$dollar:', cut, cut],
    );
    assert.is(both(repo, ['--color=always']).ours, both(repo, ['--color=always']).git, 'coloured');
  },
);

Functions(
  '-U<n> and --unified=<n>: the context git shows, function lines included; the hunks listed for an apply keep 3',
  async ({ repo }) => {
    const changed = SOURCE.replace('    x = 5;\n', '    x = 5;\n    inserted();\n')
      .replace('    x = 7;', '    x = 700;')
      .replace('    p = 8;', '    p = 800;')
      // Just above a function's line: the hunk's line is the function before (xdiff looks from the line above).
      .replace('}\n_private_helper() {', '}\n// added\n_private_helper() {');
    await writeSource(repo, changed);
    sameAsGit(repo, [['-U0'], ['-U1'], ['-U8'], ['--unified=5'], ['-U0', '--color=always']]);
    assert.match(both(repo, ['-U0']).ours, /^@@ -14,0 \+15 @@ int main\(void\) \{$/m);
    const hunks = (args: string[]): unknown =>
      (repo.shadow(['diff', '--json', ...args]).json() as { files: Array<{ hunks: unknown }> }).files.map(
        (f) => f.hunks,
      );
    assert.equal(hunks(['-U0']), hunks([]));
    const bad = repo.shadow(['diff', '-Ux']);
    assert.is(bad.status, 2);
    assert.match(bad.stderr, '-U expects a number');
  },
);

Functions(
  'the review fingerprint hashes the patch in its own form: paths unquoted, no tab after a spaced name, no function line',
  async ({ repo }) => {
    const named = 'docs/my café.md';
    repo.write(named, 'Intro\n  a\n  b\n  c\n  d\n  e\n');
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'doc');
    const changed = SOURCE.replace('    x = 25;', '    x = 2500;');
    await withShadow(repo, async (sh) => {
      const r = await sh.batch({
        operations: [
          { operation: 'write', path: 'src/a.c', content: `${changed}\n` },
          { operation: 'write', path: named, content: 'Intro\n  a\n  b\n  c\n  d\n  E\n' },
        ],
      });
      assert.ok(r.success, JSON.stringify(r.error));
    });
    const shown = repo.shadow(['diff']).stdout;
    assert.match(shown, '"a/docs/my caf\\303\\251.md"');
    assert.match(shown, /^@@ -\d+,\d+ \+\d+,\d+ @@ int main\(void\) \{$/m);
    assert.match(shown, /^@@ -\d+,\d+ \+\d+,\d+ @@ Intro$/m);
    const hashed = shown
      .replaceAll('"a/docs/my caf\\303\\251.md"', `a/${named}`)
      .replaceAll('"b/docs/my caf\\303\\251.md"', `b/${named}`)
      .replace(/^((?:---|\+\+\+) .*)\t$/gm, '$1')
      .replace(/^(@@ [^@]* @@).*$/gm, '$1');
    assert.is.not(hashed, shown);
    await withShadow(repo, async (sh) => {
      const r = await sh.apply({ dryRun: true });
      assert.is(r.fingerprint, `patchset:${createHash('sha256').update(hashed, 'utf8').digest('hex')}`);
    });
  },
);

const Attributes = suite<Ctx>('shadow diff reads the diff attribute as git diff does');
Attributes.before.each((ctx) => {
  ctx.repo = new DiskRepo({
    '.gitattributes': '*.dat -diff\n*.bin binary\n*.txt diff\n*.drv diff=opaque\n',
    'notes.dat': 'hello\n',
    'image.bin': 'x\n',
    'nul.txt': 'a\u0000b\nline\n',
    'data.drv': 'one\n',
    'plain.md': 'text\n',
  });
  ctx.repo.git('config', 'diff.opaque.binary', 'true');
});
Attributes.after.each((ctx) => ctx.repo.cleanup());

Attributes(
  '-diff, binary and diff.<driver>.binary make a file binary; diff set makes one with a NUL text',
  async ({ repo }) => {
    await withShadow(repo, async (sh) => {
      const r = await sh.batch({
        operations: [
          { operation: 'write', path: 'notes.dat', content: 'hello\nworld\n' },
          { operation: 'write', path: 'image.bin', content: 'x\ny\n' },
          { operation: 'write', path: 'nul.txt', content: 'a\u0000b\nline two\n' },
          { operation: 'write', path: 'data.drv', content: 'one\ntwo\n' },
          { operation: 'write', path: 'plain.md', content: 'text\nmore\n' },
        ],
      });
      assert.ok(r.success, JSON.stringify(r.error));
    });
    sameAsGit(repo, [[], ['--stat'], ['--stat', '--color=always']]);
    const patch = both(repo, []).ours;
    for (const p of ['notes.dat', 'image.bin', 'data.drv'])
      assert.match(patch, `Binary files a/${p} and b/${p} differ`);
    assert.match(patch, '+line two\n');
    assert.match(both(repo, ['--stat']).ours, /^ notes\.dat +\| Bin 6 -> 12 bytes$/m);
  },
);

AsGit.run();
Functions.run();
Attributes.run();
