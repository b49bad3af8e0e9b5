import { chmodSync, rmSync } from 'node:fs';
import { DiskRepo, withShadow } from './disk-repo.js';

/*
 * The corpus of the hunk prompt's tests: a base of five files and a draft
 * that changes each in one of the ways git's add -p asks about them: two
 * hunks (both splittable), a last line without LF, a mode change with
 * a content change, a deletion, an addition, CRLF lines, and a binary
 * file (which add -p leaves out).
 */

// Lines that start with a digit: no line is a function name to git's default rule (shadow's diff prints none).
const numbered = (n: number): string[] => Array.from({ length: n }, (_, i) => `${i + 1} line`);

export const BASE: Record<string, string> = {
  'a.txt': `${numbered(30).join('\n')}\n`,
  'b.txt': 'one\ntwo\nthree',
  'c.sh': '#!/bin/sh\necho hi\n',
  'd.txt': 'gone\nsoon\n',
  'g.bin': '\0binary\n',
  'f.txt': 'alpha\r\nbeta\r\ngamma\r\ndelta\r\nepsilon\r\nzeta\r\neta\r\ntheta\r\n',
};

const a = numbered(30);
a[2] = 'THREE';
a[6] = 'SEVEN';
a[24] = 'TWENTY-FIVE';
a.splice(28, 0, 'after 28');

/** The draft's files (d.txt deleted, c.sh made executable too). */
export const DRAFT_FILES: Record<string, string> = {
  'a.txt': `${a.join('\n')}\n`,
  'b.txt': 'one\nTWO\nthree',
  'c.sh': '#!/bin/sh\necho hello\n',
  'e.txt': 'new\nfile\n',
  'g.bin': '\0BINARY\n',
  'f.txt': 'alpha\r\nBETA\r\ngamma\r\ndelta\r\nepsilon\r\nzeta\r\nETA\r\ntheta\r\n',
};

/** A repository at the base whose default draft holds the corpus's changes (its working tree stays at the base). */
export async function draftRepo(): Promise<DiskRepo> {
  const repo = new DiskRepo(BASE);
  await withShadow(repo, async (sh) => {
    const r = await sh.batch({
      intent: 'the corpus',
      operations: [
        ...Object.entries(DRAFT_FILES).map(([path, content]) => ({ operation: 'write', path, content })),
        { operation: 'chmod', path: 'c.sh', mode: '100755' },
        { operation: 'delete', path: 'd.txt' },
      ],
    });
    if (!r.success) throw new Error(`corpus batch failed: ${JSON.stringify(r.error)}`);
  });
  return repo;
}

/**
 * A repository for `git add -p`: the base committed and in the index, the
 * working tree as the draft has it (the new file added with -N so that
 * add -p sees it).
 */
export function gitRepo(): DiskRepo {
  const repo = new DiskRepo(BASE);
  for (const [path, content] of Object.entries(DRAFT_FILES)) repo.write(path, content);
  chmodSync(repo.path('c.sh'), 0o755);
  rmSync(repo.path('d.txt'));
  resetIndex(repo);
  return repo;
}

/** The index back at the base, the new file intended to add. */
export function resetIndex(repo: DiskRepo): void {
  repo.git('reset', '-q');
  repo.git('add', '-N', 'e.txt');
}
