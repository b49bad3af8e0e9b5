import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './helpers/disk-repo.js';
import { bareRemote, remoteGit, type TestRemote } from './helpers/remotes.js';
import { originRepo, withRemote } from './helpers/remote-repos.js';

/*
 * The Agent Trace notes travel with the drafts: `shadow push` sends the
 * notes ref, `shadow fetch` merges the remote's into the local one, so the
 * attribution of commits published on one machine reads the same on
 * another. git (`git notes show`, `fsck --strict`) is the oracle.
 */

const origin = (remote: TestRemote): DiskRepo => originRepo(remote, { 'f.txt': 'one\n' });

const N = suite('agent trace notes through remotes');

/** One batch by an agent on `draft`, published with apply --commit; returns the published commit. */
function publish(repo: DiskRepo, draft: string, path: string, text: string, model: string): string {
  const b = repo.shadow(['batch', '-', '--draft', draft, '--actor', 'agent', '--model', model], {
    input: JSON.stringify({ operations: [{ operation: 'write', path, content: text }] }),
  });
  assert.is(b.status, 0, b.stderr);
  const r = repo.shadow(['apply', '--commit', '--draft', draft, '--json']);
  assert.is(r.status, 0, r.stderr + r.stdout);
  assert.is(r.json().notes.written.length, 1);
  return repo.ref('HEAD')!;
}

N(
  "push sends the notes, fetch merges them: each machine reads the other's attribution, its own notes kept, nothing forced",
  () =>
    withRemote(
      bareRemote,
      async ({ remote, a, clone }) => {
        const b = clone();
        const onA = publish(a, 'one', 'a.txt', 'by claude\n', 'anthropic/claude-x');
        a.git('push', '-q', 'origin', 'main');
        const pushed = a.shadow(['push', 'origin', 'one', '--json']);
        assert.is(pushed.status, 0, pushed.stderr + pushed.stdout);
        assert.equal(pushed.json().notes, { ref: 'refs/notes/agent-trace', status: 'pushed' });
        assert.is(remoteGit(remote, 'rev-parse', 'refs/notes/agent-trace').trim(), a.ref('refs/notes/agent-trace'));

        // B publishes its own commit on top, then fetches A's notes: both sets, merged.
        b.git('pull', '-q', '--ff-only', 'origin', 'main');
        const onB = publish(b, 'two', 'b.txt', 'by codex\n', 'openai/gpt-5');
        const fetched = b.shadow(['fetch', 'origin', '--json']);
        assert.is(fetched.status, 0, fetched.stderr + fetched.stdout);
        assert.equal(fetched.json().notes, { ref: 'refs/notes/agent-trace', status: 'merged' });
        assert.equal(
          JSON.parse(b.git('notes', '--ref=agent-trace', 'show', onA)),
          JSON.parse(a.git('notes', '--ref=agent-trace', 'show', onA)),
        );
        assert.equal(
          JSON.parse(b.git('notes', '--ref=agent-trace', 'show', onB)).files[0].conversations[0].contributor,
          { type: 'ai', model_id: 'openai/gpt-5' },
        );
        // B's push of the merged notes is a fast-forward of the remote's; A fetches B's note.
        b.git('push', '-q', 'origin', 'main');
        const bPushed = b.shadow(['push', 'origin', 'two', '--json']);
        assert.is(bPushed.status, 0, bPushed.stderr + bPushed.stdout);
        assert.is(bPushed.json().notes.status, 'pushed');
        const aFetched = a.shadow(['fetch', 'origin', '--json']);
        assert.is(aFetched.json().notes.status, 'merged');
        assert.equal(
          JSON.parse(a.git('notes', '--ref=agent-trace', 'show', onB)),
          JSON.parse(b.git('notes', '--ref=agent-trace', 'show', onB)),
        );
        assert.equal(a.shadow(['fetch', 'origin', '--json']).json().notes.status, 'up-to-date');

        // A remote whose notes moved since: the push of the notes is refused, not forced, and says to fetch; the drafts went.
        publish(a, 'three', 'c.txt', 'by claude again\n', 'anthropic/claude-x');
        const remoteNotes = remoteGit(remote, 'rev-parse', 'refs/notes/agent-trace').trim();
        b.git('pull', '-q', '--ff-only', 'origin', 'main');
        publish(b, 'four', 'd.txt', 'by codex again\n', 'openai/gpt-5');
        assert.is(b.shadow(['push', 'origin', 'four', '--json']).json().notes.status, 'pushed');
        const refused = a.shadow(['push', 'origin', 'three', '--json']);
        assert.is(refused.status, 0, refused.stderr + refused.stdout);
        assert.is(refused.json().notes.status, 'refused');
        assert.match(refused.json().notes.reason, /shadow fetch origin/);
        assert.is.not(
          remoteGit(remote, 'rev-parse', 'refs/notes/agent-trace').trim(),
          remoteNotes,
          "B's notes are there",
        );
        assert.ok(remoteGit(remote, 'rev-parse', 'refs/shadow/drafts/three').trim().length === 40, 'the draft went');
        for (const r of [a, b]) r.git('fsck', '--strict', '--no-progress');
        remoteGit(remote, 'fsck', '--strict', '--no-progress');
      },
      { origin },
    ),
);

N('shadow.traceNotes none: no notes travel', () =>
  withRemote(
    bareRemote,
    async ({ remote, a }) => {
      publish(a, 'one', 'a.txt', 'x\n', 'anthropic/claude-x');
      a.git('config', 'shadow.traceNotes', 'none');
      const pushed = a.shadow(['push', 'origin', 'one', '--json']);
      assert.is(pushed.status, 0, pushed.stderr);
      assert.is(pushed.json().notes, undefined);
      assert.is(remoteGit(remote, 'for-each-ref', 'refs/notes/').trim(), '');
    },
    { origin },
  ),
);

N.run();
