import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { DiskRepo, isolatedEnv, type CliResult } from './helpers/disk-repo.js';
import { bareRemote, type TestRemote } from './helpers/remotes.js';
import { allObjectBytes, withRemote } from './helpers/remote-repos.js';

/**
 * The secret guard reads everything that reaches a commit or a remote, not
 * only file contents: a batch's intent (the commit's subject), its actor
 * (the author and a trailer), its model (a trailer), the paths it adds, a
 * checkpoint's message, the message given to `apply --squash -m`. Native
 * git is the oracle of what reached the branch and the remote.
 */

const TOKEN = 'ghp_' + 'k7Q2mZ9xR4tB8wN1vC6yL3pH5sD0fJ2gA9eU'; // made up, shaped like a classic GitHub token
const MASKED = TOKEN.slice(4);

/** How each field gets the token: the CLI arguments before the batch command, and the batch. */
const FIELDS: Array<{ where: string; global: string[]; intent: string; path: string }> = [
  { where: 'message', global: [], intent: `wire the client with ${TOKEN}`, path: 'src/client.ts' },
  { where: 'author', global: ['--actor', `bot-${TOKEN}`], intent: 'wire the client', path: 'src/client.ts' },
  { where: 'message', global: ['--model', `claude ${TOKEN}`], intent: 'wire the client', path: 'src/client.ts' },
  { where: 'path', global: [], intent: 'wire the client', path: `keys/${TOKEN}.txt` },
];

function git(dir: string, ...args: string[]): string {
  const r = spawnSync('git', [`--git-dir=${dir}`, ...args], { env: isolatedEnv(tmpdir()), encoding: 'utf8' });
  return r.stdout;
}

/** What the branch holds: every commit's message and identities, every path. */
function branchBytes(repo: DiskRepo, branch = 'main'): string {
  return (
    repo.git('log', branch, '--format=%B%n%an <%ae>%n%cn <%ce>') + repo.git('ls-tree', '-r', '--name-only', branch)
  );
}

/** What the remote holds: every ref's commits' messages, every path, every object's bytes. */
function remoteBytes(remote: TestRemote): string {
  const refs = git(remote.dir!, 'for-each-ref', '--format=%(refname)');
  let out = refs;
  for (const ref of refs.split('\n').filter(Boolean))
    out += git(remote.dir!, 'log', ref, '--format=%B%n%an') + git(remote.dir!, 'ls-tree', '-r', '--name-only', ref);
  return out + allObjectBytes(remote.dir!).toString('latin1');
}

function pendingOf(r: CliResult): Array<{ id: string; kind: string; when?: string; reason: string }> {
  return r.json().pendingApprovals ?? r.json().error?.data?.pendingApprovals;
}

const Fields = suite("a token in a commit's metadata");

for (const f of FIELDS) {
  const via = f.global.length > 0 ? f.global[0] : f.where === 'path' ? 'a path' : 'the intent';
  Fields(
    `${via}: neither apply --commit nor shadow push lets it out until a secrets_override names it; the branch and the remote never see it before`,
    () =>
      withRemote(bareRemote, async ({ remote, a }) => {
        const batch = JSON.stringify({
          intent: f.intent,
          operations: [{ operation: 'write', path: f.path, content: 'export const client = {};\n' }],
        });
        const b = a.shadow([...f.global, 'batch', '-'], { input: batch });
        assert.is(b.status, 0, b.stdout + b.stderr);
        const main = a.ref('main');

        const push = a.shadow(['push', 'origin', 'default', '--json']);
        assert.is(push.status, 1, push.stdout);
        assert.is(push.json().error.code, 'APPROVALS_PENDING');
        assert.not.ok(push.stdout.includes(MASKED), push.stdout);
        assert.not.ok(remoteBytes(remote).includes(MASKED), 'nothing of it reached the remote');

        const apply = a.shadow(['apply', '--commit', '--json']);
        assert.is(apply.status, 3, apply.stdout + apply.stderr);
        // What the guard reports is masked; a listing of the files to write names them as they are.
        const report = (r: CliResult): string =>
          JSON.stringify({ pending: r.json().pendingApprovals, findings: r.json().findings });
        assert.not.ok((f.where === 'path' ? report(apply) : apply.stdout).includes(MASKED), apply.stdout);
        const secrets = pendingOf(apply).filter((p) => p.kind === 'secrets_override');
        assert.ok(
          secrets.some((p) => p.when === 'commit'),
          JSON.stringify(secrets),
        );
        const findings = apply.json().findings;
        const wheres = [...findings.secrets, ...findings.commits.flatMap((c: { secrets: unknown[] }) => c.secrets)].map(
          (s: { where: string }) => s.where,
        );
        assert.ok(wheres.includes(f.where), `${JSON.stringify(wheres)} names ${f.where}`);
        assert.is(a.ref('main'), main, 'the branch did not move');
        assert.not.ok(branchBytes(a).includes(MASKED));

        for (const p of secrets) assert.is(a.shadow(['approve', p.id, '--reason', 'a test token']).status, 0);
        const done = a.shadow(['apply', '--commit', '--json']);
        assert.is(done.status, 0, done.stdout + done.stderr);
        assert.ok(branchBytes(a).includes(TOKEN), 'approved, it is published as it is');
        const pushed = a.shadow(['push', 'origin', 'default', '--json']);
        assert.is(pushed.status, 0, pushed.stdout + pushed.stderr);
        assert.ok(remoteBytes(remote).includes(TOKEN));
        // The trace note of the published commit went too (refs/notes/agent-trace), with the token masked.
        const notes = git(remote.dir!, 'log', '-p', 'refs/notes/agent-trace');
        assert.match(notes, /"model_id"|"path"/);
        assert.not.ok(notes.includes(MASKED), notes);
      }),
  );
}

