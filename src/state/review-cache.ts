import * as z from 'zod/mini';
import type { Context } from '../context.js';
import { draftDir } from './draft-meta.js';
import { SecretFindingSchema } from './secret-finding-schema.js';
import { writeFileAtomic } from '../durable/durable-file.js';
import { readJsonFile } from '../durable/json-file.js';

/**
 * `shadow/drafts/<draft>/review.cache`: what the last few reviews of a draft
 * found, each under a key made of everything it depends on (the publish
 * set's paths, modes and blob ids; the diff's format; the secret rules).
 * Another process reviewing the same publish set (`shadow review`, then
 * `shadow apply --dry-run`, then `shadow apply`) reads the fingerprint and
 * the findings here instead of reading and diffing every blob again.
 *
 * A cache: written atomically but without fsync, rebuilt when it is damaged
 * or holds no matching key, and a failure to write it never fails the
 * command. It holds no file content: blob-derived hashes and findings whose
 * values are already redacted.
 */

const SummarySchema = z.object({
  key: z.string(),
  /** sha256 of the unredacted diff: the fingerprint approvals are bound to. */
  patch_id: z.string(),
  base_sha256_by_path: z.record(z.string(), z.nullable(z.string())),
  secrets: z.array(SecretFindingSchema),
  unscanned: z.array(z.string()),
});

const CacheSchema = z.object({ version: z.literal(1), summaries: z.array(SummarySchema) });

export type ReviewSummary = z.infer<typeof SummarySchema>;

/** Summaries kept per draft: a review, the dry run and the apply after it, and the one before the last batch. */
const KEPT = 3;

function cachePath(shadowDir: string, draft: string): string {
  return `${draftDir(shadowDir, draft)}/review.cache`;
}

/**
 * A draft's review cache, read at most once: `find` a summary, `save` a new
 * one as the newest (the KEPT newest stay; a failure to write is ignored,
 * the next review computes again).
 */
export function reviewCacheOf(
  ctx: Context,
  shadowDir: string,
  draft: string,
): { find(key: string): ReviewSummary | undefined; save(summary: ReviewSummary): void } {
  const path = cachePath(shadowDir, draft);
  let summaries: ReviewSummary[] | undefined;
  const all = (): ReviewSummary[] => (summaries ??= readJsonFile(ctx.fs, path, CacheSchema)?.summaries ?? []);
  return {
    find: (key) => all().find((s) => s.key === key),
    save(summary) {
      try {
        const kept = [summary, ...all().filter((s) => s.key !== summary.key)].slice(0, KEPT);
        writeFileAtomic(ctx.fs, path, `${JSON.stringify({ version: 1, summaries: kept })}\n`, {
          token: ctx.ids.token(),
          durable: false,
        });
        summaries = kept;
      } catch {
        // A read-only .git, a full disk: the cache is only ever an optimisation.
      }
    },
  };
}
