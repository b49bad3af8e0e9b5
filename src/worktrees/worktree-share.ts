import type { Stats } from 'node:fs';
import { ShadowError, errnoCode } from '../errors.js';
import { listDir } from '../durable/durable-file.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * The ignored dependency directories an exec worktree borrows from the
 * person's working tree (`node_modules`, `.venv`): a checkout of the draft's
 * tip has none of them, and a test run without them exits 127. Each is made
 * in the worktree as a real directory whose entries are symlinks to the
 * person's entries, one level deep:
 *
 * - never a copy: O(entries), however many files a package holds, and
 *   node, python and their tools resolve through the links (node takes the
 *   real path of a module, a venv finds its pyvenv.cfg beside bin/);
 * - not one link for the whole directory: git's `node_modules/` pattern
 *   matches directories only, so a link there would be an untracked file in
 *   `git status` (and recorded into the draft by `worktree record`), and a
 *   tool's cache made at its top (`node_modules/.cache`, `.vite`) would land
 *   in the person's tree. The person's own `.cache` is not linked, for that
 *   reason;
 * - not hard links: a tool writing a file in place would write the
 *   person's file too, and a tree of them costs a link per file.
 *
 * A write through a link (an `npm install` run in the worktree) does reach
 * the person's directory: the shares are for reading, as docs/worktrees.md says.
 */

export const DEFAULT_SHARES: readonly string[] = ['node_modules', '.venv'];

/** Top-level entries never linked: caches tools write into, which must stay the worktree's own. */
const UNSHARED_ENTRIES = new Set(['.cache']);

/** The configured shares (`shadow.worktreeShare`, any number of values, each a list split on commas or spaces), else the defaults. */
export function configuredShares(ws: Workspace): string[] {
  const values = ws.repo.config.getAll('shadow.worktreeshare');
  if (values.length === 0) return [...DEFAULT_SHARES];
  return [...new Set(values.flatMap((v) => v.split(/[\s,]+/)).filter((p) => p !== ''))];
}

function invalidShare(path: string, why: string): ShadowError {
  return new ShadowError('INVALID_SHARE_PATH', `shadow.worktreeShare "${path}" ${why}`, {
    hint: 'name a directory of the working tree by its path from the top, e.g. node_modules or packages/app/node_modules',
    data: { path },
  });
}

function lstatOrNull(ws: Workspace, path: string): Stats | null {
  try {
    return ws.ctx.fs.lstatSync(path) as Stats;
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw e;
  }
}

/**
 * Refuse a share that would reach outside the working tree: absolute, `..`,
 * `.git`, or under a directory of the working tree that is a symlink.
 */
export function checkShare(ws: Workspace, source: string, path: string): void {
  const parts = path.replace(/\/+$/, '').split('/');
  if (path.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..'))
    throw invalidShare(path, 'is not a path inside the working tree');
  if (parts.some((p) => p.toLowerCase() === '.git')) throw invalidShare(path, 'names the repository itself');
  for (let i = 1; i < parts.length; i++) {
    const st = lstatOrNull(ws, `${source}/${parts.slice(0, i).join('/')}`);
    if (st?.isSymbolicLink())
      throw invalidShare(
        path,
        `is under ${parts.slice(0, i).join('/')}, a symlink: it may lead outside the working tree`,
      );
  }
}

export interface ShareResult {
  path: string;
  /** linked: made or brought up to date; missing: not in the working tree; skipped: the worktree holds something else there. */
  status: 'linked' | 'missing' | 'skipped';
  entries: number;
}

/** Link the share `path` from the working tree `source` into the worktree `dir`; `ours`: shares made by an earlier call. */
export function linkShare(ws: Workspace, source: string, dir: string, path: string, ours: boolean): ShareResult {
  const fs = ws.ctx.fs;
  const clean = path.replace(/\/+$/, '');
  checkShare(ws, source, clean);
  const from = `${source}/${clean}`;
  const to = `${dir}/${clean}`;
  const fromSt = lstatOrNull(ws, from);
  let isDir = fromSt?.isDirectory() ?? false;
  if (fromSt?.isSymbolicLink()) isDir = (fs.statSync(from) as Stats).isDirectory();
  if (!isDir) return { path: clean, status: 'missing', entries: 0 };
  const toSt = lstatOrNull(ws, to);
  // The checkout put something there (the draft tracks files in it): git's, not ours to fill.
  if (toSt && !(ours && toSt.isDirectory())) return { path: clean, status: 'skipped', entries: 0 };
  if (!lstatOrNull(ws, parentOfPath(to))) return { path: clean, status: 'skipped', entries: 0 };
  if (!toSt) fs.mkdirSync(to);
  const want = new Set(listDir(fs, from).filter((n) => !UNSHARED_ENTRIES.has(n)));
  // Entries the person removed since (an uninstalled package): their links go.
  for (const name of listDir(fs, to)) {
    const st = lstatOrNull(ws, `${to}/${name}`);
    if (st?.isSymbolicLink() && !want.has(name)) fs.unlinkSync(`${to}/${name}`);
    else if (st) want.delete(name);
  }
  for (const name of want) fs.symlinkSync(`${from}/${name}`, `${to}/${name}`);
  return { path: clean, status: 'linked', entries: listDir(fs, to).length };
}

function parentOfPath(p: string): string {
  return p.slice(0, p.lastIndexOf('/')) || '/';
}
