import { chmodSync } from 'node:fs';
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRepo } from './disk-repo.js';
import type { Ctx } from './http-server.js';
/**
 * A corpus of files and hunk choices, each a base and a next content of one
 * path: several hunks, hunks whose contexts touch, first and last lines, no
 * final newline, CRLF, an added and a deleted file, mode changes. The hunk
 * apply's oracle test (hunk-apply-oracle) applies each choice, the split's
 * (draft-split) moves it into a new draft; both hold the result to `git apply`.
 */

export const lines = (n: number, tag: string, eol = '\n'): string[] =>
  Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}${eol}`);
export const change = (base: string[], at: Record<number, string>): string =>
  base.map((l, i) => (at[i + 1] !== undefined ? at[i + 1]! : l)).join('');

export interface HunkCase {
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

export const forty = lines(40, 'text');
const crlf = lines(40, 'crlf', '\r\n');
const noEol = [...lines(20, 'noeol').slice(0, 19), 'noeol line 20'];
export const HUNK_CASES: HunkCase[] = [
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

/**
 * A uvu suite over `cases`: `repo` holds each case's base (mode 644),
 * committed; `scratch` is an empty repository for git's side of the oracle.
 */
export function oracleSuite(name: string, cases: readonly HunkCase[]): Test<{ repo: DiskRepo; scratch: DiskRepo }> {
  const s = suite<{ repo: DiskRepo; scratch: DiskRepo }>(name);
  s.before((ctx) => {
    ctx.repo = new DiskRepo(null);
    for (const c of cases) {
      if (c.base === null) continue;
      ctx.repo.write(c.path, c.base);
      chmodSync(ctx.repo.path(c.path), 0o644);
    }
    ctx.repo.git('add', '-A');
    ctx.repo.git('commit', '-q', '-m', 'the bases');
    ctx.scratch = new DiskRepo(null);
  });
  s.after((ctx) => {
    ctx.repo.cleanup();
    ctx.scratch.cleanup();
  });
  return s;
}

/** The surfaces' file: 40 lines, and `at` its lines with some replaced (1-based). */
export const TWO_HUNK_BASE = Array.from({ length: 40 }, (_, i) => `line ${i + 1}\n`);
export const at = (edits: Record<number, string>): string => TWO_HUNK_BASE.map((l, i) => edits[i + 1] ?? l).join('');
/** The draft's version: two hunks, far apart. */
export const TWO_HUNK_DRAFT = at({ 3: 'three\n', 37: 'thirty-seven\n' });

/** Commit the base as `code.ts` in the server's repository, and the two-hunk draft over it through the HTTP API. */
export async function twoHunkDraftOverHttp(c: Ctx): Promise<void> {
  c.repo.write('code.ts', TWO_HUNK_BASE.join(''));
  c.repo.git('add', '-A');
  c.repo.git('commit', '-q', '-m', 'code');
  const r = await c.api.call('POST', '/api/batch', {
    json: { intent: 'two hunks', operations: [{ operation: 'write', path: 'code.ts', content: TWO_HUNK_DRAFT }] },
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
}
