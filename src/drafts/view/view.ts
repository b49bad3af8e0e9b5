import { ShadowError } from '../../errors.js';
import { MODE, type Oid } from '../../git/format/git-objects.js';
import { isInside, parentDirs } from '../../core/path-rules.js';
import { lookupPath } from '../../git/format/tree-lookup.js';
import { loadDraft, standsOn, type Draft } from '../drafts.js';
import { SubmoduleProbe } from './submodules.js';
import { skipWorktreeEntry } from './sparse-paths.js';
import type { Workspace } from '../workspace.js';

/** A file as the draft's view shows it. */
export interface ViewFile {
  path: string;
  /** `draft` when the draft changed the path, `lower` when it comes from the working tree (or root). */
  source: 'draft' | 'lower';
  type: 'file' | 'symlink';
  mode: string;
  /** The blob id git stores for the file (its clean form). */
  oid: Oid;
  /** The bytes as the working tree holds them, or will after apply (smudged, with its line endings). */
  content: Buffer;
}

/** An entry of a directory of the view. */
export interface ViewEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'submodule' | 'other';
  source: 'draft' | 'lower';
  /** A submodule's commit, as the index or the draft records it (null: a nested repository git does not track). */
  commit?: Oid | null;
}

function ownsPath(draft: Draft, path: string): boolean {
  const bases = draft.bases;
  return bases.has(path) || parentDirs(path).some((d) => bases.has(d));
}

/** A directory that exists only because the draft made paths inside it. */
function isDraftDir(ws: Workspace, draft: Draft, path: string): boolean {
  if (!draft.bases.paths().some((p) => isInside(p, path))) return false;
  return lookupPath(ws.repo.objects, ws.repo.objects.readCommit(draft.tip).tree, path).kind === 'dir';
}

function notFound(path: string, draft: string): ShadowError {
  return new ShadowError('NOT_FOUND', `${path} does not exist in the view of draft "${draft}"`, {
    hint: 'list what is there with `shadow ls`',
    data: { path, draft },
  });
}

function typeOfMode(mode: string): ViewEntry['type'] {
  return mode === MODE.symlink ? 'symlink' : mode === MODE.gitlink ? 'submodule' : 'file';
}

/** The submodules a view shows: gitlinks of the draft's tip and root, of the index, and nested repositories. */
export function viewSubmodules(ws: Workspace, draft: Draft | undefined, root: Oid | undefined): SubmoduleProbe {
  const objects = ws.repo.objects;
  const trees = root === undefined ? [] : [objects.readCommit(root).tree];
  if (draft) trees.unshift(objects.readCommit(draft.tip).tree);
  return new SubmoduleProbe(ws, trees);
}

/**
 * Read `path` through the draft's view: paths the draft changed come from
 * its tip, every other path from the live lower layer. A draft that does not
 * exist yet shows the lower layer as it is.
 */
export function readViewFile(ws: Workspace, draftName: string, path: string): ViewFile {
  const draft = loadDraft(ws, draftName);
  const repo = ws.repo;
  const root = (draft && standsOn(draft)) ?? repo.refs.resolve('HEAD');
  const submodule = viewSubmodules(ws, draft, root).problem(path, 'read');
  if (submodule) throw submodule;
  if (draft && ownsPath(draft, path)) {
    const k = lookupPath(repo.objects, repo.objects.readCommit(draft.tip).tree, path);
    if (k.kind === 'dir')
      throw new ShadowError('IS_A_DIRECTORY', `${path} is a directory`, {
        hint: `list it with \`shadow ls ${path}\``,
        data: { path },
      });
    if (k.kind === 'absent') throw notFound(path, draftName);
    const blob = repo.objects.readBlob(k.oid);
    // Shown as the working tree will hold it after apply (smudged, its line endings).
    const form = k.mode === MODE.symlink ? undefined : ws.worktreeForm();
    const content = form && !form.plain(path) ? form.toWorktree(path, blob) : blob;
    return {
      path,
      source: 'draft',
      type: k.mode === MODE.symlink ? 'symlink' : 'file',
      mode: k.mode,
      oid: k.oid,
      content,
    };
  }
  if (root === undefined && repo.layout.worktree === null) throw notFound(path, draftName);
  const lower = ws.lower(root ?? '');
  // A path git keeps out of the working tree reads as git's index holds it:
  // from an index read anyway (a small one), or, for a tracked file absent
  // from the working tree, from the index read for it.
  const cheap = ws.indexView(1);
  let kept = cheap ? skipWorktreeEntry(ws, path, cheap) : undefined;
  const l = kept === undefined ? lower.read(path) : ({ kind: 'absent' } as const);
  if (l.kind === 'dir' || (l.kind === 'absent' && draft && isDraftDir(ws, draft, path))) {
    throw new ShadowError('IS_A_DIRECTORY', `${path} is a directory`, {
      hint: `list it with \`shadow ls ${path}\``,
      data: { path },
    });
  }
  if (l.kind === 'absent') {
    if (
      kept === undefined &&
      root !== undefined &&
      lookupPath(repo.objects, repo.objects.readCommit(root).tree, path).kind === 'file'
    )
      kept = skipWorktreeEntry(ws, path);
    if (!kept) throw notFound(path, draftName);
    const blob = repo.objects.readBlob(kept.oid);
    const form = kept.mode === MODE.symlink ? undefined : ws.worktreeForm(false);
    const content = form && !form.plain(path) ? form.toWorktree(path, blob) : blob;
    return {
      path,
      source: 'lower',
      type: kept.mode === MODE.symlink ? 'symlink' : 'file',
      mode: kept.mode,
      oid: kept.oid,
      content,
    };
  }
  return {
    path,
    source: 'lower',
    type: l.mode === MODE.symlink ? 'symlink' : 'file',
    mode: l.mode,
    oid: l.oid,
    content: (l.worktree ?? l.content)(),
  };
}

