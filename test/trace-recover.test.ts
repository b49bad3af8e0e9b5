import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as nodeFs from 'node:fs';
import { nodeContext, openShadow, type FileSystem } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { FsSeam } from './helpers/fs-seam.js';

/*
 * An `apply --commit` that a crash stopped after its branch moved and
 * before its notes were written: the next command's recovery finishes it
 * and writes the Agent Trace notes an uninterrupted apply writes. Real git.
 */

const T = suite('agent trace notes through recovery');

T(
  'apply --commit stopped after the branch moved: recovery writes the notes of the published commits, as the apply would have',
  async () => {
    const repo = new DiskRepo({ 'f.txt': 'one\n' });
    try {
      for (const [n, model] of [
        [2, 'anthropic/claude-x'],
        [3, 'openai/gpt-5'],
      ] as const) {
        const r = repo.shadow(['batch', '-', '--actor', `agent${n}`, '--model', model], {
          input: JSON.stringify({
            operations: [{ operation: 'write', path: 'f.txt', content: `${'line\n'.repeat(n)}` }],
          }),
        });
        assert.is(r.status, 0, r.stderr);
      }
      const node = nodeContext();
      const seam = new FsSeam(nodeFs as unknown as FileSystem);
      // The record of the apply fails: the process stops after the branch moved, its journal left.
      seam.inject({
        op: ['renameSync', 'writeFileSync', 'openSync'],
        path: /\/shadow\/drafts\/default\/applies\//,
        code: 'EIO',
      });
      const sh = await openShadow({
        dir: repo.dir,
        fs: seam.fs,
        clock: node.clock,
        ids: node.ids,
        env: repo.env,
        git: node.git,
      });
      let failed: unknown;
      try {
        await sh.apply({ commit: true });
      } catch (e) {
        failed = e;
      } finally {
        sh.close();
      }
      assert.ok(failed, 'the apply stopped');
      const tip = repo.ref('refs/shadow/drafts/default')!;
      assert.is(repo.ref('HEAD'), tip, 'the branch moved');
      assert.ok(nodeFs.readdirSync(repo.path('.git/shadow/journal')).length > 0, 'its journal is left');
      // As if the crash came before the notes were written.
      repo.git('update-ref', '-d', 'refs/notes/agent-trace');
      // The next command recovers: the notes of both published commits.
      const next = await openShadow({ dir: repo.dir, env: repo.env });
      try {
        const finished = next.recovered?.finished ?? [];
        assert.is(finished.length, 1);
        assert.equal([...(finished[0]!.notes?.written ?? [])].sort(), [tip, repo.ref('HEAD~1')!].sort());
        assert.equal(finished[0]!.notes?.failed, []);
      } finally {
        next.close();
      }
      const note = JSON.parse(repo.git('notes', '--ref=agent-trace', 'show', 'HEAD'));
      assert.equal(note.vcs, { type: 'git', revision: tip });
      assert.equal(note.files[0].conversations[0].contributor, { type: 'ai', model_id: 'openai/gpt-5' });
      assert.equal(
        JSON.parse(repo.git('notes', '--ref=agent-trace', 'show', 'HEAD~1')).files[0].conversations[0].contributor,
        { type: 'ai', model_id: 'anthropic/claude-x' },
      );
      // A second recovery finds nothing to do, and the notes stay one each.
      assert.is(repo.git('notes', '--ref=agent-trace', 'list').trim().split('\n').length, 2);
      repo.git('fsck', '--strict', '--no-progress');
    } finally {
      repo.cleanup();
    }
  },
);

T.run();
