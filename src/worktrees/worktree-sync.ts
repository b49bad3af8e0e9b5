import type { Stats } from 'node:fs';
import { ShadowError, errnoCode } from '../errors.js';
import { blobOid, MODE, type Oid } from '../git/format/git-objects.js';
import { diffTrees } from '../git/format/tree-diff.js';
import { lookupPath, type FileEntry } from '../git/format/tree-lookup.js';
import { WorktreeWriter } from '../git/worktree-writer.js';
import { Manifest, modeOfStat, statEntry, unchangedSince, type ManifestEntry } from '../state/worktree-manifest.js';
import { writeWorktreeRecord, type WorktreeRecord } from '../state/worktree-state.js';
import { checkWorktree, loadDraft, type Draft } from '../drafts/drafts.js';
import type { Workspace } from '../drafts/workspace.js';
import { gateDraftWrite } from '../drafts/path-gate.js';

/**
 * Bringing a materialized worktree to its draft's tip. Only paths whose
 * view can differ are looked at: those the two tips' trees differ in, and
 * those whose owner changed (the draft's, or the working tree's). A file
 * edited in the worktree and not yet recorded is reported as a conflict and
 * left as it is.
 */

export interface SyncResult {
  dir: string;
  draft: string;
  from: Oid | null;
  to: Oid | null;
  written: string[];
  removed: string[];
  /** Paths changed in the worktree and not recorded: left alone. */
  conflicts: Array<{ path: string; reason: string }>;
}

/** Whether the file system keeps the exec bit (git's core.filemode). */
export function trustsExecBit(ws: Workspace): boolean {
  return ws.repo.config.getBool('core.filemode') ?? true;
}

/** What the worktree holds at a path now, as far as a sync is concerned. */
export type WorktreeFileState = { kind: 'absent' } | { kind: 'dir' } | { kind: 'file'; st: Stats };

export function worktreeFileState(ws: Workspace, dir: string, path: string): WorktreeFileState {
  try {
    const st = ws.ctx.fs.lstatSync(`${dir}/${path}`) as Stats;
    return st.isDirectory() ? { kind: 'dir' } : { kind: 'file', st };
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    throw e;
  }
}

/** Is the worktree's file at `path` still what shadow left there? (Hashes only when the stat data moved.) */
export function untouched(
  ws: Workspace,
  dir: string,
  path: string,
  entry: ManifestEntry | undefined,
  state: WorktreeFileState,
): boolean {
  if (!entry) return state.kind === 'absent';
  if (state.kind !== 'file') return false;
  const trustExec = trustsExecBit(ws);
  if (unchangedSince(entry, state.st, trustExec)) return true;
  if (entry.oid === null) return false;
  if (modeOfStat(state.st, trustExec, entry.mode) !== entry.mode) return false; // a chmod (or a type change) not recorded
  return currentOid(ws, dir, path, state.st) === entry.oid;
}

/** The blob git would store for the file at `path` of `dir` (its clean form, by the main working tree's attributes). */
function currentOid(ws: Workspace, dir: string, path: string, st: Stats): Oid {
  const full = `${dir}/${path}`;
  if (st.isSymbolicLink()) return blobOid(ws.ctx.fs.readlinkSync(full, { encoding: 'buffer' }) as Buffer);
  const raw = ws.ctx.fs.readFileSync(full) as Buffer;
  const form = ws.worktreeForm(false);
  return blobOid(form ? form.toBlob(path, raw) : raw);
}

/** The view of `path` at a draft tip: the draft's file when it owns the path, else the working tree's; content in working-tree form. */
function viewAt(
  ws: Workspace,
  draft: Draft | undefined,
  path: string,
): { entry: FileEntry | null; content: () => Buffer } {
  if (draft && draft.bases.has(path)) {
    const k = lookupPath(ws.repo.objects, ws.repo.objects.readCommit(draft.tip).tree, path);
    if (k.kind !== 'file' || k.mode === MODE.gitlink) return { entry: null, content: () => Buffer.alloc(0) };
    const form = k.mode === MODE.symlink ? undefined : ws.worktreeForm(false);
    return {
      entry: { mode: k.mode, oid: k.oid },
      content: () => (form ? form.toWorktree(path, ws.repo.objects.readBlob(k.oid)) : ws.repo.objects.readBlob(k.oid)),
    };
  }
  const l = ws.lower(draft?.meta.root ?? '').read(path);
  if (l.kind !== 'file' || l.mode === MODE.gitlink) return { entry: null, content: () => Buffer.alloc(0) };
  return { entry: { mode: l.mode, oid: l.oid }, content: l.worktree ?? l.content };
}

