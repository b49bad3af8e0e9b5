import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApplyResult, PathConflict } from '../src/index.js';
import type { MemRepo } from './helpers/mem-repo.js';
import {
  BEFORE,
  AFTER,
  blobOid,
  codeOf,
  EXPECTED_SET,
  standardFixture,
  type Fixture,
} from './helpers/apply-fixture.js';
import { journals, lockHeld, mutations, records, SHADOW } from './helpers/apply-state.js';
import { assertPaths, file, ROOT, worktree } from './helpers/working-tree.js';

/*
 * The guard of `shadow apply` on memfs: a working tree changed under the
 * draft (modified, deleted, created, a symlink or a directory where a file
 * was) is refused before any write, and the dry run says the same.
 */

// ---------------------------------------------------------------- the guard

const Guard = suite<Fixture>('apply: the guard');
Guard.before.each(standardFixture);

interface Hostile {
  name: string;
  /** Change the working tree after the draft was made. */
  make(repo: MemRepo): void;
  conflicts: Array<Omit<PathConflict, 'detail'> & { detail?: RegExp }>;
  /** The error, when not STALE_BASE: CONFLICT where both changed the same lines. */
  code?: string;
}

const HOSTILE: Hostile[] = [
  {
    name: 'a file of the set was modified',
    make: (r) => r.write('src/app.ts', 'export {} // mine\n'),
    conflicts: [{ path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'modified' }],
    code: 'CONFLICT',
  },
  {
    name: 'a file of the set was deleted',
    make: (r) => r.fs.unlinkSync(`${ROOT}/src/app.ts`),
    conflicts: [{ path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'deleted' }],
  },
  {
    name: 'a file the draft deletes was modified',
    make: (r) => r.write('old/gone.txt', 'still here\n'),
    conflicts: [{ path: 'old/gone.txt', expected: blobOid('gone\n'), found: 'modified' }],
  },
  {
    name: 'a path the draft creates was created by the user',
    make: (r) => r.write('src/new/feature.ts', 'mine\n'),
    conflicts: [{ path: 'src/new/feature.ts', expected: null, found: 'created' }],
    code: 'CONFLICT',
  },
  {
    name: 'a file of the set is now a directory',
    make: (r) => {
      r.fs.unlinkSync(`${ROOT}/src/app.ts`);
      r.write('src/app.ts/inner.txt', 'x\n');
    },
    conflicts: [{ path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'type changed', detail: /director/ }],
  },
  {
    name: 'a file of the set is now a symlink to /etc',
    make: (r) => {
      r.fs.unlinkSync(`${ROOT}/src/app.ts`);
      r.fs.symlinkSync('/etc', `${ROOT}/src/app.ts`);
    },
    conflicts: [{ path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'type changed' }],
  },
  {
    name: 'a file of the set is now a symlink to a file inside the workspace',
    make: (r) => {
      r.fs.unlinkSync(`${ROOT}/a.txt`);
      r.fs.symlinkSync('README.md', `${ROOT}/a.txt`);
    },
    conflicts: [{ path: 'a.txt', expected: blobOid('a\nlocal\n'), found: 'type changed' }],
  },
  {
    name: 'a path the draft creates is now a symlink',
    make: (r) => {
      r.fs.mkdirSync(`${ROOT}/moved`);
      r.fs.symlinkSync('/etc/passwd', `${ROOT}/moved/me.txt`);
    },
    conflicts: [{ path: 'moved/me.txt', expected: null, found: 'created' }],
  },
  {
    name: 'a parent directory of the set is now a symlink into .git',
    make: (r) => {
      r.fs.renameSync(`${ROOT}/old`, '/old-was-here');
      r.fs.symlinkSync(`${ROOT}/.git`, `${ROOT}/old`);
    },
    conflicts: [{ path: 'old/gone.txt', expected: blobOid('gone\n'), found: 'type changed', detail: /symlink/ }],
  },
  {
    name: 'a parent directory of the set is now a symlink leading outside',
    make: (r) => {
      r.fs.mkdirSync('/outside/lib', { recursive: true });
      r.fs.writeFileSync('/outside/app.ts', 'export {}\n');
      r.fs.renameSync(`${ROOT}/src`, '/outside/src-was-here');
      r.fs.symlinkSync('/outside', `${ROOT}/src`);
    },
    conflicts: [
      { path: 'src/app.ts', expected: blobOid('export {}\n'), found: 'type changed', detail: /symlink/ },
      { path: 'src/new/feature.ts', expected: null, found: 'type changed', detail: /symlink/ },
    ],
  },
];

