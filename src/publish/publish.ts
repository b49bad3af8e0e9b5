import type { Stats } from 'node:fs';
import { ShadowError } from '../errors.js';
import { MODE, type Oid } from '../git/format/git-objects.js';
import { parentDirs } from '../core/path-rules.js';
import { publishOrder, sameEntry, type PublishEntry } from '../drafts/publish-set/publish-set.js';
import { isRegularMode, type FileEntry } from '../git/format/tree-lookup.js';
import { dropApply, findApply, recordApply } from '../state/applied-state.js';
import { FSYNC_WINDOW, fsyncDir, tryUnlink, writeAll } from '../durable/durable-file.js';
import { readIndex, serializeIndex, updateIndex } from '../git/git-index.js';
import { removeJournal, rewriteJournal, type Journal } from '../state/journal.js';
import { createLockFile } from '../durable/lock-file.js';
import { WorkingTreeLower } from '../git/lower-layer.js';
import { WorktreeWriter, type StagedFile } from '../git/worktree-writer.js';
import { moveBranch } from './branch-move.js';
import { journalTrace } from './journal-trace.js';
import type { NotesResult } from './trace-notes.js';
import { logEvents } from '../drafts/ledger-events.js';
import type { PathConflict } from './path-conflict.js';
import type { Workspace } from '../drafts/workspace.js';
import { gateDraftWrite } from '../drafts/path-gate.js';

/**
 * The machinery of publishing (shared by apply, unapply and recovery): what
 * the working tree holds at a path, the guard, and carrying a journal out:
 * files, then the branch, then the index, then the record.
 */

/** What the working tree holds at a path. */
type WorktreeState = FileEntry | null | { dir: true } | { problem: string };

function worktreeLower(ws: Workspace): WorkingTreeLower {
  const wt = ws.repo.layout.worktree;
  if (wt === null) {
    throw new ShadowError('UNSUPPORTED_REPOSITORY', 'a bare repository has no working tree to publish into', {
      hint: 'run shadow apply in a repository with a working tree',
    });
  }
  return ws.worktreeLower()!;
}

function trustsExecutableBit(ws: Workspace): boolean {
  return ws.repo.config.getBool('core.filemode') ?? true;
}

function stateAt(lower: WorkingTreeLower, path: string): WorktreeState {
  try {
    const l = lower.read(path);
    if (l.kind === 'file') return { mode: l.mode, oid: l.oid };
    return l.kind === 'dir' ? { dir: true } : null;
  } catch (e) {
    if (e instanceof ShadowError && (e.code === 'SYMLINK_IN_PATH' || e.code === 'UNSUPPORTED_FILE_TYPE'))
      return { problem: e.message };
    throw e;
  }
}

/** Does the working tree's `state` hold `want`? Without a trusted executable bit, modes 644/755 match. */
function holds(state: WorktreeState, want: FileEntry | null, trustExec: boolean): boolean {
  if (want === null) return state === null;
  if (state === null || 'dir' in state || 'problem' in state) return false;
  if (state.oid !== want.oid) return false;
  if (state.mode === want.mode) return true;
  return !trustExec && isRegularMode(state.mode) && isRegularMode(want.mode);
}

function describe(state: WorktreeState, want: FileEntry | null): PathConflict['found'] {
  if (state !== null && 'problem' in state) return 'type changed';
  if (want === null) return 'created';
  if (state === null) return 'deleted';
  if ('dir' in state) return 'type changed';
  const link = (m: string): boolean => m === MODE.symlink;
  return link(state.mode) !== link(want.mode) ? 'type changed' : 'modified';
}

/**
 * Check that every path holds what the publish expects there before it
 * (`expect` picks `old`, or `new` for an unapply). A directory where a file
 * is due is fine when the same publish removes everything in it.
 */
export function guardPaths(ws: Workspace, entries: readonly PublishEntry[], expect: 'old' | 'new'): PathConflict[] {
  const lower = worktreeLower(ws);
  const trustExec = trustsExecutableBit(ws);
  const removed = new Set(entries.filter((e) => (expect === 'old' ? e.new : e.old) === null).map((e) => e.path));
  const conflicts: PathConflict[] = [];
  for (const e of entries) {
    const want = expect === 'old' ? e.old : e.new;
    if (want?.mode === MODE.gitlink) continue;
    const state = stateAt(lower, e.path);
    if (holds(state, want, trustExec)) continue;
    if (want === null && state !== null && 'dir' in state && dirHoldsOnly(ws, e.path, removed)) continue;
    const conflict: PathConflict = { path: e.path, expected: want?.oid ?? null, found: describe(state, want) };
    if (state !== null && 'problem' in state) conflict.detail = state.problem;
    else if (state !== null && 'dir' in state) conflict.detail = 'a directory';
    conflicts.push(conflict);
  }
  return conflicts;
}

