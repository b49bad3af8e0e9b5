import * as z from 'zod/mini';
import type { Context } from '../context.js';
import type { Oid } from '../git/format/git-objects.js';
import { draftDir } from './draft-meta.js';
import { SecretFindingSchema } from './secret-finding-schema.js';
import { writeFileAtomic } from '../durable/durable-file.js';
import { readJsonFile } from '../durable/json-file.js';

/**
 * `shadow/drafts/<draft>/commit-secrets.cache`: what the secret guard found
 * in each of the draft's commits, against its parent. A commit never
 * changes, so its scan holds for as long as the rules do (`rules` names
 * them: a cache made under other rules is ignored whole). An `apply
 * --commit` then scans only the commits no earlier command scanned.
 *
 * A cache: written atomically without fsync, ignored when damaged, and a
 * failure to write it never fails the command. Findings are kept redacted;
 * no file content.
 */

const ScanSchema = z.object({ secrets: z.array(SecretFindingSchema), unscanned: z.array(z.string()) });
const CacheSchema = z.object({ version: z.literal(1), rules: z.string(), commits: z.record(z.string(), ScanSchema) });

export type CommitScanRecord = z.infer<typeof ScanSchema>;

function cachePath(shadowDir: string, draft: string): string {
  return `${draftDir(shadowDir, draft)}/commit-secrets.cache`;
}

/**
 * The scans of a draft's commits saved under `rules`: `get` one, `put` new
 * ones, `flush` writes them (once, after a whole walk).
 */
export function commitScanCacheOf(
  ctx: Context,
  shadowDir: string,
  draft: string,
  rules: string,
): {
  get(commit: Oid): CommitScanRecord | undefined;
  put(commit: Oid, scan: CommitScanRecord): void;
  flush(): void;
} {
  const path = cachePath(shadowDir, draft);
  const saved = readJsonFile(ctx.fs, path, CacheSchema);
  const commits: Record<string, CommitScanRecord> = saved?.rules === rules ? saved.commits : {};
  let dirty = false;
  return {
    get: (commit) => (Object.hasOwn(commits, commit) ? commits[commit] : undefined),
    put(commit, scan) {
      commits[commit] = scan;
      dirty = true;
    },
    flush() {
      if (!dirty) return;
      try {
        writeFileAtomic(ctx.fs, path, `${JSON.stringify({ version: 1, rules, commits })}\n`, {
          token: ctx.ids.token(),
          durable: false,
        });
        dirty = false;
      } catch {
        // A read-only .git, a full disk: the cache is only ever an optimisation.
      }
    },
  };
}
