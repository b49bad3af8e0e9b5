/**
 * The library's calls for living beside a person: rebase a draft onto what
 * they have now, revert some of its batches, and resolve the conflicts
 * either leaves (src/drafts/rebase/rebase.ts, revert.ts).
 */
import * as z from 'zod/mini';
import { rebaseDraft, type RebaseResult } from '../drafts/rebase/rebase.js';
import { runBatch, type BatchResult } from '../drafts/batch/batch.js';
import { revertBatches, type RevertResult } from '../drafts/rebase/revert.js';
import { validate } from '../drafts/batch/batch-schema.js';
import type { DraftOption, ShadowCore } from './shadow-core.js';
import type { ApplyResult } from '../publish/apply.js';
import { literalPathspec } from '../core/pathspec.js';
import type { PublishCalls } from './publish-calls.js';

const RebaseOptionsSchema = z.optional(
  z.object({ draft: z.optional(z.string()), onto: z.optional(z.string()), actor: z.optional(z.string()) }),
);
const NonEmptyListSchema = z.array(z.string()).check(z.minLength(1));

export interface RebaseCalls {
  /**
   * Move the draft onto the working tree as it is now (default), or onto a
   * commit: each path it changed is merged with the new base, in one commit
   * (undone by `undo`). Paths that do not merge stay in conflict in the draft.
   * @example const r = await sh.rebase(); r.conflicts.map((c) => c.path)
   * @example await sh.rebase({ onto: 'main' })
   */
  rebase(options?: DraftOption & { onto?: string; actor?: string }): Promise<RebaseResult>;

  /**
   * Mark paths in conflict resolved as the draft holds them now (a batch on
   * a path resolves it too).
   * @example await sh.resolve(['src/api.ts'])
   */
  resolve(paths: string[], options?: DraftOption & { actor?: string; intent?: string }): Promise<BatchResult>;

  /**
   * A new batch that undoes the named batches (numbers, ~N or commits) and
   * keeps every later one; paths that do not merge stay in conflict.
   * @example await sh.revert(['3'])
   */
  revert(
    batches: string[],
    options?: DraftOption & { actor?: string; apply?: boolean },
  ): Promise<RevertResult & { applied?: ApplyResult }>;
}

export const rebaseCalls: RebaseCalls & ThisType<ShadowCore & RebaseCalls & PublishCalls> = {
  async rebase(options = {}) {
    validate(RebaseOptionsSchema, options, 'INVALID_ARGUMENT', 'the options');
    return rebaseDraft(this.ws, this.draftName(options), { onto: options.onto, actor: this.actor(options.actor) });
  },

  async revert(batches, options = {}) {
    validate(NonEmptyListSchema, batches, 'INVALID_ARGUMENT', 'the batches');
    const draft = this.draftName(options);
    const actor = this.actor(options.actor);
    const r = await revertBatches(this.ws, draft, batches, { actor });
    if (!options.apply || r.unchanged) return r;
    // Straight on to the working tree: the reverted paths alone, with every guard of apply (a conflict left on the draft refuses it).
    const applied = await this.apply({ draft, actor, paths: r.paths.map((p) => literalPathspec(p.path)) });
    return { ...r, applied };
  },

  async resolve(paths, options = {}) {
    validate(NonEmptyListSchema, paths, 'INVALID_ARGUMENT', 'the paths');
    const intent = options.intent ?? `resolve ${paths.length === 1 ? paths[0] : `${paths.length} paths`}`;
    return runBatch(
      this.ws,
      { intent, operations: [] },
      { draft: this.draftName(options), actor: this.actor(options.actor), resolve: paths },
    );
  },
};
