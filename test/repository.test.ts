import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import type { Context } from '../src/context.js';
import { nodeContext } from '../src/node-context.js';
import { discoverRepository, Repository, type RepositoryLayout } from '../src/git/repository.js';
import { DiskRepo } from './helpers/disk-repo.js';

function ctxFor(repo: DiskRepo, env: Record<string, string> = {}): Context {
  return nodeContext({ env: { ...repo.env, ...env } });
}

/** What native git says about the repository seen from `cwd`. */
function gitLayout(repo: DiskRepo, cwd: string): RepositoryLayout {
  const run = (...args: string[]) => {
    const r = repo.gitResult('-C', cwd, ...args);
    if (r.status !== 0) throw new Error(r.stderr);
    return r.stdout.trim();
  };
  const gitdir = run('rev-parse', '--absolute-git-dir');
  const commondir = resolve(cwd, run('rev-parse', '--git-common-dir'));
  const bare = run('rev-parse', '--is-bare-repository') === 'true';
  return { gitdir, commondir, worktree: bare ? null : run('rev-parse', '--show-toplevel') };
}

interface ShadowErrorLike {
  code?: string;
  message: string;
  hint?: string;
  data?: Record<string, unknown>;
}

function thrown(f: () => unknown): ShadowErrorLike {
  try {
    f();
  } catch (e) {
    return e as ShadowErrorLike;
  }
  assert.unreachable('expected an error');
  throw new Error('unreachable');
}

// ---------------------------------------------------------------- discovery

const Discover = suite<{ repo: DiskRepo }>('discoverRepository');
Discover.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n', 'src/deep/er/file.ts': 'x\n' });
});
Discover.after.each((ctx) => ctx.repo.cleanup());

Discover('from the root and from subdirectories, as git rev-parse sees it', ({ repo }) => {
  const expected = { gitdir: join(repo.dir, '.git'), commondir: join(repo.dir, '.git'), worktree: repo.dir };
  for (const start of [repo.dir, repo.path('src'), repo.path('src/deep/er'), `${repo.dir}/src/../src/deep/`]) {
    assert.equal(discoverRepository(ctxFor(repo), start), expected, start);
  }
  assert.equal(gitLayout(repo, repo.path('src/deep/er')), expected);
});

Discover('from a linked worktree: gitdir is .git/worktrees/<name>, commondir the main .git', ({ repo }) => {
  const wt = join(repo.root, 'wt');
  repo.git('worktree', 'add', '-q', '-b', 'side', wt);
  fs.mkdirSync(join(wt, 'src', 'deep'), { recursive: true });
  const expected = {
    gitdir: join(repo.dir, '.git', 'worktrees', 'wt'),
    commondir: join(repo.dir, '.git'),
    worktree: wt,
  };
  assert.equal(discoverRepository(ctxFor(repo), join(wt, 'src', 'deep')), expected);
  assert.equal(gitLayout(repo, join(wt, 'src', 'deep')), expected);
  const opened = Repository.open(ctxFor(repo), wt);
  assert.equal(opened.layout, expected);
  assert.is(opened.objects.dir, join(repo.dir, '.git', 'objects'));
  assert.is(opened.refs.resolve('HEAD'), repo.git('rev-parse', 'side').trim());
  assert.is(opened.refs.headTarget(), 'refs/heads/side');
  assert.is(opened.shadowDir, join(repo.dir, '.git', 'shadow'));
  opened.close();
});

