/**
 * The calls bench's load generator (bench/calls/load-clients.ts, driven by
 * server-mode.ts' measureConcurrent) against a real `shadow serve`: every
 * batch it counts as sent is in the draft's history, and a batch the
 * server refuses counts as failed, so a rate it reports is of batches that
 * landed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { measureConcurrent } from '../bench/calls/server-mode.js';
import { startServe, type ServeProc } from '../bench/helpers/serve-proc.js';
import { DiskRepo, SHADOW_BIN } from './helpers/disk-repo.js';

const Load = suite<{ repo: DiskRepo; server: ServeProc }>('bench load generator');

Load.before.each(async (c) => {
  c.repo = new DiskRepo();
  c.server = await startServe(SHADOW_BIN, c.repo.dir, c.repo.env);
});

Load.after.each(async (c) => {
  await c.server.stop();
  c.repo.cleanup();
});

Load(
  "every batch of every client and round lands in the draft's history, by node's http and by fetch",
  ({ repo, server }) => {
    const byHttp = measureConcurrent(server, repo.dir, repo.env, 'http', 3, 4, 2);
    assert.is(byHttp.rates.length, 2);
    assert.is(byHttp.failed, 0);
    assert.is(byHttp.inHistory, 24);
    assert.ok(byHttp.rates.every((r) => r > 0));
    assert.ok(byHttp.clientCpu > 0);
    if (process.platform === 'linux') assert.ok(byHttp.serverCpu !== undefined && byHttp.serverCpu >= 0);
    const byFetch = measureConcurrent(server, repo.dir, repo.env, 'fetch', 2, 3, 1);
    assert.is(byFetch.failed, 0);
    assert.is(byFetch.inHistory, 6);
    assert.equal(
      repo.git('ls-tree', '-r', '--name-only', 'refs/shadow/drafts/server-par-http', 'par/r1/c2').trim().split('\n'),
      ['par/r1/c2/f0.txt', 'par/r1/c2/f1.txt', 'par/r1/c2/f2.txt', 'par/r1/c2/f3.txt'],
    );
  },
);

Load('a batch the server refuses counts as failed, and none is in the history', ({ repo, server }) => {
  const refused = measureConcurrent({ ...server, token: 'not-the-token' }, repo.dir, repo.env, 'http', 2, 3, 1);
  assert.is(refused.failed, 6);
  assert.is(repo.git('for-each-ref', 'refs/shadow/drafts/server-par-http'), '');
});

Load.run();
