import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import type { FileOperation } from '../src/index.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { failsJson, ok } from './helpers/cli-repo.js';
import { snapshotTree } from './helpers/dir-snapshot.js';

/*
 * A partial apply (`shadow apply <pathspec>…`) that names a path a rebase or
 * a revert left in conflict: the conflict is refused (UNRESOLVED_CONFLICT)
 * however the path is named (literally, by a glob, from a subdirectory,
 * beside a clean path), and nothing is written: the working tree (bytes,
 * modes, inodes), the index and every ref are as they were. One real
 * repository holds both drafts.
 */

const lines = (n: number, tag = 'line'): string => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}\n`).join('');
const withLine = (text: string, n: number, line: string): string =>
  text
    .split('\n')
    .map((l, i) => (i === n - 1 ? line : l))
    .join('\n');

/** Everything a write could have touched: the working tree, the index's bytes, every ref and HEAD. */
function state(repo: DiskRepo): { tree: Record<string, string>; index: string; refs: string; head: string } {
  return {
    tree: snapshotTree(repo.dir),
    index: readFileSync(repo.path('.git/index')).toString('base64'),
    refs: repo.git('for-each-ref', '--format=%(refname) %(objectname)'),
    head: repo.git('symbolic-ref', 'HEAD') + repo.git('rev-parse', 'HEAD'),
  };
}

async function batch(repo: DiskRepo, draft: string, operations: FileOperation[]): Promise<void> {
  await withShadow(repo, async (sh) => {
    const r = await sh.batch({ intent: 'work', operations }, { draft });
    assert.ok(r.success, JSON.stringify(r.error));
  });
}

const repo = new DiskRepo({ 'sub/g.txt': lines(10), 'r.txt': lines(6, 'r'), 'README.md': 'Hello\n' });
const PERSON_G = withLine(lines(10), 5, 'five by the person');

const test = suite('apply <path> of a path in conflict');

test.before(async () => {
  // Draft "rebased": g.txt's line 5 by the draft and by the person, rebased onto the working tree.
  await batch(repo, 'rebased', [
    { operation: 'write', path: 'sub/g.txt', content: withLine(lines(10), 5, 'five by the draft') },
    { operation: 'write', path: 'sub/new.txt', content: 'new\n' },
  ]);
  repo.write('sub/g.txt', PERSON_G);
  const rebased = ok(repo.shadow(['rebase', '--draft', 'rebased', '--json']), 'rebase');
  assert.equal(rebased.conflicts, [{ path: 'sub/g.txt', reason: 'overlap' }]);
  // Draft "reverted": batch 2 rewrites batch 1's line of r.txt, so reverting batch 1 conflicts.
  await batch(repo, 'reverted', [
    { operation: 'write', path: 'r.txt', content: withLine(lines(6, 'r'), 3, 'r three') },
    { operation: 'write', path: 'clean.txt', content: 'clean\n' },
  ]);
  await batch(repo, 'reverted', [
    { operation: 'write', path: 'r.txt', content: withLine(lines(6, 'r'), 3, 'r THREE') },
  ]);
  const reverted = ok(repo.shadow(['revert', '1', '--draft', 'reverted', '--json']), 'revert');
  assert.equal(reverted.conflicts, [{ path: 'r.txt', reason: 'overlap' }]);
});
test.after(() => repo.cleanup());

const CASES: Array<{ name: string; draft: string; args: string[]; cwd?: string; conflicted: string[] }> = [
  { name: 'the rebased path, named from the root', draft: 'rebased', args: ['sub/g.txt'], conflicted: ['sub/g.txt'] },
  {
    name: 'the rebased path, named from its directory',
    draft: 'rebased',
    args: ['g.txt'],
    cwd: 'sub',
    conflicted: ['sub/g.txt'],
  },
  {
    name: "the rebased path's directory, with a clean path in it",
    draft: 'rebased',
    args: ['sub'],
    conflicted: ['sub/g.txt'],
  },
  { name: 'a glob over the rebased path', draft: 'rebased', args: ['sub/*.txt'], conflicted: ['sub/g.txt'] },
  {
    name: 'the reverted path beside a clean one',
    draft: 'reverted',
    args: ['clean.txt', 'r.txt'],
    conflicted: ['r.txt'],
  },
  {
    name: 'the reverted path, with --conflict=markers',
    draft: 'reverted',
    args: ['r.txt', '--conflict=markers'],
    conflicted: ['r.txt'],
  },
];

for (const c of CASES) {
  test(`${c.name}: UNRESOLVED_CONFLICT naming it, and the working tree, the index and the refs are byte for byte as before`, () => {
    const before = state(repo);
    const r = repo.shadow(['apply', ...c.args, '--draft', c.draft, '--json'], {
      cwd: c.cwd ? repo.path(c.cwd) : repo.dir,
    });
    const error = failsJson(r, 'UNRESOLVED_CONFLICT', c.name);
    assert.equal(error.data.paths, c.conflicted);
    assert.equal(state(repo), before);
    assert.is(repo.read('sub/g.txt'), PERSON_G);
  });
}

test('a partial apply of the other paths goes on, and the conflicted one is still refused after it', () => {
  ok(repo.shadow(['apply', 'sub/new.txt', '--draft', 'rebased', '--json']), 'apply sub/new.txt');
  assert.is(repo.read('sub/new.txt'), 'new\n');
  const before = state(repo);
  failsJson(
    repo.shadow(['apply', 'sub/g.txt', '--draft', 'rebased', '--json']),
    'UNRESOLVED_CONFLICT',
    'after the partial apply',
  );
  assert.equal(state(repo), before);
});

test.run();
