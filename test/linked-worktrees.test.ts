import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DiskRepo, type CliResult, treeHashes } from './helpers/disk-repo.js';

/*
 * A draft belongs to the worktree it was made in (`git worktree add`): every
 * command that writes a working tree refuses it from another worktree before
 * writing anything, and a journal left by a crash in one worktree is
 * replayed only there, although journals live in the shared common dir.
 */

const WORKER = fileURLToPath(new URL('./helpers/apply-worker.js', import.meta.url));
const DRAFT_OPS = JSON.stringify({
  intent: 'change both',
  operations: [
    { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello from B' },
    { operation: 'write', path: 'new.txt', content: 'new in B\n' },
  ],
});

interface Ctx {
  repo: DiskRepo;
  /** The linked worktree's directory. */
  b: string;
}

function journals(repo: DiskRepo): string[] {
  try {
    return fs.readdirSync(repo.path('.git/shadow/journal')).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
}

function ok(r: CliResult, what: string): any {
  assert.is(r.status, 0, `${what}: exit ${r.status}\n${r.stdout}${r.stderr}`);
  return r.json();
}

function refused(r: CliResult, command: string, b: string): void {
  assert.is(r.status, 1, `${command}: ${r.stdout}${r.stderr}`);
  const e = r.json().error;
  assert.is(e.code, 'DRAFT_WORKTREE_MISMATCH', r.stdout);
  assert.ok(e.message.includes(b), `the message names the worktree: ${e.message}`);
  assert.ok(e.hint.includes(`\`${command}\` in ${b}`), `the hint says to run ${command} there: ${e.hint}`);
  assert.is(e.data.worktree, b);
}

const W = suite<Ctx>('linked worktrees');
W.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n', 'a.txt': 'a\n' });
  ctx.b = fs.realpathSync(ctx.repo.root) + '/b';
  ctx.repo.git('worktree', 'add', '-q', ctx.b, '-b', 'feature');
});
W.after.each((ctx) => ctx.repo.cleanup());

W(
  'a draft of worktree B: apply (every mode, dry run too) and unapply from A are refused, A keeps its bytes; in B both work',
  ({ repo, b }) => {
    ok(repo.shadow(['batch', '-', '--json'], { cwd: b, input: DRAFT_OPS }), 'batch in B');
    const a = treeHashes(repo.dir);
    const inB = treeHashes(b);
    const head = repo.ref('main');
    const index = fs.readFileSync(repo.path('.git/index'));
    for (const args of [['apply'], ['apply', '--dry-run'], ['apply', '--commit'], ['apply', '--squash', '-m', 'all']]) {
      refused(
        repo.shadow([...args, '--json']),
        args.includes('--dry-run') ? 'shadow apply --dry-run' : 'shadow apply',
        b,
      );
      assert.equal(treeHashes(repo.dir), a, `${args.join(' ')}: A is unchanged`);
      assert.equal(treeHashes(b), inB, `${args.join(' ')}: B is unchanged`);
      assert.is(repo.ref('main'), head, 'the branch stays');
      assert.ok(fs.readFileSync(repo.path('.git/index')).equals(index), "A's index stays");
      assert.equal(journals(repo), []);
    }

    const applied = ok(repo.shadow(['apply', '--json'], { cwd: b }), 'apply in B');
    assert.is(applied.applied, true);
    assert.is(fs.readFileSync(join(b, 'README.md'), 'utf8'), 'Hello from B\n');
    assert.is(fs.readFileSync(join(b, 'new.txt'), 'utf8'), 'new in B\n');
    assert.equal(treeHashes(repo.dir), a, 'A is still unchanged');

    const afterApply = treeHashes(b);
    refused(repo.shadow(['unapply', '--json']), 'shadow unapply', b);
    assert.equal(treeHashes(repo.dir), a);
    assert.equal(treeHashes(b), afterApply, 'B keeps what apply wrote');

    ok(repo.shadow(['unapply', '--json'], { cwd: b }), 'unapply in B');
    assert.equal(treeHashes(b), inB, 'B is back as it was');
    assert.equal(treeHashes(repo.dir), a);
  },
);

W(
  "worktree add (materialize) from A of a draft of B is refused: its view would lay B's draft over A's files",
  ({ repo, b }) => {
    ok(repo.shadow(['batch', '-', '--json'], { cwd: b, input: DRAFT_OPS }), 'batch in B');
    const target = join(repo.root, 'view');
    refused(repo.shadow(['worktree', 'add', target, '--json']), 'shadow worktree add', b);
    assert.is(fs.existsSync(target), false, 'nothing was made');
  },
);

W(
  "a journal a crash left in B is replayed only in B: commands in A leave it and A's files alone, and A may apply its own draft",
  ({ repo, b }) => {
    ok(repo.shadow(['batch', '-', '--json'], { cwd: b, input: DRAFT_OPS }), 'batch in B');
    const inB = treeHashes(b);
    // Killed at its first rename into B: one path new, the other old, the journal left.
    const killed = spawnSync(process.execPath, [WORKER, b, 'apply', 'rename:1'], {
      cwd: b,
      env: repo.env,
      encoding: 'utf8',
    });
    assert.is(killed.signal, 'SIGKILL', `the worker was killed: ${killed.stdout}${killed.stderr}`);
    assert.is(journals(repo).length, 1, 'the journal is left');
    const torn = treeHashes(b);
    assert.not.equal(torn, inB, 'the crash came after a write in B');

    // A itself has the README.md and no new.txt: a replay here would show.
    const a = treeHashes(repo.dir);
    ok(repo.shadow(['status', '--json']), 'status in A');
    const r = ok(repo.shadow(['recover', '--json']), 'recover in A');
    assert.equal(r.finished, []);
    assert.equal(
      r.elsewhere.map((e: any) => [e.draft, e.worktree]),
      [['default', b]],
    );
    assert.match(repo.shadow(['recover']).stdout, new RegExp(`run \`shadow recover\` there`));
    assert.equal(treeHashes(repo.dir), a, 'A is unchanged');
    assert.equal(treeHashes(b), torn, 'B is left for its own recovery');
    assert.is(journals(repo).length, 1);

    // B's pending apply does not hold A's own drafts back.
    ok(repo.shadow(['write', 'a.txt', '--draft', 'mine', '--json'], { input: 'A only\n' }), 'a draft of A');
    ok(repo.shadow(['apply', '--draft', 'mine', '--json']), 'apply in A');
    assert.is(repo.read('a.txt'), 'A only\n');
    assert.is(fs.readFileSync(join(b, 'a.txt'), 'utf8'), 'a\n', "B's a.txt is its own");

    const done = ok(repo.shadow(['recover', '--json'], { cwd: b }), 'recover in B');
    assert.is(done.finished.length, 1);
    assert.equal(journals(repo), []);
    assert.is(fs.readFileSync(join(b, 'README.md'), 'utf8'), 'Hello from B\n');
    assert.is(fs.readFileSync(join(b, 'new.txt'), 'utf8'), 'new in B\n');
    assert.is(repo.exists('new.txt'), false, 'nothing of B reached A');
  },
);

W.run();