Discover('a .git file pointing elsewhere, absolute and relative', ({ repo }) => {
  const work = join(repo.root, 'work');
  repo.git('init', '-q', '--separate-git-dir', join(repo.root, 'separate.git'), work);
  assert.match(fs.readFileSync(join(work, '.git'), 'utf8'), /^gitdir: \//);
  fs.mkdirSync(join(work, 'sub'));
  const expected = {
    gitdir: join(repo.root, 'separate.git'),
    commondir: join(repo.root, 'separate.git'),
    worktree: work,
  };
  assert.equal(discoverRepository(ctxFor(repo), join(work, 'sub')), expected);
  assert.equal(gitLayout(repo, join(work, 'sub')), expected);

  fs.renameSync(join(repo.root, 'separate.git'), join(repo.root, 'moved.git'));
  fs.writeFileSync(join(work, '.git'), 'gitdir: ../moved.git\n');
  const moved = { gitdir: join(repo.root, 'moved.git'), commondir: join(repo.root, 'moved.git'), worktree: work };
  assert.equal(discoverRepository(ctxFor(repo), join(work, 'sub')), moved);
  assert.equal(gitLayout(repo, join(work, 'sub')), moved);
});

Discover('a bare repository has no worktree', ({ repo }) => {
  const bare = new DiskRepo(null, { bare: true });
  try {
    const expected = { gitdir: bare.dir, commondir: bare.dir, worktree: null };
    assert.equal(discoverRepository(ctxFor(bare), bare.dir), expected);
    assert.equal(discoverRepository(ctxFor(bare), join(bare.dir, 'refs', 'heads')), expected);
    assert.equal(gitLayout(bare, bare.dir), expected);
    const opened = Repository.open(ctxFor(bare), bare.dir);
    assert.is(opened.layout.worktree, null);
    opened.close();
  } finally {
    bare.cleanup();
  }
  // A repository whose config says core.bare = true opens without a worktree too.
  repo.git('config', 'core.bare', 'true');
  assert.is(Repository.open(ctxFor(repo), repo.dir).layout.worktree, null);
});

Discover('GIT_DIR and GIT_WORK_TREE are honoured', ({ repo }) => {
  const elsewhere = join(repo.root, 'elsewhere');
  fs.mkdirSync(elsewhere);
  const layout = discoverRepository(
    ctxFor(repo, { GIT_DIR: join(repo.dir, '.git'), GIT_WORK_TREE: repo.dir }),
    elsewhere,
  );
  assert.equal(layout, { gitdir: join(repo.dir, '.git'), commondir: join(repo.dir, '.git'), worktree: repo.dir });
});

Discover('a plain directory is NOT_A_REPOSITORY, with a clear message and a hint', ({ repo }) => {
  const plain = join(repo.root, 'plain', 'sub');
  fs.mkdirSync(plain, { recursive: true });
  assert.is(repo.gitResult('-C', plain, 'rev-parse', '--git-dir').status, 128, 'git agrees it is no repository');
  for (const open of [() => discoverRepository(ctxFor(repo), plain), () => Repository.open(ctxFor(repo), plain)]) {
    const e = thrown(open);
    assert.is(e.code, 'NOT_A_REPOSITORY');
    assert.is(e.message, `${plain} is not inside a git repository`);
    assert.match(e.hint ?? '', '`git init`');
    assert.equal(e.data, { dir: plain });
  }
});

Discover('a broken .git file is NOT_A_REPOSITORY naming the file and what is wrong', ({ repo }) => {
  const work = join(repo.root, 'broken');
  fs.mkdirSync(work);
  fs.writeFileSync(join(work, '.git'), 'this is not a gitdir line\n');
  let e = thrown(() => discoverRepository(ctxFor(repo), work));
  assert.is(e.code, 'NOT_A_REPOSITORY');
  assert.match(e.message, `${join(work, '.git')} is a file without a "gitdir:" line`);
  fs.writeFileSync(join(work, '.git'), `gitdir: ${join(repo.root, 'nowhere.git')}\n`);
  e = thrown(() => discoverRepository(ctxFor(repo), work));
  assert.is(e.code, 'NOT_A_REPOSITORY');
  assert.match(e.message, `points to ${join(repo.root, 'nowhere.git')}, which is not a git directory`);
});

Discover.run();

// ---------------------------------------------------------------- format checks

/** The git commands a hint names (`git ...` in backquotes). */
function hintCommands(hint: string): string[][] {
  return [...hint.matchAll(/`(git [^`]+)`/g)].map((m) => m[1]!.split(' ').slice(1));
}

interface FormatCase {
  what: string;
  /** Turn the repository into one shadow must refuse. */
  make(repo: DiskRepo): void;
  message: RegExp;
  hint: RegExp;
  /** The hint's commands really fix it (run them, then the repository opens). */
  fixable: boolean;
}

const REFUSED: FormatCase[] = [
  {
    what: 'SHA-256 object ids (git init --object-format=sha256)',
    make: (repo) => {
      fs.rmSync(repo.path('.git'), { recursive: true, force: true });
      repo.git('init', '-q', '--object-format=sha256');
    },
    message: /sha256 object ids; shadow supports SHA-1 repositories only/,
    hint: /SHA-1 repository.*`git init`/,
    fixable: false,
  },
  {
    what: 'reftable refs (extensions.refStorage, written by hand)',
    make: (repo) => {
      const config = repo.path('.git/config');
      const text = fs
        .readFileSync(config, 'utf8')
        .replace(/repositoryformatversion = 0/, 'repositoryformatversion = 1');
      fs.writeFileSync(config, `${text}[extensions]\n\trefStorage = reftable\n`);
    },
    message: /stores refs in reftable; shadow supports the files backend only/,
    hint: /`git refs migrate --ref-format=files`/,
    fixable: false,
  },
  {
    what: 'an unknown extension under format version 1',
    make: (repo) => {
      repo.git('config', 'extensions.frobnicate', 'true');
      repo.git('config', 'core.repositoryformatversion', '1');
    },
    message: /needs the extension "frobnicate", which shadow does not know/,
    // How to get out: upgrade, or drop the extension with git config.
    hint: /upgrade|`git config --unset extensions\.frobnicate`/i,
    fixable: false,
  },
  {
    what: 'repository format version 2',
    make: (repo) => {
      const config = repo.path('.git/config');
      fs.writeFileSync(
        config,
        fs.readFileSync(config, 'utf8').replace(/repositoryformatversion = 0/, 'repositoryformatversion = 2'),
      );
    },
    message: /repository format version 2 is not supported/,
    hint: /versions 0 and 1/,
    fixable: false,
  },
  {
    what: 'index version 4 (git update-index --index-version 4)',
    make: (repo) => repo.git('update-index', '--index-version', '4'),
    message: /the index is in version 4/,
    hint: /`git update-index --index-version 3`/,
    fixable: true,
  },
  {
    what: 'a split index (git update-index --split-index)',
    make: (repo) => repo.git('update-index', '--split-index'),
    message: /split index/,
    hint: /`git update-index --no-split-index`/,
    fixable: true,
  },
  {
    what: 'a split index turned on by core.splitIndex',
    make: (repo) => {
      repo.git('config', 'core.splitIndex', 'true');
      repo.write('more.txt', 'more\n');
      repo.git('add', 'more.txt');
    },
    message: /split index/,
    hint: /`git update-index --no-split-index`.*`git config core.splitIndex false`/,
    fixable: true,
  },
];

const Format = suite<{ repo: DiskRepo }>('Repository.open format checks');
Format.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n', 'src/a.ts': 'export {}\n' });
});
Format.after.each((ctx) => ctx.repo.cleanup());

Format('a default repository opens, with its config, objects and refs', ({ repo }) => {
  const r = Repository.open(ctxFor(repo), repo.path('src'));
  assert.equal(r.layout, { gitdir: join(repo.dir, '.git'), commondir: join(repo.dir, '.git'), worktree: repo.dir });
  assert.is(r.config.get('user.name'), 'Test User');
  assert.is(r.refs.resolve('HEAD'), repo.git('rev-parse', 'HEAD').trim());
  assert.is(r.objects.readCommit(repo.git('rev-parse', 'HEAD').trim()).message, 'initial commit\n');
  r.close();
});

for (const c of REFUSED) {
  Format(`UNSUPPORTED_REPOSITORY: ${c.what}`, ({ repo }) => {
    c.make(repo);
    const e = thrown(() => Repository.open(ctxFor(repo), repo.dir));
    assert.is(e.code, 'UNSUPPORTED_REPOSITORY', e.message);
    assert.match(e.message, c.message);
    assert.match(e.hint ?? '(no hint)', c.hint);
    if (c.fixable) {
      for (const args of hintCommands(e.hint!)) repo.git(...args);
      const r = Repository.open(ctxFor(repo), repo.dir);
      assert.is(r.layout.worktree, repo.dir, 'the hint fixed it');
      r.close();
    }
  });
}

const ACCEPTED: Array<{ what: string; make(repo: DiskRepo): void }> = [
  {
    what: 'an unknown extension under format version 0 (git ignores it)',
    make: (repo) => repo.git('config', 'extensions.frobnicate', 'true'),
  },
  {
    what: 'extensions.worktreeConfig under version 1',
    make: (repo) => {
      repo.git('config', 'core.repositoryformatversion', '1');
      repo.git('config', 'extensions.worktreeConfig', 'true');
    },
  },
  {
    what: 'an explicit extensions.objectFormat = sha1',
    make: (repo) => {
      repo.git('config', 'core.repositoryformatversion', '1');
      repo.git('config', 'extensions.objectFormat', 'sha1');
    },
  },
  { what: 'index version 3', make: (repo) => repo.git('update-index', '--index-version', '3') },
  { what: 'no index at all', make: (repo) => fs.unlinkSync(repo.path('.git/index')) },
];

for (const c of ACCEPTED) {
  Format(`accepted: ${c.what}`, ({ repo }) => {
    c.make(repo);
    repo.git('status', '--porcelain'); // git itself still works on it
    const r = Repository.open(ctxFor(repo), repo.dir);
    assert.is(r.refs.resolve('HEAD'), repo.git('rev-parse', 'HEAD').trim());
    r.close();
  });
}

Format('a linked worktree whose own index is version 4 is refused', ({ repo }) => {
  const wt = join(repo.root, 'wt');
  repo.git('worktree', 'add', '-q', '-b', 'side', wt);
  repo.gitResult('-C', wt, 'update-index', '--index-version', '4');
  assert.is(Repository.open(ctxFor(repo), repo.dir).layout.worktree, repo.dir, 'the main worktree is fine');
  const e = thrown(() => Repository.open(ctxFor(repo), wt));
  assert.is(e.code, 'UNSUPPORTED_REPOSITORY');
  assert.match(e.message, /version 4/);
});

Format.run();
