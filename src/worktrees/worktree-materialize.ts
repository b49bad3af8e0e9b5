import { constants, type Stats } from 'node:fs';
import { ShadowError, errnoCode } from '../errors.js';
import { MODE, type Oid } from '../git/format/git-objects.js';
import { isInside } from '../core/path-rules.js';
import { lookupPath } from '../git/format/tree-lookup.js';
import { listDir, parentOf } from '../durable/durable-file.js';
import { WorktreeWriter } from '../git/worktree-writer.js';
import { Manifest, modeOfStat, statEntry } from '../state/worktree-manifest.js';
import { MARKER, writeMarker, writeWorktreeRecord, type WorktreeRecord } from '../state/worktree-state.js';
import { IndexView } from '../git/index-view.js';
import { checkWorktree, loadDraft } from '../drafts/drafts.js';
import { walkView } from '../drafts/view/view-walk.js';
import { gateDraftWrite } from '../drafts/path-gate.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * Materializing a draft's view into a directory of its own: the working
 * tree's files (what .gitignore ignores left out) with the draft's changes
 * laid over them. Files from the working tree are copied by the kernel (a
 * reflink where the file system can), never hard-linked: a write in one
 * copy must not show in the other. The draft's files are written from
 * their blobs. Nothing here is fsynced: a worktree is derived, and can be
 * made again.
 */

export interface MaterializeResult {
  id: string;
  dir: string;
  draft: string;
  tip: Oid | null;
  files: number;
  /** Files copied from the working tree (the rest came from the draft). */
  copied: number;
  bytes: number;
}

export type MaterializeProgress = (done: number, total: number) => void;

function refuseTarget(ws: Workspace, dir: string): void {
  const wt = ws.repo.layout.worktree;
  if (!dir.startsWith('/'))
    throw new ShadowError('INVALID_ARGUMENT', `the worktree directory must be an absolute path, got ${dir}`);
  if (wt !== null && (dir === wt || isInside(dir.slice(1), wt.slice(1)))) {
    throw new ShadowError('INVALID_TARGET', `${dir} is inside the repository's working tree`, {
      hint: 'put the worktree beside the repository, e.g. ../app-draft',
      data: { dir, worktree: wt },
    });
  }
  if (isInside(dir.slice(1), ws.repo.layout.commondir.slice(1)) || dir === ws.repo.layout.commondir) {
    throw new ShadowError('INVALID_TARGET', `${dir} is inside the repository's .git directory`, { data: { dir } });
  }
  let st: Stats | undefined;
  try {
    st = ws.ctx.fs.lstatSync(dir) as Stats;
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw e;
  }
  if (st && !st.isDirectory())
    throw new ShadowError('ALREADY_EXISTS', `${dir} exists and is not a directory`, {
      hint: 'choose a new directory',
      data: { dir },
    });
  if (st && listDir(ws.ctx.fs, dir).length > 0) {
    throw new ShadowError('ALREADY_EXISTS', `${dir} exists and is not empty`, {
      hint: 'choose a new or empty directory; shadow never writes a worktree over files it does not know',
      data: { dir },
    });
  }
}

