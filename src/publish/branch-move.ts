import { RefMoved } from '../git/refs.js';
import type { Journal } from '../state/journal.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * The branch move of `apply --commit`/`--squash` and of the unapply that
 * reverses one, carried out from the journal. The reflog lines are git's:
 * the branch's log and, when this worktree's HEAD points to the branch,
 * HEAD's log, with the message the journal planned (the same on a redo).
 */

/** Why the branch was not moved: an entry of the publish's failures. */
export interface BranchFailure {
  path: string;
  code: string;
  message: string;
}

/** Whether git would create a branch's or HEAD's reflog that does not exist yet (`core.logAllRefUpdates`). */
function createsBranchReflogs(ws: Workspace): boolean {
  const config = ws.repo.config;
  if (config.get('core.logallrefupdates')?.trim().toLowerCase() === 'always') return true;
  return config.getBool('core.logallrefupdates') ?? ws.repo.layout.worktree !== null;
}

/**
 * Move the journal's branch, if it has one and it still is where the journal
 * found it. A branch already at its new value was moved, lines included, by
 * the run a crash cut short. `redo` (a recovery) writes no line a crash left
 * already. Returns the failure when the branch moved elsewhere meanwhile.
 */
export async function moveBranch(ws: Workspace, journal: Journal, redo: boolean): Promise<BranchFailure | undefined> {
  const b = journal.branch;
  if (!b) return undefined;
  const current = ws.repo.refs.resolve(b.ref) ?? null;
  if (current === b.new) return undefined;
  try {
    await ws.repo.refs.update({
      ref: b.ref,
      expected: b.old,
      next: b.new,
      // Journals written before the reflog followed git's wording carry no message.
      message: b.reflog ?? `shadow: ${journal.kind} of draft ${journal.draft}`,
      who: ws.repo.committer(),
      createReflog: createsBranchReflogs(ws),
      redo,
    });
  } catch (e) {
    if (!(e instanceof RefMoved)) throw e;
    const message = `${b.ref} moved to ${current ?? '(nothing)'} meanwhile; it was not moved`;
    return { path: b.ref, code: 'CONFLICT', message };
  }
  return undefined;
}
