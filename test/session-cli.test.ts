import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { IDLE_PROMPT } from '../src/index.js';
import { DiskRepo } from './helpers/disk-repo.js';
import { exited, occurrences, spawnShadow } from './helpers/session-http.js';

/*
 * Write sessions from the CLI, as an agent's harness drives them: begin,
 * feed stdin, the idle prompt on stderr, list/status/cancel, and recovery of
 * a feed killed mid-stream. Kept short: the library and HTTP tests cover the
 * rules in depth.
 */

const PROMPT_MS = 100;
const ORPHAN_NOTE = '1 write session left by an earlier run: resume, finalize or drop it with `shadow session recover`';

const Cli = suite<{ repo: DiskRepo }>('write sessions from the CLI');
Cli.before.each((c) => {
  c.repo = new DiskRepo({ 'README.md': 'Hello\n' });
  c.repo.git('config', 'shadow.sessionPromptMs', String(PROMPT_MS));
});
Cli.after.each((c) => c.repo.cleanup());

function beginId(repo: DiskRepo, target: string, extra: string[] = []): string {
  const r = repo.shadow(['session', 'begin', '--target', target, '--op', 'create', '--json', ...extra]);
  assert.is(r.status, 0, r.stdout + r.stderr);
  return r.json().session_id as string;
}

function gitShow(repo: DiskRepo, path: string): string | undefined {
  const r = repo.gitResult('show', `refs/shadow/drafts/default:${path}`);
  return r.status === 0 ? r.stdout : undefined;
}

