import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './helpers/disk-repo.js';

/*
 * `shadow blame`, with git as the oracle: its --porcelain is `git blame
 * --porcelain` of the draft's commit byte for byte, and its JSON names, per
 * line, the batch, actor, actor type and model that wrote it, the person's
 * captured change as a capture, and the base's history where the draft kept
 * the line.
 */

const REF = 'refs/shadow/drafts/default';
const test = suite('shadow blame');
const write = (path: string, content: string): string =>
  JSON.stringify({ intent: `edit ${path}`, operations: [{ operation: 'write', path, content }] });

test("porcelain is git blame's; each line knows its batch, actor and model, a captured line is the person's, a kept line its base commit", () => {
  const repo = new DiskRepo({ 'f.txt': 'one\ntwo\nthree\nfour\n' });
  try {
    repo.write('f.txt', 'one\ntwo\nthree\nfour\nfive\n');
    repo.git('commit', '-qam', 'five');
    const five = repo.ref('HEAD')!;
    // The person's uncommitted change, captured by the first batch.
    repo.write('f.txt', 'ONE\ntwo\nthree\nfour\nfive\n');
    assert.is(
      repo.shadow(['batch', '-', '--actor', 'claude', '--model', 'anthropic/claude-x'], {
        input: write('f.txt', 'ONE\ntwo by claude\nthree\nfour\nfive\n'),
      }).status,
      0,
    );
    assert.is(
      repo.shadow(['batch', '-', '--actor', 'codex', '--model', 'openai/gpt-5'], {
        input: write('f.txt', 'ONE\ntwo by claude\nthree\nfour by codex\nfive\n'),
      }).status,
      0,
    );

    const porcelain = repo.shadow(['blame', 'f.txt', '--porcelain']);
    assert.is(porcelain.status, 0, porcelain.stderr);
    assert.is(porcelain.stdout, repo.git('blame', '--porcelain', repo.ref(REF)!, '--', 'f.txt'));

    const r = repo.shadow(['blame', 'f.txt', '--json']).json();
    const rows = r.lines.map((l: any) => [l.line, l.content, l.batch, l.capture, l.actor, l.actor_type, l.model]);
    assert.equal(rows, [
      [1, 'ONE', 1, true, 'Test User', 'human', null],
      [2, 'two by claude', 1, false, 'claude', 'ai', 'anthropic/claude-x'],
      [3, 'three', null, false, 'Test User', null, null],
      [4, 'four by codex', 2, false, 'codex', 'ai', 'openai/gpt-5'],
      [5, 'five', null, false, 'Test User', null, null],
    ]);
    assert.is(r.lines[4].commit, five);
    assert.match(repo.shadow(['blame', 'f.txt']).stdout, /batch 2 codex \(openai\/gpt-5\) .*    4\) four by codex/);

    // At batch 1, codex's line is not there yet.
    const at1 = repo.shadow(['blame', 'f.txt', '--at', '1', '--json']).json();
    assert.is(at1.lines[3].content, 'four');
    assert.is(at1.lines[3].batch, null);
    const missing = repo.shadow(['blame', 'nope.txt', '--json']);
    assert.is(missing.status, 1);
    assert.is(missing.json().error.code, 'NOT_FOUND');
  } finally {
    repo.cleanup();
  }
});

test.run();
