import type { FileSystem } from '../../src/index.js';
import type { FsOp, FsSeam } from './fs-seam.js';
import { listNames, ROOT, worktree } from './working-tree.js';

/*
 * What an apply leaves in shadow's own state (journals, apply records, the
 * apply lock) and in the working tree (temp files), and which of the fs
 * calls a command made change anything.
 */

export const SHADOW = `${ROOT}/.git/shadow`;

export function journals(fs: FileSystem): string[] {
  return listNames(fs, `${SHADOW}/journal`).filter((n) => n.endsWith('.json'));
}

/**
 * In a log of fs calls: the journal's creation (`made`: its file opened) and
 * the call that makes it durable (`durable`: the last of its own fsync and
 * its directory's, whichever comes second).
 */
export function journalCalls(log: ReadonlyArray<{ n: number; op: FsOp; path: string | undefined }>): {
  made: number;
  durable: number;
} {
  const made = log.find(
    (c) => c.op === 'openSync' && c.path?.startsWith(`${SHADOW}/journal/`) && c.path.endsWith('.json'),
  )!;
  const fileSync = log.find((c) => c.n > made.n && c.op === 'fsyncSync' && c.path === made.path)!;
  const dirSync = log.find((c) => c.n > made.n && c.op === 'fsyncSync' && c.path === `${SHADOW}/journal`)!;
  return { made: made.n, durable: Math.max(fileSync.n, dirSync.n) };
}

export function records(fs: FileSystem, draft = 'default'): string[] {
  return listNames(fs, `${SHADOW}/drafts/${draft}/applies`).filter((n) => n.endsWith('.json'));
}

export function temps(fs: FileSystem): string[] {
  return Object.keys(worktree(fs)).filter((p) => p.includes('.shadow-tmp-'));
}

export function lockHeld(fs: FileSystem): boolean {
  return fs.existsSync(`${SHADOW}/apply.lock`);
}

/** fs operations that change state; a check that must write nothing makes none of them. */
export const MUTATING: ReadonlySet<FsOp> = new Set<FsOp>([
  'writeSync',
  'writeFileSync',
  'appendFileSync',
  'mkdirSync',
  'renameSync',
  'unlinkSync',
  'rmdirSync',
  'symlinkSync',
]);

/**
 * The changing calls a command made, but for the review cache (a check may
 * save what its review found: see review-cache.ts).
 */
export function mutations(seam: FsSeam): string[] {
  const cache = (op: FsOp, p = ''): boolean =>
    /\/drafts\/[^/]+\/review\.cache(\.tmp-[^/]*)?$/.test(p) ||
    (op === 'mkdirSync' && /\/shadow\/drafts\/[^/]+$/.test(p));
  return seam.log.filter((c) => MUTATING.has(c.op) && !cache(c.op, c.path)).map((c) => `${c.op} ${c.path}`);
}
