import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openShadow } from '../src/index.js';
import { callTool, type ToolConnection } from '../src/agent-tools/call-tool.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { codeOf, okJson } from './helpers/tool-outcome.js';

/*
 * An agent keeps working through a rebase with the agent tools alone: it
 * rebases onto the person's working tree, sees the conflict in status and
 * apply_status, resolves it by writing the file, and the draft is clean.
 */

const test = suite('agent tools: rebase and resolve');

test('rebase onto the working tree, a conflict in status and apply_status, resolved by a write; resolve of a path not in conflict is NOT_IN_CONFLICT', async () => {
  const repo = new DiskRepo({ 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'b\n' });
  const sh = await openShadow({ dir: repo.dir, env: repo.env });
  try {
    const conn: ToolConnection = { sh, draft: 'default', actor: 'agent-x' };
    okJson(
      await callTool(conn, 'batch_write', {
        intent: 'edit',
        operations: [
          { operation: 'write', path: 'a.txt', content: 'one\ntwo by the agent\nthree\n' },
          { operation: 'write', path: 'b.txt', content: 'B\n' },
        ],
      }),
    );
    repo.write('a.txt', 'one\ntwo by the person\nthree\n');
    const r = okJson(await callTool(conn, 'rebase', {}));
    assert.equal(r.conflicts, [{ path: 'a.txt', reason: 'overlap' }]);
    const st = okJson(await callTool(conn, 'status', {}));
    assert.equal(st.conflicts, [{ path: 'a.txt', reason: 'overlap' }]);
    const as = okJson(await callTool(conn, 'apply_status', {}));
    assert.is(as.can_apply, false);
    assert.equal(as.unresolved_conflicts, [{ path: 'a.txt', reason: 'overlap' }]);
    assert.match(
      (await sh.cat('a.txt')).content.toString(),
      /<<<<<<< working tree\ntwo by the person\n=======\ntwo by the agent\n>>>>>>> draft default\n/,
    );
    assert.is(codeOf(await callTool(conn, 'resolve', { paths: ['b.txt'] })), 'NOT_IN_CONFLICT');
    okJson(
      await callTool(conn, 'batch_write', {
        intent: 'settle',
        operations: [{ operation: 'write', path: 'a.txt', content: 'one\ntwo by both\nthree\n' }],
      }),
    );
    assert.equal(okJson(await callTool(conn, 'status', {})).conflicts, []);
    assert.is(okJson(await callTool(conn, 'apply_status', {})).can_apply, true);
    assert.is(repo.read('a.txt'), 'one\ntwo by the person\nthree\n');
  } finally {
    sh.close();
    repo.cleanup();
  }
});

test("unapply (served with --allow-apply): a dry run says merged; the real one keeps the user's later line and takes the agent's out", async () => {
  const repo = new DiskRepo({ 'a.txt': 'one\ntwo\nthree\nfour\nfive\n' });
  const sh = await openShadow({ dir: repo.dir, env: repo.env });
  try {
    const conn: ToolConnection = { sh, draft: 'default', actor: 'agent-x', allowApply: true };
    assert.is(
      codeOf(await callTool({ ...conn, allowApply: false }, 'unapply', {})),
      'INVALID_ARGUMENT',
      'not offered without allowApply',
    );
    okJson(
      await callTool(conn, 'batch_write', {
        intent: 'edit',
        operations: [{ operation: 'write', path: 'a.txt', content: 'ONE\ntwo\nthree\nfour\nfive\n' }],
      }),
    );
    await sh.apply();
    repo.write('a.txt', 'ONE\ntwo\nthree\nfour\nfive by the person\n');
    const dry = okJson(await callTool(conn, 'unapply', { dry_run: true }));
    assert.equal(
      dry.paths.map((p: any) => p.merge),
      ['merged'],
    );
    assert.is(repo.read('a.txt'), 'ONE\ntwo\nthree\nfour\nfive by the person\n');
    okJson(await callTool(conn, 'unapply', {}));
    assert.is(repo.read('a.txt'), 'one\ntwo\nthree\nfour\nfive by the person\n');
  } finally {
    sh.close();
    repo.cleanup();
  }
});

test.run();
