import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { bareRemote } from './helpers/remotes.js';
import { noteBatches, withRemote } from './helpers/remote-repos.js';
import { callTool } from '../src/agent-tools/call-tool.js';
import { startServer } from '../src/index.js';
import { Api } from './helpers/session-http.js';
import { assertError } from './helpers/http-server.js';

/*
 * Rollback, undo and `draft new --from` take only a draft's own points:
 * its first-parent history, its reflog, its checkpoints. A commit whose
 * trailers merely claim the draft (made with `git commit-tree`, fetched, or
 * another draft's) is INVALID_TARGET on every surface, and the ref stays.
 */

const REF = 'refs/shadow/drafts/d';

/** A commit on the draft's root adding evil.txt, with a batch's trailers, made with native git (a scratch index). */
function forged(repo: DiskRepo, draft: string, root: string, batch: number): string {
  const index = join(repo.root, 'forged.index');
  const env = { ...repo.env, GIT_INDEX_FILE: index };
  const git = (...args: string[]): string => {
    const r = spawnSync('git', args, { cwd: repo.dir, env, encoding: 'utf8', input: 'not reviewed\n' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  git('read-tree', root);
  const blob = git('hash-object', '-w', '--stdin');
  git('update-index', '--add', '--cacheinfo', `100644,${blob},evil.txt`);
  const tree = git('write-tree');
  rmSync(index, { force: true });
  return git(
    'commit-tree',
    tree,
    '-p',
    root,
    '-m',
    `evil\n\nShadow-Draft: ${draft}\nShadow-Batch: ${batch}\nShadow-Actor: agent\n`,
  );
}

function codeOfCli(r: { status: number; stdout: string }): string | undefined {
  try {
    return JSON.parse(r.stdout).error?.code;
  } catch {
    return undefined;
  }
}

const Targets = suite<{ repo: DiskRepo; tips: string[]; root: string }>('rollback targets');
Targets.before.each(async (ctx) => {
  ctx.repo = new DiskRepo();
  ctx.root = ctx.repo.git('rev-parse', 'HEAD').trim();
  ctx.tips = [];
  await withShadow(ctx.repo, async (sh) => {
    for (const v of ['one', 'two', 'three']) {
      const r = await sh.batch(
        { intent: v, operations: [{ operation: 'write', path: 'a.txt', content: `${v}\n` }] },
        { draft: 'd' },
      );
      ctx.tips.push(r.commit!);
    }
  });
});
Targets.after.each(({ repo }) => repo.cleanup());

Targets(
  'a commit made with git commit-tree on the root, with batch trailers, is refused on the CLI, the library, the HTTP API and the MCP tool; the ref stays',
  async ({ repo, tips, root }) => {
    const evil = forged(repo, 'd', root, 2);
    assert.is(repo.git('cat-file', '-t', evil).trim(), 'commit');
    const cli = repo.shadow(['rollback', evil, '--draft', 'd', '--json']);
    assert.is(codeOfCli(cli), 'INVALID_TARGET', cli.stdout + cli.stderr);
    assert.is.not(cli.status, 0);
    assert.is(repo.ref(REF), tips[2]);
    await withShadow(repo, async (sh) => {
      for (const spec of [evil, evil.slice(0, 12)]) {
        try {
          await sh.rollback(spec, { draft: 'd' });
          assert.unreachable(spec);
        } catch (e) {
          assert.is((e as { code?: string }).code, 'INVALID_TARGET', String(e));
          assert.equal((e as { data?: { commit?: string } }).data?.commit, evil);
        }
      }
      const tool = await callTool({ sh, draft: 'd', actor: 'agent' }, 'rollback', { target: evil });
      assert.is(tool.isError, true);
      assert.match(tool.text, /INVALID_TARGET/);
      const server = await startServer(sh, {});
      try {
        const api = new Api(server.url, server.token);
        assertError(
          await api.call('POST', '/api/drafts/d/rollback', { json: { target: evil } }),
          400,
          'INVALID_TARGET',
        );
      } finally {
        await server.close();
      }
    });
    assert.is(repo.ref(REF), tips[2]);
    assert.is(repo.git('reflog', 'show', '--format=%H', REF).trim().split('\n')[0], tips[2]);
  },
);

Targets('a commit of another draft on the same root is refused', async ({ repo, tips }) => {
  await withShadow(repo, async (sh) => {
    const other = await sh.batch(
      { intent: 'other', operations: [{ operation: 'write', path: 'b.txt', content: 'b\n' }] },
      { draft: 'e' },
    );
    try {
      await sh.rollback(other.commit!, { draft: 'd' });
      assert.unreachable();
    } catch (e) {
      assert.is((e as { code?: string }).code, 'INVALID_TARGET');
    }
  });
  assert.is(repo.ref(REF), tips[2]);
});

Targets(
  'the tip a rollback left is accepted from the reflog alone, with its history back to the root',
  async ({ repo, tips }) => {
    await withShadow(repo, async (sh) => {
      const m = await sh.rollback('~2', { draft: 'd' });
      assert.is(m.to, tips[0]);
      // Only the reflog now knows tips[2] and tips[1]: the automatic checkpoint goes.
      repo.git('update-ref', '-d', `refs/shadow/checkpoints/d/${m.kept}`);
    });
    await withShadow(repo, async (sh) => {
      assert.is((await sh.rollback(tips[1]!, { draft: 'd' })).to, tips[1]);
      assert.is((await sh.rollback(tips[2]!, { draft: 'd' })).to, tips[2]);
    });
    assert.is(repo.ref(REF), tips[2]);
  },
);

Targets(
  "a checkpoint's commit, and its history, are accepted after rolling back past it with the reflog gone",
  async ({ repo, tips }) => {
    await withShadow(repo, async (sh) => {
      await sh.rollback('2', { draft: 'd' });
      await sh.checkpoint('mid', { draft: 'd' });
      await sh.rollback('3', { draft: 'd' });
      await sh.rollback('~3', { draft: 'd' });
    });
    repo.git('reflog', 'expire', '--expire=now', REF);
    assert.is(repo.git('reflog', 'show', REF).trim(), '');
    await withShadow(repo, async (sh) => {
      // tips[2] was kept by an automatic checkpoint when ~3 left it; tips[1] by "mid".
      assert.is((await sh.rollback(tips[1]!, { draft: 'd' })).to, tips[1]);
      assert.is((await sh.rollback(tips[0]!, { draft: 'd' })).to, tips[0]);
      await sh.rollback(tips[2]!, { draft: 'd' });
    });
    assert.is(repo.ref(REF), tips[2]);
  },
);

Targets(
  "draft new --from a forged commit is refused; from a commit of a draft it continues that draft's line",
  async ({ repo, tips, root }) => {
    const evil = forged(repo, 'd', root, 9);
    const r = repo.shadow(['draft', 'new', 'copy', '--from', evil, '--json']);
    assert.is(codeOfCli(r), 'INVALID_TARGET', r.stdout + r.stderr);
    assert.is(repo.ref('refs/shadow/drafts/copy'), undefined);
    // The same commit claiming a draft that does not exist here.
    const ghost = forged(repo, 'ghost', root, 1);
    assert.is(codeOfCli(repo.shadow(['draft', 'new', 'copy', '--from', ghost, '--json'])), 'INVALID_TARGET');
    await withShadow(repo, async (sh) => {
      await sh.draftNew('fork', { from: tips[1] });
      const forked = await sh.draftShow({ draft: 'fork' });
      assert.is(forked.tip, tips[1]);
      assert.is((await sh.cat('a.txt', { draft: 'fork' })).content.toString(), 'two\n');
    });
    assert.is(repo.ref('refs/shadow/drafts/fork'), tips[1]);
    assert.is(repo.ref('refs/shadow/drafts/copy'), undefined);
  },
);

const Fetched = suite('rollback targets from a remote');

Fetched("a fetched draft's commit on the same root is no point of the local draft, nor a start for draft new", () =>
  withRemote(bareRemote, async ({ a, clone }) => {
    const b = clone();
    await noteBatches(a, 'd', 2, 'a');
    assert.is(a.shadow(['push', 'origin', 'd']).status, 0);
    await noteBatches(b, 'd', 1, 'b');
    const mine = b.ref(REF)!;
    assert.is(b.shadow(['fetch', 'origin']).status, 0);
    const theirs = b.ref('refs/shadow/remotes/origin/drafts/d')!;
    assert.ok(theirs && theirs !== mine);
    for (const target of [theirs, `${theirs}~1`]) {
      const r = b.shadow(['rollback', target, '--draft', 'd', '--json']);
      assert.is(codeOfCli(r), 'INVALID_TARGET', target + r.stdout + r.stderr);
    }
    assert.is(b.ref(REF), mine);
    const n = b.shadow(['draft', 'new', 'copy', '--from', theirs, '--json']);
    assert.is(codeOfCli(n), 'INVALID_TARGET', n.stdout + n.stderr);
    // The way to continue it stays open.
    const ok = b.shadow(['draft', 'new', 'copy', '--from', 'origin/d', '--json']);
    assert.is(ok.status, 0, ok.stdout + ok.stderr);
    assert.is(b.ref('refs/shadow/drafts/copy'), theirs);
  }),
);

Targets.run();
Fetched.run();
