import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { FileSystem } from '../src/context.js';
import { baseIgnoreFiles, IgnoreRules } from '../src/git/gitignore.js';
import { DiskRepo } from './helpers/disk-repo.js';

/**
 * IgnoreRules against native `git check-ignore --no-index`, on a real tree
 * with nested .gitignore files, info/exclude and a global excludes file.
 */

const IGNORE_FILES: Record<string, string> = {
  '.gitignore': [
    '# a comment line',
    '*.log',
    '!important.log',
    'build/',
    '!build/keep.txt',
    '/root-only.txt',
    'doc/*.txt',
    '**/tmp',
    'cache/',
    'secret*',
    '!secret-ok.md',
    '\\#hash',
    'trail.txt   ',
    'a/**/z',
    '*.cfg',
    '.env',
    'logs/*',
    '!logs/.gitkeep',
    'file[0-9].txt',
    'q?.md',
    'docs/**/*.pdf',
    '*.BAK',
    'esc\\ ',
    '',
  ].join('\n'),
  'only/.gitignore': ['*', '!*/', '!*.keep', ''].join('\n'),
  'sub/.gitignore': [
    '*.tmp',
    '!keep.tmp',
    '/anchored.txt',
    'nested/deep.txt',
    'out/',
    '!*.log',
    'spaced.txt  ',
    '\\!bang',
    '/*.md',
    'sp\\ ',
    '',
  ].join('\n'),
  'sub/inner/.gitignore': ['*.dat', '!local.cfg', ''].join('\r\n'),
};

const FILES = [
  'README.md',
  'app.log',
  'important.log',
  'build/out.js',
  'build/keep.txt',
  'src/build/x.js',
  'lib/build',
  'root-only.txt',
  'sub/root-only.txt',
  'doc/a.txt',
  'doc/a.md',
  'doc/x/a.txt',
  'tmp',
  'x/tmp/file',
  'cache/data',
  'lib/cache',
  'secret.env',
  'secret-ok.md',
  'sub/secret.key',
  '#hash',
  'trail.txt',
  'a/z',
  'a/b/z',
  'a/b/c/z',
  'b/a/z',
  'excluded-by-info',
  'foo.swp',
  'global-only',
  'from-xdg',
  '.env',
  'sub/.env',
  'x.tmp',
  'sub/x.tmp',
  'sub/keep.tmp',
  'sub/deeper/y.tmp',
  'sub/app.log',
  'sub/inner/x.log',
  'sub/anchored.txt',
  'sub/deeper/anchored.txt',
  'sub/nested/deep.txt',
  'sub/q/nested/deep.txt',
  'sub/out/a',
  'sub/q/out/b',
  'sub/spaced.txt',
  'sub/!bang',
  'sub/data.dat',
  'sub/inner/data.dat',
  'app.cfg',
  'sub/local.cfg',
  'sub/inner/local.cfg',
  'sub/inner/other.cfg',
  'logs/x.txt',
  'logs/.gitkeep',
  'file1.txt',
  'file10.txt',
  'q1.md',
  'q12.md',
  'docs/a.pdf',
  'docs/x/y/b.pdf',
  'notes.bak',
  'notes.BAK',
  'esc ',
  'only/a.txt',
  'only/x/b.keep',
  'only/x/c.txt',
  'sub/top.md',
  'sub/deeper/low.md',
  'sub/sp ',
];

interface Scenario {
  name: string;
  /** `core.excludesFile`, as written in the repository's config. */
  excludesFile: string | undefined;
  /** Paths git must report as ignored in this scenario (the fixture's own sanity check). */
  ignored: string[];
}

const ALWAYS_IGNORED = [
  'app.log',
  'build/out.js',
  'build/keep.txt',
  'src/build/x.js',
  'root-only.txt',
  'doc/a.txt',
  'tmp',
  'x/tmp/file',
  'cache/data',
  'secret.env',
  'sub/secret.key',
  '#hash',
  'trail.txt',
  'a/z',
  'a/b/z',
  'a/b/c/z',
  'excluded-by-info',
  '.env',
  'sub/.env',
  'sub/x.tmp',
  'sub/deeper/y.tmp',
  'sub/anchored.txt',
  'sub/nested/deep.txt',
  'sub/out/a',
  'sub/q/out/b',
  'sub/spaced.txt',
  'sub/!bang',
  'sub/inner/data.dat',
  'app.cfg',
  'sub/local.cfg',
  'sub/inner/other.cfg',
  'logs/x.txt',
  'file1.txt',
  'q1.md',
  'docs/a.pdf',
  'docs/x/y/b.pdf',
  'notes.BAK',
  'esc ',
  'only/a.txt',
  'only/x/c.txt',
  'sub/top.md',
  'sub/sp ',
];

