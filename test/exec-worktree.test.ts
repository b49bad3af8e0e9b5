import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DiskRepo } from './helpers/disk-repo.js';
import { cli, open, REF } from './helpers/worktree-repo.js';
import { snapshotTree, treeHash } from './helpers/dir-snapshot.js';

/*
 * `shadow exec`'s kept worktree on a Node project: a git worktree at the
 * draft's tip with the person's node_modules linked in, so `npm test`
 * passes there; synced by what changed between calls; unregistered from
 * git when removed or when its draft is dropped.
 */

const PROJECT = {
  'package.json': '{ "name": "fixture", "private": true, "scripts": { "test": "node test.js" } }\n',
  '.gitignore': 'node_modules/\n',
  'src/version.js': "module.exports = 'v1';\n",
  'src/lib.js': "const pad = require('left-pad-lite');\nmodule.exports = (s) => pad(s, 5);\n",
  'test.js':
    "const lib = require('./src/lib');\nconst out = lib('ab');\nconsole.log(`OUT=[${out}] VER=${require('./src/version')}`);\nif (out !== '   ab') process.exit(1);\n",
  'README.md': 'fixture\n',
};

function makeProject(): DiskRepo {
  const repo = new DiskRepo(PROJECT);
  // A dependency installed by hand: ignored, so never in a checkout of the draft.
  repo.write(
    'node_modules/left-pad-lite/package.json',
    '{ "name": "left-pad-lite", "version": "1.0.0", "main": "index.js" }\n',
  );
  repo.write(
    'node_modules/left-pad-lite/index.js',
    "module.exports = (s, n) => ' '.repeat(Math.max(0, n - s.length)) + s;\n",
  );
  return repo;
}