/**
 * True when directory `dir` of the working tree holds files and every one of
 * them is in `removed` (so the publish empties it). An empty directory is the
 * user's own and is not removed: it conflicts.
 */
function dirHoldsOnly(ws: Workspace, dir: string, removed: ReadonlySet<string>): boolean {
  const lower = worktreeLower(ws);
  const entries = lower.list(dir) ?? [];
  return (
    entries.length > 0 &&
    entries.every((e) => {
      const path = `${dir}/${e.name}`;
      return e.kind === 'dir' ? dirHoldsOnly(ws, path, removed) : removed.has(path);
    })
  );
}

/** Directories a publish must change that this process may not write (known before any write). */
export function unwritableDirs(ws: Workspace, entries: readonly PublishEntry[]): string[] {
  const root = ws.repo.layout.worktree!;
  const fs = ws.ctx.fs;
  const checked = new Map<string, boolean>();
  // Entries share most of their parents: each directory is looked at once.
  const isDirectory = new Map<string, boolean>();
  const isDir = (d: string): boolean => {
    let known = isDirectory.get(d);
    if (known === undefined) {
      try {
        known = fs.statSync(d === '' ? root : `${root}/${d}`).isDirectory();
      } catch {
        known = false;
      }
      isDirectory.set(d, known);
    }
    return known;
  };
  const out = new Set<string>();
  for (const e of entries) {
    // The nearest existing directory on the way: where the entry is renamed, unlinked or made.
    let nearest = '';
    for (const d of ['', ...parentDirs(e.path)]) {
      if (isDir(d)) nearest = d;
      else break;
    }
    let ok = checked.get(nearest);
    if (ok === undefined) {
      try {
        fs.accessSync(nearest === '' ? root : `${root}/${nearest}`, 2 | 1);
        ok = true;
      } catch {
        ok = false;
      }
      checked.set(nearest, ok);
    }
    if (!ok) out.add(nearest === '' ? '.' : nearest);
  }
  return [...out].sort();
}

/** Blob contents already read (by the review), by id: a publish reads each blob once. */
export type BlobCache = ReadonlyMap<Oid, Buffer>;

/** A progress report: `done` of `total` paths, `bytes` written so far. */
export type Progress = (done: number, total: number, bytes: number) => void;

/** What carrying a journal out did. */
export interface Outcome {
  written: string[];
  /** Paths someone changed meanwhile: left as they are. */
  conflicts: PathConflict[];
  /** Paths an I/O error stopped (a full disk, a permission): the journal stays for recovery. */
  failures: Array<{ path: string; code: string; message: string }>;
  /** Submodule entries, which shadow does not check out. */
  skipped: string[];
  /** The Agent Trace notes of the commits a branch move published (journal-trace.ts). */
  notes?: NotesResult;
}

/**
 * Bring every path of the journal to its `new` state. With `recheck` (a
 * recovery, or a path a crash may have left half-way), a path already at
 * `new` is left alone and a path at neither `old` nor `new` is reported, not
 * overwritten. Never a torn file: every write is temp, fsync, rename.
 * Returns once every file is in place, with the fsyncs of the directories
 * whose entries changed in flight (`dirsSynced`), so that the caller can
 * overlap them with work that need not wait for them.
 */