/** Paths whose view may differ between the worktree's tip and the draft's. */
function candidates(ws: Workspace, rec: WorktreeRecord, draft: Draft | undefined): Set<string> {
  // A path owned at one tip and not the other takes its view from elsewhere
  // now (the draft, or the working tree), even where the trees agree. A path
  // owned at both shows the draft's file at both: the trees' difference
  // says whether it changed. (The union of the owned paths would make a sync
  // O(the draft), not O(what changed).)
  const now = new Set(draft?.bases.paths() ?? []);
  const before = new Set(rec.owned);
  const out = new Set<string>(rec.conflicts ?? []);
  for (const p of before) if (!now.has(p)) out.add(p);
  for (const p of now) if (!before.has(p)) out.add(p);
  if (!draft || rec.synced_tip === null) return out;
  // Both tips' trees are read only where they differ: O(what changed).
  const objects = ws.repo.objects;
  const a = objects.readCommit(rec.synced_tip).tree;
  const b = objects.readCommit(draft.tip).tree;
  for (const c of diffTrees(objects, a, b)) out.add(c.path);
  return out;
}

export function syncWorktree(ws: Workspace, rec: WorktreeRecord): SyncResult {
  const draft = loadDraft(ws, rec.draft);
  if (!draft && rec.synced_tip !== null) {
    throw new ShadowError('DRAFT_NOT_FOUND', `the draft "${rec.draft}" of worktree ${rec.dir} is gone (dropped?)`, {
      hint: `remove the worktree with \`shadow worktree remove ${rec.dir}\`, or bring the draft back from refs/shadow/archive/`,
      data: { dir: rec.dir, draft: rec.draft },
    });
  }
  if (draft) checkWorktree(ws, draft, 'shadow worktree sync');
  const out: SyncResult = {
    dir: rec.dir,
    draft: rec.draft,
    from: rec.synced_tip,
    to: draft?.tip ?? null,
    written: [],
    removed: [],
    conflicts: [],
  };
  if ((draft?.tip ?? null) === rec.synced_tip && (rec.conflicts ?? []).length === 0) return out;
  const manifest = Manifest.open(ws.ctx, ws.repo.shadowDir, rec);
  const paths = [...candidates(ws, rec, draft)].sort();
  // Every path it may write passes the path gate before the first is written.
  if (draft) gateDraftWrite(ws, draft.tip, rec.draft, [], paths);
  const writer = new WorktreeWriter(ws.ctx, rec.dir);
  for (const path of paths) {
    const want = viewAt(ws, draft, path);
    const had = manifest.get(path);
    if (
      (want.entry?.oid ?? null) === (had?.oid ?? null) &&
      (want.entry?.mode ?? null) === (had?.mode ?? null) &&
      had?.oid !== null
    )
      continue;
    const state = worktreeFileState(ws, rec.dir, path);
    if (!untouched(ws, rec.dir, path, had, state)) {
      if (
        want.entry &&
        state.kind === 'file' &&
        currentOid(ws, rec.dir, path, state.st) === want.entry.oid &&
        modeOfStat(state.st, trustsExecBit(ws), want.entry.mode) === want.entry.mode
      ) {
        // Changed there to exactly what the draft now holds: nothing to write, nothing lost.
        manifest.set(path, statEntry(state.st, want.entry.oid, want.entry.mode));
        continue;
      }
      out.conflicts.push({
        path,
        reason: had ? 'changed in the worktree and not recorded' : 'created in the worktree and not recorded',
      });
      continue;
    }
    // The worktree holds what shadow left there.
    if (want.entry === null) {
      if (state.kind === 'file') {
        writer.remove(path);
        writer.pruneEmptyParents(path);
        out.removed.push(path);
      }
      manifest.delete(path);
      continue;
    }
    const haveOid = had?.oid ?? (had && state.kind === 'file' ? currentOid(ws, rec.dir, path, state.st) : null);
    if (had && state.kind === 'file' && haveOid === want.entry.oid && had.mode === want.entry.mode) {
      if (had.oid === null) manifest.set(path, { ...had, oid: haveOid });
      continue;
    }
    writer.commit(writer.stage(path, want.entry.mode, want.content()));
    manifest.set(path, statEntry(ws.ctx.fs.lstatSync(`${rec.dir}/${path}`) as Stats, want.entry.oid, want.entry.mode));
    out.written.push(path);
  }
  manifest.save();
  writeWorktreeRecord(
    ws.ctx,
    ws.repo.shadowDir,
    {
      ...rec,
      synced_tip: draft?.tip ?? null,
      owned: draft?.bases.paths() ?? [],
      conflicts: out.conflicts.map((c) => c.path),
      updated_at: new Date(ws.ctx.clock.now()).toISOString(),
    },
    { durable: false },
  );
  return out;
}
