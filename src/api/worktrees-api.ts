import type { Stats } from 'node:fs';
import { ShadowError } from '../errors.js';
import { loadDraft } from '../drafts/drafts.js';
import { materialize, type MaterializeProgress, type MaterializeResult } from '../worktrees/worktree-materialize.js';
import {
  recordWorktree,
  worktreeChanges,
  type RecordResult,
  type WorktreeChange,
} from '../worktrees/worktree-record.js';
import { syncWorktree, type SyncResult } from '../worktrees/worktree-sync.js';
import {
  alignExecHead,
  holdExecWorktree,
  isExecDir,
  prepareGitWorktree,
  removeExecWorktree,
  removeTree,
  type ExecWorktree,
} from '../worktrees/worktree-exec.js';
import { watchWorktree, type WatchHandle, type WatchOptions } from '../worktrees/worktree-watch.js';
import type { Workspace } from '../drafts/workspace.js';
import { Manifest } from '../state/worktree-manifest.js';
import {
  listWorktreeRecords,
  readMarker,
  withWorktreeLock,
  removeWorktreeRecord,
  worktreeNotFound,
  type WorktreeRecord,
} from '../state/worktree-state.js';

/**
 * Materialized worktrees, as the library offers them: a draft's view as a
 * real directory (`add`), kept in step with the draft (`sync`), its changes
 * turned into batches (`record`, `watch`).
 */

export interface WorktreeInfo extends WorktreeRecord {
  /** The directory is still there. */
  exists: boolean;
  /** The draft is still there. */
  draft_exists: boolean;
  /** The draft moved since the worktree was last synced. */
  behind: boolean;
}

export class Worktrees {
  /** @internal Made by the handle: `sh.worktrees`. */
  constructor(
    private readonly ws: Workspace,
    private readonly draftName: (draft?: string) => string,
    private readonly actor: (explicit?: string) => string,
  ) {}

  /** The worktree at `dir` (absolute), by its record, or by the marker inside it. */
  find(dir: string): WorktreeRecord {
    const clean = dir.replace(/\/+$/, '');
    const all = listWorktreeRecords(this.ws.ctx, this.ws.repo.shadowDir);
    const byDir = all.find((r) => r.dir === clean);
    if (byDir) return byDir;
    const marker = readMarker(this.ws.ctx, clean);
    const byMarker = marker && all.find((r) => r.id === marker.id);
    if (byMarker) return byMarker;
    throw worktreeNotFound(clean);
  }

  /**
   * Materialize the draft's view into `dir` (absolute; new or empty).
   *
   * @example await sh.worktrees.add('/home/me/app-draft', { draft: 'refactor' })
   */
  async add(
    dir: string,
    options: { draft?: string; onProgress?: MaterializeProgress } = {},
  ): Promise<MaterializeResult> {
    return materialize(
      this.ws,
      this.draftName(options.draft),
      dir.replace(/\/+$/, ''),
      this.ws.ctx.ids.uuid(),
      options.onProgress,
    );
  }

  /**
   * A real git worktree of the draft in `dir` (absolute; beside the
   * repository), detached at the draft's tip, with the working tree's
   * dependency directories (`shadow.worktreeShare`) linked in: `git status`
   * and builds work there. Unlike `add`, it shows the draft's commit, not
   * your uncommitted files. `sync` brings it to the tip (refused while it
   * holds changes not recorded); `record` and `remove` work as for `add`.
   *
   * @example await sh.worktrees.addGit('/home/me/app-draft', { draft: 'refactor' })
   */
  async addGit(dir: string, options: { draft?: string } = {}): Promise<ExecWorktree> {
    return prepareGitWorktree(this.ws, this.draftName(options.draft), dir.replace(/\/+$/, ''), false);
  }

  /** Bring the worktree to its draft's tip: only the paths that differ; a path changed there and not recorded is a conflict, left alone. */
  async sync(dir: string): Promise<SyncResult> {
    return this.locked(dir, (rec) => {
      if (!rec.exec) return syncWorktree(this.ws, rec);
      // A git worktree: git brings it to the tip (exec's own directory resets what was left; any other refuses it).
      const w = prepareGitWorktree(this.ws, rec.draft, rec.dir, isExecDir(this.ws, rec.draft, rec.dir));
      const result: SyncResult = {
        dir: w.dir,
        draft: w.draft,
        from: rec.synced_tip,
        to: w.tip,
        written: w.changed,
        removed: [],
        conflicts: [],
      };
      return result;
    });
  }