Cli(
  'begin --json, feed stdin up to DONE (a DONE inside a line is content): one commit with the trailer',
  ({ repo }) => {
    const b = repo.shadow([
      'session',
      'begin',
      '--target',
      'docs/a.md',
      '--op',
      'create',
      '--intent',
      'the a doc',
      '--json',
    ]);
    assert.is(b.status, 0, b.stderr);
    const doc = b.json();
    assert.match(doc.session_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.is(doc.stage, 'awaiting_content');
    assert.is(doc.session_dir, repo.path(`.git/shadow/sessions/${doc.session_id}`));
    assert.match(doc.instructions, /plain text.*End with DONE on its own line\./s);
    const f = repo.shadow(['session', 'feed', doc.session_id, '--json'], {
      input: '# A\nWe are DONE when it ships.\nDONE\nignored after DONE\n',
    });
    assert.is(f.status, 0, f.stdout + f.stderr);
    assert.equal([f.json().success, f.json().session_id, f.json().batch], [true, doc.session_id, 1]);
    assert.is(gitShow(repo, 'docs/a.md'), '# A\nWe are DONE when it ships.\n');
    const msg = repo.git('log', '-1', '--format=%B', 'refs/shadow/drafts/default');
    assert.ok(msg.startsWith('the a doc\n'), msg);
    assert.ok(msg.split('\n').includes(`Shadow-Session: ${doc.session_id}`), msg);
    assert.is(existsSync(doc.session_dir), false);
    assert.is(repo.shadow(['session', 'list']).stdout, 'no write sessions\n');
    // Text output, and a feed that ends without DONE (end of input) and fails validation.
    const t = repo.shadow(['session', 'begin', '--target', 'README.md', '--op', 'create']);
    assert.match(t.stdout, /^session [0-9a-f-]{36} awaits content for README\.md\n/);
    const id = /^session ([0-9a-f-]{36})/.exec(t.stdout)![1]!;
    const bad = repo.shadow(['session', 'feed', id], { input: 'no newline at the end' });
    assert.is(bad.status, 1);
    assert.is(
      bad.stdout,
      'Validation failed: README.md already exists; use operation "overwrite" or "append" (2 attempts left)\n',
    );
    assert.is(readFileSync(repo.path(`.git/shadow/sessions/${id}/content.txt`), 'utf8'), 'no newline at the end');
  },
);

const PROMPT_MODES = [
  { name: 'text', args: [] as string[] },
  { name: 'json', args: ['--json'] },
];

for (const mode of PROMPT_MODES) {
  Cli(`the idle prompt (${mode.name}): once per idle period, on stderr; DONE ends the feed`, async ({ repo }) => {
    const id = beginId(repo, 'p.md');
    const feed = spawnShadow(repo, ['session', 'feed', id, ...mode.args]);
    const prompts = (): number => occurrences(feed.stderr.text, IDLE_PROMPT);
    feed.child.stdin!.write('first\n');
    await feed.stderr.waitFor(() => prompts() === 1);
    // An observation window (not synchronisation): the same idle period must not prompt again.
    await new Promise((r) => setTimeout(r, 4 * PROMPT_MS));
    assert.is(prompts(), 1, 'one prompt per idle period');
    feed.child.stdin!.write('second\n');
    await feed.stderr.waitFor(() => prompts() === 2);
    feed.child.stdin!.write('DONE\n');
    assert.equal(await exited(feed.child), { code: 0, signal: null }, feed.stderr.text);
    assert.is(prompts(), 2);
    if (mode.name === 'json') {
      const events = feed.stderr.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(
        events,
        [1, 2].map(() => ({ type: 'session/idle', session_id: id, prompt: IDLE_PROMPT })),
      );
      assert.is(JSON.parse(feed.stdout.text).success, true);
    } else {
      assert.is(feed.stderr.text, `${IDLE_PROMPT}\n${IDLE_PROMPT}\n`);
      assert.match(feed.stdout.text, /^committed p\.md as batch 1 on draft default/);
    }
    assert.is(gitShow(repo, 'p.md'), 'first\nsecond\n');
  });
}

Cli('list, status, cancel, clean; unknown ids say "Session not found or expired"', ({ repo }) => {
  repo.git('config', 'shadow.maxSessions', '2');
  const a = beginId(repo, 'a.md');
  const b = beginId(repo, 'b.md');
  const race = repo.shadow(['session', 'begin', '--target', 'c.md', '--op', 'create']);
  assert.is(race.status, 1);
  assert.match(race.stderr, /^error: Another write session is already active\n/);
  const list = repo.shadow(['session', 'list']);
  assert.is(list.stdout.trim().split('\n').length, 2);
  assert.match(list.stdout, new RegExp(`${a}\\s+awaiting_content\\s+create\\s+a\\.md  0 bytes, 0 lines`));
  assert.equal(
    repo
      .shadow(['session', 'list', '--json'])
      .json()
      .sessions.map((s: { session_id: string }) => s.session_id)
      .sort(),
    [a, b].sort(),
  );
  const st = repo.shadow(['session', 'status', b, '--json']).json();
  assert.equal([st.session_id, st.target_file, st.stage, st.bytes], [b, 'b.md', 'awaiting_content', 0]);
  const c = repo.shadow(['session', 'cancel', a]);
  assert.is(c.status, 0);
  assert.is(c.stdout, `cancelled session ${a} (a.md); its files are gone\n`);
  assert.is(existsSync(repo.path(`.git/shadow/sessions/${a}`)), false);
  for (const args of [
    ['cancel', a],
    ['status', a],
    ['feed', a],
    ['finalize', a],
    ['feed', 'no-such-session'],
  ]) {
    const r = repo.shadow(['session', ...args], { input: 'x\n' });
    assert.is(r.status, 1, args.join(' '));
    assert.match(r.stderr, /^error: Session not found or expired\n/, args.join(' '));
  }
  assert.is(repo.shadow(['session', 'status', a, '--json']).json().error.code, 'SESSION_NOT_FOUND');
  assert.is(repo.shadow(['session', 'clean']).stdout, 'nothing to clean\n');
});

Cli('two begins from two processes at once: exactly one wins', async ({ repo }) => {
  const runs = ['x.md', 'y.md'].map((t) =>
    spawnShadow(repo, ['session', 'begin', '--target', t, '--op', 'create', '--json']),
  );
  for (const r of runs) r.child.stdin!.end();
  const codes = await Promise.all(runs.map((r) => exited(r.child)));
  assert.equal(codes.map((c) => c.code).sort(), [0, 1]);
  const loser = runs[codes.findIndex((c) => c.code === 1)]!;
  assert.equal(JSON.parse(loser.stdout.text).error.code, 'SESSION_ACTIVE');
  assert.is(JSON.parse(loser.stdout.text).error.message, 'Another write session is already active');
  assert.is(repo.shadow(['session', 'list', '--json']).json().sessions.length, 1);
});

const RESOLUTIONS = ['feed', 'finalize', 'discard'] as const;

Cli(
  'a feed killed mid-stream: other commands point to recover; recover lists it; feed, --finalize or --discard resolve it',
  async ({ repo }) => {
    repo.git('config', 'shadow.sessionSaveLines', '2');
    repo.git('config', 'shadow.sessionSaveMs', '600000');
    for (const how of RESOLUTIONS) {
      const target = `${how}.md`;
      const id = beginId(repo, target);
      const feed = spawnShadow(repo, ['session', 'feed', id]);
      feed.child.stdin!.write('l1\nl2\nl3\npart');
      // The prompt means the chunk was taken: three lines (saved, as 3 >= 2) and a held-back partial line.
      await feed.stderr.waitFor(() => feed.stderr.text.includes(IDLE_PROMPT));
      feed.child.kill('SIGKILL');
      assert.equal(await exited(feed.child), { code: null, signal: 'SIGKILL' });
      assert.is(readFileSync(repo.path(`.git/shadow/sessions/${id}/content.txt`), 'utf8'), 'l1\nl2\nl3\n');
      if (how === 'feed') {
        const other = repo.shadow(['log']);
        assert.ok(other.stderr.includes(ORPHAN_NOTE), other.stderr);
        const text = repo.shadow(['session', 'recover']);
        assert.match(
          text.stdout,
          new RegExp(`${id}\\s+awaiting_content\\s+create\\s+${target}  9 bytes, 3 lines, \\d+s old, orphaned`),
        );
        assert.ok(text.stdout.includes(`resume: shadow session feed ${id} < rest`), text.stdout);
      }
      const listed = repo.shadow(['session', 'recover', '--json']).json();
      assert.equal(
        listed.resumable.map((s: { session_id: string; bytes: number; orphaned: boolean }) => [
          s.session_id,
          s.bytes,
          s.orphaned,
        ]),
        [[id, 9, true]],
      );
      if (how === 'feed') {
        const r = repo.shadow(['session', 'feed', id], { input: 'part 4\nDONE\n' });
        assert.is(r.status, 0, r.stdout + r.stderr);
        assert.is(gitShow(repo, target), 'l1\nl2\nl3\npart 4\n');
      } else if (how === 'finalize') {
        const r = repo.shadow(['session', 'recover', '--finalize', '--json']);
        assert.is(r.status, 0, r.stdout);
        assert.equal(
          r.json().finalized.map((f: { session_id: string; success: boolean }) => [f.session_id, f.success]),
          [[id, true]],
        );
        assert.is(gitShow(repo, target), 'l1\nl2\nl3\n', 'what was saved before the kill');
      } else {
        const r = repo.shadow(['session', 'recover', '--discard']);
        assert.is(r.stdout, `discarded ${id}\n`);
        assert.is(gitShow(repo, target), undefined);
      }
      assert.is(existsSync(repo.path(`.git/shadow/sessions/${id}`)), false, how);
      assert.is(repo.shadow(['session', 'recover']).stdout, 'no orphaned write sessions\n');
    }
  },
);

Cli.run();
