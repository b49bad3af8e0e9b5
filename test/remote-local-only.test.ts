import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withShadow, type CliResult, type DiskRepo } from './helpers/disk-repo.js';
import { bareRemote, remoteGit } from './helpers/remotes.js';
import { allObjectBytes, originRepo, refsAt, withRemote } from './helpers/remote-repos.js';

/**
 * What must stay on this machine never crosses a push: paths .gitignore
 * ignores (let into a draft by shadow.allowIgnored), unapproved secrets,
 * this machine's directories. The oracle is the bare remote itself: its
 * refs and every object it holds, inflated, grepped for the bytes.
 */

const LocalOnly = suite('what stays local through shadow push');

/** A file of the repository's shadow directory. */
function shadowFile(repo: DiskRepo, path: string): string {
  return readFileSync(join(repo.dir, '.git', 'shadow', path), 'utf8');
}

function errorOf(r: CliResult): { code: string; message: string; hint?: string; data?: any } {
  return r.json().error;
}

LocalOnly(
  'a draft whose commits ever held an ignored path is refused (IGNORED_PATH, the paths in data), checkpoints included; nothing is pushed; un-ignoring the path lets it go',
  () =>
    withRemote(
      bareRemote,
      async ({ remote, a }) => {
        a.git('config', 'shadow.allowIgnored', 'true');
        const token = 'local-only-value-7c1e';
        await withShadow(a, async (sh) => {
          await sh.batch(
            {
              operations: [
                { operation: 'write', path: '.env', content: `TOKEN=${token}\n` },
                { operation: 'write', path: 'src/a.ts', content: 'a\n' },
              ],
            },
            { draft: 'env' },
          );
          await sh.checkpoint('with-env', { draft: 'env' });
          // A later batch takes it out: the first commit still holds it.
          await sh.batch(
            {
              operations: [
                { operation: 'delete', path: '.env' },
                { operation: 'write', path: 'build/out.js', content: 'x\n' },
              ],
            },
            { draft: 'env' },
          );
        });
        const refused = a.shadow(['push', 'origin', 'env', '--json']);
        assert.is(refused.status, 1, refused.stdout);
        const e = errorOf(refused);
        assert.is(e.code, 'IGNORED_PATH');
        assert.equal(e.data.paths, ['.env', 'build/out.js']);
        assert.is(e.data.draft, 'env');
        assert.match(e.hint!, 'shadow rollback');
        assert.match(e.hint!, '!<path>');
        assert.equal(e.data.refs, [
          { ref: 'refs/shadow/drafts/env', paths: ['.env', 'build/out.js'] },
          { ref: 'refs/shadow/checkpoints/env/with-env', paths: ['.env'] },
        ]);
        assert.is(refsAt(remote.dir, 'refs/shadow/'), '');
        assert.not.ok(allObjectBytes(remote.dir).includes(token));
        assert.is(a.git('for-each-ref', 'refs/shadow/remotes/'), '');
        // Rolled back past both batches, the checkpoints (the one made, the one the rollback made) still hold them: still refused.
        assert.is(a.shadow(['rollback', '~2', '--draft', 'env']).status, 0);
        const still = errorOf(a.shadow(['push', 'origin', 'env', '--json']));
        assert.is(still.code, 'IGNORED_PATH');
        assert.not.ok(still.data.refs.some((h: any) => h.ref === 'refs/shadow/drafts/env'));
        assert.match(still.hint!, 'git update-ref -d refs/shadow/checkpoints/env/');
        for (const h of still.data.refs) a.git('update-ref', '-d', h.ref);
        const clean = a.shadow(['push', 'origin', 'env', '--json']);
        assert.is(clean.status, 0, clean.stdout + clean.stderr);
        assert.not.ok(allObjectBytes(remote.dir).includes(token));
        // The opt-in names the path: once the repository stops ignoring it, it is the user's to share.
        await withShadow(a, async (sh) => {
          await sh.batch(
            { operations: [{ operation: 'write', path: '.env', content: `TOKEN=${token}\n` }] },
            { draft: 'shared' },
          );
        });
        assert.is(errorOf(a.shadow(['push', 'origin', 'shared', '--json'])).code, 'IGNORED_PATH');
        appendFileSync(join(a.dir, '.gitignore'), '!.env\n');
        const pushed = a.shadow(['push', 'origin', 'shared', '--json']);
        assert.is(pushed.status, 0, pushed.stdout + pushed.stderr);
        assert.ok(allObjectBytes(remote.dir).includes(token));
        remoteGit(remote, 'fsck', '--strict', '--no-progress');
      },
      { origin: (r) => originRepo(r, { 'README.md': 'Hello\n', '.gitignore': '.env\nbuild/\n' }) },
    ),
);

