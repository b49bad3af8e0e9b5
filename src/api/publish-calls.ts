/**
 * The library's publish: apply a draft into the working tree (and, with a
 * commit mode, onto the branch), unapply it, and finish what a crash
 * interrupted (src/publish/). The publish code loads only when one of these
 * is called.
 */
import * as z from 'zod/mini';
import type { ApplyResult, RecoveryReport } from '../publish/apply.js';
import type { UnapplyResult } from '../publish/unapply.js';
import type { CommitMode } from '../publish/commit-modes.js';
import type { Policy } from '../review/review.js';
import { validate } from '../drafts/batch/batch-schema.js';
import { requireDraft } from '../drafts/drafts.js';
import { splitRemoteDraft } from '../core/remote-draft-name.js';
import type { DraftOption, ShadowCore } from './shadow-core.js';

const UnapplyOptionsSchema = z.object({
  draft: z.optional(z.string()),
  actor: z.optional(z.string()),
  sandbox: z.optional(z.enum(['read-only', 'workspace-write'])),
  dryRun: z.optional(z.boolean()),
  conflict: z.optional(z.enum(['refuse', 'markers'])),
});

const ApplyOptionsSchema = z
  .object({
    draft: z.optional(z.string()),
    dryRun: z.optional(z.boolean()),
    commit: z.optional(z.boolean()),
    squash: z.optional(z.string().check(z.refine((m) => m.trim().length > 0, 'a commit message must not be empty'))),
    actor: z.optional(z.string()),
    sandbox: z.optional(z.enum(['read-only', 'workspace-write'])),
    conflict: z.optional(z.enum(['refuse', 'markers'])),
    expect: z.optional(z.string()),
    hunks: z.optional(
      z.array(z.string().check(z.minLength(1), z.maxLength(4096))).check(z.minLength(1), z.maxLength(10000)),
    ),
    patch: z.optional(z.string().check(z.minLength(1), z.maxLength(64 << 20))),
  })
  .check(z.refine((o) => !(o.commit && o.squash !== undefined), '--commit and --squash exclude each other'))
  .check(z.refine((o) => !(o.hunks !== undefined && o.patch !== undefined), 'hunks and patch exclude each other'));

export interface ApplyOptions extends DraftOption {
  dryRun?: boolean;
  commit?: boolean;
  squash?: string;
  actor?: string;
  sandbox?: Policy['sandbox'];
  /**
   * Where the person changed the same lines as the draft: stop with
   * CONFLICT, writing nothing (`refuse`, the default), or write both sides
   * with git's conflict markers and publish (`markers`).
   */
  conflict?: 'refuse' | 'markers';
  onProgress?: (done: number, total: number, bytes: number) => void;
  /** Publish only what these pathspecs match (repository-relative paths, directories, globs); the draft keeps the rest. */
  paths?: string[];
  /**
   * The review fingerprint the person saw (`review_fingerprint` of
   * `sh.review()`): when the draft is no longer in that state, STALE_REVIEW
   * and nothing is written.
   */
  expect?: string;
  /**
   * Publish only these hunks of the draft's diff (docs/hunk-apply.md): ids
   * as `sh.diff({ content: 'patch' })` lists them (`files[].hunks[].id`),
   * `<path>:<n>[,<m>|<n>-<m>]…` (numbered from 1 per file), `<path>:mode`,
   * `<newpath>:rename`, or `<path>` whole. Each path taken in part gets base + the chosen
   * hunks, merged beside your own edits; the draft keeps the rest. A hunk
   * id of an older state of the draft is STALE_HUNKS, nothing written.
   * Excludes `paths`, `patch`, `commit` and `squash`.
   *
   * @example
   * const { files } = await sh.diff({ content: 'patch' });
   * await sh.apply({ hunks: [files[0]!.hunks![0]!.id] }); // the first hunk only
   * await sh.apply({ hunks: ['src/api.ts:1,3-4', 'README.md'] });
   */
  hunks?: string[];
  /**
   * Publish this patch (git's format, against the draft's bases): a part or
   * an edit of the draft's own diff, as `git add -p` splits and edits
   * hunks. Every file it names must be one the draft changes
   * (INVALID_ARGUMENT); a hunk that does not fit the base is
   * PATCH_DOES_NOT_APPLY, nothing written.
   *
   * @example
   * await sh.apply({ patch: 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n' });
   */
  patch?: string;
}

