/**
 * The ids of `shadow diff`'s `index` lines are as long as git's, byte for
 * byte against `git diff` on the same repository: 7 hex digits up to
 * 16,383 packed objects and 8 from 16,384 (git's length grows with the
 * number of packed objects, loose ones not counted), longer where another
 * object shares the prefix (loose or packed), `core.abbrev` (a number, `no`,
 * `auto`; a bad one refused as git refuses it), `--abbrev=<n>` and
 * `--full-index`. The abbreviation itself against made-up ids, on no disk.
 */
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { abbreviator, autoAbbrev, configuredAbbrev } from '../src/git/abbrev.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { both, DRAFT, sameAsGit } from './helpers/diff-as-git.js';

// ---------------------------------------------------------------- the rules, on no disk

const Rules = suite('abbreviation rules');

Rules("git's length for a repository's size: 7 to 16,383 packed objects, then a digit more each 4x", () => {
  assert.equal(
    [0, 1, 8191, 16383, 16384, 65535, 65536, 262144, 1 << 30].map(autoAbbrev),
    [7, 7, 7, 7, 8, 8, 9, 10, 16],
  );
});

Rules('core.abbrev: auto or unset, 4 to 40, a false word for whole ids; anything else refused', () => {
  assert.is(configuredAbbrev(undefined), 'auto');
  assert.is(configuredAbbrev('AUTO'), 'auto');
  assert.is(configuredAbbrev('12'), 12);
  for (const whole of ['no', 'false', 'off', '']) assert.is(configuredAbbrev(whole), 40, whole);
  for (const bad of ['3', '41', 'x', 'true', '1k']) {
    try {
      configuredAbbrev(bad);
      assert.unreachable(bad);
    } catch (e) {
      assert.is((e as { code?: string }).code, 'INVALID_ARGUMENT', bad);
      assert.match((e as Error).message, 'out of range', bad);
    }
  }
});

Rules(
  'an id grows past every other id that shares its prefix, packed (either neighbour) or loose; itself is no other',
  () => {
    const id = 'abcdef0123456789abcdef0123456789abcdef01';
    const sorted = (ids: string[]): Buffer => Buffer.concat(ids.sort().map((x) => Buffer.from(x, 'hex')));
    const source = (packed: string[][], loose: string[] = []) => ({
      idsStartingWith: (first: number) => ({
        packed: packed.map((p) => sorted(p.filter((x) => parseInt(x.slice(0, 2), 16) === first))),
        loose: loose.filter((x) => parseInt(x.slice(0, 2), 16) === first),
      }),
    });
    assert.is(abbreviator(source([[id]], [id]), 7)(id), 'abcdef0', 'only itself');
    // Shares 9 digits with the id after it, 11 with the one before it (in another pack).
    const after = 'abcdef012f' + '0'.repeat(30);
    const before = 'abcdef01234' + '0'.repeat(29);
    assert.is(abbreviator(source([[id, after]]), 7)(id), 'abcdef0123');
    assert.is(abbreviator(source([[id, after], [before]]), 7)(id), 'abcdef012345');
    // An id no object has (a submodule's commit) is placed between its neighbours all the same.
    assert.is(abbreviator(source([[after, before]]), 7)(id), 'abcdef012345');
    assert.is(abbreviator(source([], ['abcdef0123456' + '0'.repeat(27)]), 7)(id), 'abcdef01234567');
    assert.is(abbreviator(source([[id]]), 40)(id), id);
    assert.is(abbreviator(source([[id]]), 12)(id), 'abcdef012345');
  },
);

Rules.run();

// ---------------------------------------------------------------- against git

const Git = suite<{ repo: DiskRepo }>('index lines abbreviated as git diff abbreviates them');

Git.before.each(async (ctx) => {
  ctx.repo = new DiskRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  await withShadow(ctx.repo, async (sh) => {
    const r = await sh.batch({
      operations: [
        { operation: 'write', path: 'a.txt', content: 'a2\n' },
        { operation: 'write', path: 'c.txt', content: 'c\n' },
      ],
    });
    assert.ok(r.success, JSON.stringify(r.error));
  });
});

Git.after.each(({ repo }) => repo.cleanup());

