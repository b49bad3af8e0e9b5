import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { DiskRepo, treeHashes } from './helpers/disk-repo.js';
import { BASE, draftRepo } from './helpers/hunk-corpus.js';

/*
 * `shadow apply -p` to the end: the hunks chosen are written into the
 * working tree and nothing else. git is the oracle: the same answers given
 * to `git restore -p --source=<draft>` (git's own prompt for applying a
 * commit's hunks to the working tree, reading them a line each from stdin
 * as shadow does there) on a repository at the same base must leave the
 * same bytes and modes.
 */

const E2e = suite('apply -p: the chosen hunks land in the working tree, as git restore -p puts them');

const CASES: [string, string[]][] = [
  ['y and n', ['y', 'n', 'y', 'y', 'n', 'n', 'y']],
  ['split, a part of each', ['s', 'y', 'n', 's', 'n', 'y', 'n', 'y', 'y', 'y', 'n']],
  ['a, d, q', ['a', 'd', 'y', 'q']],
];

const mode = (repo: DiskRepo, path: string): number | undefined =>
  repo.exists(path) ? statSync(repo.path(path)).mode & 0o777 : undefined;

for (const [name, answers] of CASES) {
  E2e(name, async () => {
    const shadow = await draftRepo();
    const git = new DiskRepo(BASE);
    try {
      git.git('fetch', '-q', shadow.dir, 'refs/shadow/drafts/default:refs/draft');
      const input = answers.map((a) => `${a}\n`).join('');
      const oracle = spawnSync('git', ['restore', '-p', '--source=refs/draft'], {
        cwd: git.dir,
        env: git.env,
        input,
        encoding: 'utf8',
      });
      assert.is(oracle.status, 0, oracle.stderr);
      const r = shadow.shadow(['apply', '-p'], { input });
      assert.is(r.status, 0, r.stdout + r.stderr);
      assert.equal(treeHashes(shadow.dir), treeHashes(git.dir));
      assert.is(mode(shadow, 'c.sh'), mode(git, 'c.sh'));
    } finally {
      shadow.cleanup();
      git.cleanup();
    }
  });
}

E2e.run();
