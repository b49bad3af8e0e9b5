import { errnoCode, ShadowError } from '../errors.js';
import { ARCHIVE_PREFIX, checkpointsPrefix, mergesRef } from './ref-names.js';
import { draftDir } from '../state/draft-meta.js';
import { ensureDir, fsyncDir, parentOf } from '../durable/durable-file.js';
import { readJournals } from '../state/journal.js';
import { takeProcessLock } from '../durable/process-lock.js';
import { clearDraftRemains } from './draft-remains.js';
import { draftStatusWord, requireDraft } from './drafts.js';
import { logEvent } from './ledger-events.js';
import type { Workspace } from './workspace.js';

/** `20261122T101500.123Z`: an archive name that sorts by time. */
function compactStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '');
}

/** An apply of the draft a crash interrupted would, once recovered, record itself in the draft dropped. */
function refuseWhileJournaled(ws: Workspace, name: string): void {
  const pending = readJournals(ws.ctx, ws.repo.shadowDir).journals.filter((j) => j.draft === name);
  if (pending.length > 0) {
    throw new ShadowError(
      'APPLY_PENDING',
      `an interrupted ${pending[0]!.kind} of draft "${name}" is waiting to be finished: nothing was dropped`,
      {
        hint: 'run `shadow recover` (in the worktree it names), then drop the draft',
        data: { draft: name, journals: pending.map((j) => j.id) },
      },
    );
  }
}

/**
 * Drop a draft. Unless `purge`, its tip and checkpoints stay reachable under
 * `refs/shadow/archive/<draft>/<time>/`, and its metadata moves beside them,
 * so `shadow draft new <name> --from <archive ref>` brings the work back.
 * With `purge`, nothing of it stays: its refs and their reflogs, and its
 * directory (apply records, ledger, caches). Archives of earlier drops of
 * the same name are other drafts', and stay.
 *
 * The draft's ref goes first, durably: that is the drop. A crash before it
 * leaves the draft whole; after it, what the ref leaves behind is remains,
 * which a new draft of the same name clears before it writes anything (see
 * clearDraftRemains). The apply lock keeps an apply or unapply of the draft
 * from writing its records meanwhile.
 */
export async function dropDraft(
  ws: Workspace,
  name: string,
  options: { purge: boolean; actor: string },
): Promise<{ archive?: string }> {
  const draft = requireDraft(ws, name);
  const repo = ws.repo;
  const lock = takeProcessLock(ws.ctx, `${repo.shadowDir}/apply.lock`, `shadow draft drop ${name}`);
  try {
    refuseWhileJournaled(ws, name);
    const before = draftStatusWord(ws, draft);
    await logEvent(ws, name, 'tx/status', options.actor, { from: before, to: 'discarded' });
    await logEvent(ws, name, 'tx/close', options.actor, { status: 'discarded', tip: draft.tip, purge: options.purge });
    const who = repo.committer();
    let archive: string | undefined;
    if (!options.purge) {
      const stamp = compactStamp(ws.ctx.clock.now());
      archive = `${ARCHIVE_PREFIX}${name}/${stamp}`;
      for (let n = 2; repo.refs.list(`${archive}/`).length > 0; n++) archive = `${ARCHIVE_PREFIX}${name}/${stamp}-${n}`;
      await repo.refs.update({
        ref: `${archive}/tip`,
        expected: null,
        next: draft.tip,
        message: `shadow: archive of draft ${name}`,
        who,
      });
      const merges = repo.refs.resolve(mergesRef(name));
      if (merges !== undefined)
        await repo.refs.update({
          ref: `${archive}/merges`,
          expected: null,
          next: merges,
          message: `shadow: archive of draft ${name}`,
          who,
          reflog: false,
        });
      for (const cp of repo.refs.list(checkpointsPrefix(name))) {
        const cpName = cp.ref.slice(checkpointsPrefix(name).length);
        await repo.refs.update({
          ref: `${archive}/checkpoints/${cpName}`,
          expected: null,
          next: cp.oid,
          message: `shadow: archive of checkpoint ${cpName}`,
          who,
          reflog: false,
        });
      }
    }
    await repo.refs.delete(draft.ref, draft.tip);
    if (archive) {
      // One rename: the records, ledger and caches travel together.
      const dest = `${repo.shadowDir}/archive/${archive.slice(ARCHIVE_PREFIX.length)}`;
      ensureDir(ws.ctx.fs, parentOf(dest));
      try {
        ws.ctx.fs.renameSync(draftDir(repo.shadowDir, name), dest);
        // A rename between two directories is durable once both are synced.
        fsyncDir(ws.ctx.fs, parentOf(dest));
        fsyncDir(ws.ctx.fs, parentOf(draftDir(repo.shadowDir, name)));
      } catch (e) {
        // A draft with no directory (its metadata lost): nothing to keep.
        if (errnoCode(e) !== 'ENOENT') throw e;
      }
    }
    await clearDraftRemains(ws, name);
    return archive ? { archive: `${archive}/tip` } : {};
  } finally {
    lock.release();
  }
}
