/**
 * The path gate on apply: a draft whose commits hold a path git refuses to
 * check out (made with git's plumbing, put on the draft's ref with plain git) is
 * refused whole with UNSAFE_PATH, nothing written in the working tree, in
 * `.git` or beside the repository; git, asked to check out the same commit
 * with core.protectNTFS and core.protectHFS on (or to fsck it), refuses it
 * too. Look-alikes git checks out are applied.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { snapshotTree } from './helpers/dir-snapshot.js';
import { craftOn, craftTree, craftCommit, moveDraftByHand } from './helpers/crafted-trees.js';
import { GIT_ACCEPTS, GIT_REFUSES, SHADOW_REFUSES, type PathCase } from './helpers/hostile-paths.js';

const DRAFT = 'refs/shadow/drafts/d';
/** A batch's message as shadow writes it: what makes a commit one a rollback may go to. */
const BATCH = 'crafted\n\nShadow-Draft: d\nShadow-Batch: 2\nShadow-Actor: someone\n';
/** What shadow itself keeps in .git (its state, objects, refs): left out of the snapshot, the rest of .git (hooks, config) is in. */
const OWN = ['repo/.git/shadow', 'repo/.git/objects', 'repo/.git/refs', 'repo/.git/logs', 'repo/.git/index', 'home'];

interface Ctx {
  repo: DiskRepo;
  /** A clone sharing the repository's objects, where git checks the same commits out. */
  oracle: string;
  seed: string;
}

async function seeded(): Promise<Ctx> {
  const repo = new DiskRepo({ 'README.md': 'Hello\n' });
  await withShadow(repo, (sh) =>
    sh.batch(
      { intent: 'seed', operations: [{ operation: 'write', path: 'seed.txt', content: 'seed\n' }] },
      { draft: 'd' },
    ),
  );
  const oracle = join(repo.root, 'oracle');
  const r = spawnSync('git', ['clone', '-q', '--shared', '--no-checkout', repo.dir, oracle], {
    env: repo.env,
    encoding: 'utf8',
  });
  assert.is(r.status, 0, r.stderr);
  return { repo, oracle, seed: repo.ref(DRAFT)! };
}

/** Does git, with both protections on, check `commit` out (in the oracle clone)? */
function gitChecksOut(ctx: Ctx, commit: string): boolean {
  const r = spawnSync(
    'git',
    ['-c', 'core.protectNTFS=true', '-c', 'core.protectHFS=true', 'checkout', '-q', '--detach', commit],
    { cwd: ctx.oracle, env: ctx.repo.env, encoding: 'utf8' },
  );
  return r.status === 0;
}

/** The trees of `commit` that `git fsck` flags (warnings included). */
function fsckFlags(ctx: Ctx, commit: string): string[] {
  const trees = ctx.repo
    .git('ls-tree', '-r', '-t', '--format=%(objecttype) %(objectname)', commit)
    .split('\n')
    .filter((l) => l.startsWith('tree '))
    .map((l) => l.slice(5));
  trees.push(ctx.repo.git('rev-parse', `${commit}^{tree}`).trim());
  const r = spawnSync('git', ['fsck', '--no-dangling'], { cwd: ctx.repo.dir, env: ctx.repo.env, encoding: 'utf8' });
  return (r.stdout + r.stderr).split('\n').filter((l) => trees.some((t) => l.includes(t)));
}

/** Files that a `..` entry could put one or two levels up. */
function escapes(ctx: Ctx): string[] {
  return ['escape', 'escape2', 'escape3']
    .flatMap((n) => [join(ctx.repo.root, n), join(ctx.repo.root, '..', n)])
    .filter((p) => existsSync(p));
}

const Refused = suite('apply refuses what git refuses to check out');

