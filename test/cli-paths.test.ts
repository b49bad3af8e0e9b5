import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DiskRepo, type CliResult } from './helpers/disk-repo.js';

/**
 * Paths typed on the command line are relative to the current directory
 * (after -C), as git's pathspecs are; results name repository paths. Native
 * git, run from the same directory, is the oracle for which path a typed
 * path names.
 */

const DRAFT = 'refs/shadow/drafts/default';

type Ctx = { repo: DiskRepo };

function fresh(ctx: Ctx): void {
  ctx.repo = new DiskRepo({
    'README.md': 'Hello\n',
    'top.txt': 'top\n',
    'src/x.ts': 'x\n',
    'src/deep/k.txt': 'k\n',
    'src/deep/gone.txt': 'gone\n',
  });
}

function ok(r: CliResult, what: string): any {
  assert.is(r.status, 0, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  return r.stdout.trimStart().startsWith('{') ? r.json() : undefined;
}

function invalidPath(r: CliResult, message: RegExp, what: string): void {
  assert.is(r.status, 1, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  const e = r.json().error;
  assert.is(e.code, 'INVALID_PATH', `${what}: ${e.message}`);
  assert.match(e.message, message, what);
  assert.type(e.hint, 'string', `${what}: a hint says what to do`);
}

/** Native git run from `cwd` (relative to the repository's parent, like the shadow runs). */
function gitIn(repo: DiskRepo, cwd: string, args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync('git', args, { cwd: join(repo.root, cwd), env: repo.env, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function draftFiles(repo: DiskRepo): string[] {
  return repo.git('ls-tree', '-r', '--name-only', DRAFT).split('\n').filter(Boolean);
}

const Paths = suite<Ctx>('cli paths: relative to the current directory, like git pathspecs');
Paths.before.each(fresh);
Paths.after.each((ctx) => ctx.repo.cleanup());

Paths(
  'write names the path `git add` names from the same directory: ./, ../, :/, :(top), a bare colon, absolute, -C',
  ({ repo }) => {
    const abs = repo.dir;
    // cwd is relative to repo.root; `C` is passed as -C to both shadow and git.
    const cases: Array<{ cwd: string; C?: string; spec: string }> = [
      { cwd: 'repo/src/deep', spec: 'new.txt' },
      { cwd: 'repo/src/deep', spec: './dot.txt' },
      { cwd: 'repo/src/deep', spec: '../up.txt' },
      { cwd: 'repo/src/deep', spec: '../../root.txt' },
      { cwd: 'repo/src/deep', spec: 'sub/../via.txt' },
      { cwd: 'repo/src/deep', spec: 'made/dir/n.txt' },
      { cwd: 'repo/src/deep', spec: ':/magic.txt' },
      { cwd: 'repo/src/deep', spec: ':(top)src/long.txt' },
      { cwd: 'repo/src/deep', spec: ':plain.txt' },
      { cwd: 'repo/src/deep', spec: `${abs}/src/abs.txt` },
      { cwd: 'repo', C: 'src/deep', spec: 'c.txt' },
      { cwd: '.', C: 'repo/src', spec: '../cc.txt' },
    ];
    const named: string[] = [];
    for (const [i, c] of cases.entries()) {
      const r = repo.shadow([...(c.C ? ['-C', c.C] : []), 'write', c.spec, '--json'], {
        cwd: join(repo.root, c.cwd),
        input: `content ${i}\n`,
      });
      const doc = ok(r, `write ${c.spec} from ${c.cwd}`);
      const path = doc.results[0].path as string;
      assert.is(doc.results[0].status, 'created', c.spec);
      assert.is(repo.git('show', `${DRAFT}:${path}`), `content ${i}\n`, `${c.spec}: the draft holds it at ${path}`);
      named.push(path);
    }
    ok(repo.shadow(['apply', '--json']), 'apply');
    // git resolves each typed path by itself: what it stages is the path shadow wrote.
    const staged = new Set<string>();
    for (const [i, c] of cases.entries()) {
      const add = gitIn(repo, c.cwd, [...(c.C ? ['-C', c.C] : []), 'add', '--', c.spec]);
      assert.is(add.status, 0, `git add ${c.spec} from ${c.cwd}: ${add.stderr}`);
      const now = repo.git('diff', '--cached', '--name-only').split('\n').filter(Boolean);
      const added = now.filter((p) => !staged.has(p));
      for (const p of now) staged.add(p);
      assert.equal(added, [named[i]], `${c.spec} from ${c.cwd}${c.C ? ` -C ${c.C}` : ''}`);
    }
    assert.equal(named, [
      'src/deep/new.txt',
      'src/deep/dot.txt',
      'src/up.txt',
      'root.txt',
      'src/deep/via.txt',
      'src/deep/made/dir/n.txt',
      'magic.txt',
      'src/long.txt',
      'src/deep/plain.txt',
      'src/abs.txt',
      'src/deep/c.txt',
      'cc.txt',
    ]);
  },
);

Paths(
  'a path that leaves the repository is refused (INVALID_PATH), as git refuses it, and nothing is written',
  ({ repo }) => {
    const deep = 'repo/src/deep';
    const outside = [
      ['write', '../../../x.txt'],
      ['write', join(repo.root, 'elsewhere.txt')],
      ['write', ':/../x.txt'],
      ['mv', 'k.txt', '../../../k.txt'],
      ['rm', 'k.txt', '../../../README.md'],
    ];
    for (const args of outside) {
      const r = repo.shadow([...args, '--json'], { cwd: join(repo.root, deep), input: 'x\n' });
      invalidPath(r, /is outside the repository at /, args.join(' '));
      const typed = args[args.length - 1]!;
      const git = gitIn(repo, deep, ['add', '--', typed]);
      assert.is(git.status, 128, `git add ${typed} refuses it too`);
      if (!typed.startsWith(':')) assert.match(git.stderr, /outside repository/);
    }
    const text = repo.shadow(['edit', '../../../k.txt', '--old', 'k', '--new', 'K'], { cwd: repo.path('src/deep') });
    assert.is(text.status, 1);
    assert.match(text.stderr, /^error: "\.\.\/\.\.\/\.\.\/k\.txt" is outside the repository at .*\nhint: /m);
    assert.is(repo.ref(DRAFT), undefined, 'no draft was created');
    assert.is(repo.git('status', '--porcelain'), '', 'the working tree is untouched');
  },
);

Paths(
  'edit, cat, mv, rm and ls from a subdirectory: paths in are relative, paths out are repository paths',
  ({ repo }) => {
    const deep = { cwd: repo.path('src/deep') };
    const e = ok(repo.shadow(['edit', 'k.txt', '--old', 'k', '--new', 'K', '--json'], deep), 'edit k.txt');
    assert.equal(
      e.results.map((r: any) => [r.path, r.status]),
      [['src/deep/k.txt', 'updated']],
    );
    assert.is(repo.git('show', `${DRAFT}:src/deep/k.txt`), 'K\n');
    const text = repo.shadow(['edit', './k.txt', '--old', 'K', '--new', 'KK'], deep);
    assert.is(text.status, 0, text.stderr);
    assert.match(text.stdout, /^ {2}updated +src\/deep\/k\.txt$/m, 'the text output names the repository path');

    assert.is(repo.shadow(['cat', 'k.txt'], deep).stdout, 'KK\n');
    assert.is(repo.shadow(['cat', '../x.ts'], deep).stdout, 'x\n');
    assert.is(ok(repo.shadow(['cat', '../x.ts', '--json'], deep), 'cat --json').path, 'src/x.ts');

    const m = ok(repo.shadow(['mv', 'k.txt', '../k2.txt', '--json'], deep), 'mv');
    assert.equal(
      [m.results[0].path, m.results[0].to, m.results[0].status],
      ['src/deep/k.txt', 'src/k2.txt', 'renamed'],
    );
    const d = ok(repo.shadow(['rm', 'gone.txt', ':/top.txt', '--json'], deep), 'rm');
    assert.equal(
      d.results.map((r: any) => [r.path, r.status]),
      [
        ['src/deep/gone.txt', 'deleted'],
        ['top.txt', 'deleted'],
      ],
    );
    assert.equal(draftFiles(repo), ['README.md', 'src/k2.txt', 'src/x.ts']);

    const here = ok(repo.shadow(['ls', '--json'], { cwd: repo.path('src') }), 'ls');
    assert.is(here.dir, 'src');
    assert.equal(
      here.entries.filter((x: any) => x.type === 'file').map((x: any) => x.name),
      ['k2.txt', 'x.ts'],
    );
    assert.is(ok(repo.shadow(['ls', '..', '--json'], { cwd: repo.path('src') }), 'ls ..').dir, '');
    const root = ok(repo.shadow(['ls', ':/', '--json'], deep), 'ls :/');
    assert.is(root.dir, '');
    assert.equal(
      root.entries.map((x: any) => x.name),
      ['README.md', 'src'],
    );
  },
);

Paths('batch JSON from a subdirectory keeps repository paths', ({ repo }) => {
  const ops = JSON.stringify({ operations: [{ operation: 'write', path: 'from-batch.txt', content: 'b\n' }] });
  const b = ok(repo.shadow(['batch', '-', '--json'], { cwd: repo.path('src/deep'), input: ops }), 'batch');
  assert.is(b.results[0].path, 'from-batch.txt');
  assert.is(repo.git('show', `${DRAFT}:from-batch.txt`), 'b\n');
});

Paths('session begin --target is relative to the current directory', ({ repo }) => {
  const deep = { cwd: repo.path('src/deep') };
  const begun = ok(
    repo.shadow(['session', 'begin', '--target', '../guide.md', '--op', 'create', '--json'], deep),
    'begin',
  );
  const text = repo.shadow(['session', 'status', begun.session_id, '--json'], deep);
  assert.is(ok(text, 'status').target_file, 'src/guide.md');
  const f = ok(repo.shadow(['session', 'feed', begun.session_id, '--json'], { ...deep, input: '# Guide\n' }), 'feed');
  assert.is(f.results[0].path, 'src/guide.md');
  assert.is(repo.git('show', `${DRAFT}:src/guide.md`), '# Guide\n');
  invalidPath(
    repo.shadow(['session', 'begin', '--target', '../../../g.md', '--op', 'create', '--json'], deep),
    /outside the repository/,
    'begin outside',
  );
});

Paths(
  'inside the git directory a relative path is refused (git add refuses to run there); :/ names the path',
  ({ repo }) => {
    const inGit = { cwd: repo.path('.git/refs') };
    invalidPath(repo.shadow(['cat', 'README.md', '--json'], inGit), /inside the git directory/, 'cat from .git/refs');
    assert.match(gitIn(repo, 'repo/.git/refs', ['add', 'README.md']).stderr, /must be run in a work tree/);
    assert.is(repo.shadow(['cat', ':/README.md'], inGit).stdout, 'Hello\n');
    assert.is(
      repo.shadow(['cat', repo.path('src/x.ts')], inGit).stdout,
      'x\n',
      'an absolute path inside the working tree',
    );
  },
);

Paths('inside a materialized worktree, paths are relative to where the command stands in it', ({ repo }) => {
  ok(repo.shadow(['worktree', 'add', '../wt', '--json']), 'worktree add');
  const inWt = { cwd: join(repo.root, 'wt/src/deep') };
  const w = ok(repo.shadow(['write', '../w.txt', '--json'], { ...inWt, input: 'w\n' }), 'write in the worktree');
  assert.is(w.results[0].path, 'src/w.txt');
  assert.is(repo.git('show', `${DRAFT}:src/w.txt`), 'w\n');
  assert.is(repo.shadow(['cat', 'k.txt'], inWt).stdout, 'k\n');
  assert.is(repo.shadow(['cat', join(repo.root, 'wt/top.txt')], inWt).stdout, 'top\n');
});

Paths('in a bare repository paths are from the root, wherever the command stands in it', ({ repo }) => {
  const bare = join(repo.root, 'bare.git');
  repo.git('clone', '-q', '--bare', repo.dir, bare);
  assert.is(repo.shadow(['cat', 'src/x.ts'], { cwd: join(bare, 'refs') }).stdout, 'x\n');
  assert.is(gitIn(repo, 'bare.git/refs', ['show', 'HEAD:src/x.ts']).stdout, 'x\n');
});

Paths.run();
