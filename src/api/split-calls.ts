/**
 * The library's call that splits a draft: chosen hunks leave it for a new
 * draft, as `jj split` does (src/drafts/rebase/draft-split.ts).
 */
import * as z from 'zod/mini';
import { splitDraft, type SplitResult } from '../drafts/rebase/draft-split.js';
import { validate } from '../drafts/batch/batch-schema.js';
import type { DraftOption, ShadowCore } from './shadow-core.js';

const SplitOptionsSchema = z
  .object({
    draft: z.optional(z.string()),
    into: z.optional(z.string()),
    message: z.optional(z.string().check(z.maxLength(4096))),
    actor: z.optional(z.string()),
    hunks: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(4096))).check(z.maxLength(10000))),
    patch: z.optional(z.string().check(z.minLength(1), z.maxLength(64 << 20))),
  })
  .check(z.refine((o) => !(o.hunks !== undefined && o.patch !== undefined), 'hunks and patch exclude each other'));

export interface SplitOptions extends DraftOption {
  /**
   * The hunks that move, as `apply({ hunks })` names them
   * (docs/hunk-apply.md): ids as `sh.diff({ content: 'patch' })` lists
   * them, `<path>:<n>[,<m>|<n>-<m>]…`, `<path>:mode` or `<path>` whole.
   * Excludes `patch`.
   */
  hunks?: string[];
  /** The hunks that move as a patch against the draft's bases (a part or an edit of its own diff). Excludes `hunks`. */
  patch?: string;
  /** The new draft; default `<draft>-split` (`-split-2`, … when taken). An existing draft is DRAFT_EXISTS. */
  into?: string;
  /** The summary of both batches (the draft's and the new draft's). */
  message?: string;
  actor?: string;
}

export interface SplitCalls {
  /**
   * Move chosen hunks of the draft into a new draft, standing on the same
   * root and bases: its batch 1 holds base + the chosen hunks, and the
   * draft gets one batch that takes them out (undone by `rollback`). It
   * acts on what is not applied yet. Approvals of the draft do not carry
   * over: the new draft is reviewed on its own.
   * @example
   * const r = await sh.split({ hunks: ['src/api.ts:2', 'README.md'], into: 'docs-part' });
   * await sh.apply({ draft: r.into });
   */
  split(options: SplitOptions): Promise<SplitResult>;
}

export const splitCalls: SplitCalls & ThisType<ShadowCore & SplitCalls> = {
  async split(options) {
    validate(SplitOptionsSchema, options, 'INVALID_ARGUMENT', 'the options');
    return splitDraft(this.ws, this.draftName(options), {
      // A name of a remote's draft (origin/x) is read-only, as for draftNew.
      into: options.into === undefined ? undefined : this.draftName({ draft: options.into }),
      message: options.message,
      hunks: options.hunks,
      patch: options.patch,
      actor: this.actor(options.actor),
    });
  },
};
