/**
 * The Agent Trace notes travel with the drafts: `shadow push` sends the
 * notes ref (refs/notes/agent-trace, or `shadow.traceNotes`) after the
 * drafts, and `shadow fetch` brings the remote's to
 * `refs/notes/remotes/<remote>/<name>` and merges it into the local one with
 * `git notes merge -s ours`: notes of commits only one side has are all
 * kept, and where both noted the same commit the local note stays (a
 * publish notes its commits once, so the two are the same record). The
 * notes annotate published commits, which the person pushes with their
 * branches; without this they would stay on the machine that published.
 *
 * The notes are shared by every draft and branch, so they never ride the
 * drafts' atomic push: a push git refuses (the remote's notes moved: fetch
 * first, which merges them) or a merge that fails is reported in the
 * result and changes nothing else.
 */
import { notesRef } from '../publish/trace-notes.js';
import type { Workspace } from '../drafts/workspace.js';
import { gitSays, runGit } from './remote-git.js';

export interface NotesTransfer {
  ref: string;
  /** pushed/fetched: the remote has (or sent) them; none: there were none; refused: see reason. */
  status: 'pushed' | 'merged' | 'up-to-date' | 'none' | 'refused';
  reason?: string;
}

/** Where a remote's notes refs are kept here. */
export function remoteNotesPrefix(remote: string): string {
  return `refs/notes/remotes/${remote}/`;
}

/** Push the notes ref to `remote`, never forced. */
export function pushNotes(ws: Workspace, remote: string): NotesTransfer | undefined {
  const ref = notesRef(ws);
  if (ref === null || !ref.startsWith('refs/notes/')) return undefined;
  if (ws.repo.refs.resolve(ref) === undefined) return { ref, status: 'none' };
  const run = runGit(ws, ['push', '--porcelain', remote, `${ref}:${ref}`]);
  if (run.status === 0) return { ref, status: /^=/m.test(run.stdout.toString('utf8')) ? 'up-to-date' : 'pushed' };
  return {
    ref,
    status: 'refused',
    reason: `${gitSays(run.stderr) || `git push exited ${run.status}`}; \`shadow fetch ${remote}\` merges the remote's notes, then push again`,
  };
}

/** Merge the notes ref a fetch brought from `remote` into the local one. */
export function mergeFetchedNotes(ws: Workspace, remote: string): NotesTransfer | undefined {
  const ref = notesRef(ws);
  if (ref === null || !ref.startsWith('refs/notes/')) return undefined;
  const tracking = `${remoteNotesPrefix(remote)}${ref.slice('refs/notes/'.length)}`;
  const theirs = ws.repo.refs.resolve(tracking);
  if (theirs === undefined) return { ref, status: 'none' };
  if (theirs === ws.repo.refs.resolve(ref)) return { ref, status: 'up-to-date' };
  const merged = runGit(ws, ['notes', `--ref=${ref}`, 'merge', '--quiet', '--strategy=ours', tracking]);
  if (merged.status !== 0)
    return { ref, status: 'refused', reason: gitSays(merged.stderr) || `git notes merge exited ${merged.status}` };
  return { ref, status: 'merged' };
}
