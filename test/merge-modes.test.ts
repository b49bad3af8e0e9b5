import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { FileOperation } from '../src/index.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';

/*
 * A change of mode on one side and of content on the other, merged at
 * apply: the file on disk carries the side's mode that changed it and the
 * merged content. Git is the oracle: the same three sides (HEAD, the
 * person's working tree, the draft's tip) merged by `git merge` (in a
 * worktree of its own) give the mode and the blob the file must hold. One real
 * repository, one apply that merges every case.
 */

const lines = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}\n`).join('');
const withLine = (text: string, n: number, line: string): string =>
  text
    .split('\n')
    .map((l, i) => (i === n - 1 ? line : l))
    .join('\n');

interface Case {
  path: string;
  /** The committed file's mode. */
  committed: 0o644 | 0o755;
  agent: FileOperation[];
  person: { line?: number; mode?: 0o644 | 0o755 };
  /** What the merge must give, spelled out beside git's answer. */
  mode: '100644' | '100755';
}

const CASES: Case[] = [
  {
    path: 'agent-x.sh',
    committed: 0o644,
    agent: [{ operation: 'chmod', path: 'agent-x.sh', mode: '100755' }],
    person: { line: 2 },
    mode: '100755',
  },
  {
    path: 'agent-x-and-lines.sh',
    committed: 0o644,
    agent: [
      {
        operation: 'write',
        path: 'agent-x-and-lines.sh',
        content: withLine(lines(12, 'agent-x-and-lines.sh'), 10, 'ten by the agent'),
      },
      { operation: 'chmod', path: 'agent-x-and-lines.sh', mode: '100755' },
    ],
    person: { line: 1 },
    mode: '100755',
  },
  {
    path: 'agent-not-x.sh',
    committed: 0o755,
    agent: [{ operation: 'chmod', path: 'agent-not-x.sh', mode: '100644' }],
    person: { line: 3 },
    mode: '100644',
  },
  {
    path: 'person-x.sh',
    committed: 0o644,
    agent: [
      { operation: 'write', path: 'person-x.sh', content: withLine(lines(12, 'person-x.sh'), 10, 'ten by the agent') },
    ],
    person: { line: 1, mode: 0o755 },
    mode: '100755',
  },
];

const original = (c: Case): string => lines(12, c.path);
const personContent = (c: Case): string =>
  c.person.line ? withLine(original(c), c.person.line, `${c.person.line} by the person`) : original(c);

/** A commit on HEAD whose tree holds `entries` (mode, blob) at their paths: one side of git's merge. */
function side(repo: DiskRepo, entries: Array<{ path: string; mode: string; oid: string }>): string {
  const env = { ...repo.env, GIT_INDEX_FILE: join(repo.root, 'oracle-index') };
  const git = (...args: string[]): string => {
    const r = spawnSync('git', args, { cwd: repo.dir, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  git('read-tree', 'HEAD');
  for (const e of entries) git('update-index', '--cacheinfo', `${e.mode},${e.oid},${e.path}`);
  return git('commit-tree', '-p', 'HEAD', '-m', 'side', git('write-tree'));
}

const entry = (repo: DiskRepo, tree: string, path: string): { mode: string; oid: string } => {
  const [mode, , oid] = repo.git('ls-tree', tree, '--', path).trim().split(/\s+/);
  return { mode: mode!, oid: oid! };
};

const repo = new DiskRepo({ 'README.md': 'Hello\n' });
const test = suite('merge of modes at apply');

test.before(async () => {
  for (const c of CASES) {
    repo.write(c.path, original(c));
    fs.chmodSync(repo.path(c.path), c.committed);
  }
  repo.git('add', '-A');
  repo.git('commit', '-qm', 'scripts');
  await withShadow(repo, async (sh) => {
    const r = await sh.batch({ intent: 'the agent', operations: CASES.flatMap((c) => c.agent) });
    assert.ok(r.success, JSON.stringify(r.error));
  });
  for (const c of CASES) {
    repo.write(c.path, personContent(c));
    if (c.person.mode) fs.chmodSync(repo.path(c.path), c.person.mode);
  }
});
test.after(() => repo.cleanup());

test('every path merges, each file has the mode and bytes git merge gives the same three sides', () => {
  // git's merge of the person's working tree and the draft's tip, on HEAD.
  const ours = side(
    repo,
    CASES.map((c) => ({
      path: c.path,
      mode: fs.statSync(repo.path(c.path)).mode & 0o100 ? '100755' : '100644',
      oid: repo.git('hash-object', '-w', c.path).trim(),
    })),
  );
  const theirs = side(
    repo,
    CASES.map((c) => ({ path: c.path, ...entry(repo, 'refs/shadow/drafts/default', c.path) })),
  );
  const wt = join(repo.root, 'oracle');
  repo.git('worktree', 'add', '-q', '--detach', wt, ours);
  const merge = spawnSync('git', ['merge', '--no-edit', '-q', theirs], { cwd: wt, env: repo.env, encoding: 'utf8' });
  assert.is(merge.status, 0, `git merges every case cleanly: ${merge.stdout}${merge.stderr}`);
  const merged = repo.git('-C', wt, 'rev-parse', 'HEAD^{tree}').trim();

  const r = repo.shadow(['apply', '--json']);
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.equal(
    r.json().paths.map((p: any) => [p.path, p.merge]),
    CASES.map((c) => [c.path, 'merged']).sort(),
  );
  for (const c of CASES) {
    const git = entry(repo, merged, c.path);
    assert.is(git.mode, c.mode, `${c.path}: git's mode`);
    // The executable bit is what git records (the rest of the mode is the umask's).
    const executable = (fs.statSync(repo.path(c.path)).mode & 0o100) !== 0;
    assert.is(executable ? '100755' : '100644', git.mode, `${c.path}: the mode on disk`);
    assert.is(
      fs.readFileSync(repo.path(c.path), 'utf8'),
      repo.git('cat-file', 'blob', git.oid),
      `${c.path}: the bytes on disk`,
    );
    assert.is(repo.git('hash-object', c.path).trim(), git.oid);
  }
  // Spelled out for the agent's chmod alone: the person's lines, the agent's mode.
  assert.is(repo.read('agent-x.sh'), personContent(CASES[0]!));
});

test.run();
