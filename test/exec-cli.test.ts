import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { MARKER } from '../src/index.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';
import { beside, cli, FILES, makeRepo, open, REF } from './helpers/worktree-repo.js';
import { snapshotTree, treeHash } from './helpers/dir-snapshot.js';
import { batches, fsck, nameStatus } from './helpers/draft-commits.js';

/*
 * `shadow exec`: a command run in a materialized view of the draft, its
 * changes recorded; the real working tree is compared path by path
 * (content, mode, inode, mtime) before and after.
 */

// ---------------------------------------------------------------- exec (CLI)

const Exec = suite<{ repo: DiskRepo; tmp: string }>('shadow exec');
Exec.before.each((ctx) => {
  ctx.repo = makeRepo();
  ctx.tmp = join(ctx.repo.root, 'tmp');
  fs.mkdirSync(ctx.tmp);
});
Exec.after.each((ctx) => ctx.repo.cleanup());

/** A formatter: double quotes to single in every .js file under the current directory, rewriting only what changes. */
const FORMATTER = `
const fs = require('fs'), path = require('path');
const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
  const p = path.join(d, e.name);
  if (e.isDirectory() && e.name !== 'node_modules') walk(p);
  else if (e.isFile() && p.endsWith('.js')) { const s = fs.readFileSync(p, 'utf8'); const t = s.replace(/"/g, "'"); if (t !== s) fs.writeFileSync(p, t); }
} };
walk('.');
`;

Exec(
  'exec --record with a formatter: its rewrite is one batch; the working tree is never touched; the exec worktree is kept for the next call',
  async ({ repo, tmp }) => {
    const fmt = join(repo.root, 'fmt.js');
    fs.writeFileSync(fmt, FORMATTER);
    const before = treeHash(repo.dir);
    const snap = snapshotTree(repo.dir);
    const r = cli(repo, ['exec', '--record', '--json', '--', process.execPath, fmt], { env: { TMPDIR: tmp } });
    assert.is(r.status, 0, r.stderr);
    assert.is(r.json.exit_code, 0);
    assert.ok(r.json.batch.success);
    assert.equal(r.json.changes.map((c: { path: string }) => c.path).sort(), ['src/deep/y.js', 'src/x.js']);
    const [b] = batches(repo);
    assert.is(b!.commit, r.json.batch.commit);
    assert.is(b!.subject, `exec: ${process.execPath} ${fmt}`);
    assert.equal(nameStatus(repo, b!.commit), ['M\tsrc/deep/y.js', 'M\tsrc/x.js']);
    assert.is(repo.git('show', `${REF()}:src/x.js`), "export const x = 'x';\n");
    assert.is(repo.read('src/x.js'), FILES['src/x.js']);
    assert.is(treeHash(repo.dir), before, 'the working tree is byte-identical');
    assert.equal(snapshotTree(repo.dir), snap);
    assert.equal(fs.readdirSync(tmp), [], 'nothing in the temporary directory');
    assert.is(r.json.dir, `${repo.dir}.shadow-exec/default`, 'kept beside the repository');
    assert.equal(
      cli(repo, ['worktree', 'list', '--json']).json.worktrees.map((w: { dir: string }) => w.dir),
      [r.json.dir],
    );
    fsck(repo);
  },
);

Exec(
  'exit status passes through; the command sees the draft; without --record nothing is recorded',
  async ({ repo, tmp }) => {
    const w = spawnSync(process.execPath, [SHADOW_BIN, 'edit', 'a.txt', '--old', 'alpha', '--new', 'DRAFT ALPHA'], {
      cwd: repo.dir,
      env: repo.env,
      encoding: 'utf8',
    });
    assert.is(w.status, 0, w.stderr);
    const tip = repo.ref(REF());
    const r = cli(
      repo,
      [
        'exec',
        '--',
        process.execPath,
        '-e',
        "process.stdout.write(require('fs').readFileSync('a.txt', 'utf8')); require('fs').writeFileSync('scratch.txt', 'x'); process.exit(7)",
      ],
      { env: { TMPDIR: tmp } },
    );
    assert.is(r.status, 7);
    assert.is(r.stdout, 'DRAFT ALPHA\n');
    assert.is(repo.ref(REF()), tip, 'nothing recorded');
    assert.equal(fs.readdirSync(tmp), []);
    assert.not.ok(repo.exists('scratch.txt'));
    // A command that cannot start: the shell's 127, a clear error, no temporary worktree left.
    const missing = cli(repo, ['exec', '--json', '--', 'shadow-no-such-command-xyz'], { env: { TMPDIR: tmp } });
    assert.is(missing.status, 127, missing.stderr);
    assert.match(missing.stderr + missing.stdout, /NOT_FOUND|command not found: shadow-no-such-command-xyz/);
    assert.not.match(missing.stderr, /internal error|\n\s+at /);
    assert.equal(fs.readdirSync(tmp), []);
  },
);

Exec(
  'run from a directory the view does not hold (ignored, or empty): the command runs in its nearest parent there',
  async ({ repo, tmp }) => {
    fs.mkdirSync(repo.path('node_modules/pkg/deep'), { recursive: true });
    const r = cli(
      repo,
      [
        'exec',
        '--',
        process.execPath,
        '-e',
        'console.log(require("path").relative(process.env.SHADOW_WORKTREE, process.cwd()))',
      ],
      { cwd: repo.path('node_modules/pkg/deep'), env: { TMPDIR: tmp } },
    );
    assert.is(r.status, 0, r.stderr);
    assert.is(r.stdout.trim(), '', 'the root of the view (node_modules is ignored)');
    fs.mkdirSync(repo.path('src/empty'));
    const s = cli(
      repo,
      [
        'exec',
        '--',
        process.execPath,
        '-e',
        'console.log(require("path").relative(process.env.SHADOW_WORKTREE, process.cwd()))',
      ],
      { cwd: repo.path('src/empty'), env: { TMPDIR: tmp } },
    );
    assert.is(s.status, 0, s.stderr);
    assert.is(s.stdout.trim(), 'src');
  },
);

