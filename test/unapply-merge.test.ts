import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';

/*
 * `shadow unapply` on a real repository through the CLI, after the person
 * edited what the apply wrote: their lines stay and the apply's go, byte
 * for byte what `git merge-file` makes of the same three versions; a dry
 * run says so path by path; an overlap stops it (nothing written) or, with
 * --conflict=markers, is written with git's markers; a second apply
 * publishes the draft again.
 */

const lines = (n: number, f: (i: number) => string = (i) => `line ${i}`): string =>
  Array.from({ length: n }, (_, i) => `${f(i + 1)}\n`).join('');
const withLine = (text: string, n: number, line: string): string =>
  text
    .split('\n')
    .map((l, i) => (i === n - 1 ? line : l))
    .join('\n');
const ORIGINAL = lines(30);
const DRAFT = withLine(ORIGINAL, 5, 'line 5 by the agent');

function gitMergeFile(repo: DiskRepo, base: string, ours: string, theirs: string): { out: string; status: number } {
  const dir = fs.mkdtempSync(join(repo.root, 'merge-'));
  fs.writeFileSync(join(dir, 'base'), base);
  fs.writeFileSync(join(dir, 'ours'), ours);
  fs.writeFileSync(join(dir, 'theirs'), theirs);
  const r = spawnSync(
    'git',
    ['merge-file', '-p', '-L', 'working tree', '-L', 'base', '-L', 'before the apply', 'ours', 'base', 'theirs'],
    { cwd: dir, env: repo.env, encoding: 'utf8' },
  );
  return { out: r.stdout, status: r.status ?? -1 };
}

async function applied(): Promise<DiskRepo> {
  const repo = new DiskRepo({ 'f.txt': ORIGINAL, 'g.txt': 'g\n' });
  await withShadow(repo, async (sh) => {
    const r = await sh.batch({
      intent: 'agent',
      operations: [
        { operation: 'write', path: 'f.txt', content: DRAFT },
        { operation: 'write', path: 'g.txt', content: 'G\n' },
      ],
    });
    assert.ok(r.success);
    await sh.apply();
  });
  return repo;
}

const test = suite('unapply by three-way merge');

test("your later edit on other lines stays, the agent's line goes: git merge-file's bytes; --dry-run says merged first and writes nothing; apply publishes again", async () => {
  const repo = await applied();
  try {
    const mine = withLine(DRAFT, 25, 'line 25 by the person');
    repo.write('f.txt', mine);
    const dry = repo.shadow(['unapply', '--dry-run', '--json']);
    assert.is(dry.status, 0, dry.stderr);
    assert.equal(
      dry.json().paths.map((p: any) => [p.path, p.merge]),
      [
        ['f.txt', 'merged'],
        ['g.txt', 'clean'],
      ],
    );
    assert.is(repo.read('f.txt'), mine);
    const r = repo.shadow(['unapply']);
    assert.is(r.status, 0, r.stderr);
    const git = gitMergeFile(repo, DRAFT, mine, ORIGINAL);
    assert.is(git.status, 0);
    assert.is(repo.read('f.txt'), git.out);
    assert.is(repo.read('f.txt'), withLine(ORIGINAL, 25, 'line 25 by the person'));
    assert.is(repo.read('g.txt'), 'g\n');
    // Applying again merges the draft's line back in beside the person's.
    assert.is(repo.shadow(['apply']).status, 0);
    assert.is(repo.read('f.txt'), withLine(DRAFT, 25, 'line 25 by the person'));
  } finally {
    repo.cleanup();
  }
});

test("an edit of the agent's own line: CONFLICT with both sides, exit 1, nothing written; --conflict=markers writes git's markers", async () => {
  const repo = await applied();
  try {
    const mine = withLine(DRAFT, 5, 'line 5 by the person');
    repo.write('f.txt', mine);
    const dry = repo.shadow(['unapply', '--dry-run']);
    assert.is(dry.status, 1);
    assert.match(
      dry.stdout,
      /<<<<<<< working tree\n\s+line 5 by the person\n\s+=======\n\s+line 5\n\s+>>>>>>> before the apply/,
    );
    const r = repo.shadow(['unapply', '--json']);
    assert.is(r.status, 1);
    assert.is(r.json().error.code, 'CONFLICT');
    assert.match(r.json().error.hint, /shadow unapply --conflict=markers/);
    assert.is(repo.read('f.txt'), mine);
    assert.is(repo.read('g.txt'), 'G\n', 'nothing written anywhere');
    const m = repo.shadow(['unapply', '--conflict=markers']);
    assert.is(m.status, 0, m.stderr);
    assert.is(repo.read('f.txt'), gitMergeFile(repo, DRAFT, mine, ORIGINAL).out);
    assert.is(repo.read('g.txt'), 'g\n');
  } finally {
    repo.cleanup();
  }
});

test.run();