Fields('a path holding a token needs a secrets_override for a files-only apply too: it is in the final diff', () => {
  const repo = new DiskRepo({ 'README.md': 'Hello\n' });
  try {
    const batch = JSON.stringify({ operations: [{ operation: 'write', path: `keys/${TOKEN}.txt`, content: 'x\n' }] });
    assert.is(repo.shadow(['batch', '-'], { input: batch }).status, 0);
    const r = repo.shadow(['apply', '--json']);
    assert.is(r.status, 3, r.stdout + r.stderr);
    assert.equal(
      r.json().findings.secrets.map((s: { where: string; path: string }) => [s.where, s.path]),
      [['path', 'keys/ghp_****************.txt']],
    );
    assert.not.ok(JSON.stringify({ pending: r.json().pendingApprovals, findings: r.json().findings }).includes(MASKED));
    assert.is(repo.git('status', '--porcelain'), '', 'nothing written');
  } finally {
    repo.cleanup();
  }
});

Fields(
  'a checkpoint message holding a token: apply --commit publishes (no tag reaches the branch), shadow push waits for an approval of that checkpoint',
  () =>
    withRemote(bareRemote, async ({ remote, a }) => {
      const batch = JSON.stringify({
        intent: 'wire the client',
        operations: [{ operation: 'write', path: 'src/client.ts', content: 'export const client = {};\n' }],
      });
      assert.is(a.shadow(['batch', '-'], { input: batch }).status, 0);
      assert.is(a.shadow(['checkpoint', 'wired', '-m', `works with ${TOKEN}`]).status, 0);
      const review = a.shadow(['review', '--json']).json();
      assert.equal(
        review.branch_approvals.map((p: { when: string; status: string }) => [p.when, p.status]),
        [['push', 'pending']],
      );
      assert.equal(
        review.commit_secrets.map((c: { checkpoint: string; secrets: Array<{ where: string }> }) => [
          c.checkpoint,
          c.secrets.map((s) => s.where),
        ]),
        [['wired', ['checkpoint']]],
      );
      assert.match(a.shadow(['review']).stdout, /shadow push only/);
      const push = a.shadow(['push', 'origin', 'default', '--json']);
      assert.is(push.json().error.code, 'APPROVALS_PENDING', push.stdout);
      assert.not.ok(remoteBytes(remote).includes(MASKED));
      const done = a.shadow(['apply', '--commit', '--json']);
      assert.is(done.status, 0, done.stdout + done.stderr);
      assert.not.ok(branchBytes(a).includes(MASKED));
      assert.is(a.shadow(['approve', review.branch_approvals[0].id, '--reason', 'a test token']).status, 0);
      const pushed = a.shadow(['push', 'origin', 'default', '--json']);
      assert.is(pushed.status, 0, pushed.stdout + pushed.stderr);
      assert.match(git(remote.dir!, 'for-each-ref', '--format=%(contents)', 'refs/shadow/checkpoints/'), TOKEN);
    }),
);