Exec(
  'a command that exits non-zero: --record still records and says so; --record-on-success does not record',
  async ({ repo, tmp }) => {
    const script = "require('fs').writeFileSync('made.txt', 'made\\n'); process.exit(3)";
    const before = treeHash(repo.dir);
    const r1 = cli(repo, ['exec', '--record-on-success', '--', process.execPath, '-e', script], {
      env: { TMPDIR: tmp },
    });
    assert.is(r1.status, 3);
    assert.match(r1.stderr, /nothing recorded/);
    assert.is(repo.ref(REF()), undefined, 'no batch');
    const r2 = cli(repo, ['exec', '--record', '--', process.execPath, '-e', script], { env: { TMPDIR: tmp } });
    assert.is(r2.status, 3);
    assert.match(r2.stdout + r2.stderr, /exited 3/);
    assert.match(r2.stdout + r2.stderr, /recorded/);
    assert.is(repo.git('show', `${REF()}:made.txt`), 'made\n');
    const r3 = cli(
      repo,
      ['exec', '--record', '--json', '--', process.execPath, '-e', script.replace('made.txt', 'made2.txt')],
      { env: { TMPDIR: tmp } },
    );
    assert.is(r3.status, 3);
    assert.is(r3.json.exit_code, 3);
    assert.ok(r3.json.batch.success);
    const r4 = cli(
      repo,
      ['exec', '--record-on-success', '--', process.execPath, '-e', "require('fs').writeFileSync('ok.txt', 'ok\\n')"],
      { env: { TMPDIR: tmp } },
    );
    assert.is(r4.status, 0, r4.stderr);
    assert.is(repo.git('show', `${REF()}:ok.txt`), 'ok\n');
    assert.is(batches(repo).length, 3);
    assert.is(treeHash(repo.dir), before);
    assert.equal(fs.readdirSync(tmp), []);
  },
);

Exec(
  'exec --worktree <dir> runs there (synced first); from a subdirectory, in the same subdirectory of the view; --keep keeps',
  async ({ repo, tmp }) => {
    const sh = await open(repo);
    try {
      const wt = beside(repo);
      await sh.worktrees.add(wt);
      assert.ok((await sh.write('src/from-draft.txt', 'draft\n')).success);
      const where =
        "console.log(JSON.stringify({ cwd: process.cwd(), wt: process.env.SHADOW_WORKTREE, seen: require('fs').existsSync('from-draft.txt') })); require('fs').writeFileSync('by-exec.txt', 'x\\n')";
      const r = cli(repo, ['exec', '--record', '--worktree', wt, '--', process.execPath, '-e', where], {
        cwd: repo.path('src'),
        env: { TMPDIR: tmp },
      });
      assert.is(r.status, 0, r.stderr);
      const seen = JSON.parse(r.stdout.split('\n')[0]!);
      assert.equal(seen, { cwd: join(wt, 'src'), wt, seen: true });
      assert.is(repo.git('show', `${REF()}:src/by-exec.txt`), 'x\n');
      assert.ok(fs.existsSync(join(wt, 'src/by-exec.txt')), 'the given worktree stays');
      assert.equal(fs.readdirSync(tmp), []);

      const k = cli(
        repo,
        ['exec', '--keep', '--', process.execPath, '-e', 'console.log(process.env.SHADOW_WORKTREE)'],
        { env: { TMPDIR: tmp } },
      );
      assert.is(k.status, 0, k.stderr);
      const kept = k.stdout.trim();
      assert.ok(kept === `${repo.dir}.shadow-exec/default` && fs.existsSync(join(kept, MARKER)), `kept: ${kept}`);
      assert.match(k.stderr, /stays/);
      assert.is((await sh.worktrees.list()).length, 2);
      const none = cli(repo, ['exec', '--json']);
      assert.is(none.status, 2);
      assert.is(none.json.error.code, 'USAGE');
    } finally {
      sh.close();
    }
  },
);

Exec(
  'exec from inside a worktree named like the repository (../repo-draft, as the hint suggests) runs in the view',
  async ({ repo, tmp }) => {
    const sh = await open(repo);
    try {
      // repo.dir is <root>/repo: a worktree at <root>/repo-draft has the repository's path as a prefix.
      const wt = beside(repo, 'repo-draft');
      await sh.worktrees.add(wt);
      const r = cli(
        repo,
        [
          'exec',
          '--',
          process.execPath,
          '-e',
          'console.log(process.cwd() === process.env.SHADOW_WORKTREE || process.cwd())',
        ],
        { cwd: join(wt, 'src'), env: { TMPDIR: tmp } },
      );
      assert.is(r.status, 0, `exit ${r.status}: ${r.stdout}${r.stderr}`);
      const cwd = r.stdout.trim();
      assert.ok(
        cwd === 'true' || cwd.startsWith(`${repo.dir}.shadow-exec/`),
        `the command ran in ${cwd}, outside the exec view`,
      );
    } finally {
      sh.close();
    }
  },
);

Exec.run();
