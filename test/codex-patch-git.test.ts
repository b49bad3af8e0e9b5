import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DiskRepo, treeHashes, withShadow } from './helpers/disk-repo.js';
import { patchFixtures, type PatchFixture } from './helpers/codex-patch-fixtures.js';

/*
 * The corpus of test/fixtures/codex-patch through the library on a real
 * repository, checked with native git: a patch that applies is exactly one
 * commit on the draft whose tree is the tree `git apply` makes of the same
 * change (the unified diff git itself writes between the files before and
 * after), every blob's bytes as expected and `git fsck` clean; a refused
 * patch commits nothing, on a new draft (no draft at all) or on one that
 * has batches. The working tree is never touched.
 */

const DRAFT = 'refs/shadow/drafts/default';

function git(
  repo: DiskRepo,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; input?: Buffer } = {},
): { status: number; out: Buffer; err: string } {
  const r = spawnSync('git', args, {
    cwd: options.cwd ?? repo.dir,
    env: { ...repo.env, ...options.env },
    input: options.input,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status ?? -1, out: r.stdout, err: r.stderr.toString() };
}

function writeAll(root: string, files: Record<string, Buffer>): void {
  mkdirSync(root, { recursive: true });
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), bytes);
  }
}

/** A repository whose HEAD holds the fixture's input files, byte for byte. */
function repoOf(f: PatchFixture): DiskRepo {
  const repo = new DiskRepo(null);
  writeAll(repo.dir, f.input);
  repo.git('add', '-A');
  repo.git('commit', '-q', '--allow-empty', '-m', 'input');
  return repo;
}

/** The tree git makes of HEAD with the change from the fixture's input to its expected files: `git diff --no-index`, then `git apply --cached`. */
function gitAppliedTree(repo: DiskRepo, f: PatchFixture): string {
  const scratch = join(repo.root, 'scratch');
  writeAll(join(scratch, 'a'), f.input);
  writeAll(join(scratch, 'b'), f.expected!);
  const diff = git(repo, ['diff', '--no-index', '--binary', '--no-renames', 'a', 'b'], { cwd: scratch });
  assert.ok(diff.status === 0 || diff.status === 1, `git diff --no-index: ${diff.err}`);
  const env = { GIT_INDEX_FILE: join(repo.root, 'apply-index') };
  assert.is(git(repo, ['read-tree', 'HEAD'], { env }).status, 0);
  if (diff.out.length > 0) {
    const applied = git(repo, ['apply', '--cached', '-p2', '-'], { env, input: diff.out });
    assert.is(applied.status, 0, `git apply: ${applied.err}`);
  }
  return git(repo, ['write-tree'], { env }).out.toString().trim();
}

const Corpus = suite('apply_patch op: the corpus on a real repository, held to git');