Fields(
  'a commit only a checkpoint holds, past a rollback, with a token in its intent: shadow push waits for an approval with when push',
  () =>
    withRemote(bareRemote, async ({ remote, a }) => {
      const batch = (intent: string): string =>
        JSON.stringify({
          intent,
          operations: [{ operation: 'write', path: 'src/client.ts', content: `${intent.length}\n` }],
        });
      assert.is(a.shadow(['batch', '-'], { input: batch('wire the client') }).status, 0);
      assert.is(a.shadow(['batch', '-'], { input: batch(`try ${TOKEN}`) }).status, 0);
      const held = a.ref('refs/shadow/drafts/default');
      assert.is(a.shadow(['checkpoint', 'tried']).status, 0);
      assert.is(a.shadow(['rollback', '~1']).status, 0);
      const review = a.shadow(['review', '--json']).json();
      assert.equal(
        review.branch_approvals.map((p: { when: string; commit: string }) => [p.when, p.commit]),
        [['push', held]],
      );
      assert.is(
        a.shadow(['apply', '--commit', '--dry-run', '--json']).json().pendingApprovals.length,
        0,
        'the branch would not get it',
      );
      const push = a.shadow(['push', 'origin', 'default', '--json']);
      assert.is(push.json().error.code, 'APPROVALS_PENDING', push.stdout);
      assert.not.ok(remoteBytes(remote).includes(MASKED));
      assert.is(a.shadow(['approve', review.branch_approvals[0].id, '--reason', 'a test token']).status, 0);
      assert.is(a.shadow(['push', 'origin', 'default']).status, 0);
    }),
);

Fields(
  'apply --squash -m holding a token is refused with SECRET_IN_MESSAGE, dry run too: nothing written, the branch unmoved',
  () => {
    const repo = new DiskRepo({ 'README.md': 'Hello\n' });
    try {
      const batch = JSON.stringify({
        operations: [{ operation: 'write', path: 'src/client.ts', content: 'export const client = {};\n' }],
      });
      assert.is(repo.shadow(['batch', '-'], { input: batch }).status, 0);
      const main = repo.ref('main');
      for (const args of [
        ['-m', `ship it ${TOKEN}`],
        ['-m', 'ship it', '--actor', `bot-${TOKEN}`],
        ['-m', `ship it ${TOKEN}`, '--dry-run'],
      ]) {
        const r = repo.shadow(['apply', '--squash', ...args, '--json']);
        assert.is(r.status, 1, r.stdout + r.stderr);
        const e = r.json().error;
        assert.is(e.code, 'SECRET_IN_MESSAGE', JSON.stringify(e));
        assert.type(e.hint, 'string');
        assert.not.ok(r.stdout.includes(MASKED), r.stdout);
        assert.is(repo.ref('main'), main);
        assert.is(repo.git('status', '--porcelain'), '');
      }
      const ok = repo.shadow(['apply', '--squash', '-m', 'ship it', '--json']);
      assert.is(ok.status, 0, ok.stdout + ok.stderr);
      assert.is(repo.git('log', '-1', '--format=%s', 'main').trim(), 'ship it');
    } finally {
      repo.cleanup();
    }
  },
);

Fields(
  'the ledger keeps no token whole: an intent, an actor and a model are masked in events.jsonl, whoever wrote them',
  () => {
    const repo = new DiskRepo({ 'README.md': 'Hello\n' });
    try {
      const batch = JSON.stringify({
        intent: `wire the client with ${TOKEN}`,
        operations: [{ operation: 'write', path: 'src/client.ts', content: 'x\n' }],
      });
      const r = repo.shadow(['--actor', `bot-${TOKEN}`, '--model', `model-${TOKEN}`, 'batch', '-'], { input: batch });
      assert.is(r.status, 0, r.stdout + r.stderr);
      assert.match(
        repo.git('log', '-1', '--format=%B%an', 'refs/shadow/drafts/default'),
        TOKEN,
        'the draft itself holds what it was given',
      );
      const ledger = repo.read('.git/shadow/drafts/default/events.jsonl');
      assert.not.ok(ledger.includes(MASKED), ledger);
      const event = ledger
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((e) => e.type === 'batch/commit');
      assert.is(event.data.intent, 'wire the client with ghp_****************');
      assert.is(event.actor, 'bot-ghp_****************');
      assert.is(repo.shadow(['events', '--verify']).status, 0, 'the chain holds over the masked lines');
    } finally {
      repo.cleanup();
    }
  },
);

Fields.run();