const git = (cwd: string, ...args: string[]): string => {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  assert.is(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

const Exec = suite<{ repo: DiskRepo }>('shadow exec: the kept git worktree');
Exec.before.each((ctx) => {
  ctx.repo = makeProject();
});
Exec.after.each((ctx) => ctx.repo.cleanup());

Exec(
  'npm test passes in the draft, twice; git works there; only what changed is written; node_modules is linked, never copied; remove unregisters it',
  async ({ repo }) => {
    const before = treeHash(repo.dir);
    const sh = await open(repo);
    try {
      assert.ok((await sh.write('src/version.js', "module.exports = 'v2';\n")).success);
      const r1 = cli(repo, ['exec', '--', 'npm', 'test', '--silent']);
      assert.is(r1.status, 0, r1.stdout + r1.stderr);
      assert.match(r1.stdout, /OUT=\[ {3}ab\] VER=v2/);
      const wt = `${repo.dir}.shadow-exec/default`;
      assert.ok(fs.existsSync(join(wt, '.git')), 'a git worktree');
      assert.is(git(wt, 'status', '--porcelain', '--untracked-files=all'), '', 'git status is clean');
      assert.is(git(wt, 'rev-parse', 'HEAD').trim(), repo.ref(REF()), "HEAD is the draft's tip, detached");
      assert.is(git(wt, 'log', '-1', '--format=%s').trim() !== '', true);
      assert.match(git(repo.dir, 'worktree', 'list', '--porcelain'), new RegExp(`worktree ${wt}\n`));
      // Linked, one level deep: a real directory (git's node_modules/ pattern ignores it) of links to the person's packages.
      assert.ok(fs.lstatSync(join(wt, 'node_modules')).isDirectory());
      assert.ok(fs.lstatSync(join(wt, 'node_modules/left-pad-lite')).isSymbolicLink());
      assert.is(
        fs.statSync(join(wt, 'node_modules/left-pad-lite/index.js')).ino,
        fs.statSync(repo.path('node_modules/left-pad-lite/index.js')).ino,
        'the same file, not a copy',
      );

      const snap = snapshotTree(wt, ['.git', 'node_modules']);
      assert.ok((await sh.write('src/version.js', "module.exports = 'v3';\n")).success);
      const r2 = cli(repo, ['exec', '--', 'npm', 'test', '--silent']);
      assert.is(r2.status, 0, r2.stdout + r2.stderr);
      assert.match(r2.stdout, /VER=v3/);
      const after = snapshotTree(wt, ['.git', 'node_modules']);
      const rewritten = Object.keys(after).filter((p) => after[p] !== snap[p]);
      assert.equal(
        rewritten,
        ['src/version.js'],
        'only the changed file is written (inode and mtime of the rest kept)',
      );
      assert.is(git(wt, 'status', '--porcelain', '--untracked-files=all'), '');
      assert.is(
        git(wt, 'diff', 'HEAD~1', '--stat').includes('src/version.js'),
        true,
        'git diff works on the draft history',
      );

      assert.is(treeHash(repo.dir), before, "the person's working tree is byte-for-byte untouched");
      const rm = cli(repo, ['worktree', 'remove', wt]);
      assert.is(rm.status, 0, rm.stderr);
      assert.not.ok(fs.existsSync(wt));
      assert.not.match(git(repo.dir, 'worktree', 'list', '--porcelain'), new RegExp(wt));
      assert.is(git(repo.dir, 'worktree', 'prune', '-n', '-v'), '', 'nothing for git to prune');
      assert.ok(fs.existsSync(repo.path('node_modules/left-pad-lite/index.js')), 'the shared package is still there');
      assert.is(treeHash(repo.dir), before);
    } finally {
      sh.close();
    }
  },
);

Exec('exec --record: what the command wrote becomes a batch; git status there stays clean', async ({ repo }) => {
  const r = cli(repo, [
    'exec',
    '--record',
    '--',
    process.execPath,
    '-e',
    "require('fs').writeFileSync('src/version.js', \"module.exports = 'made';\\n\")",
  ]);
  assert.is(r.status, 0, r.stderr);
  assert.is(repo.git('show', `${REF()}:src/version.js`), "module.exports = 'made';\n");
  const wt = `${repo.dir}.shadow-exec/default`;
  assert.is(git(wt, 'status', '--porcelain', '--untracked-files=all'), '');
  assert.is(git(wt, 'rev-parse', 'HEAD').trim(), repo.ref(REF()));
  const t = cli(repo, ['exec', '--', 'npm', 'test', '--silent']);
  assert.is(t.status, 0, t.stderr);
  assert.match(t.stdout, /VER=made/);
  assert.not.match(t.stderr, /reset what/);
});

Exec(
  'bad inputs: a missing command (127), a share outside the repository, a worktree deleted by hand, one left dirty, a dropped draft',
  async ({ repo }) => {
    const missing = cli(repo, ['exec', '--', 'shadow-no-such-command-xyz']);
    assert.is(missing.status, 127, missing.stderr);
    assert.match(missing.stderr, /command not found: shadow-no-such-command-xyz/);

    const wt = `${repo.dir}.shadow-exec/default`;
    repo.git('config', '--add', 'shadow.worktreeShare', '../outside');
    const escape = cli(repo, ['exec', '--json', '--', 'true']);
    assert.is.not(escape.status, 0);
    assert.is(
      escape.json?.error?.code ?? JSON.parse(escape.stderr).error.code,
      'INVALID_SHARE_PATH',
      escape.stdout + escape.stderr,
    );
    repo.git('config', '--unset-all', 'shadow.worktreeShare');

    fs.rmSync(wt, { recursive: true, force: true });
    const again = cli(repo, ['exec', '--', 'npm', 'test', '--silent']);
    assert.is(again.status, 0, again.stdout + again.stderr);
    assert.is(git(wt, 'status', '--porcelain'), '');
    assert.is(git(repo.dir, 'worktree', 'list', '--porcelain').split(wt).length - 1, 1, 'registered once');

    // What a command left and nobody recorded: reset, and said so; ignored build output stays.
    fs.writeFileSync(join(wt, 'src/version.js'), 'broken(\n');
    fs.writeFileSync(join(wt, 'stray.txt'), 'x\n');
    fs.mkdirSync(join(wt, 'node_modules/.cache'));
    const dirty = cli(repo, ['exec', '--', 'npm', 'test', '--silent']);
    assert.is(dirty.status, 0, dirty.stdout + dirty.stderr);
    assert.match(dirty.stderr, /reset what an earlier command left/);
    assert.match(dirty.stderr, /stray\.txt/);
    assert.not.ok(fs.existsSync(join(wt, 'stray.txt')));
    assert.ok(fs.existsSync(join(wt, 'node_modules/.cache')), 'ignored output is kept');
    assert.not.ok(fs.existsSync(repo.path('node_modules/.cache')), "never in the person's tree");

    const sh = await open(repo);
    try {
      assert.ok((await sh.write('src/version.js', "module.exports = 'v9';\n")).success);
    } finally {
      sh.close();
    }
    const drop = cli(repo, ['draft', 'drop', 'default']);
    assert.is(drop.status, 0, drop.stderr);
    assert.not.ok(fs.existsSync(wt));
    assert.not.match(git(repo.dir, 'worktree', 'list', '--porcelain'), new RegExp(wt));
    assert.is(cli(repo, ['worktree', 'list', '--json']).json.worktrees.length, 0);
  },
);

Exec(
  "one command at a time in a draft's exec worktree: a second is BUSY while the first holds it, and goes once it is released",
  async ({ repo }) => {
    const sh = await open(repo);
    try {
      const held = await sh.worktrees.exec();
      const busy = cli(repo, ['exec', '--json', '--', 'true']);
      assert.is(busy.status, 1);
      assert.is(busy.json.error.code, 'BUSY');
      held.release();
      const ok = cli(repo, ['exec', '--', 'true']);
      assert.is(ok.status, 0, ok.stderr);
    } finally {
      sh.close();
    }
  },
);

Exec(
  'worktree add --git: a git worktree beside the repository where npm test runs and git works; sync refuses unrecorded changes, record takes them; remove unregisters it',
  async ({ repo }) => {
    const dir = join(repo.root, 'app-draft');
    const before = treeHash(repo.dir);
    const write = (path: string, content: string): void =>
      assert.is(repo.shadow(['write', path], { input: content }).status, 0);
    write('src/version.js', "module.exports = 'v2';\n");
    const add = cli(repo, ['worktree', 'add', dir, '--git', '--json']);
    assert.is(add.status, 0, add.stderr);
    assert.is(git(dir, 'rev-parse', 'HEAD').trim(), repo.ref(REF()));
    assert.is(git(dir, 'status', '--porcelain'), '');
    assert.ok(fs.lstatSync(join(dir, 'node_modules/left-pad-lite')).isSymbolicLink());
    const t = spawnSync('npm', ['test', '--silent'], { cwd: dir, encoding: 'utf8' });
    assert.is(t.status, 0, t.stderr);
    assert.match(t.stdout, /VER=v2/);
    // Inside the working tree: refused.
    assert.is(
      cli(repo, ['worktree', 'add', join(repo.dir, 'inner'), '--git', '--json']).json.error.code,
      'INVALID_TARGET',
    );
    // A change made there and not recorded stops a sync; recording it makes a batch, and the worktree follows.
    fs.writeFileSync(
      join(dir, 'src/lib.js'),
      "const pad = require('left-pad-lite');\nmodule.exports = (s) => pad(s, 5); // edited\n",
    );
    write('README.md', 'more\n');
    const refused = cli(repo, ['worktree', 'sync', dir, '--json']);
    assert.is(refused.status, 1);
    assert.is(refused.json.error.code, 'WORKTREE_DIRTY');
    assert.match(fs.readFileSync(join(dir, 'src/lib.js'), 'utf8'), /edited/);
    assert.is(cli(repo, ['worktree', 'record', dir, '-m', 'edit lib']).status, 0);
    assert.match(repo.git('show', `${REF()}:src/lib.js`), /edited/);
    assert.is(cli(repo, ['worktree', 'sync', dir]).status, 0);
    assert.is(fs.readFileSync(join(dir, 'README.md'), 'utf8'), 'more\n');
    assert.is(git(dir, 'status', '--porcelain'), '');
    assert.is(treeHash(repo.dir), before, "the person's working tree is untouched");
    assert.is(cli(repo, ['worktree', 'remove', dir]).status, 0);
    assert.not.match(repo.git('worktree', 'list'), /app-draft/);
  },
);

Exec.run();
