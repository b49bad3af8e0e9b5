import { ShadowError } from '../errors.js';
import type { Oid } from '../git/format/git-objects.js';
import { runGit, type TraceRecord } from './trace-record.js';
import { listNotes, notesRef, parseRecord } from './trace-notes.js';
import type { Workspace } from '../drafts/workspace.js';

/** `shadow trace [<commit>]`: the Agent Trace record noted on a commit (HEAD by default). */

/** A commit named as git names it (`HEAD`, a branch, `abc123~2`). */
export function resolveCommit(ws: Workspace, rev: string): Oid {
  const r = runGit(ws, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
  if (r.status !== 0)
    throw new ShadowError('NOT_FOUND', `"${rev}" names no commit`, {
      hint: 'name a commit as git does: HEAD, a branch, a hash',
      data: { commit: rev },
    });
  return r.stdout.toString('utf8').trim();
}

export interface TraceOfCommit {
  commit: Oid;
  ref: string;
  record: TraceRecord;
}

export function readTrace(ws: Workspace, rev = 'HEAD'): TraceOfCommit {
  const commit = resolveCommit(ws, rev);
  const ref = notesRef(ws, true)!;
  const blob = listNotes(ws, ref).get(commit);
  const short = ref.replace(/^refs\/notes\//, '');
  if (blob === undefined) {
    throw new ShadowError('NOT_FOUND', `${commit.slice(0, 12)} has no Agent Trace note in ${ref}`, {
      hint: 'shadow writes one for each commit `shadow apply --commit` (or --squash) puts on a branch; a commit made with git alone has none',
      data: { commit, ref },
    });
  }
  const text = ws.repo.objects.readBlob(blob).toString('utf8');
  const record = parseRecord(text);
  if (!record) {
    throw new ShadowError(
      'CORRUPT_STATE',
      `the note on ${commit.slice(0, 12)} in ${ref} is not an Agent Trace record`,
      {
        hint: `read it with \`git notes --ref=${short} show ${commit.slice(0, 12)}\`; if it is not another tool's, remove it with \`git notes --ref=${short} remove ${commit.slice(0, 12)}\``,
        data: { commit, ref, note: blob },
      },
    );
  }
  return { commit, ref, record };
}
