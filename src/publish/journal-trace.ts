import type { FileEntry } from '../git/format/tree-lookup.js';
import { loadDraft } from '../drafts/drafts.js';
import type { PublishEntry } from '../drafts/publish-set/publish-set.js';
import type { Workspace } from '../drafts/workspace.js';
import type { Journal } from '../state/journal.js';
import { publishTrace } from './publish-trace.js';
import { notesRef, type NotesResult } from './trace-notes.js';

/**
 * The Agent Trace notes of a publish that moved a branch, from its journal:
 * written once the branch has moved and before the journal is let go, so
 * that an apply a crash stopped in between, finished by the next command's
 * recovery, gets its notes as an uninterrupted one does (writing them again
 * is a no-op: a commit that has shadow's note keeps it). Journals of older
 * versions, which do not say how the branch moved, get none.
 */
export function journalTrace(ws: Workspace, journal: Journal): NotesResult | undefined {
  const branch = journal.branch;
  if (journal.kind !== 'apply' || branch?.how === undefined) return undefined;
  let draft;
  try {
    draft = loadDraft(ws, journal.draft);
  } catch (e) {
    const ref = notesRef(ws);
    return ref === null
      ? undefined
      : {
          ref,
          written: [],
          failed: [{ commit: branch.new, code: 'WRITE_FAILED', reason: (e as Error).message }],
          rewrite: 'present',
        };
  }
  if (draft === undefined) return undefined;
  const entries: PublishEntry[] = journal.entries.map((e) => ({
    path: e.path,
    old: e.old as FileEntry | null,
    new: (e.base ?? e.new) as FileEntry | null,
  }));
  return publishTrace(
    ws,
    { ...draft, tip: journal.tip },
    { branch: { ref: branch.ref, old: branch.old, new: branch.new }, how: branch.how },
    entries,
  );
}