const SCENARIOS: Scenario[] = [
  {
    name: 'core.excludesFile = ~/global-ignore',
    excludesFile: '~/global-ignore',
    ignored: [...ALWAYS_IGNORED, 'foo.swp', 'global-only'],
  },
  {
    name: 'no core.excludesFile: $XDG_CONFIG_HOME/git/ignore',
    excludesFile: undefined,
    ignored: [...ALWAYS_IGNORED, 'from-xdg'],
  },
];

function makeRepo(s: Scenario): DiskRepo {
  const repo = new DiskRepo(null);
  for (const [path, text] of Object.entries(IGNORE_FILES)) repo.write(path, text);
  for (const path of FILES) repo.write(path, `${path}\n`);
  repo.write('.git/info/exclude', '# git ls-files --others --exclude-from=.git/info/exclude\nexcluded-by-info\n');
  fs.writeFileSync(join(repo.home, 'global-ignore'), '*.swp\nglobal-only\n');
  fs.mkdirSync(join(repo.home, '.config', 'git'), { recursive: true });
  fs.writeFileSync(join(repo.home, '.config', 'git', 'ignore'), 'from-xdg\n');
  if (s.excludesFile !== undefined) repo.git('config', 'core.excludesFile', s.excludesFile);
  return repo;
}

function gitIgnores(repo: DiskRepo, path: string): boolean {
  const r = repo.gitResult('check-ignore', '-q', '--no-index', path);
  if (r.status !== 0 && r.status !== 1) throw new Error(`git check-ignore ${path}: ${r.stderr}`);
  return r.status === 0;
}

function rules(repo: DiskRepo, s: Scenario): IgnoreRules {
  const gitdir = join(repo.dir, '.git');
  return new IgnoreRules(fs as FileSystem, repo.dir, baseIgnoreFiles(repo.env, gitdir, s.excludesFile));
}

/** node's fs, recording the files read (relative to the repository's temporary root). */
function readSpy(repo: DiskRepo): { read: string[]; spy: FileSystem } {
  const read: string[] = [];
  const spy = {
    ...fs,
    readFileSync: (path: fs.PathOrFileDescriptor, options?: unknown) => {
      read.push(String(path).slice(repo.root.length + 1));
      return (fs.readFileSync as (p: unknown, o?: unknown) => unknown)(path, options);
    },
  } as unknown as FileSystem;
  return { read, spy };
}

const Ignore = suite<{ repo: DiskRepo }>('IgnoreRules');
Ignore.after.each((ctx) => ctx.repo?.cleanup());

for (const s of SCENARIOS) {
  Ignore(`${s.name}: git's own answers are the table's`, (ctx) => {
    const repo = (ctx.repo = makeRepo(s));
    const fromGit = FILES.filter((p) => gitIgnores(repo, p));
    assert.equal(
      fromGit,
      FILES.filter((p) => s.ignored.includes(p)),
    );
  });

  Ignore(`${s.name}: one IgnoreRules agrees with git check-ignore on every path`, (ctx) => {
    const repo = (ctx.repo = makeRepo(s));
    const shared = rules(repo, s);
    const disagree: string[] = [];
    for (const path of FILES) {
      const git = gitIgnores(repo, path);
      if (shared.ignores(path) !== git) disagree.push(`${path}: git says ${git ? 'ignored' : 'not ignored'}`);
    }
    assert.equal(disagree, []);
  });

  Ignore(`${s.name}: the answer does not depend on the order of the questions`, (ctx) => {
    const repo = (ctx.repo = makeRepo(s));
    const expected = new Map(FILES.map((p) => [p, gitIgnores(repo, p)]));
    const reversed = rules(repo, s);
    const disagree: string[] = [];
    for (const path of [...FILES].reverse()) {
      if (reversed.ignores(path) !== expected.get(path)) disagree.push(`${path} (reverse order)`);
    }
    for (const path of FILES) {
      if (rules(repo, s).ignores(path) !== expected.get(path)) disagree.push(`${path} (fresh rules)`);
    }
    assert.equal(disagree, []);
  });
}

