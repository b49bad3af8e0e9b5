/**
 * A hunk apply (`shadow apply --hunks`, the `patch` option): the part of
 * the draft's change set it publishes, resolved before review so that the
 * review, the approvals, the secret guard, the merge and the journal all
 * see what is written (base + the chosen hunks) and nothing else.
 */
import { ShadowError } from '../errors.js';
import { MODE } from '../git/format/git-objects.js';
import type { FileEntry } from '../git/format/tree-lookup.js';
import { draftPublishSet } from '../drafts/publish-set/draft-publish-set.js';
import type { HunkSelection } from '../drafts/hunks/hunk-selection.js';
import type { Draft } from '../drafts/drafts.js';
import type { Workspace } from '../drafts/workspace.js';
import type { CommitMode } from './commit-modes.js';

export interface HunkRequest {
  hunks?: readonly string[];
  patch?: string;
  paths?: readonly string[];
  mode?: CommitMode;
}

/** The hunk apply's selection, or undefined when the apply takes whole paths. */
export async function hunkPart(ws: Workspace, draft: Draft, request: HunkRequest): Promise<HunkSelection | undefined> {
  if (request.hunks === undefined && request.patch === undefined) return undefined;
  const what = request.patch !== undefined ? 'a patch' : '--hunks';
  if (request.hunks !== undefined && request.patch !== undefined) {
    throw new ShadowError('INVALID_ARGUMENT', 'give hunks or a patch, not both', {
      hint: 'name the hunks with --hunks, or put them all in the patch',
    });
  }
  if (request.mode) {
    throw new ShadowError(
      'INVALID_ARGUMENT',
      `--${request.mode.kind} publishes the draft's commits whole: it takes no hunks`,
      { hint: 'apply the hunks alone (shadow apply --hunks …), then commit them with git' },
    );
  }
  if (request.paths !== undefined && request.paths.length > 0) {
    throw new ShadowError('INVALID_ARGUMENT', `${what} and pathspecs do not go together`, {
      hint: 'name whole paths inside the hunk choice instead: --hunks <path>',
    });
  }
  const { selectHunks } = await import('../drafts/hunks/hunk-selection.js');
  const objects = ws.repo.objects;
  const read = (e: FileEntry | null): Buffer =>
    e && e.mode !== MODE.gitlink ? objects.readBlob(e.oid) : Buffer.alloc(0);
  return selectHunks(draftPublishSet(ws, draft), read, { hunks: request.hunks, patch: request.patch });
}
