import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './helpers/disk-repo.js';

const TOKEN = 'xoxb-' + '482913574620-7719384652011-Zq8RtW3nPk5VmXc2LbA9yHsD'; // made up, shaped like a Slack bot token

const Cli = suite<{ repo: DiskRepo }>('review from the CLI');
Cli.before.each((c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n' });
  c.repo.git('config', 'shadow.protect', '*.pem');
});
Cli.after.each((c) => c.repo.cleanup());

Cli('propose, review, apply exits 3, approve, apply; the ledger verifies; the secret never shows', ({ repo }) => {
  const batch = JSON.stringify({
    operations: [
      { operation: 'write', path: 'slack.env', content: `SLACK_TOKEN=${TOKEN}\n` },
      { operation: 'write', path: 'certs/dev.pem', content: 'public\n' },
    ],
  });
  assert.is(repo.shadow(['batch', '-'], { input: batch }).status, 0);
  const p = repo.shadow(['propose', '-m', 'config', '--json']);
  assert.is(p.status, 0, p.stderr);
  assert.match(p.json().patch_fingerprint, /^patchset:/);
  const r = repo.shadow(['review', '--json']);
  assert.is(r.status, 0);
  const review = r.json();
  assert.is(review.status, 'proposed');
  assert.equal(
    review.approvals.map((a: { kind: string }) => a.kind),
    ['secrets_override', 'protected_path'],
  );
  const a = repo.shadow(['apply', '--json']);
  assert.is(a.status, 3);
  assert.equal(a.json().pendingApprovals.length, 2);
  assert.is(repo.exists('slack.env'), false);
  const text = repo.shadow(['apply']);
  assert.is(text.status, 3);
  assert.match(text.stdout, /needs 2 approvals; nothing was written/);
  for (const ap of review.approvals) assert.is(repo.shadow(['approve', ap.id, '--reason', 'dev values']).status, 0);
  const done = repo.shadow(['apply', '--json']);
  assert.is(done.status, 0, done.stdout + done.stderr);
  assert.is(repo.read('slack.env'), `SLACK_TOKEN=${TOKEN}\n`);
  const v = repo.shadow(['events', '--verify', '--json']);
  assert.is(v.status, 0);
  assert.is(v.json().ok, true);
  const lines = repo
    .shadow(['events', '--json'])
    .stdout.trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.ok(lines.some((e: { type: string }) => e.type === 'approval/decision'));
  for (const out of [r.stdout, a.stdout, text.stdout, repo.shadow(['review']).stdout, repo.shadow(['events']).stdout]) {
    assert.not.match(out, TOKEN.slice(8), 'the secret is never printed');
  }
});

Cli('deny: apply fails fast with DENIED (exit 1) each time; approve after deny refused; unknown ids', ({ repo }) => {
  assert.is(repo.shadow(['write', 'key.pem'], { input: 'k\n' }).status, 0);
  const id = repo.shadow(['review', '--json']).json().approvals[0].id;
  assert.is(repo.shadow(['deny', id]).status, 2, 'deny needs --reason');
  assert.is(repo.shadow(['deny', id, '--reason', 'no keys']).status, 0);
  for (let i = 0; i < 2; i++) {
    const r = repo.shadow(['apply', '--json']);
    assert.is(r.status, 1);
    assert.is(r.json().error.code, 'DENIED');
    assert.match(r.json().error.message, /denied by Test User/);
  }
  assert.is(repo.shadow(['approve', id, '--json']).json().error.code, 'DENIED');
  assert.is(repo.shadow(['approve', 'ap-ffffffffff', '--json']).json().error.code, 'APPROVAL_NOT_FOUND');
  assert.is(repo.exists('key.pem'), false);
});

Cli('a ledger edited by hand: events --verify exits 1 naming the line', ({ repo }) => {
  assert.is(repo.shadow(['write', 'a.txt'], { input: 'a\n' }).status, 0);
  assert.is(repo.shadow(['write', 'b.txt'], { input: 'b\n' }).status, 0);
  const path = repo.path('.git/shadow/drafts/default/events.jsonl');
  const lines = repo.read('.git/shadow/drafts/default/events.jsonl').split('\n');
  lines[1] = lines[1]!.replace('"batch":1', '"batch":7');
  repo.write('.git/shadow/drafts/default/events.jsonl', lines.join('\n'));
  void path;
  const v = repo.shadow(['events', '--verify']);
  assert.is(v.status, 1);
  assert.match(v.stdout, /ledger broken at line 3/);
});

Cli('read-only sandbox from config and from the flag', ({ repo }) => {
  assert.is(repo.shadow(['write', 'a.txt'], { input: 'a\n' }).status, 0);
  repo.git('config', 'shadow.sandbox', 'read-only');
  const r = repo.shadow(['apply', '--json']);
  assert.is(r.status, 1);
  assert.is(r.json().error.code, 'READ_ONLY');
  assert.is(repo.shadow(['apply', '--sandbox', 'workspace-write']).status, 0);
  assert.is(repo.read('a.txt'), 'a\n');
});

Cli.run();
