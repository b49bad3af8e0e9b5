import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { DiskRepo, type CliResult } from './helpers/disk-repo.js';
import { openShadow, type FileSystem } from '../src/index.js';
import { submoduleOf } from '../src/git/format/submodules.js';

/**
 * Submodules are git's to manage: shadow lists them as submodules with the
 * commit git records, and refuses every op on one or inside one, before
 * anything is written. Native git is the oracle (ls-tree, ls-files, status,
 * submodule status).
 */

const DRAFT = 'refs/shadow/drafts/default';

type Ctx = { repo: DiskRepo };

const ops = (...operations: unknown[]): string => JSON.stringify({ operations });

function ok(r: CliResult, what: string): any {
  assert.is(r.status, 0, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  return r.stdout.trimStart().startsWith('{') ? r.json() : r.stdout;
}

/** A bare repository with one commit holding `s.txt`, to add as a submodule; returns its path. */
function subRepository(repo: DiskRepo, name: string): string {
  const src = join(repo.root, `${name}-src`);
  nodeFs.mkdirSync(src);
  const git = (cwd: string, ...args: string[]): void => {
    const r = repo.gitResult('-C', cwd, ...args);
    assert.is(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  };
  git(src, 'init', '-q', '-b', 'main');
  nodeFs.writeFileSync(join(src, 's.txt'), 'sub\n');
  git(src, 'add', 's.txt');
  git(src, '-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'sub');
  const bare = join(repo.root, `${name}.git`);
  git(repo.root, 'clone', '-q', '--bare', src, bare);
  return bare;
}

function addSubmodule(repo: DiskRepo, path: string): void {
  repo.git(
    '-c',
    'protocol.file.allow=always',
    'submodule',
    'add',
    '-q',
    subRepository(repo, path.replace(/\//g, '-')),
    path,
  );
}

/**
 * Everything a refused op must leave as it was. `git submodule status` (a
 * script of several processes) is left out with `withSubmodules: false`, for
 * a loop of refused ops that runs it once after them all: the superproject's
 * status (`--ignore-submodules=none`) already shows a submodule whose
 * checkout moved or changed, after each op, and what an op does to the
 * submodule stays for the one check at the end to see.
 */
function snapshot(repo: DiskRepo, withSubmodules = true): Record<string, unknown> {
  return {
    ref: repo.ref(DRAFT),
    status: repo.git('status', '--porcelain', '--ignore-submodules=none', '-uall'),
    inside: repo.git('-C', 'lib', 'status', '--porcelain', '-uall'),
    ...(withSubmodules ? { submodules: repo.git('submodule', 'status') } : {}),
    index: repo.git('ls-files', '-s'),
  };
}

/** Every op kind, aimed at the submodule `lib` itself and at a path inside it. */
const REFUSED: Array<{ name: string; op: Record<string, unknown>; path: string }> = [
  { name: 'write lib', op: { operation: 'write', path: 'lib', content: 'x\n' }, path: 'lib' },
  { name: 'write lib/new.txt', op: { operation: 'write', path: 'lib/new.txt', content: 'x\n' }, path: 'lib/new.txt' },
  { name: 'write lib/s.txt', op: { operation: 'write', path: 'lib/s.txt', content: 'x\n' }, path: 'lib/s.txt' },
  { name: 'edit lib', op: { operation: 'edit', path: 'lib', old_content: 'a', content: 'b' }, path: 'lib' },
  {
    name: 'edit lib/s.txt',
    op: { operation: 'edit', path: 'lib/s.txt', old_content: 'sub', content: 'SUB' },
    path: 'lib/s.txt',
  },
  {
    name: 'patch lib/s.txt',
    op: { operation: 'patch', path: 'lib/s.txt', diff: '--- a/lib/s.txt\n+++ b/lib/s.txt\n@@ -1 +1 @@\n-sub\n+SUB\n' },
    path: 'lib/s.txt',
  },
  {
    name: 'patch creating lib/new.txt',
    op: { operation: 'patch', path: 'lib/new.txt', diff: '--- /dev/null\n+++ b/lib/new.txt\n@@ -0,0 +1 @@\n+new\n' },
    path: 'lib/new.txt',
  },
  { name: 'delete lib', op: { operation: 'delete', path: 'lib' }, path: 'lib' },
  { name: 'delete lib/s.txt', op: { operation: 'delete', path: 'lib/s.txt' }, path: 'lib/s.txt' },
  { name: 'rename lib away', op: { operation: 'rename', path: 'lib', to: 'lib2' }, path: 'lib' },
  { name: 'rename lib/s.txt out', op: { operation: 'rename', path: 'lib/s.txt', to: 's.txt' }, path: 'lib/s.txt' },
  { name: 'rename a file into lib', op: { operation: 'rename', path: 'a.txt', to: 'lib/a.txt' }, path: 'lib/a.txt' },
  { name: 'rename a file onto lib', op: { operation: 'rename', path: 'a.txt', to: 'lib' }, path: 'lib' },
  { name: 'chmod lib', op: { operation: 'chmod', path: 'lib', mode: '100755' }, path: 'lib' },
  { name: 'chmod lib/s.txt', op: { operation: 'chmod', path: 'lib/s.txt', mode: '100755' }, path: 'lib/s.txt' },
];

// ---------------------------------------------------------------- a committed submodule

const Committed = suite<Ctx>('submodules: a committed submodule');
Committed.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n', 'a.txt': 'a\n' });
  addSubmodule(ctx.repo, 'lib');
  ctx.repo.git('commit', '-q', '-m', 'add lib');
});
Committed.after.each((ctx) => ctx.repo.cleanup());

Committed(
  'every op on lib or inside it is refused with SUBMODULE_PATH, and the whole batch with it: no ref move, no capture, no change git sees',
  ({ repo }) => {
    ok(
      repo.shadow(['batch', '-', '--json'], { input: ops({ operation: 'write', path: 'notes.txt', content: 'n\n' }) }),
      'first batch',
    );
    // An uncommitted change of README.md: a batch touching it first would capture it.
    repo.write('README.md', 'Hello from the user\n');
    const before = snapshot(repo, false);
    const submodules = repo.git('submodule', 'status');
    for (const c of REFUSED) {
      const r = repo.shadow(['batch', '-', '--json'], {
        input: ops({ operation: 'write', path: 'README.md', content: 'agent\n' }, c.op),
      });
      assert.is(r.status, 1, `${c.name}: exit ${r.status}\n${r.stdout}${r.stderr}`);
      const out = r.json();
      assert.is(out.success, false, c.name);
      assert.is(out.error.code, 'SUBMODULE_PATH', `${c.name}: ${out.error.message}`);
      assert.ok(
        out.error.message.includes('submodule lib') || out.error.message.includes('lib is a submodule'),
        `${c.name}: ${out.error.message}`,
      );
      const failed = out.results[1];
      assert.is(failed.status, 'failed', c.name);
      assert.is(failed.error.code, 'SUBMODULE_PATH', c.name);
      assert.equal(
        failed.error.data,
        { path: c.path, submodule: 'lib', commit: repo.git('rev-parse', 'HEAD:lib').trim() },
        c.name,
      );
      assert.is(out.results[0].status, 'not_applied', c.name);
      assert.is(out.captured, undefined, c.name);
      assert.equal(snapshot(repo, false), before, `${c.name}: nothing changed`);
    }
    assert.is(repo.git('submodule', 'status'), submodules, 'no refused op changed the submodule');
    assert.not.ok(repo.exists('lib/new.txt'));
    assert.is(repo.read('lib/s.txt'), 'sub\n');
  },
);

Committed('the one-op CLI commands say SUBMODULE_PATH too (write, cat, ls)', ({ repo }) => {
  const before = snapshot(repo);
  for (const args of [
    ['write', 'lib'],
    ['write', 'lib/new.txt'],
  ]) {
    const r = repo.shadow([...args, '--json'], { input: 'x\n' });
    assert.is(r.status, 1, args.join(' '));
    assert.is(r.json().error.code, 'SUBMODULE_PATH', args.join(' '));
  }
  assert.equal(snapshot(repo), before);
  for (const args of [
    ['cat', 'lib'],
    ['cat', 'lib/s.txt'],
    ['ls', 'lib'],
  ]) {
    const r = repo.shadow([...args, '--json']);
    assert.is(r.status, 1, args.join(' '));
    const e = r.json().error;
    assert.is(e.code, 'SUBMODULE_PATH', args.join(' '));
    assert.is(e.data.submodule, 'lib', args.join(' '));
  }
});

Committed(
  'the view lists lib as a submodule with the commit git records, and a walk does not enter it',
  async ({ repo }) => {
    const lsTree = repo.git('ls-tree', 'HEAD', 'lib').trim(); // "160000 commit <id>\tlib"
    const commit = /^160000 commit ([0-9a-f]{40})\tlib$/.exec(lsTree)![1];
    const listing = ok(repo.shadow(['ls', '--json']), 'ls');
    assert.equal(
      listing.entries.find((e: { name: string }) => e.name === 'lib'),
      { name: 'lib', type: 'submodule', source: 'lower', commit },
    );
    assert.ok(ok(repo.shadow(['ls']), 'ls text').includes(`submodule lib @ ${commit}`));

    const sh = await openShadow({ dir: repo.dir, fs: nodeFs as unknown as FileSystem, env: repo.env });
    try {
      const walked = await sh.files('');
      assert.equal(
        walked.files.filter((f) => f.path.startsWith('lib')),
        [{ path: 'lib', type: 'submodule', source: 'lower', commit }],
      );
      const found = await sh.search('sub');
      assert.equal(
        found.matches.filter((m) => m.path.startsWith('lib')),
        [],
        'search does not read inside the submodule',
      );
    } finally {
      sh.close();
    }
  },
);

Committed('other writes in the repository apply cleanly and leave the submodule as it was', ({ repo }) => {
  const submodules = repo.git('submodule', 'status');
  ok(
    repo.shadow(['batch', '-', '--json'], {
      input: ops(
        { operation: 'write', path: 'README.md', content: 'Hello, agent\n' },
        { operation: 'write', path: 'src/new.txt', content: 'new\n' },
        { operation: 'write', path: '.gitmodules.txt', content: 'not a gitmodules\n' },
      ),
    }),
    'batch',
  );
  const dry = ok(repo.shadow(['apply', '--dry-run', '--json']), 'dry run');
  assert.equal(dry.conflicts, []);
  const applied = ok(repo.shadow(['apply', '--json']), 'apply');
  assert.equal(
    applied.paths.map((p: { path: string }) => p.path),
    ['.gitmodules.txt', 'README.md', 'src/new.txt'],
  );
  assert.is(repo.read('README.md'), 'Hello, agent\n');
  assert.is(
    repo.git('status', '--porcelain', '--ignore-submodules=none'),
    ' M README.md\n?? .gitmodules.txt\n?? src/\n',
  );
  assert.is(repo.git('submodule', 'status'), submodules);
  assert.is(repo.git('-C', 'lib', 'status', '--porcelain', '-uall'), '');
});

// ---------------------------------------------------------------- a draft made before submodules were refused

const Older = suite<Ctx>('submodules: a draft that holds one is never published');
Older.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n' });
  addSubmodule(ctx.repo, 'lib');
  ctx.repo.git('commit', '-q', '-m', 'add lib');
});
Older.after.each((ctx) => ctx.repo.cleanup());

/**
 * The draft as an older shadow left it: a batch commit, made with git's own
 * plumbing, that replaces the gitlink with a blob or with a directory.
 */
function olderBatch(repo: DiskRepo, change: 'blob' | 'dir'): void {
  ok(
    repo.shadow(['batch', '-', '--json'], { input: ops({ operation: 'write', path: 'ok.txt', content: 'ok\n' }) }),
    'first batch',
  );
  const env = { ...repo.env, GIT_INDEX_FILE: join(repo.root, 'older-index') };
  const git = (args: string[], input?: string): string => {
    const r = spawnSync('git', args, { cwd: repo.dir, env, input, encoding: 'utf8' });
    assert.is(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  git(['read-tree', DRAFT]);
  const blob = git(['hash-object', '-w', '--stdin'], 'x\n');
  git(['update-index', '--force-remove', 'lib']);
  git(['update-index', '--add', '--cacheinfo', `100644,${blob},${change === 'blob' ? 'lib' : 'lib/new.txt'}`]);
  const commit = git([
    'commit-tree',
    git(['write-tree']),
    '-p',
    DRAFT,
    '-m',
    'write lib\n\nShadow-Draft: default\nShadow-Batch: 2',
  ]);
  repo.git('update-ref', DRAFT, commit);
}

for (const change of ['blob', 'dir'] as const) {
  Older(
    `apply --dry-run and apply refuse a draft that replaced the gitlink with a ${change}, before any write`,
    ({ repo }) => {
      olderBatch(repo, change);
      const before = snapshot(repo, false);
      const submodules = repo.git('submodule', 'status');
      for (const args of [
        ['apply', '--dry-run', '--json'],
        ['apply', '--json'],
        ['apply', '--commit', '--json'],
      ]) {
        const r = repo.shadow(args);
        assert.is(r.status, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
        const e = r.json().error;
        assert.is(e.code, 'SUBMODULE_PATH', `${args.join(' ')}: ${e.message}`);
        assert.is(e.data.submodule, 'lib');
        assert.equal(snapshot(repo, false), before, `${args.join(' ')}: nothing written`);
        assert.not.ok(repo.exists('ok.txt'), 'not even the other paths');
      }
      assert.is(repo.git('submodule', 'status'), submodules, 'no refused apply changed the submodule');
    },
  );
}

// ---------------------------------------------------------------- submodules git knows of before a commit

const Uncommitted = suite<Ctx>('submodules: staged, nested, or only in the index');
Uncommitted.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n', 'a.txt': 'a\n' });
});
Uncommitted.after.each((ctx) => ctx.repo.cleanup());

Uncommitted('an uncommitted `git submodule add` is a submodule, at the commit the index records', ({ repo }) => {
  addSubmodule(repo, 'lib');
  const staged = /^160000 ([0-9a-f]{40}) 0\tlib$/m.exec(repo.git('ls-files', '-s', 'lib'))![1];
  const before = snapshot(repo);
  for (const op of [
    { operation: 'write', path: 'lib', content: 'x' },
    { operation: 'write', path: 'lib/new.txt', content: 'x' },
    { operation: 'rename', path: 'a.txt', to: 'lib/a.txt' },
  ]) {
    const r = repo.shadow(['batch', '-', '--json'], { input: ops(op) });
    assert.is(r.status, 1, JSON.stringify(op));
    const failed = r.json().results[0].error;
    assert.is(failed.code, 'SUBMODULE_PATH');
    assert.equal(failed.data.submodule, 'lib');
    assert.equal(failed.data.commit, staged);
  }
  assert.equal(snapshot(repo), before);
  const lib = ok(repo.shadow(['ls', '--json']), 'ls').entries.find((e: { name: string }) => e.name === 'lib');
  assert.equal(lib, { name: 'lib', type: 'submodule', source: 'lower', commit: staged });
});

Uncommitted('a gitlink only in the index (no checkout) is a submodule', ({ repo }) => {
  addSubmodule(repo, 'lib');
  repo.git('commit', '-q', '-m', 'add lib');
  const commit = repo.git('rev-parse', 'HEAD:lib').trim();
  // Staged by hand, with nothing in the working tree: git itself refuses to add below it.
  repo.git('update-index', '--add', '--cacheinfo', `160000,${commit},dep`);
  assert.is(repo.gitResult('add', 'dep/x.txt').status === 0 && repo.git('ls-files', 'dep/x.txt') !== '', false);
  for (const path of ['dep', 'dep/x.txt']) {
    const r = repo.shadow(['batch', '-', '--json'], { input: ops({ operation: 'write', path, content: 'x\n' }) });
    assert.is(r.status, 1, path);
    assert.equal(r.json().results[0].error.data, { path, submodule: 'dep', commit });
  }
  assert.not.ok(repo.exists('dep'));
  assert.is(repo.ref(DRAFT), undefined);
});

Uncommitted(
  'a gitlink only in the committed tree (no .gitmodules, no checkout), below a directory, is a submodule',
  ({ repo }) => {
    const commit = repo.git('rev-parse', 'HEAD').trim();
    repo.git('update-index', '--add', '--cacheinfo', `160000,${commit},vendor/dep`);
    repo.git('commit', '-q', '-m', 'a gitlink by hand');
    // The oracle: git's tree holds it as a commit entry; nothing of it is in the working tree.
    assert.is(repo.git('ls-tree', 'HEAD', 'vendor/dep'), `160000 commit ${commit}\tvendor/dep\n`);
    assert.not.ok(repo.exists('vendor'));
    for (const path of ['vendor/dep', 'vendor/dep/x.txt', 'vendor/dep/deeper/y.txt']) {
      const r = repo.shadow(['batch', '-', '--json'], { input: ops({ operation: 'write', path, content: 'x\n' }) });
      assert.is(r.status, 1, path);
      assert.equal(r.json().results[0].error.data, { path, submodule: 'vendor/dep', commit }, path);
    }
    assert.is(repo.ref(DRAFT), undefined);
    ok(
      repo.shadow(['batch', '-', '--json'], {
        input: ops({ operation: 'write', path: 'vendor/other.txt', content: 'o\n' }),
      }),
      'beside it',
    );
  },
);

Uncommitted(
  'a nested repository git does not track is refused like a submodule; a stray .git is not one, as for git',
  ({ repo }) => {
    repo.write('nested/z.txt', 'z\n');
    repo.gitResult('-C', 'nested', 'init', '-q');
    repo.write('plain/.git', '');
    // The oracle: git adds nothing below the nested repository, and adds below a stray .git.
    repo.write('plain/f0.txt', 'f0\n');
    repo.git('add', 'nested/z.txt', 'plain/f0.txt');
    assert.is(repo.git('ls-files', 'nested', 'plain'), 'plain/f0.txt\n');
    repo.git('reset', '-q');

    const r = repo.shadow(['batch', '-', '--json'], {
      input: ops({ operation: 'write', path: 'nested/new.txt', content: 'x\n' }),
    });
    assert.is(r.status, 1);
    assert.equal(r.json().results[0].error.data, { path: 'nested/new.txt', submodule: 'nested', commit: null });
    assert.not.ok(repo.exists('nested/new.txt'));
    const nested = ok(repo.shadow(['ls', '--json']), 'ls').entries.find((e: { name: string }) => e.name === 'nested');
    assert.equal(nested, { name: 'nested', type: 'submodule', source: 'lower', commit: null });

    ok(
      repo.shadow(['batch', '-', '--json'], {
        input: ops({ operation: 'write', path: 'plain/f.txt', content: 'f\n' }),
      }),
      'a stray .git is no repository',
    );
    ok(repo.shadow(['apply', '--json']), 'apply');
    assert.is(repo.read('plain/f.txt'), 'f\n');
  },
);

// ---------------------------------------------------------------- the rule, on its own

const Rule = suite('submodules: submoduleOf');
Rule('names the outermost submodule at or above a path', () => {
  const subs = new Set(['lib', 'lib/inner', 'vendor/x']);
  const is = (p: string): boolean => subs.has(p);
  assert.is(submoduleOf('lib', is), 'lib');
  assert.is(submoduleOf('lib/inner/a.c', is), 'lib');
  assert.is(submoduleOf('vendor/x/y/z', is), 'vendor/x');
  assert.is(submoduleOf('vendor/xy', is), undefined);
  assert.is(submoduleOf('libs/a', is), undefined);
});

Committed.run();
Older.run();
Uncommitted.run();
Rule.run();