for (const h of HOSTILE) {
  Guard(
    `${h.name}: STALE_BASE with path, expected and found, before any write; the dry run reports the same`,
    async ({ repo, seam, viaSeam }) => {
      h.make(repo);
      const before = worktree(repo.fs);
      const outside = worktree(repo.fs, '/outside');

      seam.arm();
      const dry = await viaSeam.apply({ dryRun: true });
      assert.equal(mutations(seam), [], 'the dry run wrote');
      seam.arm();
      const e = await codeOf(() => viaSeam.apply());
      assert.is(e.code, h.code ?? 'STALE_BASE');
      assert.equal(
        mutations(seam).filter((m) => !m.includes(`${SHADOW}/`)),
        [],
        'the apply wrote outside its own state (working tree, objects, refs, index)',
      );

      for (const got of [dry.conflicts, e.data.conflicts as PathConflict[]]) {
        assert.equal(
          got.map((c) => ({ path: c.path, expected: c.expected, found: c.found })),
          h.conflicts.map((c) => ({ path: c.path, expected: c.expected, found: c.found })),
        );
        h.conflicts.forEach((c, i) => c.detail && assert.match(got[i]?.detail ?? '', c.detail, 'detail'));
      }
      for (const c of h.conflicts) assert.ok(e.message.includes(c.path), `the message names ${c.path}`);
      assert.is(dry.applied, false);
      assert.is(dry.paths.length, EXPECTED_SET.length, 'the dry run still lists the whole set');
      assert.equal(worktree(repo.fs), before, 'the working tree changed');
      assert.equal(worktree(repo.fs, '/outside'), outside, 'something was written outside the workspace');
      assert.equal(journals(repo.fs), []);
      assert.equal(records(repo.fs), []);
      assert.is(lockHeld(repo.fs), false);
    },
  );
}

Guard('every conflict is reported at once, in path order', async ({ repo, sh }) => {
  repo.write('src/app.ts', 'mine\n');
  repo.fs.unlinkSync(`${ROOT}/move/me.txt`);
  repo.write('moved/me.txt', 'mine too\n');
  const e = await codeOf(() => sh.apply());
  assert.is(e.code, 'CONFLICT');
  assert.equal(
    (e.data.conflicts as PathConflict[]).map((c) => [c.path, c.found]),
    [
      ['moved/me.txt', 'created'],
      ['src/app.ts', 'modified'],
    ],
  );
  assertPaths(repo.fs, {
    ...BEFORE,
    'src/app.ts': file('mine\n'),
    'move/me.txt': null,
    'moved/me.txt': file('mine too\n'),
  });
});

Guard('an empty directory where the draft creates a file: never a partial apply', async ({ repo, sh }) => {
  repo.fs.mkdirSync(`${ROOT}/src/new/feature.ts`, { recursive: true });
  const before = worktree(repo.fs);
  let r: ApplyResult | undefined;
  let code: string | undefined;
  try {
    r = await sh.apply();
  } catch (e) {
    code = (e as { code?: string }).code;
  }
  if (r) {
    // Removing the empty directory, as git would, is fine too.
    assertPaths(repo.fs, AFTER);
  } else {
    assert.is(code, 'STALE_BASE', 'the guard must catch it before any write');
    assert.equal(worktree(repo.fs), before, 'nothing may be written');
    assert.equal(journals(repo.fs), []);
  }
});

Guard(
  'a dry run of a clean draft lists the set and makes no change anywhere (but its review cache)',
  async ({ repo, seam, viaSeam }) => {
    const before = worktree(repo.fs);
    seam.arm();
    const r = await viaSeam.apply({ dryRun: true });
    assert.equal(mutations(seam), []);
    assert.is(r.applied, false);
    assert.is(r.dry_run, true);
    assert.equal(
      r.paths.map((p) => ({ path: p.path, action: p.action })),
      EXPECTED_SET,
    );
    assert.equal(r.conflicts, []);
    assert.equal(r.unwritable, []);
    assert.equal(worktree(repo.fs), before);
  },
);

Guard.run();
