import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { DiskRepo } from './helpers/disk-repo.js';
import { REMOTE_KINDS, remoteGit } from './helpers/remotes.js';

/**
 * The test remotes themselves (test/helpers/remotes.ts): each is ready when
 * returned, takes a plain `git push` of refs outside refs/heads, and is gone
 * after stop().
 */

const Harness = suite('test remotes');

for (const { kind, start } of REMOTE_KINDS) {
  Harness(`${kind}: ready when returned, takes a push of refs/shadow/*, gone after stop()`, async () => {
    const repo = new DiskRepo({ 'a.txt': 'a\n' });
    const remote = await start();
    try {
      assert.is(remote.kind, kind);
      const head = repo.git('rev-parse', 'HEAD').trim();
      repo.git('push', '-q', remote.url, 'HEAD:refs/shadow/drafts/x', 'HEAD:refs/heads/main');
      assert.is(
        remoteGit(remote, 'for-each-ref', '--format=%(objectname) %(refname)', 'refs/shadow/'),
        `${head} refs/shadow/drafts/x\n`,
      );
      assert.match(repo.git('ls-remote', remote.url), `${head}\trefs/shadow/drafts/x`);
      await remote.stop();
      assert.is(existsSync(remote.dir), false);
      const after = repo.gitResult('ls-remote', remote.url);
      assert.is.not(after.status, 0);
      assert.ok(after.stderr.length > 0, 'git says why');
    } finally {
      await remote.stop();
      repo.cleanup();
    }
  });
}

Harness.run();