/**
 * List directory `dir` (`''` for the root) of the view: the lower layer's
 * entries with the draft's changes laid over them. O(entries + paths the
 * draft changed).
 */
export function listViewDir(ws: Workspace, draftName: string, dir: string): ViewEntry[] {
  return listDirOf(ws, loadDraft(ws, draftName), draftName, dir);
}

/** listViewDir for a draft already loaded (a walk loads it once, and looks for submodules with one probe). */
export function listDirOf(
  ws: Workspace,
  draft: Draft | undefined,
  draftName: string,
  dir: string,
  probe?: SubmoduleProbe,
): ViewEntry[] {
  const repo = ws.repo;
  const root = (draft && standsOn(draft)) ?? repo.refs.resolve('HEAD');
  const submodules = probe ?? viewSubmodules(ws, draft, root);
  if (dir !== '') {
    const inside = submodules.problem(dir, 'list');
    if (inside) throw inside;
  }
  const entries = new Map<string, ViewEntry>();
  const bare = repo.layout.worktree === null;
  const lowerList = root === undefined && bare ? undefined : ws.lower(root ?? '').list(dir);
  for (const e of lowerList ?? []) {
    // A submodule's directory in the working tree, or (bare) its gitlink in the root tree.
    const commit =
      e.kind === 'dir' || (bare && e.kind === 'file')
        ? submodules.at(dir === '' ? e.name : `${dir}/${e.name}`, e.kind === 'dir')
        : undefined;
    entries.set(
      e.name,
      commit === undefined
        ? { name: e.name, type: e.kind, source: 'lower' }
        : { name: e.name, type: 'submodule', source: 'lower', commit },
    );
  }

  let draftHasDir = false;
  if (draft) {
    const tipTree = repo.objects.readCommit(draft.tip).tree;
    const dirKind = dir === '' ? { kind: 'dir' as const, oid: tipTree } : lookupPath(repo.objects, tipTree, dir);
    const inDir = new Set<string>();
    for (const path of draft.bases.paths()) {
      if (!isInside(path, dir)) continue;
      const rest = dir === '' ? path : path.slice(dir.length + 1);
      inDir.add(rest.split('/')[0]!);
    }
    draftHasDir = inDir.size > 0 && dirKind.kind === 'dir';
    for (const name of inDir) {
      const child = dir === '' ? name : `${dir}/${name}`;
      const k = lookupPath(repo.objects, tipTree, child);
      if (k.kind === 'absent') {
        if (draft.bases.has(child)) entries.delete(name);
        continue;
      }
      const type: ViewEntry['type'] = k.kind === 'dir' ? 'dir' : typeOfMode(k.mode);
      entries.set(
        name,
        type === 'submodule' && k.kind === 'file'
          ? { name, type, source: 'draft', commit: k.oid }
          : { name, type, source: 'draft' },
      );
    }
  }
  if (lowerList === undefined && !draftHasDir) {
    throw new ShadowError('NOT_FOUND', `${dir || '.'} is not a directory in the view of draft "${draftName}"`, {
      hint: 'list its parent with `shadow ls`',
      data: { path: dir },
    });
  }
  return [...entries.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