/** Copy a working-tree file to `to`: the kernel's copy when there is one, else read and write. */
function copyFile(ws: Workspace, from: string, to: string): void {
  const fs = ws.ctx.fs;
  if (fs.copyFileSync) {
    fs.copyFileSync(from, to, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    return;
  }
  const st = fs.lstatSync(from) as Stats;
  fs.writeFileSync(to, fs.readFileSync(from) as Buffer, { mode: st.mode & 0o777, flag: 'wx' });
}

/** Materialize `draftName`'s view into `dir` (new, or empty). */
export function materialize(
  ws: Workspace,
  draftName: string,
  dir: string,
  id: string,
  progress?: MaterializeProgress,
): MaterializeResult {
  refuseTarget(ws, dir);
  const source = ws.repo.layout.worktree;
  if (source === null)
    throw new ShadowError('UNSUPPORTED_REPOSITORY', 'a bare repository has no working tree to materialize from', {
      hint: 'run it in a repository with a working tree',
    });
  const fs = ws.ctx.fs;
  const draft = loadDraft(ws, draftName);
  // Its view would lay the draft over this worktree's files, not its own worktree's.
  if (draft) checkWorktree(ws, draft, 'shadow worktree add');
  // The draft's paths are written below: each passes the path gate before anything is.
  if (draft) gateDraftWrite(ws, draft.tip, draftName, [], draft.bases.paths());
  const tipTree = draft ? ws.repo.objects.readCommit(draft.tip).tree : null;
  const { files } = walkView(ws, draftName, '');
  const known = IndexView.read(fs, `${ws.repo.layout.gitdir}/index`);
  const trustExec = ws.repo.config.getBool('core.filemode') ?? true;
  const form = ws.worktreeForm();

  fs.mkdirSync(dir, { recursive: true });
  const writer = new WorktreeWriter(ws.ctx, dir);
  const made = new Set<string>(['']);
  const ensureDir = (path: string): void => {
    const parent = parentOf(path);
    const rel = parent === '.' ? '' : parent;
    if (made.has(rel)) return;
    fs.mkdirSync(`${dir}/${rel}`, { recursive: true });
    for (let d = rel; d !== '' && !made.has(d); d = d.includes('/') ? d.slice(0, d.lastIndexOf('/')) : '') made.add(d);
  };
  const manifest = Manifest.create(ws.ctx, ws.repo.shadowDir, id, files.length);
  let written = 0;
  let copied = 0;
  let bytes = 0;
  let done = 0;
  for (const f of files) {
    if (f.path === MARKER) continue;
    done++;
    if (f.type === 'submodule' || f.type === 'other') continue;
    ensureDir(f.path);
    const target = `${dir}/${f.path}`;
    if (f.source === 'draft' && tipTree) {
      const k = lookupPath(ws.repo.objects, tipTree, f.path);
      if (k.kind !== 'file' || k.mode === MODE.gitlink) continue;
      const blob = ws.repo.objects.readBlob(k.oid);
      // As `git checkout` would write it (the main working tree's attributes decide).
      const content = form && k.mode !== MODE.symlink ? form.toWorktree(f.path, blob) : blob;
      writer.commit(writer.stage(f.path, k.mode, content));
      manifest.set(f.path, statEntry(fs.lstatSync(target) as Stats, k.oid, k.mode));
      bytes += content.length;
    } else if (f.type === 'symlink') {
      // Copied as the link it is, never followed: its target may point anywhere.
      const link = fs.readlinkSync(`${source}/${f.path}`, { encoding: 'buffer' }) as Buffer;
      fs.symlinkSync(link, target);
      manifest.set(
        f.path,
        statEntry(
          fs.lstatSync(target) as Stats,
          known?.oidOf(f.path, fs.lstatSync(`${source}/${f.path}`) as Stats) ?? null,
          MODE.symlink,
        ),
      );
    } else {
      const from = `${source}/${f.path}`;
      const st = fs.lstatSync(from) as Stats;
      copyFile(ws, from, target);
      const mode = modeOfStat(st, trustExec, known?.modeOf(f.path));
      manifest.set(f.path, statEntry(fs.lstatSync(target) as Stats, known?.oidOf(f.path, st) ?? null, mode));
      copied++;
      bytes += st.size;
    }
    written++;
    if (progress && done % 500 === 0) progress(done, files.length);
  }
  progress?.(files.length, files.length);

  const now = new Date(ws.ctx.clock.now()).toISOString();
  const rec: WorktreeRecord = {
    version: 1,
    id,
    dir,
    draft: draftName,
    synced_tip: draft?.tip ?? null,
    owned: draft ? draft.bases.paths() : [],
    manifest_shards: manifest.shardCount,
    created_at: now,
    updated_at: now,
  };
  writeMarker(ws.ctx, dir, { version: 1, repository: source, id, draft: draftName });
  manifest.save();
  writeWorktreeRecord(ws.ctx, ws.repo.shadowDir, rec, { durable: true });
  return { id, dir, draft: draftName, tip: rec.synced_tip, files: written, copied, bytes };
}