  /** What changed in the worktree since shadow last wrote it (nothing recorded). */
  async changes(dir: string): Promise<WorktreeChange[]> {
    return this.locked(dir, (rec) => this.changesOf(rec));
  }

  private changesOf(rec: WorktreeRecord): WorktreeChange[] {
    return worktreeChanges(this.ws, rec, Manifest.open(this.ws.ctx, this.ws.repo.shadowDir, rec)).changes;
  }

  /** `job` on the worktree at `dir`, under its lock (a watch of it takes turns with it). */
  private locked<T>(dir: string, job: (rec: WorktreeRecord) => Promise<T> | T): Promise<T> {
    return withWorktreeLock(this.ws.ctx, this.ws.repo.shadowDir, this.find(dir), job);
  }

  /** Record the worktree's changes as one batch (`paths`: only those), then sync. */
  async record(
    dir: string,
    options: { actor?: string; intent?: string; paths?: string[] } = {},
  ): Promise<RecordResult> {
    const actor = this.actor(options.actor);
    return this.locked(dir, async (rec) => {
      const r = await recordWorktree(this.ws, rec, { actor, intent: options.intent, paths: options.paths });
      if (rec.exec) alignExecHead(this.ws, this.find(dir));
      return r;
    });
  }

  /**
   * The draft's exec worktree, at its tip: a git worktree kept between
   * calls (made the first time, synced by what changed after), with the
   * working tree's dependency directories linked in. What a previous
   * command left there and nobody recorded is reset (listed in `discarded`).
   *
   * The worktree is held for the caller's command: call `release()` when
   * it is done (a second exec on the draft meanwhile is BUSY).
   *
   * @example
   * const w = await sh.worktrees.exec({ draft: 'refactor' });
   * try {
   *   execFileSync('npm', ['test'], { cwd: w.dir, stdio: 'inherit' });
   * } finally {
   *   w.release();
   * }
   */
  async exec(options: { draft?: string } = {}): Promise<ExecWorktree & { release(): void }> {
    return holdExecWorktree(this.ws, this.draftName(options.draft));
  }

  /** Every worktree of the repository, with whether it, and its draft, still exist. */
  async list(): Promise<WorktreeInfo[]> {
    return listWorktreeRecords(this.ws.ctx, this.ws.repo.shadowDir).map((r) => {
      const draft = loadDraft(this.ws, r.draft);
      let exists = false;
      try {
        exists = (this.ws.ctx.fs.statSync(r.dir) as Stats).isDirectory();
      } catch {
        exists = false;
      }
      return { ...r, exists, draft_exists: draft !== undefined, behind: (draft?.tip ?? null) !== r.synced_tip };
    });
  }

  /**
   * Delete the worktree's directory and forget it. Refused (WORKTREE_DIRTY)
   * while it holds changes not recorded, unless `force`.
   */
  async remove(
    dir: string,
    options: { force?: boolean } = {},
  ): Promise<{ dir: string; removed: boolean; discarded: WorktreeChange[] }> {
    return this.locked(dir, (rec) => this.removeLocked(rec, options));
  }

  private removeLocked(
    rec: WorktreeRecord,
    options: { force?: boolean },
  ): { dir: string; removed: boolean; discarded: WorktreeChange[] } {
    let exists = true;
    try {
      this.ws.ctx.fs.statSync(rec.dir);
    } catch {
      exists = false;
    }
    const pending = exists ? this.changesOf(rec) : [];
    if (pending.length > 0 && !options.force) {
      throw new ShadowError(
        'WORKTREE_DIRTY',
        `${rec.dir} holds ${pending.length} change${pending.length === 1 ? '' : 's'} not recorded: ${pending
          .slice(0, 5)
          .map((c) => c.path)
          .join(', ')}`,
        {
          hint: `record them first (\`shadow worktree record ${rec.dir}\`), or remove with --force to discard them`,
          data: { dir: rec.dir, changes: pending },
        },
      );
    }
    if (rec.exec) removeExecWorktree(this.ws, rec);
    else {
      if (exists) removeTree(this.ws, rec.dir);
      removeWorktreeRecord(this.ws.ctx, this.ws.repo.shadowDir, rec.id);
    }
    return { dir: rec.dir, removed: exists, discarded: pending };
  }

  /** Watch the worktree: every settled burst of changes becomes one batch. */
  async watch(dir: string, options: Omit<WatchOptions, 'actor'> & { actor?: string } = {}): Promise<WatchHandle> {
    return watchWorktree(this.ws, this.find(dir), { ...options, actor: options.actor ?? 'watch' });
  }
}
