/**
 * The path gate on the routes that do not write the disk themselves but
 * make what an apply would: a rebase onto a crafted commit (it becomes the
 * draft's base), and a batch naming shadow's worktree marker.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { craftOn } from './helpers/crafted-trees.js';

const Routes = suite('path gate: rebase and batch');

Routes(
  'rebase onto a commit holding a path git refuses is UNSAFE_PATH naming it; the draft does not move',
  async () => {
    const repo = new DiskRepo({ 'README.md': 'Hello\n' });
    try {
      await withShadow(repo, (sh) =>
        sh.batch(
          { intent: 'seed', operations: [{ operation: 'write', path: 'seed.txt', content: 'seed\n' }] },
          { draft: 'd' },
        ),
      );
      const tip = repo.ref('refs/shadow/drafts/d');
      const head = repo.ref('HEAD')!;
      for (const path of ['.git/hooks/post-checkout', '../../x', 'GIT~1/config', '.shadow-worktree']) {
        const onto = craftOn(repo, head, [{ path, mode: '100755' }]);
        const e = await withShadow(repo, (sh) =>
          sh.rebase({ draft: 'd', onto }).then(
            () => undefined,
            (err: { code: string; data: Record<string, unknown> }) => err,
          ),
        );
        assert.is(e?.code, 'UNSAFE_PATH', `${path}: ${JSON.stringify(e)}`);
        assert.equal([e!.data.path, e!.data.commit, e!.data.draft], [path, onto, 'd']);
        assert.is(repo.ref('refs/shadow/drafts/d'), tip);
      }
      // A commit git checks out is fine to rebase onto.
      const fine = craftOn(repo, head, [{ path: '.github/x', content: 'x\n' }]);
      const r = await withShadow(repo, (sh) => sh.rebase({ draft: 'd', onto: fine }));
      assert.is(r.onto, fine);
    } finally {
      repo.cleanup();
    }
  },
);

Routes(
  "a batch writing shadow's worktree marker is refused as any bad path is (INVALID_BATCH naming the op), in any spelling, at any depth; no draft is made",
  () => {
    const repo = new DiskRepo({ 'README.md': 'Hello\n' });
    try {
      for (const path of ['.shadow-worktree', 'sub/.shadow-worktree', '.SHADOW-WORKTREE', '.shadow-worktree. ']) {
        const batch = {
          intent: 'marker',
          operations: [
            { operation: 'write', path, content: '{"version":1,"repository":"/elsewhere","id":"x","draft":"d"}\n' },
          ],
        };
        const r = repo.shadow(['batch', '-', '--draft', 'm', '--json'], { input: JSON.stringify(batch) });
        assert.is(r.status, 1, r.stdout + r.stderr);
        const e = r.json().error;
        assert.is(e.code, 'INVALID_BATCH', `${path}: ${JSON.stringify(e)}`);
        assert.is(e.data.problems[0].path, 'operations[0].path');
        assert.match(e.data.problems[0].message, /worktree marker/);
        assert.is(repo.ref('refs/shadow/drafts/m'), undefined);
      }
    } finally {
      repo.cleanup();
    }
  },
);

Routes.run();