async function carryOut(
  ws: Workspace,
  journal: Journal,
  recheck: boolean,
  progress?: Progress,
  blobs?: BlobCache,
): Promise<{ outcome: Outcome; dirsSynced: Promise<void> }> {
  const outcome: Outcome = { written: [], conflicts: [], failures: [], skipped: [] };
  const writer = new WorktreeWriter(ws.ctx, ws.repo.layout.worktree!);
  const lower = worktreeLower(ws);
  const form = ws.worktreeForm(false);
  const trustExec = trustsExecutableBit(ws);
  // A path a merge found already as the draft has it is recorded, not written.
  const { removals, writes } = publishOrder(journal.entries.filter((e) => !sameEntry(e.old, e.new)));
  const removedFirst = new Set(removals.map((e) => e.path));
  const conflicted = new Set<string>();
  const total = journal.entries.length;
  let done = 0;
  let bytes = 0;

  const check = (e: PublishEntry, phase: 'remove' | 'write'): 'do' | 'done' | 'conflict' => {
    if (!recheck) return 'do';
    writer.cleanTemps(e.path);
    const state = stateAt(lower, e.path);
    if (holds(state, e.new, trustExec)) return 'done';
    if (holds(state, e.old, trustExec)) return 'do';
    if (phase === 'write' && removedFirst.has(e.path) && state === null) return 'do';
    if (e.new === null && state !== null && 'dir' in state) return 'done';
    outcome.conflicts.push({ path: e.path, expected: e.old?.oid ?? null, found: describe(state, e.old) });
    conflicted.add(e.path);
    return 'conflict';
  };
  const fail = (path: string, err: unknown): void => {
    const code = (err as { code?: string }).code ?? 'IO_ERROR';
    outcome.failures.push({ path, code, message: (err as Error).message });
  };

  for (const e of removals) {
    if (e.old?.mode === MODE.gitlink) continue;
    const verdict = check(e, 'remove');
    // Already gone (a recovery after a crash between the unlink and the rmdir): the directories it emptied still go.
    if (verdict === 'done' && e.new === null) writer.pruneEmptyParents(e.path);
    if (verdict !== 'do') continue;
    try {
      writer.remove(e.path);
      if (e.new === null) writer.pruneEmptyParents(e.path);
      if (e.new === null) outcome.written.push(e.path);
    } catch (err) {
      fail(e.path, err);
    }
    if (e.new === null) progress?.(++done, total, bytes);
  }
  // Writes go in windows: each file's content to a temporary file, the
  // window's fsyncs in flight together, then its renames in flight together.
  // A crash anywhere leaves each path old or new, as with one file at a time.
  let window: Array<{ e: PublishEntry; staged: StagedFile; size: number }> = [];
  const flush = async (): Promise<void> => {
    const current = window;
    window = [];
    const alone = current.length === 1;
    const synced = await Promise.allSettled(current.map((w) => writer.sync(w.staged, alone)));
    const placed = await Promise.allSettled(
      current.map(async (w, i) => {
        const r = synced[i]!;
        if (r.status === 'fulfilled') return writer.commitConcurrently(w.staged, alone);
        writer.abandon(w.staged);
        throw r.reason;
      }),
    );
    current.forEach((w, i) => {
      const r = placed[i]!;
      if (r.status === 'rejected') fail(w.e.path, r.reason);
      else {
        outcome.written.push(w.e.path);
        bytes += w.size;
      }
      progress?.(++done, total, bytes);
    });
  };
  try {
    for (const e of writes) {
      if (e.new!.mode === MODE.gitlink) {
        outcome.skipped.push(e.path);
        continue;
      }
      if (conflicted.has(e.path)) continue;
      if (check(e, 'write') !== 'do') continue;
      try {
        const blob = blobs?.get(e.new!.oid) ?? ws.repo.objects.readBlob(e.new!.oid);
        // What `git checkout` writes: smudged, with the line endings the path checks out with.
        const content = e.new!.mode === MODE.symlink || !form ? blob : form.toWorktree(e.path, blob);
        window.push({ e, staged: writer.stage(e.path, e.new!.mode, content), size: content.length });
      } catch (err) {
        fail(e.path, err);
        progress?.(++done, total, bytes);
      }
      if (window.length >= FSYNC_WINDOW) await flush();
    }
    await flush();
  } finally {
    for (const w of window) writer.abandon(w.staged);
  }
  const dirsSynced = writer.syncDirs();
  dirsSynced.catch(() => undefined); // the caller awaits it
  return { outcome, dirsSynced };
}