for (const f of patchFixtures()) {
  Corpus(f.name, async () => {
    const repo = repoOf(f);
    try {
      const before = treeHashes(repo.dir);
      if (f.error) {
        // On a draft that does not exist yet: refused, no draft is made.
        const r = await withShadow(repo, (sh) =>
          sh.batch({ operations: [{ operation: 'apply_patch', patch: f.patch }] }),
        );
        assert.is(r.success, false);
        assert.is(r.error!.code, f.error.code, r.error!.message);
        assert.match(r.results[0]!.error!.message, f.error.message);
        assert.is(repo.ref(DRAFT), undefined, 'a refused first batch leaves no draft');
        // On a draft with a batch: its tip stays.
        const tip = await withShadow(repo, async (sh) => (await sh.write('seed.txt', 'seed\n')).commit);
        const again = await withShadow(repo, (sh) =>
          sh.batch({ operations: [{ operation: 'apply_patch', patch: f.patch }] }),
        );
        assert.is(again.success, false);
        assert.is(repo.ref(DRAFT), tip, 'a refused batch moves nothing');
      } else {
        const r = await withShadow(repo, (sh) =>
          sh.batch({ intent: f.name, operations: [{ operation: 'apply_patch', patch: f.patch }] }),
        );
        assert.ok(r.success, `${f.name}: ${JSON.stringify(r.error)}`);
        assert.is(r.batch, 1);
        assert.is(r.captured, undefined);
        assert.is(
          git(repo, ['rev-list', '--count', `HEAD..${DRAFT}`])
            .out.toString()
            .trim(),
          '1',
          'exactly one commit',
        );
        assert.is(
          git(repo, ['rev-parse', `${DRAFT}^{tree}`])
            .out.toString()
            .trim(),
          gitAppliedTree(repo, f),
          'the tree git apply makes of the same change',
        );
        const paths = git(repo, ['ls-tree', '-r', '--name-only', '-z', DRAFT])
          .out.toString()
          .split('\0')
          .filter(Boolean);
        assert.equal(paths, Object.keys(f.expected!).sort());
        for (const [path, bytes] of Object.entries(f.expected!)) {
          const blob = git(repo, ['cat-file', 'blob', `${DRAFT}:${path}`]).out;
          assert.ok(
            blob.equals(bytes),
            `${path}: ${JSON.stringify(blob.toString())} != ${JSON.stringify(bytes.toString())}`,
          );
        }
        const fsck = git(repo, ['fsck', '--strict', '--no-dangling']);
        assert.is(fsck.status, 0, fsck.err);
      }
      assert.equal(treeHashes(repo.dir), before, 'the working tree is untouched');
    } finally {
      repo.cleanup();
    }
  });
}

const Captures = suite('apply_patch op: the working tree as the draft first sees it');

Captures(
  "the files a patch names are captured from the working tree first: it applies to the person's uncommitted text, and an add over their untracked file replaces it after capturing it",
  async () => {
    const repo = new DiskRepo({ 'a.txt': 'one\ntwo\n', 'b.txt': 'b\n' });
    try {
      repo.write('a.txt', 'one\ntwo\nthree (not committed)\n');
      repo.write('untracked.txt', 'mine\n');
      const patch = [
        '*** Begin Patch',
        '*** Update File: a.txt',
        '@@',
        ' two',
        '-three (not committed)',
        '+three',
        '*** Delete File: b.txt',
        '*** End Patch',
      ].join('\n');
      const r = await withShadow(repo, (sh) => sh.batch({ operations: [{ operation: 'apply_patch', patch }] }));
      assert.ok(r.success, JSON.stringify(r.error));
      assert.equal(r.captured, ['a.txt']);
      assert.is(
        git(repo, ['rev-list', '--count', `HEAD..${DRAFT}`])
          .out.toString()
          .trim(),
        '2',
        'the capture, then the batch',
      );
      assert.is(git(repo, ['cat-file', 'blob', `${DRAFT}:a.txt`]).out.toString(), 'one\ntwo\nthree\n');
      assert.is(git(repo, ['cat-file', '-e', `${DRAFT}:b.txt`]).status, 128);
      const add = await withShadow(repo, (sh) =>
        sh.batch({
          operations: [
            { operation: 'apply_patch', patch: '*** Begin Patch\n*** Add File: untracked.txt\n+theirs\n*** End Patch' },
          ],
        }),
      );
      // As under Codex, Add File replaces the file; the person's untracked text is captured first, so review shows it replaced.
      assert.ok(add.success, JSON.stringify(add.error));
      assert.equal(add.captured, ['untracked.txt']);
      assert.is(git(repo, ['cat-file', 'blob', `${DRAFT}~1:untracked.txt`]).out.toString(), 'mine\n');
      assert.is(git(repo, ['cat-file', 'blob', `${DRAFT}:untracked.txt`]).out.toString(), 'theirs\n');
      assert.is(repo.read('a.txt'), 'one\ntwo\nthree (not committed)\n', 'the working tree is untouched');
      assert.is(repo.read('untracked.txt'), 'mine\n');
    } finally {
      repo.cleanup();
    }
  },
);

Corpus.run();
Captures.run();