LocalOnly('a tracked path the ignore rules match is not ignored (as for git): its draft is pushed', () =>
  withRemote(
    bareRemote,
    async ({ remote, a }) => {
      a.write('.gitignore', '*.log\n');
      a.git('add', '.gitignore');
      a.git('commit', '-q', '-m', 'ignore logs');
      await withShadow(a, async (sh) => {
        await sh.batch(
          { operations: [{ operation: 'write', path: 'kept.log', content: 'changed\n' }] },
          { draft: 'logs' },
        );
      });
      const pushed = a.shadow(['push', 'origin', 'logs', '--json']);
      assert.is(pushed.status, 0, pushed.stdout + pushed.stderr);
      assert.is(remoteGit(remote, 'rev-parse', 'refs/shadow/drafts/logs').trim(), a.ref('refs/shadow/drafts/logs'));
    },
    { origin: (r) => originRepo(r, { 'README.md': 'Hello\n', 'kept.log': 'tracked\n' }) },
  ),
);

LocalOnly(
  "no pushed object names a directory of this machine: a proposal's workspace_root travels as null, and the fetched draft reads it",
  () =>
    withRemote(bareRemote, async ({ remote, a }) => {
      await withShadow(a, async (sh) => {
        await sh.batch(
          { operations: [{ operation: 'write', path: 'src/app.ts', content: 'export const x = 2;\n' }] },
          { draft: 'p' },
        );
        await sh.checkpoint('one', { draft: 'p' });
        await sh.propose({ message: 'ready', draft: 'p' });
      });
      const local = JSON.parse(shadowFile(a, 'drafts/p/proposal.json'));
      assert.is(local.workspace_root, a.dir, 'the proposal names its directory here');
      const pushed = a.shadow(['push', 'origin', 'p', '--json']);
      assert.is(pushed.status, 0, pushed.stdout + pushed.stderr);
      const bytes = allObjectBytes(remote.dir);
      assert.not.ok(bytes.includes(a.root), `a pushed object names ${a.root}`);
      const proposal = JSON.parse(remoteGit(remote, 'show', 'refs/shadow/meta/p:proposal.json'));
      assert.is(proposal.workspace_root, null);
      assert.is(proposal.commit, a.ref('refs/shadow/drafts/p'));
      assert.is(
        JSON.parse(remoteGit(remote, 'show', 'refs/shadow/meta/p:draft.json')).pointers.proposal.workspace_root,
        null,
      );
      // The other side reads it as a proposed draft.
      a.git('update-ref', '-d', 'refs/shadow/remotes/origin/drafts/p');
      assert.is(a.shadow(['fetch', 'origin']).status, 0);
      const listed = a.shadow(['draft', 'list', '--remote', '--json']);
      assert.is(listed.status, 0, listed.stdout + listed.stderr);
      assert.equal(
        listed.json().drafts.map((d: any) => [d.name, d.status]),
        [['origin/p', 'proposed']],
        listed.stdout,
      );
      const review = a.shadow(['review', 'origin/p', '--json']);
      assert.is(review.status, 0, review.stdout + review.stderr);
    }),
);

LocalOnly(
  "a draft whose ledger records a secret finding (a proposal, an approval request) pushes no object holding the secret's text",
  () =>
    withRemote(bareRemote, async ({ remote, a }) => {
      const key = ['AKIA', 'Z7Q3LMXW4TRB2KQP'].join('');
      await withShadow(a, async (sh) => {
        await sh.batch(
          { operations: [{ operation: 'write', path: 'src/keys.ts', content: `export const k = '${key}';\n` }] },
          { draft: 's' },
        );
        await sh.propose({ message: 'with a key', draft: 's' });
      });
      const events = shadowFile(a, 'drafts/s/events.jsonl');
      assert.match(events, 'secrets_override', 'the ledger records the finding');
      assert.not.match(events, key);
      // Taken out again, and rolled back past it: the draft's history no longer holds the key, but its proposal does.
      assert.is(a.shadow(['rollback', '~1', '--draft', 's']).status, 0);
      await withShadow(a, async (sh) => {
        await sh.batch(
          { operations: [{ operation: 'write', path: 'src/keys.ts', content: 'export const k = process.env.K;\n' }] },
          { draft: 's' },
        );
      });
      const refused = a.shadow(['push', 'origin', 's', '--json']);
      assert.is(refused.status, 1, refused.stdout);
      const e = errorOf(refused);
      assert.is(e.code, 'APPROVALS_PENDING');
      assert.is(e.data.pendingApprovals[0].commit, a.git('rev-parse', 'refs/shadow/proposals/s').trim());
      assert.not.match(refused.stdout, key);
      assert.is(refsAt(remote.dir, 'refs/shadow/'), '');
      assert.not.ok(allObjectBytes(remote.dir).includes(key));
      // Without the proposal and the checkpoint the rollback made, what is pushed holds the ledger (and its finding) but not the key.
      for (const ref of a
        .git('for-each-ref', '--format=%(refname)', 'refs/shadow/proposals/s', 'refs/shadow/checkpoints/s/')
        .split('\n')
        .filter(Boolean))
        a.git('update-ref', '-d', ref);
      const pushed = a.shadow(['push', 'origin', 's', '--json']);
      assert.is(pushed.status, 0, pushed.stdout + pushed.stderr);
      const bytes = allObjectBytes(remote.dir);
      assert.ok(bytes.includes('secrets_override'), 'the ledger crossed');
      assert.not.ok(bytes.includes(key), "the secret's text is in a pushed object");
      remoteGit(remote, 'fsck', '--strict', '--no-progress');
    }),
);

LocalOnly.run();