Ignore('only the ignore files on the way to the path are read (O(depth), never a scan)', (ctx) => {
  const s = SCENARIOS[0]!;
  const repo = (ctx.repo = makeRepo(s));
  const { read, spy } = readSpy(repo);
  const r = new IgnoreRules(spy, repo.dir, baseIgnoreFiles(repo.env, join(repo.dir, '.git'), s.excludesFile));
  assert.is(r.ignores('sub/inner/data.dat'), true);
  assert.equal(read, [
    'home/global-ignore',
    'repo/.git/info/exclude',
    'repo/.gitignore',
    'repo/sub/.gitignore',
    'repo/sub/inner/.gitignore',
  ]);
  read.length = 0;
  assert.is(r.ignores('sub/inner/local.cfg'), false);
  assert.is(r.ignores('sub/x.tmp'), true);
  assert.equal(read, [], 'files already read are not read again');
});

Ignore(
  'renewed for each batch: rules are read once while their files stay the same, again when one changes or appears, and always while one is racy',
  (ctx) => {
    const repo = (ctx.repo = new DiskRepo(null));
    repo.write('.gitignore', '*.log\n');
    repo.write('sub/keep.txt', 'x\n');
    const { read, spy } = readSpy(repo);
    let now = Date.now() + 10_000;
    const exclude = join(repo.dir, '.git/info/exclude');
    const r = new IgnoreRules(spy, repo.dir, [exclude], false, () => now);
    const batch = (paths: string[]): boolean[] => {
      r.renew();
      read.length = 0;
      return paths.map((p) => r.ignores(p));
    };
    assert.equal(batch(['a.log', 'sub/x.dat']), [true, false]);
    assert.equal(batch(['b.log', 'sub/y.dat']), [true, false]);
    assert.equal(read, [], 'nothing changed: nothing read again');

    repo.write('.gitignore', '*.txt\n*.tmp\n');
    assert.equal(batch(['a.log', 'a.txt']), [false, true], 'a changed .gitignore is read again');
    repo.write('sub/.gitignore', '*.dat\n');
    assert.equal(batch(['sub/x.dat']), [true], 'a .gitignore that appeared where there was none');
    fs.appendFileSync(exclude, 'secret/\n');
    assert.equal(batch(['secret/key.pem', 'sub/x.dat']), [true, true], 'info/exclude changed');
    fs.rmSync(join(repo.dir, 'sub/.gitignore'));
    assert.equal(batch(['sub/x.dat']), [false], 'a .gitignore removed');
    assert.equal(batch(['sub/x.dat']), [false]);
    assert.equal(read, []);

    // A file changed within its racy window could change again unseen: read every time.
    now = fs.statSync(join(repo.dir, '.gitignore')).mtimeMs + 50;
    assert.equal(batch(['c.txt']), [true]);
    assert.ok(read.includes('repo/.gitignore'), read.join(', '));
    assert.equal(batch(['c.txt']), [true]);
    assert.ok(read.includes('repo/.gitignore'), 'still racy: read again');
    for (const path of ['a.txt', 'a.log', 'sub/x.dat', 'secret/key.pem'])
      assert.is(r.ignores(path), gitIgnores(repo, path), `${path} as git says`);
  },
);

Ignore('no ignore files at all: nothing is ignored', (ctx) => {
  const repo = (ctx.repo = new DiskRepo(null));
  repo.write('a.log', 'x\n');
  repo.write('d/b.txt', 'x\n');
  const r = new IgnoreRules(fs as FileSystem, repo.dir, baseIgnoreFiles(repo.env, join(repo.dir, '.git'), undefined));
  for (const path of ['a.log', 'd/b.txt']) {
    assert.is(gitIgnores(repo, path), false);
    assert.is(r.ignores(path), false);
  }
});

Ignore.run();

const Base = suite('baseIgnoreFiles');

Base('core.excludesFile (with ~/ expanded) replaces the xdg default; info/exclude comes last', () => {
  assert.equal(baseIgnoreFiles({ HOME: '/home/u' }, '/r/.git', '~/ign'), ['/home/u/ign', '/r/.git/info/exclude']);
  assert.equal(baseIgnoreFiles({ HOME: '/home/u' }, '/r/.git', '/abs/ign'), ['/abs/ign', '/r/.git/info/exclude']);
  assert.equal(baseIgnoreFiles({ HOME: '/home/u' }, '/r/.git', undefined), [
    '/home/u/.config/git/ignore',
    '/r/.git/info/exclude',
  ]);
  assert.equal(baseIgnoreFiles({ HOME: '/home/u', XDG_CONFIG_HOME: '/x' }, '/r/.git', undefined), [
    '/x/git/ignore',
    '/r/.git/info/exclude',
  ]);
  assert.equal(baseIgnoreFiles({}, '/r/.git', undefined), ['/r/.git/info/exclude']);
});

Base.run();
