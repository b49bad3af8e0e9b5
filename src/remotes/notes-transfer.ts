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

/** Where a remote's notes are kept here. */
export function remoteNotesRef(remote: string, ref: string): string {
  return `refs/notes/remotes/${remote}/${ref.slice('refs/notes/'.length)}`;
}

/** Push the notes ref to `remote`, never forced. */
export function pushNotes(ws: Workspace, remote: string): NotesTransfer | undefined {
  const ref = notesRef(ws);
  if (ref === null || !ref.startsWith('refs/notes/')) return undefined;
  if (ws.repo.refs.resolve(ref) === undefined) return { ref, status: 'none' };
  const run = runGit(ws, ['push', '--porcelain', remote, `${ref}:${ref}`]);
  if (run.status === 0) return { ref, status: /^=/m.test(run.stdout.toString('utf8')) ? 'up-to-date' : 'pushed' };
  return { ref, status: 'refused', reason: `${gitSays(run.stderr) || `git push exited ${run.status}`}; \`shadow fetch ${remote}\` merges the remote's notes, then push again` };
}

/** Fetch `remote`'s notes and merge them into the local notes ref. */
export function fetchNotes(ws: Workspace, remote: string): NotesTransfer | undefined {
  const ref = notesRef(ws);
  if (ref === null || !ref.startsWith('refs/notes/')) return undefined;
  const tracking = remoteNotesRef(remote, ref);
  const listed = runGit(ws, ['ls-remote', remote, ref]);
  if (listed.status !== 0 || listed.stdout.toString('utf8').trim() === '') return { ref, status: 'none' };
  const run = runGit(ws, ['fetch', '--no-tags', '--no-write-fetch-head', '--quiet', remote, `+${ref}:${tracking}`]);
  if (run.status !== 0) return { ref, status: 'refused', reason: gitSays(run.stderr) || `git fetch exited ${run.status}` };
  const theirs = ws.repo.refs.resolve(tracking);
  const mine = ws.repo.refs.resolve(ref);
  if (theirs === undefined || theirs === mine) return { ref, status: 'up-to-date' };
  const merged = runGit(ws, ['notes', `--ref=${ref}`, 'merge', '--quiet', '--strategy=ours', tracking]);
  if (merged.status !== 0) return { ref, status: 'refused', reason: gitSays(merged.stderr) || `git notes merge exited ${merged.status}` };
  return { ref, status: 'merged' };
}