/** `count` made-up blobs in one pack of their own, by git fast-import (which writes fewer than 100 loose, unless told). */
function packBlobs(repo: DiskRepo, count: number, tag: string): void {
  let stream = '';
  for (let i = 0; i < count; i++) {
    const data = `${tag} ${i}\n`;
    stream += `blob\ndata ${Buffer.byteLength(data)}\n${data}\n`;
  }
  const r = spawnSync('git', ['-c', 'fastimport.unpackLimit=0', 'fast-import', '--quiet'], {
    cwd: repo.dir,
    env: repo.env,
    input: stream,
  });
  assert.is(r.status, 0, String(r.stderr));
}

const packed = (repo: DiskRepo): number => Number(/in-pack: (\d+)/.exec(repo.git('count-objects', '-v'))![1]);
const indexIds = (patch: string): string[] =>
  [...patch.matchAll(/^index (\w+)\.\.(\w+)/gm)].flatMap((m) => [m[1]!, m[2]!]);

Git('7 hex digits up to 16,383 packed objects, 8 from 16,384, as git; loose objects do not count', ({ repo }) => {
  packBlobs(repo, 16383 - packed(repo), 'filler');
  assert.is(packed(repo), 16383);
  sameAsGit(repo, [[], ['-R']]);
  assert.ok(
    indexIds(both(repo, []).ours).every((id) => id.length === 7),
    both(repo, []).ours,
  );
  // Loose objects are not counted: still 7.
  repo.write('loose.txt', 'loose\n');
  repo.git('hash-object', '-w', 'loose.txt');
  sameAsGit(repo, [[]]);
  packBlobs(repo, 1, 'one more');
  assert.is(packed(repo), 16384);
  sameAsGit(repo, [[], ['-R'], ['--color=always']]);
  assert.ok(indexIds(both(repo, []).ours).every((id) => id.length === 8));
});

Git(
  "an id longer where another object shares its prefix: a submodule's commit beside a loose blob, then a packed one",
  ({ repo }) => {
    // A submodule whose commit shares ten hex digits with the blob of b.txt: git writes it with eleven.
    const blob = repo.git('rev-parse', 'HEAD:b.txt').trim();
    const flip = (c: string): string => (c === '0' ? '1' : '0');
    const commit = `${blob.slice(0, 10)}${flip(blob[10]!)}${'0'.repeat(29)}`;
    const index = join(repo.root, 'plumbing-index');
    const env = { ...repo.env, GIT_INDEX_FILE: index };
    const git = (...args: string[]): string => {
      const r = spawnSync('git', args, { cwd: repo.dir, env, encoding: 'utf8' });
      assert.is(r.status, 0, r.stderr);
      return r.stdout.trim();
    };
    git('read-tree', DRAFT);
    git('update-index', '--add', '--cacheinfo', `160000,${commit},sub`);
    repo.git('update-ref', DRAFT, git('commit-tree', git('write-tree'), '-p', DRAFT, '-m', 'a submodule'));
    sameAsGit(repo, [[], ['--abbrev=4']]);
    assert.match(both(repo, []).ours, `index 0000000..${commit.slice(0, 11)}\n`);
    // The same once every object is packed.
    repo.git('repack', '-adq');
    repo.git('prune-packed');
    sameAsGit(repo, [[]]);
    assert.match(both(repo, []).ours, `index 0000000..${commit.slice(0, 11)}\n`);
  },
);

Git(
  'core.abbrev, --abbrev=<n> and --full-index as git; a bad core.abbrev is refused with nothing printed',
  ({ repo }) => {
    sameAsGit(repo, [
      ['--abbrev=12'],
      ['--abbrev=3'],
      ['--abbrev=99'],
      ['--full-index'],
      ['--full-index', '--abbrev=5'],
      ['--abbrev=5', '--abbrev'],
    ]);
    for (const value of ['5', '12', 'no', 'auto', '40']) {
      repo.git('config', 'core.abbrev', value);
      sameAsGit(repo, [[], ['--abbrev=9']]);
    }
    repo.git('config', 'core.abbrev', '41');
    const r = repo.shadow(['diff']);
    assert.is(r.status, 1);
    assert.is(r.stdout, '');
    assert.match(r.stderr, 'abbrev length out of range');
    assert.is(repo.gitResult('diff', 'HEAD', DRAFT).status, 128, 'git refuses it too');
    // --stat prints no id: it still runs.
    assert.is(repo.shadow(['diff', '--stat']).status, 0);
    const usage = repo.shadow(['diff', '--abbrev=x']);
    assert.is(usage.status, 2);
    assert.match(usage.stderr, '--abbrev expects a number');
  },
);

Git.run();
