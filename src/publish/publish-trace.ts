import { hashObject, serializeCommit } from '../git/format/git-objects.js';
import type { Draft } from '../drafts/drafts.js';
import type { PublishEntry } from '../drafts/publish-set/publish-set.js';
import type { Workspace } from '../drafts/workspace.js';
import { draftLine, type CommitPlan } from './commit-modes.js';
import { commitRecords, squashRecord, type TraceRecord } from './trace-record.js';
import { notesRef, writeTraceNotes, type NotesResult } from './trace-notes.js';

/**
 * After `apply --commit` or `--squash` moved the branch: an Agent Trace note
 * for each commit it put there. Runs after the publish is complete and
 * cannot undo it: whatever fails is reported in the result, never thrown.
 */
export function publishTrace(
  ws: Workspace,
  draft: Draft,
  plan: Pick<CommitPlan, 'branch' | 'how'>,
  entries: readonly PublishEntry[],
): NotesResult | undefined {
  if (notesRef(ws) === null) return undefined;
  let records: TraceRecord[];
  try {
    if (plan.how === 'squash') {
      const commits = new Set(draftLine(ws, draft).commits.map((h) => hashObject('commit', serializeCommit(h.commit))));
      const textPaths = entries
        .filter(
          (e) =>
            e.new !== null &&
            e.new.mode !== '160000' &&
            e.new.mode !== '120000' &&
            !ws.repo.objects.readBlob(e.new.oid).includes(0),
        )
        .map((e) => e.path);
      records = [squashRecord(ws, plan.branch.new, draft.tip, commits, textPaths, draft.name)];
    } else {
      records = commitRecords(ws, plan.branch.old, plan.branch.new, plan.how, draft.name);
    }
  } catch (e) {
    return {
      ref: notesRef(ws)!,
      written: [],
      failed: [{ commit: plan.branch.new, code: 'WRITE_FAILED', reason: (e as Error).message }],
      rewrite: 'present',
    };
  }
  return writeTraceNotes(ws, records);
}