export interface PublishCalls {
  /**
   * Publish the draft into the working tree (see the README's guarantees).
   * `dryRun` checks and lists without writing; `commit` also moves the
   * current branch to the draft's commits; `squash` makes one commit.
   * A path the person changed since the draft captured it is merged with
   * the draft's change, line by line as `git merge-file` does; `conflict`
   * says what to do where both changed the same lines.
   *
   * @example
   * const plan = await sh.apply({ dryRun: true });
   * if (plan.conflicts.length === 0) await sh.apply();
   * await sh.apply({ paths: ['src/api.ts', 'docs/'] }); // only these; the draft keeps the rest
   */
  apply(options?: ApplyOptions): Promise<ApplyResult>;

  /**
   * Undo the last apply, keeping your later edits to the same files where
   * they do not touch its lines.
   * @example await sh.unapply() // the working tree as it was before the last apply, your later edits kept
   * @example const r = await sh.unapply({ dryRun: true }); r.paths.map((p) => p.merge)
   */
  unapply(
    options?: DraftOption & {
      actor?: string;
      sandbox?: Policy['sandbox'];
      dryRun?: boolean;
      conflict?: 'refuse' | 'markers';
    },
  ): Promise<UnapplyResult>;

  /** @example const r = await sh.recover(); r.finished.length */
  recover(): Promise<RecoveryReport>;
}

export const publishCalls: PublishCalls & ThisType<ShadowCore & PublishCalls> = {
  async apply(options = {}) {
    const { onProgress, ...checked } = options;
    validate(ApplyOptionsSchema, checked, 'INVALID_ARGUMENT', 'the apply options');
    const mode: CommitMode | undefined =
      options.squash !== undefined
        ? { kind: 'squash', message: options.squash }
        : options.commit
          ? { kind: 'commit' }
          : undefined;
    const policy = options.sandbox ? { sandbox: options.sandbox } : {};
    const { applyDraft } = await import('../publish/apply.js');
    const { draftToApply } = await import('../drafts/remote-apply.js');
    const actor = this.actor(options.actor);
    // A fetched draft (origin/refactor) is continued here under its own name, then applied (remote-apply.ts).
    const requested = this.readDraftName(options);
    if (options.expect !== undefined && !options.dryRun && splitRemoteDraft(requested) !== undefined) {
      // A fetched draft is continued here (a local draft made from it) before applyDraft checks it: checked first, so a stale one makes nothing.
      const { checkExpected, reviewFingerprint } = await import('../review/review-binding.js');
      const seen = requireDraft(this.ws, requested);
      checkExpected(seen, options.expect, reviewFingerprint(this.ws, seen), 'apply');
    }
    const draft = await draftToApply(this.ws, requested, { dryRun: options.dryRun === true, actor });
    // A name it left as it was is checked as every draft a call changes is (a remote one never fetched: READ_ONLY).
    const name = draft !== requested || options.dryRun ? draft : this.draftName(options);
    return applyDraft(this.ws, name, {
      dryRun: options.dryRun,
      mode,
      actor,
      onProgress,
      policy,
      conflict: options.conflict,
      paths: options.paths,
      expect: options.expect,
      hunks: options.hunks,
      patch: options.patch,
    });
  },

  async unapply(options = {}) {
    validate(UnapplyOptionsSchema, options, 'INVALID_ARGUMENT', 'the unapply options');
    const { unapplyDraft } = await import('../publish/unapply.js');
    return unapplyDraft(this.ws, this.draftName(options), {
      actor: this.actor(options.actor),
      policy: options.sandbox ? { sandbox: options.sandbox } : {},
      dryRun: options.dryRun,
      conflict: options.conflict,
    });
  },

  async recover() {
    const { recover } = await import('../publish/apply.js');
    return recover(this.ws);
  },
};
