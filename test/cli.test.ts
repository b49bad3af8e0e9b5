import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './helpers/disk-repo.js';

const Cli = suite<{ repo: DiskRepo }>('cli');
Cli.before.each((ctx) => {
  ctx.repo = new DiskRepo({ 'README.md': 'Hello\n', 'old.txt': 'old\n' });
});
Cli.after.each((ctx) => ctx.repo.cleanup());

Cli('the quick-start batch: one commit, visible to git log, fsck clean', ({ repo }) => {
  const batch = JSON.stringify({
    intent: 'add greeting',
    operations: [
      { operation: 'write', path: 'src/hello.ts', content: 'export const hi = 1\n' },
      { operation: 'edit', path: 'README.md', old_content: 'Hello', content: 'Hello, world' },
      { operation: 'delete', path: 'old.txt' },
    ],
  });
  const r = repo.shadow(['batch', '-', '--json'], { input: batch });
  assert.is(r.status, 0, r.stderr);
  const out = r.json();
  assert.is(out.success, true);
  assert.is(out.batch, 1);
  assert.is(repo.ref('refs/shadow/drafts/default'), out.commit);
  const log = repo.git('log', '--format=%s%n%b', 'refs/shadow/drafts/default', '-1');
  assert.match(log, /add greeting/);
  assert.match(log, /Shadow-Batch: 1/);
  assert.is(repo.git('show', 'refs/shadow/drafts/default:src/hello.ts'), 'export const hi = 1\n');
  repo.git('fsck', '--strict', '--no-progress');
  assert.is(repo.read('README.md'), 'Hello\n');
  assert.is(repo.shadow(['cat', 'src/hello.ts']).stdout, 'export const hi = 1\n');
});

Cli('--version answers without a repository', ({ repo }) => {
  const r = repo.shadow(['--version'], { cwd: repo.root });
  assert.is(r.status, 0);
  assert.match(r.stdout, /^shadow \d+\.\d+\.\d+\n$/);
});

Cli('usage errors exit 2 with a JSON error under --json', ({ repo }) => {
  const r = repo.shadow(['frobnicate', '--json']);
  assert.is(r.status, 2);
  assert.is(r.json().error.code, 'USAGE');
});

Cli.run();
