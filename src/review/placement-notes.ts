import { parseOpLines } from '../drafts/commit-message.js';
import { historySince } from '../drafts/history.js';
import type { Draft } from '../drafts/drafts.js';
import type { Oid } from '../git/format/git-objects.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * A note on how a batch placed a change, worth a reviewer's look: an
 * apply_patch change that fit several places and took the first (as Codex
 * does), one found only with its indentation ignored, a file replaced by
 * Add File or Move to. The batch commit's op line carries it
 * (`apply_patch<TAB>path<TAB>(status; note; note)`).
 */
export interface PlacementNote {
  batch: number | undefined;
  commit: Oid;
  path: string;
  note: string;
}

/**
 * The placement notes of the draft's batches, oldest first, for the paths
 * the draft still changes (`paths`): a note on a path the draft no longer
 * differs on says nothing the reviewer can act on.
 */
export function placementNotes(ws: Workspace, draft: Draft, paths: ReadonlySet<string>): PlacementNote[] {
  const out: PlacementNote[] = [];
  for (const h of historySince(ws.repo, draft.tip, draft.meta.root).reverse()) {
    for (const op of parseOpLines(h.commit.message)) {
      if (op.operation !== 'apply_patch' || op.note === undefined) continue;
      const path = op.arg ?? op.path;
      if (!paths.has(path) && !paths.has(op.path)) continue;
      // The first piece is the op's status (updated, added, renamed…); the rest are notes.
      for (const note of op.note.split('; ').slice(1)) out.push({ batch: h.trailers.batch, commit: h.oid, path, note });
    }
  }
  return out;
}
