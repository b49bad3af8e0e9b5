/**
 * `split` against git as the oracle: for a corpus of files and hunk
 * choices, the new draft's tree at the path holds, byte for byte and mode
 * for mode, what `git apply` of the chosen hunks (cut from `git diff` of the
 * same two states) makes of the base, and the draft's tree holds what `git
 * apply -R` of them makes of its tip. Then bases the root does not hold (an
 * edit of the person's, a partial apply) stand under the new draft too. One
 * real repository for the file (each case its own path and draft); git's
 * side in a scratch repository.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { codeOf } from './helpers/caught.js';
import { change, forty, HUNK_CASES, oracleSuite, type HunkCase } from './helpers/hunk-cases.js';

type Case = HunkCase & { base: string; next: string };
// Cases of the hunk apply's corpus (test/helpers/hunk-cases.ts), split instead of applied.
const SPLIT = new Set([
  'the middle one of three hunks',
  'the first and the last of three hunks',
  'the second of two hunks whose contexts touch',
  'the last line of a file with no final newline',
  'a CRLF file, its bytes kept',
  'a content hunk without the mode change beside it',
  'the mode change alone, without the content hunks',
]);
const CASES = HUNK_CASES.filter((c): c is Case => SPLIT.has(c.name) && c.base !== null && c.next !== null);

/** A path's mode and bytes in a tree-ish, as git reads them. */
function entryAt(repo: DiskRepo, treeish: string, path: string): { mode: string; bytes: string } {
  const [mode] = repo.git('ls-tree', treeish, '--', path).split(' ');
  return { mode: mode!, bytes: repo.git('cat-file', 'blob', `${treeish}:${path}`) };
}

/** git's side: the chosen hunks of `git diff` applied to the base, and taken out of the tip with -R. */
function gitOracle(scratch: DiskRepo, c: Case): { chosen: string; rest: string } {
  scratch.write(c.path, c.base);
  chmodSync(scratch.path(c.path), 0o644);
  scratch.git('add', '-A');
  scratch.git('commit', '-q', '--allow-empty', '-m', `base of ${c.path}`);
  scratch.write(c.path, c.next);
  chmodSync(scratch.path(c.path), c.mode === '100755' ? 0o755 : 0o644);
  scratch.git('add', '-A');
  scratch.git('commit', '-q', '-m', `tip of ${c.path}`);
  const full = scratch.git('diff', 'HEAD~1', 'HEAD');
  const at = full.indexOf('\n@@');
  const head = at === -1 ? full : full.slice(0, at + 1);
  const hunks = at === -1 ? [] : full.slice(at + 1).split(/^(?=@@ )/m);
  const wanted = c.choice.split(',');
  const modeLines = wanted.includes('mode') ? head.split('\n').filter((l) => /^(old|new) mode /.test(l)) : [];
  const chosen = hunks.filter((_, i) => wanted.includes(String(i + 1)));
  let patch = [`diff --git a/${c.path} b/${c.path}`, ...modeLines].join('\n') + '\n';
  if (chosen.length > 0) patch += `--- a/${c.path}\n+++ b/${c.path}\n${chosen.join('')}`;
  const file = join(scratch.root, 'chosen.patch');
  writeFileSync(file, patch);
  const result = (): string => {
    scratch.git('add', '-A');
    return scratch.git('write-tree').trim();
  };
  scratch.git('apply', '-R', file);
  const rest = result();
  scratch.git('reset', '-q', '--hard', 'HEAD~1');
  scratch.git('apply', file);
  const made = result();
  scratch.git('reset', '-q', '--hard', 'HEAD');
  return { chosen: made, rest };
}

const Oracle = oracleSuite('split, git apply as the oracle', CASES);