/** Set the journal's index entries, with the stat data of the files just written. */
async function writeIndexEntries(ws: Workspace, journal: Journal, outcome: Outcome): Promise<void> {
  if (!journal.index) return;
  const ctx = ws.ctx;
  const path = `${ws.repo.layout.gitdir}/index`;
  const lock = await createLockFile(ctx, path, ws.repo.lockTimeoutMs, ws.repo.lockHolders);
  const fd = lock.fd;
  try {
    const index = readIndex(ctx, path);
    const root = ws.repo.layout.worktree!;
    const written = new Map(journal.entries.map((e) => [e.path, e.new?.oid]));
    const changes = journal.index.set
      .filter((c) => !outcome.conflicts.some((k) => k.path === c.path))
      .map((c) => {
        // The file's stat data tells git "this entry is what the file holds":
        // only true when the journal wrote that very blob. An unapply puts
        // back an index entry the user's unstaged change differed from: it
        // gets zero stat data, so git compares the content (and shows the
        // change) instead of trusting a match of size and time.
        let stat: Stats | undefined;
        if (c.entry && written.get(c.path) === c.entry.oid) {
          try {
            stat = ctx.fs.lstatSync(`${root}/${c.path}`) as Stats;
          } catch {
            stat = undefined;
          }
        }
        return { path: c.path, entry: c.entry, stat };
      });
    updateIndex(index, changes);
    writeAll(ctx.fs, fd, serializeIndex(index));
    ctx.fs.fsyncSync(fd);
    ctx.fs.closeSync(fd);
    ctx.fs.renameSync(`${path}.lock`, path);
    // Before the journal goes: an index rename a power loss took back would leave the branch moved and the index behind it.
    fsyncDir(ctx.fs, ws.repo.layout.gitdir);
    lock.forget();
  } catch (e) {
    try {
      ctx.fs.closeSync(fd);
    } catch {
      /* already closed */
    }
    tryUnlink(ctx.fs, `${path}.lock`);
    lock.forget();
    throw e;
  }
}

/**
 * Carry a journal out and close it: files, branch, index, then the record
 * (an apply's journal becomes its record; an unapply drops the record it
 * reverses). When I/O failures stopped some paths, the journal stays for
 * `shadow recover` and nothing after the files is done.
 *
 * The ledger's completion events are fsynced while the directories are:
 * both only have to be on disk before the journal is closed, since until
 * then a crash leaves the journal, and its recovery finds every path done.
 */
export async function runJournal(
  ws: Workspace,
  journal: Journal,
  recheck: boolean,
  progress?: Progress,
  blobs?: BlobCache,
): Promise<Outcome> {
  // A journal is a file in .git, and recovery trusts it no more than a tree.
  gateDraftWrite(ws, journal.tip, journal.draft, journal.entries);
  const { outcome, dirsSynced } = await carryOut(ws, journal, recheck, progress, blobs);
  if (outcome.failures.length > 0) {
    await dirsSynced;
    return outcome;
  }
  const branchFailure = await moveBranch(ws, journal, recheck);
  if (branchFailure) outcome.failures.push(branchFailure);
  // The branch has moved for good: a trace note that cannot be written is reported, never thrown.
  else outcome.notes = journalTrace(ws, journal);
  await writeIndexEntries(ws, journal, outcome);
  const shadowDir = ws.repo.shadowDir;
  const who = journal.actor;
  const summary = {
    id: journal.id,
    tip: journal.tip,
    written: outcome.written.length,
    conflicts: outcome.conflicts,
    skipped: outcome.skipped,
    branch: journal.branch ? { ref: journal.branch.ref, old: journal.branch.old, new: journal.branch.new } : null,
    recovered: recheck,
  };
  if (journal.kind === 'apply') {
    // A crash before the record leaves the journal, and its recovery logs
    // the completion again (marked recovered).
    const logged = logEvents(ws, journal.draft, who, [
      { type: 'tx/status', data: { from: journal.status_before ?? 'open', to: 'applied' } },
      { type: 'apply/complete', data: summary },
      { type: 'tx/status', data: { from: 'applied', to: 'completed' } },
      { type: 'tx/close', data: { status: 'completed', id: journal.id } },
    ]);
    await Promise.all([dirsSynced, logged]);
    if (outcome.conflicts.length > 0) {
      // Record only what reached the working tree: the rest keeps its old base.
      const kept = journal.entries.filter((e) => !outcome.conflicts.some((c) => c.path === e.path));
      rewriteJournal(ws.ctx, shadowDir, { ...journal, entries: kept });
      recordApply(ws.ctx, shadowDir, { ...journal, entries: kept });
    } else {
      recordApply(ws.ctx, shadowDir, journal);
    }
  } else {
    const logged = logEvents(ws, journal.draft, who, [
      { type: 'apply/revert', data: { ...summary, reverts: journal.reverts } },
      { type: 'tx/status', data: { from: 'completed', to: 'open' } },
    ]);
    await Promise.all([dirsSynced, logged]);
    // The record goes durably before the journal does: the journal's
    // recovery must never find the apply recorded while its paths are
    // already put back.
    const record =
      journal.reverts === undefined ? undefined : findApply(ws.ctx, shadowDir, journal.draft, journal.reverts);
    if (record) dropApply(ws.ctx, shadowDir, record);
    removeJournal(ws.ctx, shadowDir, journal.id);
  }
  return outcome;
}
