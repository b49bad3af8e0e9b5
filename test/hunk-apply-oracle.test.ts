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
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Shadow } from '../src/index.js';
import { DiskRepo, withShadow } from './helpers/disk-repo.js';

const lines = (n: number, tag: string, eol = '\n'): string[] =>
  Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}${eol}`);
const change = (base: string[], at: Record<number, string>): string =>
  base.map((l, i) => (at[i + 1] !== undefined ? at[i + 1]! : l)).join('');

interface Case {
  name: string;
  path: string;
  base: string | null;
  next: string | null;
  /** The new mode, when the case changes it. */
  mode?: '100755';
  /** What `--hunks` takes after `<path>:`. */
  choice: string;
  /** How many hunks git's diff has. */
  hunks: number;
}

const forty = lines(40, 'text');
const crlf = lines(40, 'crlf', '\r\n');
const noEol = [...lines(20, 'noeol').slice(0, 19), 'noeol line 20'];
const CASES: Case[] = [
  {
    name: 'the middle one of three hunks',
    path: 'several.txt',
    base: forty.join(''),
    next: change(forty, { 3: 'three\n', 20: 'twenty\n', 37: 'thirty-seven\n' }),
    choice: '2',
    hunks: 3,
  },
  {
    name: 'the first and the last of three hunks',
    path: 'outer.txt',
    base: forty.join(''),
    next: change(forty, { 3: 'three\n', 20: 'twenty\nand more\n', 37: '' }),
    choice: '1,3',
    hunks: 3,
  },
  {
    name: 'the second of two hunks whose contexts touch',
    path: 'adjacent.txt',
    base: forty.join(''),
    next: change(forty, { 10: 'ten\n', 18: 'eighteen\n' }),
    choice: '2',
    hunks: 2,
  },
  {
    name: 'a change of the first line, not of the last',
    path: 'first.txt',
    base: forty.join(''),
    next: change(forty, { 1: 'first\n', 40: 'last\n' }),
    choice: '1',
    hunks: 2,
  },
  {
    name: 'a change of the last line, not of the first',
    path: 'last.txt',
    base: forty.join(''),
    next: change(forty, { 1: 'first\n', 40: 'last\n' }),
    choice: '2',
    hunks: 2,
  },
  {
    name: 'the last line of a file with no final newline',
    path: 'noeol.txt',
    base: noEol.join(''),
    next: change(noEol, { 2: 'two\n', 20: 'twenty, still no newline' }),
    choice: '2',
    hunks: 2,
  },
  {
    name: 'a final newline added, not the other change',
    path: 'noeol-fixed.txt',
    base: noEol.join(''),
    next: change(noEol, { 2: 'two\n', 20: 'noeol line 20\n' }),
    choice: '2',
    hunks: 2,
  },
  {
    name: 'a CRLF file, its bytes kept',
    path: 'crlf.txt',
    base: crlf.join(''),
    next: change(crlf, { 5: 'five\r\n', 30: 'thirty\r\n' }),
    choice: '1',
    hunks: 2,
  },
  {
    name: 'an added file (its one hunk)',
    path: 'added.txt',
    base: null,
    next: 'new\nfile\n',
    choice: '1',
    hunks: 1,
  },
  {
    name: 'a deleted file (its one hunk)',
    path: 'deleted.txt',
    base: 'old\nfile\n',
    next: null,
    choice: '1',
    hunks: 1,
  },
  {
    name: 'a content hunk without the mode change beside it',
    path: 'mode-content.sh',
    base: forty.join(''),
    next: change(forty, { 3: 'three\n', 30: 'thirty\n' }),
    mode: '100755',
    choice: '2',
    hunks: 2,
  },
  {
    name: 'the mode change alone, without the content hunks',
    path: 'mode-alone.sh',
    base: forty.join(''),
    next: change(forty, { 3: 'three\n' }),
    mode: '100755',
    choice: 'mode',
    hunks: 1,
  },
  {
    name: 'a file whose only change is its mode',
    path: 'mode-only.sh',
    base: forty.join(''),
    next: forty.join(''),
    mode: '100755',
    choice: 'mode',
    hunks: 0,
  },
];

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
  // git adds the function-context after the ranges (diff.<driver>.xfuncname); shadow prints the ranges alone.
  const headers = hunks.map((h) => /^@@ [^@]* @@/.exec(h)![0]);
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

const Oracle = suite<{ repo: DiskRepo; scratch: DiskRepo }>('apply --hunks, git apply as the oracle');
Oracle.before((ctx) => {
  ctx.repo = new DiskRepo(null);
  for (const c of CASES) put(ctx.repo, c.path, c.base, false);
  ctx.repo.git('add', '-A');
  ctx.repo.git('commit', '-q', '-m', 'the bases');
  ctx.scratch = new DiskRepo(null);
});
Oracle.after((ctx) => {
  ctx.repo.cleanup();
  ctx.scratch.cleanup();
});

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
        [['R', from, to, hunks.map((h) => /^@@ [^@]* @@/.exec(h)![0])]],
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