CASES.forEach((c, i) => {
  Oracle(
    `${c.name}: the new draft is git apply of the hunks on the base, the draft git apply -R on its tip`,
    async ({ repo, scratch }) => {
      const git = gitOracle(scratch, c);
      const draft = `case-${i}`;
      await withShadow(repo, async (sh) => {
        const op = { operation: 'write', path: c.path, content: c.next, ...(c.mode ? { mode: c.mode } : {}) };
        assert.ok((await sh.batch({ intent: c.name, operations: [op] }, { draft })).success);
        const r = await sh.split({ draft, hunks: [`${c.path}:${c.choice}`] });
        assert.is(r.into, `${draft}-split`);
        assert.equal(entryAt(repo, r.into_tip, c.path), entryAt(scratch, git.chosen, c.path), 'the new draft');
        assert.equal(entryAt(repo, r.tip, c.path), entryAt(scratch, git.rest, c.path), 'the draft');
      });
    },
  );
});

Oracle('a base the root does not hold (the person’s edit) is captured under the new draft', async ({ repo }) => {
  const base = forty.join('');
  repo.write('edited.txt', base);
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'edited.txt');
  // The person's uncommitted edit is the base the draft captures.
  const mine = change(forty, { 10: 'mine\n' });
  repo.write('edited.txt', mine);
  await withShadow(repo, async (sh) => {
    const next = change(forty, { 1: 'one\n', 10: 'mine\n', 30: 'thirty\n' });
    await sh.batch({ operations: [{ operation: 'write', path: 'edited.txt', content: next }] }, { draft: 'cap' });
    const r = await sh.split({ draft: 'cap', hunks: ['edited.txt:2'], into: 'cap-two' });
    const parent = repo.git('rev-parse', `${r.into_tip}^`).trim();
    assert.match(repo.git('log', '-1', '--format=%B', parent), /Shadow-Draft: cap-two\nShadow-Capture: 1/);
    assert.is(repo.git('cat-file', 'blob', `${parent}:edited.txt`), mine, 'the capture holds the base');
    assert.is(repo.git('rev-parse', `${parent}^`).trim(), repo.git('rev-parse', 'HEAD').trim(), 'on the same root');
    const moved = (await sh.diff({ draft: 'cap-two', content: 'patch' })).files;
    assert.equal(
      moved.map((f) => [f.path, f.hunks!.map((h) => h.header)]),
      [['edited.txt', ['@@ -27,7 +27,7 @@ text line 26']]],
    );
    // Applied, the new draft writes base + its hunk over the person's edit.
    assert.ok((await sh.apply({ draft: 'cap-two' })).applied);
    assert.is(repo.read('edited.txt'), change(forty, { 10: 'mine\n', 30: 'thirty\n' }));
  });
});

Oracle('after a partial apply the split takes from what is not applied yet', async ({ repo }) => {
  repo.write('partly.txt', forty.join(''));
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'partly.txt');
  await withShadow(repo, async (sh) => {
    const next = change(forty, { 3: 'three\n', 20: 'twenty\n', 37: 'thirty-seven\n' });
    await sh.batch({ operations: [{ operation: 'write', path: 'partly.txt', content: next }] }, { draft: 'part' });
    const applied = (await sh.diff({ draft: 'part', content: 'patch' })).files[0]!.hunks![0]!.id;
    assert.ok((await sh.apply({ draft: 'part', hunks: ['partly.txt:1'] })).applied);
    assert.is(await codeOf(() => sh.split({ draft: 'part', hunks: [applied] })), 'STALE_HUNKS', 'an applied hunk');
    // Numbered in the diff as it is now: hunk 1 is the one at line 20.
    const r = await sh.split({ draft: 'part', hunks: ['partly.txt:1'] });
    // The new draft stands on what the working tree holds: base + the applied hunk.
    assert.is(repo.git('cat-file', 'blob', `${r.into_tip}^:partly.txt`), change(forty, { 3: 'three\n' }));
    assert.is(
      repo.git('cat-file', 'blob', `${r.into_tip}:partly.txt`),
      change(forty, { 3: 'three\n', 20: 'twenty\n' }),
    );
    assert.equal(
      (await sh.diff({ draft: 'part', content: 'patch' })).files.map((f) => f.hunks!.map((h) => h.header)),
      [['@@ -34,7 +34,7 @@ text line 33']],
    );
    assert.ok((await sh.apply({ draft: r.into })).applied);
    assert.ok((await sh.apply({ draft: 'part' })).applied);
    assert.is(repo.read('partly.txt'), next, 'both drafts applied make the whole change');
  });
});

Oracle.run();
