import * as z from 'zod/mini';
import type { Context } from '../context.js';
import { BaseMap } from './base-map.js';
import { writeFileAtomic, readTextIfExists } from '../durable/durable-file.js';
import { splitRemoteDraft } from '../core/remote-draft-name.js';

/**
 * `shadow/drafts/<draft>/draft.json`: a draft's metadata and the cache of its
 * captured bases. The ref and its commits are the truth: the cache is used
 * only while `bases_tip` equals the ref's value, and is rebuilt from the
 * history otherwise, so a crash between a ref move and this file's write
 * never leaves a wrong base behind.
 */

/** A base: the path's lower-layer entry. */
interface FileEntry {
  mode: string;
  oid: string;
}

/**
 * Whether `v` is a record of bases (each null or `{ mode, oid }` strings).
 * Written by hand rather than as a zod record: a draft holds a base for
 * every path it changed, and every command reads them afresh, in a process
 * that has just started, where zod took 2.4 to 3.7 ms for 520 bases (its
 * per-entry parse not yet compiled) and this loop 0.1 ms.
 */
function validBases(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  for (const e of Object.values(v as Record<string, unknown>)) {
    if (e === null) continue;
    if (typeof e !== 'object' || Array.isArray(e)) return false;
    const f = e as Record<string, unknown>;
    if (typeof f.mode !== 'string' || typeof f.oid !== 'string') return false;
  }
  return true;
}

const RebaseMarkSchema = z.object({
  /** The rebase commit. */
  commit: z.string(),
  /** The commit the draft was moved onto (null: the repository had none). */
  onto: z.nullable(z.string()),
  /** The newest apply record the rebase took in (null: none); only newer ones move the bases since. */
  applies: z.nullable(z.string()),
});

/** Where the draft's newest rebase put it. */
export type RebaseMark = z.infer<typeof RebaseMarkSchema>;

export const DraftMetaSchema = z.object({
  version: z.literal(1),
  name: z.string(),
  root: z.string(),
  created_at: z.string(),
  created_by: z.string(),
  from: z.string(),
  /** The git dir of the worktree whose files are this draft's lower layer (null when bare). */
  worktree: z.nullable(z.string()),
  status: z.string(),
  /** The highest batch number ever given (batch numbers are never reused, even after a rollback). */
  high_batch: z.number(),
  /** The draft tip the cached bases belong to. */
  bases_tip: z.string(),
  /**
   * Captured base of every path the draft changed: its lower-layer entry, or
   * null when absent. Checked by `validBases`, not here (see there).
   */
  bases: z.custom<Record<string, FileEntry | null>>(validBases),
  pointers: z.optional(z.record(z.string(), z.unknown())),
  /** Paths in conflict since a rebase and not yet resolved, with why (drafts/conflict-lines.ts). */
  conflicts: z.optional(z.record(z.string(), z.string())),
  /** The newest rebase on the draft's history (drafts/rebase/rebase.ts). */
  rebase: z.optional(RebaseMarkSchema),
  /** Client request ids of the batches on the draft's history, and the commit each made (their Shadow-Request trailers). */
  requests: z.optional(z.record(z.string(), z.string())),
  /** The batches on the draft's history when its tip was `tip` (drafts/history/batch-count.ts). */
  batch_count: z.optional(z.object({ tip: z.string(), count: z.number() })),
});

/** draft.json as it is on disk. */
export type DraftMetaFile = z.infer<typeof DraftMetaSchema>;

/** A draft's metadata in memory: the bases as an immutable BaseMap (a batch adds to it without copying it). */
export type DraftMeta = Omit<DraftMetaFile, 'bases'> & { bases: BaseMap };

/**
 * A draft's directory: `drafts/<draft>`, or for a draft fetched from a
 * remote (`origin/refactor`) `remotes/origin/drafts/refactor`, where its
 * metadata and ledger are unpacked from the refs fetch brought
 * (state/remote-mirror.ts) and its caches kept.
 */
export function draftDir(shadowDir: string, draft: string): string {
  const remote = splitRemoteDraft(draft);
  return remote ? `${shadowDir}/remotes/${remote.remote}/drafts/${remote.draft}` : `${shadowDir}/drafts/${draft}`;
}

/** The lock a plan holds while it runs on a draft; a rebase takes it too, so the two never overlap. */
export function planLockPath(shadowDir: string, draft: string): string {
  return `${draftDir(shadowDir, draft)}/plan.lock`;
}

/** Read a draft's metadata; undefined when missing or unreadable (it is then rebuilt). */
export function readDraftMeta(ctx: Context, shadowDir: string, draft: string): DraftMeta | undefined {
  const text = readTextIfExists(ctx.fs, `${draftDir(shadowDir, draft)}/draft.json`);
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = DraftMetaSchema.safeParse(json);
  if (!parsed.success) return undefined;
  // Only a base's mode and id are kept (what a zod object would keep).
  const bases: Record<string, FileEntry | null> = {};
  for (const [path, b] of Object.entries(parsed.data.bases))
    bases[path] = b === null ? null : { mode: b.mode, oid: b.oid };
  return { ...parsed.data, bases: BaseMap.fromRecord(bases) };
}

/**
 * Write a draft's metadata atomically. `durable: false` skips the fsyncs:
 * right for the bases cache, which is checked against the ref on every read.
 */
export function writeDraftMeta(ctx: Context, shadowDir: string, meta: DraftMeta, durable: boolean): void {
  const file: DraftMetaFile = { ...meta, bases: meta.bases.toRecord() };
  writeFileAtomic(ctx.fs, `${draftDir(shadowDir, meta.name)}/draft.json`, `${JSON.stringify(file, null, 1)}\n`, {
    token: ctx.ids.token(),
    durable,
  });
}
