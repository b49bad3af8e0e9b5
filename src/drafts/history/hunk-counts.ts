import { MODE, type Oid } from '../../git/format/git-objects.js';
import type { FileEntry } from '../../git/format/tree-lookup.js';
import { fileHunks } from '../hunks/file-hunks.js';
import type { Draft } from '../drafts.js';
import type { Workspace } from '../workspace.js';

/**
 * The hunks of the paths a draft has partly applied: where an apply moved a
 * path's base (base + the hunks it took) and the draft still changes the
 * path, `applied` counts the hunks between the captured base and that base,
 * `remaining` the hunks not yet applied (the draft's diff there now). Only
 * those paths are diffed, so status stays O(paths touched) reads.
 */

export interface PathHunkCount {
  path: string;
  applied: number;
  remaining: number;
}

export interface HunkCounts {
  applied: number;
  remaining: number;
  /** Each path partly applied, in path order. */
  paths: PathHunkCount[];
}

/** The counts of `changes` (the draft's changes against its bases), or undefined when no path is partly applied. */
export function partlyApplied(
  ws: Workspace,
  draft: Draft,
  changes: ReadonlyArray<{ path: string; status: string; old: FileEntry | null; new: FileEntry | null }>,
): HunkCounts | undefined {
  const read = (e: FileEntry | null): Buffer =>
    e && e.mode !== MODE.gitlink ? ws.repo.objects.readBlob(e.oid as Oid) : Buffer.alloc(0);
  const paths: PathHunkCount[] = [];
  for (const c of changes) {
    if (c.status === 'U' || c.old === null || c.new === null) continue;
    const captured = draft.meta.bases.get(c.path) ?? null;
    if (captured === null || captured.oid === c.old.oid) continue;
    const was = fileHunks(c.path, captured, c.old, read(captured), read(c.old));
    const now = fileHunks(c.path, c.old, c.new, read(c.old), read(c.new));
    if (was.whole !== undefined || now.whole !== undefined) continue;
    paths.push({ path: c.path, applied: was.hunks.length, remaining: now.hunks.length });
  }
  if (paths.length === 0) return undefined;
  return {
    applied: paths.reduce((n, p) => n + p.applied, 0),
    remaining: paths.reduce((n, p) => n + p.remaining, 0),
    paths,
  };
}
