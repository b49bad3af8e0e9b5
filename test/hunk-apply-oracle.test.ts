/**
 * Hunk apply against git as the oracle: for a corpus of files and hunk
 * choices, the working tree after `apply({ hunks })` holds, byte for byte
 * and mode for mode, what real `git apply` makes of the same chosen hunks
 * (cut from `git diff` of the same two states), and `sh.diff`'s hunks are
 * git's hunks. Then the rest applies to the full draft, and unapply puts
 * back the bytes each apply replaced. One real repository for the file
 * (each case its own path and draft); git's side in a scratch repository.
 */
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { Shadow } from '../src/index.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';
import { change, forty, HUNK_CASES, oracleSuite, type HunkCase } from './helpers/hunk-cases.js';

type Case = HunkCase;
const CASES = HUNK_CASES;

interface State {
  content: Buffer | null;
  executable: boolean;
}

function stateOf(repo: DiskRepo, path: string): State {
  if (!repo.exists(path)) return { content: null, executable: false };
  return { content: readFileSync(repo.path(path)), executable: (statSync(repo.path(path)).mode & 0o111) !== 0 };
}

function put(repo: DiskRepo, path: string, content: string | null, executable: boolean): void {
  if (content === null) return;
  repo.write(path, content);
  chmodSync(repo.path(path), executable ? 0o755 : 0o644);
}

/** git's side: the hunks of `git diff` between the case's two states, and what `git apply` makes of the chosen ones. */
function gitOracle(scratch: DiskRepo, c: Case): { headers: string[]; result: State } {
  put(scratch, c.path, c.base, false);
  scratch.git('add', '-A');
  scratch.git('commit', '-q', '--allow-empty', '-m', `base of ${c.path}`);
  if (c.next === null) scratch.git('rm', '-q', c.path);
  else put(scratch, c.path, c.next, c.mode === '100755');
  scratch.git('add', '-A');
  const full = scratch.git('diff', '--cached');
  scratch.git('reset', '-q', '--hard', 'HEAD');
  const at = full.indexOf('\n@@');
  const head = at === -1 ? full : full.slice(0, at + 1);
  const hunks = at === -1 ? [] : full.slice(at + 1).split(/^(?=@@ )/m);
  // The whole @@ line: the ranges and the function line git writes after them.
  const headers = hunks.map((h) => h.slice(0, h.indexOf('\n')));
  let patch: string;
  if (c.base === null || c.next === null) patch = full;
  else {
    const wanted = c.choice.split(',');
    const modeLines = wanted.includes('mode') ? head.split('\n').filter((l) => /^(old|new) mode /.test(l)) : [];
    const chosen = hunks.filter((_, i) => wanted.includes(String(i + 1)));
    patch = [`diff --git a/${c.path} b/${c.path}`, ...modeLines].join('\n') + '\n';
    if (chosen.length > 0) patch += `--- a/${c.path}\n+++ b/${c.path}\n${chosen.join('')}`;
  }
  const file = join(scratch.root, 'chosen.patch');
  writeFileSync(file, patch);
  scratch.git('apply', file);
  const result = stateOf(scratch, c.path);
  scratch.git('reset', '-q', '--hard', 'HEAD');
  return { headers, result };
}

async function draftOf(sh: Shadow, c: Case, draft: string): Promise<void> {
  const op =
    c.next === null
      ? { operation: 'delete', path: c.path }
      : { operation: 'write', path: c.path, content: c.next, ...(c.mode ? { mode: c.mode } : {}) };
  const r = await sh.batch({ intent: c.name, operations: [op] }, { draft });
  assert.ok(r.success, JSON.stringify(r));
}

const Oracle = oracleSuite('apply --hunks, git apply as the oracle', CASES);

