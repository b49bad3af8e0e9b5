import { relative } from 'node:path';
import { ShadowError } from '../errors.js';
import { readWorktreeRecord, withWorktreeLock, type WorktreeRecord } from '../state/worktree-state.js';
import { isEditorTemp, recordWorktree, type RecordResult } from './worktree-record.js';
import { loadDraft } from '../drafts/drafts.js';
import { syncWorktree, type SyncResult } from './worktree-sync.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * `shadow watch`: chokidar reports the worktree's changes; they are
 * collected until the worktree has been quiet for `quietMs`, then recorded
 * as one batch. Between bursts the draft's tip is checked every second and
 * the worktree synced when another writer moved it. Shadow's own writes (a
 * sync) come back as events too, and are recognized as what the manifest
 * says shadow wrote: nothing is echoed into a batch.
 */

export interface WatchOptions {
  actor: string;
  /** Quiet time that ends a burst of changes (default 300 ms). */
  quietMs?: number;
  /** How often the draft's tip is checked between bursts (default 1 s). */
  pollMs?: number;
  onRecord?: (r: RecordResult) => void;
  onSync?: (r: SyncResult) => void;
  /** A batch that failed, a sync that failed: reported, and the watch goes on. */
  onProblem?: (e: ShadowError) => void;
  /** Called once, when the watcher is ready. */
  onReady?: () => void;
}

export interface WatchHandle {
  /** Stop watching (a burst in progress is recorded first). */
  close(): Promise<void>;
  /** Settles when the watch ends: resolves on close, rejects when the worktree vanished. */
  done: Promise<void>;
}

/** Bursts of more paths than this are recorded from a scan of the whole worktree. */
const FULL_SCAN_AT = 1000;

export async function watchWorktree(ws: Workspace, rec: WorktreeRecord, options: WatchOptions): Promise<WatchHandle> {
  const { watch } = await import('chokidar');
  const quietMs = options.quietMs ?? 300;
  const pollMs = options.pollMs ?? 1000;
  const pending = new Set<string>();
  let lastConflicts = '';
  let quiet: NodeJS.Timeout | undefined;
  let busy: Promise<void> = Promise.resolve();
  let stopped = false;
  let finish!: () => void;
  let fail!: (e: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  done.catch(() => undefined);

  const current = (): WorktreeRecord => {
    const r = readWorktreeRecord(ws.ctx, ws.repo.shadowDir, rec.id);
    if (!r) throw new ShadowError('NOT_FOUND', `the worktree ${rec.dir} was removed`, { data: { dir: rec.dir } });
    return r;
  };
  const gone = (): boolean => {
    try {
      return !ws.ctx.fs.statSync(rec.dir).isDirectory();
    } catch {
      return true;
    }
  };
  const report = (e: unknown): void => {
    if (e instanceof ShadowError) options.onProblem?.(e);
    else options.onProblem?.(new ShadowError('INTERNAL', `internal error while watching: ${(e as Error).message}`));
  };

  const watcher = watch(rec.dir, {
    ignoreInitial: true,
    persistent: true,
    // Editors' temporary files never become content; what .gitignore ignores is filtered when recording.
    ignored: (path: string) => path !== rec.dir && isEditorTemp(relative(rec.dir, path)),
  });

  const stop = async (error?: Error): Promise<void> => {
    if (stopped) return;
    stopped = true;
    clearTimeout(quiet);
    clearInterval(poll);
    // Closed on the next turn, never inside chokidar's own event: closing
    // while it handles the removal of the watched directory leaves an
    // fs.watch open behind it (and the process never exits).
    await new Promise<void>((resolve) => setImmediate(resolve));
    await watcher.close();
    if (error) fail(error);
    else finish();
  };

  // One record or sync at a time, in order.
  const serially = (job: () => Promise<void>): Promise<void> => {
    busy = busy.then(job, job);
    return busy;
  };

  const flush = (): Promise<void> =>
    serially(async () => {
      if (pending.size === 0) return;
      if (gone()) {
        await stop(
          new ShadowError('WORKTREE_GONE', `the worktree ${rec.dir} was deleted while it was watched`, {
            hint: 'make it again with `shadow worktree add`, or forget it with `shadow worktree remove`',
            data: { dir: rec.dir },
          }),
        );
        return;
      }
      // A large burst is recorded from a scan of the whole worktree, not from
      // its events: the kernel's event queue (inotify: 16,384 by default)
      // overflows under thousands of writes, and the events lost with it
      // would be changes left out of the batch.
      const paths = pending.size > FULL_SCAN_AT ? undefined : [...pending];
      pending.clear();
      try {
        const r = await withWorktreeLock(ws.ctx, ws.repo.shadowDir, current(), (now) =>
          recordWorktree(ws, now, { actor: options.actor, paths, label: 'watch' }),
        );
        if (r.batch && !r.batch.success && r.batch.error)
          options.onProblem?.(
            new ShadowError(r.batch.error.code, r.batch.error.message, {
              hint: r.batch.error.hint,
              data: { dir: rec.dir, paths: paths ?? r.changes.map((c) => c.path) },
            }),
          );
        else if (r.batch) options.onRecord?.(r);
      } catch (e) {
        report(e);
      }
    });

  const onEvent = (path: string): void => {
    if (stopped) return;
    const rel = relative(rec.dir, path).split('\\').join('/');
    if (rel === '' || rel.startsWith('..')) return;
    pending.add(rel);
    clearTimeout(quiet);
    quiet = setTimeout(() => void flush(), quietMs);
  };
  watcher.on('add', onEvent).on('change', onEvent).on('unlink', onEvent);
  watcher.on('unlinkDir', (path: string) => {
    if (path === rec.dir)
      void stop(
        new ShadowError('WORKTREE_GONE', `the worktree ${rec.dir} was deleted while it was watched`, {
          data: { dir: rec.dir },
        }),
      );
  });
  watcher.on('error', (e: unknown) => report(e));

  // Other writers move the draft: bring their batches in between bursts.
  const poll = setInterval(() => {
    if (stopped || pending.size > 0) return;
    void serially(async () => {
      if (gone()) {
        await stop(
          new ShadowError('WORKTREE_GONE', `the worktree ${rec.dir} was deleted while it was watched`, {
            data: { dir: rec.dir },
          }),
        );
        return;
      }
      try {
        // Nothing moved and nothing in conflict: no lock, no sync (this runs every pollMs).
        const seen = current();
        if ((loadDraft(ws, seen.draft)?.tip ?? null) === seen.synced_tip && (seen.conflicts ?? []).length === 0) return;
        const r = await withWorktreeLock(ws.ctx, ws.repo.shadowDir, seen, (now) => syncWorktree(ws, now));
        // Conflicts stay until resolved (every sync looks again): said when they change, not every poll.
        const conflicts = r.conflicts.map((c) => c.path).join('\0');
        if (r.written.length + r.removed.length > 0 || conflicts !== lastConflicts) options.onSync?.(r);
        lastConflicts = conflicts;
      } catch (e) {
        report(e);
      }
    });
  }, pollMs);

  await new Promise<void>((ready) => watcher.once('ready', () => ready()));
  options.onReady?.();
  return {
    close: async () => {
      clearTimeout(quiet);
      await flush();
      await stop();
    },
    done,
  };
}