Refused(
  "every crafted path, put on the draft's ref by hand, is refused with UNSAFE_PATH naming it and its commit; nothing is written",
  async () => {
    const ctx = await seeded();
    try {
      for (const c of [...GIT_REFUSES, ...SHADOW_REFUSES]) {
        const label = `${JSON.stringify(c.path)} ${c.mode}`;
        const commit = craftOn(
          ctx.repo,
          ctx.seed,
          [{ path: c.path, mode: c.mode, content: c.mode === '120000' ? '/tmp' : '#!/bin/sh\necho pwned\n' }],
          BATCH,
        );
        const before = snapshotTree(ctx.repo.root, OWN);
        const error = await withShadow(ctx.repo, async (sh) => {
          moveDraftByHand(ctx.repo, 'd', commit);
          try {
            await sh.apply({ draft: 'd' });
          } catch (e) {
            return e as { code: string; data: Record<string, unknown> };
          }
          return undefined;
        });
        assert.is(error?.code, 'UNSAFE_PATH', `${label}: ${JSON.stringify(error)}`);
        assert.is(error!.data.path, c.path, label);
        assert.is(error!.data.commit, commit, label);
        assert.type(error!.data.reason, 'string');
        assert.equal(snapshotTree(ctx.repo.root, OWN), before, `${label}: nothing written`);
        assert.equal(escapes(ctx), [], `${label}: nothing beside the repository`);
        // The oracle: git refuses it too, at checkout or in fsck; the marker is shadow's own rule.
        const gitRefuses = !gitChecksOut(ctx, commit) || fsckFlags(ctx, commit).length > 0;
        assert.is(gitRefuses, !SHADOW_REFUSES.includes(c), `${label}: git's verdict`);
      }
    } finally {
      for (const p of escapes(ctx)) rmSync(p, { force: true });
      ctx.repo.cleanup();
    }
  },
);

Refused('a symlink with a file beyond it in the same tree is refused, as git refuses it', async () => {
  const ctx = await seeded();
  // The link leads to a directory of this test's own outside the repository, empty, so that anything written through it shows.
  const outside = mkdtempSync(join(tmpdir(), 'shadow-beyond-'));
  try {
    // One tree holding a symlink `a -> <outside>` and a directory `a` with `x` (git mktree takes both).
    const tree = craftTree(
      ctx.repo,
      [
        { path: 'a', mode: '120000', content: outside },
        { path: 'a/x', content: 'beyond\n' },
      ],
      ctx.seed,
    );
    const commit = craftCommit(ctx.repo, tree, ctx.seed, BATCH);
    const before = snapshotTree(ctx.repo.root, OWN);
    const error = await withShadow(ctx.repo, async (sh) => {
      moveDraftByHand(ctx.repo, 'd', commit);
      return sh.apply({ draft: 'd' }).then(
        () => undefined,
        (e: { code: string; data: Record<string, unknown> }) => e,
      );
    });
    assert.is(error?.code, 'UNSAFE_PATH');
    assert.equal(snapshotTree(ctx.repo.root, OWN), before);
    assert.not.ok(existsSync(join(outside, 'x')), 'nothing written through the link');
    assert.ok(!gitChecksOut(ctx, commit) || fsckFlags(ctx, commit).length > 0, 'git refuses it too');
  } finally {
    rmSync(outside, { recursive: true, force: true });
    ctx.repo.cleanup();
  }
});

Refused('a journal naming a path into .git is not carried out by recovery', async () => {
  const ctx = await seeded();
  try {
    const journalDir = join(ctx.repo.dir, '.git/shadow/journal');
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(journalDir, { recursive: true });
    const oid = ctx.repo.git('rev-parse', 'HEAD:README.md').trim();
    const journal = {
      version: 1,
      id: '11111111-1111-4111-8111-111111111111',
      kind: 'apply',
      draft: 'd',
      worktree: null,
      tip: ctx.seed,
      created_at: '2026-01-01T00:00:00.000Z',
      actor: 'x',
      entries: [{ path: '.git/hooks/post-checkout', old: null, new: { mode: '100755', oid } }],
    };
    writeFileSync(join(journalDir, `${journal.id}.json`), JSON.stringify(journal));
    const report = await withShadow(ctx.repo, (sh) => sh.recover());
    assert.is(report.finished.length, 0, JSON.stringify(report));
    assert.is(report.failed.length, 1, JSON.stringify(report));
    assert.match(report.failed[0]!.error, /refusing to write ".git\/hooks\/post-checkout"/);
    assert.not.ok(existsSync(join(ctx.repo.dir, '.git/hooks/post-checkout')));
  } finally {
    ctx.repo.cleanup();
  }
});

