import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './helpers/disk-repo.js';

/*
 * `shadow blame --published` after a person's commits moved the agents'
 * lines down (lines added above them) and up (a line deleted above them):
 * each line's note is read at the line's place in the noted commit, which
 * git blame gives (its original line), not at its place in today's file.
 * Git is the oracle: the test reads `git blame --porcelain` and the note
 * itself, and expects for each line the note's range holding git's
 * original line.
 */

const CLAUDE = ['--actor', 'claude', '--model', 'anthropic/claude-x'];
const CODEX = ['--actor', 'codex', '--model', 'openai/gpt-5'];

/** git blame's answer: for each line of `path` at `rev`, the commit and the line's number there. */
function gitBlame(
  repo: DiskRepo,
  path: string,
  rev: string,
): Array<{ commit: string; original: number; final: number }> {
  const out: Array<{ commit: string; original: number; final: number }> = [];
  for (const l of repo.git('blame', '--porcelain', rev, '--', path).split('\n')) {
    const m = /^([0-9a-f]{40}) (\d+) (\d+)/.exec(l);
    if (m) out.push({ commit: m[1]!, original: Number(m[2]), final: Number(m[3]) });
  }
  return out;
}

/** The contributor the commit's note gives its line `line` of `path`, or null (no note, or no range holds it). */
function noted(repo: DiskRepo, commit: string, path: string, line: number): unknown {
  const r = repo.gitResult('notes', '--ref=agent-trace', 'show', commit);
  if (r.status !== 0) return null;
  for (const f of JSON.parse(r.stdout).files) {
    if (f.path !== path) continue;
    for (const c of f.conversations) {
      for (const g of c.ranges) if (g.start_line <= line && line <= g.end_line) return g.contributor ?? c.contributor;
    }
  }
  return null;
}

const repo = new DiskRepo({ 'f.txt': 'base\n' });
const test = suite('blame --published after edits above a line');

test.before(() => {
  const batch = (content: string, who: string[]): void => {
    const input = JSON.stringify({ operations: [{ operation: 'write', path: 'f.txt', content }] });
    const r = repo.shadow(['batch', '-', ...who], { input });
    assert.is(r.status, 0, r.stderr);
  };
  batch('base\nclaude 1\nclaude 2\n', CLAUDE);
  batch('base\nclaude 1\nclaude 2\ncodex 1\nclaude 3\n', CODEX);
  assert.is(repo.shadow(['apply', '--squash', '-m', 'agents']).status, 0);
  // One note on the squash: claude's lines 2-3, codex's 4-5 (its batch also wrote "claude 3").
  repo.write('f.txt', 'header 1\nheader 2\nbase\nclaude 1\nclaude 2\ncodex 1\nclaude 3\n');
  repo.git('commit', '-qam', 'two lines above');
  repo.write('f.txt', 'header 1\nheader 2\nclaude 1\nclaude 2\ncodex 1\nclaude 3\n');
  repo.git('commit', '-qam', 'one line above gone');
});
test.after(() => repo.cleanup());

for (const rev of ['HEAD', 'HEAD~1']) {
  test(`at ${rev}: each line has the contributor of the note's range holding git blame's original line, found by the note (source trace)`, () => {
    const r = repo.shadow(['blame', '--published', 'f.txt', rev, '--json']);
    assert.is(r.status, 0, r.stderr);
    type Line = {
      line: number;
      content: string;
      commit: string;
      original_line: number;
      contributor: unknown;
      source: string;
      noted?: string;
    };
    const lines = r.json().lines as Line[];
    const git = gitBlame(repo, 'f.txt', rev);
    assert.is(lines.length, git.length);
    const squash = repo.git('rev-parse', 'HEAD~2').trim();
    for (const [i, g] of git.entries()) {
      const l = lines[i]!;
      assert.equal([l.line, l.commit, l.original_line], [g.final, g.commit, g.original], `line ${g.final}`);
      const want = noted(repo, g.commit, 'f.txt', g.original);
      assert.equal(l.contributor, want, `line ${g.final} (${g.original} in ${g.commit.slice(0, 12)})`);
      if (g.commit === squash) assert.equal([l.source, l.noted], ['trace', squash], `line ${g.final}`);
    }
    // Spelled out: every agent line moved, and each keeps its own model.
    const by = Object.fromEntries(lines.map((l) => [l.content, l.contributor]));
    assert.equal(by['claude 1'], { type: 'ai', model_id: 'anthropic/claude-x' });
    assert.equal(by['claude 2'], { type: 'ai', model_id: 'anthropic/claude-x' });
    assert.equal(by['codex 1'], { type: 'ai', model_id: 'openai/gpt-5' });
    assert.equal(by['header 1'], null);
  });
}

test.run();