CASES.forEach((c, i) => {
  Oracle(
    `${c.name}: the working tree is what git apply makes of the same hunks; the rest and unapply follow`,
    async ({ repo, scratch }) => {
      const git = gitOracle(scratch, c);
      const base = stateOf(repo, c.path);
      const draft = `case-${i}`;
      await withShadow(repo, async (sh) => {
        await draftOf(sh, c, draft);
        const [file] = (await sh.diff({ draft, content: 'patch' })).files;
        assert.equal(
          file!.hunks!.map((h) => h.header),
          git.headers,
          "shadow's hunks are git's",
        );
        assert.is(file!.hunks!.length, c.hunks);
        const r = await sh.apply({ draft, hunks: [`${c.path}:${c.choice}`] });
        assert.ok(r.applied);
        const partly = c.base !== null && c.next !== null && c.hunks > 0;
        assert.equal(r.partial?.map((p) => p.path) ?? [], partly ? [c.path] : []);
        assert.equal(stateOf(repo, c.path), git.result, 'the same bytes and mode as git apply');

        // What was not taken is the draft's diff now; applying it gives the whole draft.
        const rest = await sh.apply({ draft });
        const whole = rest.paths.length > 0;
        assert.is(whole, partly, 'only a partly taken file has a rest');
        const expected = c.next === null ? null : Buffer.from(c.next);
        assert.equal(stateOf(repo, c.path), { content: expected, executable: c.next !== null && c.mode === '100755' });

        if (whole) {
          await sh.unapply({ draft });
          assert.equal(stateOf(repo, c.path), git.result, 'unapply of the rest puts back the partial apply');
        }
        await sh.unapply({ draft });
        assert.equal(stateOf(repo, c.path), base, 'unapply of the hunk apply puts back the base');
      });
    },
  );
});

Oracle(
  'a rename with changes: taking one of its hunks takes the rename, as git apply of that hunk does',
  async ({ repo, scratch }) => {
    const from = 'moved-from.txt';
    const to = 'moved-to.txt';
    const next = change(forty, { 3: 'three\n', 37: 'thirty-seven\n' });
    for (const r of [repo, scratch]) {
      r.write(from, forty.join(''));
      r.git('add', '-A');
      r.git('commit', '-q', '-m', 'to be moved');
    }
    scratch.git('mv', from, to);
    scratch.write(to, next);
    scratch.git('add', '-A');
    const full = scratch.git('diff', '--cached', '-M');
    scratch.git('reset', '-q', '--hard', 'HEAD');
    const at = full.indexOf('\n@@');
    const hunks = full.slice(at + 1).split(/^(?=@@ )/m);
    writeFileSync(join(scratch.root, 'rename.patch'), full.slice(0, at + 1) + hunks[1]!);
    scratch.git('apply', join(scratch.root, 'rename.patch'));
    const git = { from: stateOf(scratch, from), to: stateOf(scratch, to) };
    assert.is(git.from.content, null);

    await withShadow(repo, async (sh) => {
      const draft = 'rename';
      const r0 = await sh.batch(
        { intent: 'move and change', operations: [{ operation: 'rename', path: from, to }] },
        { draft },
      );
      assert.ok(r0.success);
      assert.ok((await sh.write(to, next, { draft })).success);
      const listed = (await sh.diff({ draft, content: 'patch', renames: true })).files;
      assert.equal(
        listed.map((f) => [f.status, f.from, f.path, f.hunks!.map((h) => h.header)]),
        [['R', from, to, hunks.map((h) => h.slice(0, h.indexOf('\n')))]],
      );
      const r = await sh.apply({ draft, hunks: [listed[0]!.hunks![1]!.id] });
      assert.equal(r.partial, [{ path: to, chosen: 1, hunks: 2, from }]);
      assert.equal({ from: stateOf(repo, from), to: stateOf(repo, to) }, git);
      const rest = await sh.diff({ draft, content: 'patch' });
      assert.equal(
        rest.files.map((f) => [f.status, f.path, f.hunks!.length]),
        [['M', to, 1]],
      );
      await sh.apply({ draft });
      assert.is(repo.read(to), next);
      await sh.unapply({ draft });
      await sh.unapply({ draft });
      assert.equal(stateOf(repo, from).content, Buffer.from(forty.join('')));
      assert.is(repo.exists(to), false);
    });
  },
);

Oracle.run();