Refused(
  'a partial apply of a safe path is refused too while the draft holds a refused one: the draft is refused whole',
  async () => {
    const ctx = await seeded();
    try {
      const commit = craftOn(ctx.repo, ctx.seed, [{ path: '.git/hooks/post-checkout', mode: '100755' }], BATCH);
      const before = snapshotTree(ctx.repo.root, OWN);
      const error = await withShadow(ctx.repo, async (sh) => {
        moveDraftByHand(ctx.repo, 'd', commit);
        return sh.apply({ draft: 'd', paths: ['seed.txt'] }).then(
          () => undefined,
          (e: { code: string; data: Record<string, unknown> }) => e,
        );
      });
      assert.is(error?.code, 'UNSAFE_PATH');
      assert.is(error!.data.path, '.git/hooks/post-checkout');
      assert.equal(snapshotTree(ctx.repo.root, OWN), before);
      assert.not.ok(existsSync(ctx.repo.path('seed.txt')));
    } finally {
      ctx.repo.cleanup();
    }
  },
);

Refused(
  'unapply of an apply whose record was changed to name a path into .git is refused; nothing written',
  async () => {
    const ctx = await seeded();
    try {
      await withShadow(ctx.repo, (sh) => sh.apply({ draft: 'd' }));
      const { readdirSync, writeFileSync } = await import('node:fs');
      const dir = join(ctx.repo.dir, '.git/shadow/drafts/d/applies');
      const [name] = readdirSync(dir).filter((n) => n.endsWith('.json'));
      const record = JSON.parse(readFileSync(join(dir, name!), 'utf8'));
      const seedBlob = ctx.repo.git('rev-parse', `${ctx.seed}:seed.txt`).trim();
      record.entries = [{ path: '.git/hooks/post-checkout', old: { mode: '100755', oid: seedBlob }, new: null }];
      writeFileSync(join(dir, name!), JSON.stringify(record));
      const before = snapshotTree(ctx.repo.root, OWN);
      const error = await withShadow(ctx.repo, (sh) =>
        sh.unapply({ draft: 'd' }).then(
          () => undefined,
          (e: { code: string; data: Record<string, unknown> }) => e,
        ),
      );
      assert.is(error?.code, 'UNSAFE_PATH', JSON.stringify(error));
      assert.is(error!.data.path, '.git/hooks/post-checkout');
      assert.equal(snapshotTree(ctx.repo.root, OWN), before);
      assert.not.ok(existsSync(join(ctx.repo.dir, '.git/hooks/post-checkout')));
      // Refused before its journal: nothing left pending to block the next command.
      const journals = join(ctx.repo.dir, '.git/shadow/journal');
      assert.equal(existsSync(journals) ? readdirSync(journals).filter((n) => n.endsWith('.json')) : [], []);
    } finally {
      ctx.repo.cleanup();
    }
  },
);

const Accepted = suite('apply writes the look-alikes git checks out');

Accepted('every look-alike is applied as git checks it out', async () => {
  const ctx = await seeded();
  try {
    ctx.repo.git('config', 'shadow.protectDefaults', 'false');
    const content = (c: PathCase): string => (c.mode === '120000' ? 'README.md' : `look-alike ${c.path}\n`);
    const commit = craftOn(
      ctx.repo,
      ctx.seed,
      GIT_ACCEPTS.map((c) => ({ path: c.path, mode: c.mode, content: content(c) })),
      BATCH,
    );
    assert.ok(gitChecksOut(ctx, commit), 'git checks it out');
    assert.equal(fsckFlags(ctx, commit), []);
    const result = await withShadow(ctx.repo, async (sh) => {
      moveDraftByHand(ctx.repo, 'd', commit);
      return sh.apply({ draft: 'd' });
    });
    assert.ok(result.applied, JSON.stringify(result));
    for (const c of GIT_ACCEPTS) {
      const full = ctx.repo.path(c.path);
      if (c.mode === '120000') {
        assert.ok(lstatSync(full).isSymbolicLink(), c.path);
        assert.is(readlinkSync(full), 'README.md');
      } else assert.is(readFileSync(full, 'utf8'), content(c), c.path);
      // Byte for byte what git's checkout of the same commit wrote.
      const theirs = join(ctx.oracle, c.path);
      if (c.mode === '120000') assert.is(readlinkSync(theirs), readlinkSync(full));
      else assert.is(readFileSync(theirs, 'utf8'), readFileSync(full, 'utf8'));
    }
  } finally {
    ctx.repo.cleanup();
  }
});

Refused.run();
Accepted.run();
