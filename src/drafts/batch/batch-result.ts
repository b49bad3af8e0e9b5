import type { ShadowErrorJSON } from '../../errors.js';
import type { Oid } from '../../git/format/git-objects.js';
import type { OpResult } from './ops.js';

/** The outcome of a batch: the batch tool's output shape, plus what shadow knows. */
export interface BatchResult {
  success: boolean;
  results: OpResult[];
  error?: ShadowErrorJSON;
  /** The draft's tip after the batch (the new commit, or the unchanged tip). */
  commit: Oid | null;
  /** The batch number, or null when nothing was committed. */
  batch: number | null;
  draft: string;
  created_draft?: boolean;
  /** Paths whose working-tree state was recorded first, in a capture commit. */
  captured?: string[];
  /** True when every op was already in place, so no commit was made. */
  unchanged?: boolean;
  /** Paths in conflict since a rebase that this batch resolved. */
  resolved?: string[];
  /** Set when this is a request sent again: the id, and `commit`/`batch` are the first request's. */
  request_id?: string;
}
