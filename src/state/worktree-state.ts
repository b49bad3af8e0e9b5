import * as z from 'zod/mini';
import type { Context } from '../context.js';
import { ShadowError } from '../errors.js';
import { listDir, tryUnlink, writeFileAtomic } from '../durable/durable-file.js';
import { readJsonFile } from '../durable/json-file.js';
import { waitForProcessLock } from '../durable/process-lock.js';
import { removeManifest } from './worktree-manifest.js';
import { WORKTREE_MARKER } from '../core/tree-path-rules.js';

/**
 * Materialized worktrees on disk. In the repository, `shadow/worktrees/<id>.json`
 * (the directory, its draft, the draft tip it was last brought to and the
 * paths the draft owned then) and `<id>.manifest/` (every file as shadow
 * left it there: worktree-manifest.ts). In the worktree itself, the
 * marker `.shadow-worktree` naming the repository and the draft, so that
 * commands run inside it find them.
 */

export const MARKER = WORKTREE_MARKER;

export const MarkerSchema = z.object({
  version: z.literal(1),
  /** The working tree of the repository the worktree belongs to (where shadow opens it). */
  repository: z.string(),
  id: z.string(),
  draft: z.string(),
});
export type WorktreeMarker = z.infer<typeof MarkerSchema>;

export const WorktreeRecordSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  dir: z.string(),
  draft: z.string(),
  /** The draft tip the worktree shows (null: the draft did not exist yet). */
  synced_tip: z.nullable(z.string()),
  /** Paths the draft owned at that tip (their view came from the draft). */
  owned: z.array(z.string()),
  /**
   * Paths the last sync left in conflict (changed in the worktree and not
   * recorded): every later sync looks at them again, whether or not the
   * draft moves them, until they are resolved.
   */
  conflicts: z.optional(z.array(z.string())),
  /**
   * A draft's exec worktree: a git worktree (`git worktree add --detach`)
   * kept between `shadow exec` calls; its admin directory under
   * .git/worktrees, so that removing it unregisters it even when the
   * directory was deleted by hand.
   */
  exec: z.optional(z.object({ admin: z.string(), shares: z.array(z.string()) })),
  /** Shards of the manifest (worktree-manifest.ts); 256 when not given. */
  manifest_shards: z.optional(z.number().check(z.int(), z.positive())),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WorktreeRecord = z.infer<typeof WorktreeRecordSchema>;

export function worktreesDir(shadowDir: string): string {
  return `${shadowDir}/worktrees`;
}

function recordPath(shadowDir: string, id: string): string {
  return `${worktreesDir(shadowDir)}/${id}.json`;
}

/**
 * Run `job` holding the worktree's lock (`<id>.lock`), with its record as it
 * is once the lock is held: a watch and a command run by hand (record,
 * sync, remove) take turns, each seeing what the other last wrote. A
 * holder that died is taken over; a live one is waited for.
 */
export async function withWorktreeLock<T>(
  ctx: Context,
  shadowDir: string,
  rec: WorktreeRecord,
  job: (rec: WorktreeRecord) => Promise<T> | T,
): Promise<T> {
  const lock = await waitForProcessLock(
    ctx,
    `${worktreesDir(shadowDir)}/${rec.id}.lock`,
    `shadow worktree operation on ${rec.dir}`,
    30_000,
  );
  try {
    return await job(readWorktreeRecord(ctx, shadowDir, rec.id) ?? rec);
  } finally {
    lock.release();
  }
}

export function readWorktreeRecord(ctx: Context, shadowDir: string, id: string): WorktreeRecord | undefined {
  return readJsonFile(ctx.fs, recordPath(shadowDir, id), WorktreeRecordSchema);
}

/**
 * Durable when a worktree is made (so that it is not forgotten); its later
 * updates (the synced tip) are not fsynced, like the manifest they go with:
 * an update lost in a crash leaves the tip before it, and the next sync
 * finds the files already as the draft holds them.
 */
export function writeWorktreeRecord(
  ctx: Context,
  shadowDir: string,
  rec: WorktreeRecord,
  options: { durable: boolean },
): void {
  ctx.fs.mkdirSync(worktreesDir(shadowDir), { recursive: true });
  writeFileAtomic(ctx.fs, recordPath(shadowDir, rec.id), `${JSON.stringify(rec, null, 1)}\n`, {
    token: ctx.ids.token(),
    durable: options.durable,
  });
}

/** Every worktree the repository knows. */
export function listWorktreeRecords(ctx: Context, shadowDir: string): WorktreeRecord[] {
  return listDir(ctx.fs, worktreesDir(shadowDir))
    .filter((n) => n.endsWith('.json'))
    .map((n) => readWorktreeRecord(ctx, shadowDir, n.slice(0, -'.json'.length)))
    .filter((r): r is WorktreeRecord => r !== undefined);
}

export function removeWorktreeRecord(ctx: Context, shadowDir: string, id: string): void {
  tryUnlink(ctx.fs, recordPath(shadowDir, id));
  removeManifest(ctx, shadowDir, id);
}

export function readMarker(ctx: Context, dir: string): WorktreeMarker | undefined {
  return readJsonFile(ctx.fs, `${dir}/${MARKER}`, MarkerSchema);
}

export function writeMarker(ctx: Context, dir: string, marker: WorktreeMarker): void {
  writeFileAtomic(ctx.fs, `${dir}/${MARKER}`, `${JSON.stringify(marker, null, 1)}\n`, {
    token: ctx.ids.token(),
    durable: false,
  });
}

/** The worktree whose marker is in `dir` or a directory above it. */
export function findMarker(ctx: Context, dir: string): { root: string; marker: WorktreeMarker } | undefined {
  let d = dir.replace(/\/+$/, '') || '/';
  for (;;) {
    const marker = readMarker(ctx, d === '/' ? '' : d);
    if (marker) return { root: d, marker };
    const up = d.lastIndexOf('/');
    if (up <= 0) return undefined;
    d = d.slice(0, up);
  }
}

export function worktreeNotFound(dir: string): ShadowError {
  return new ShadowError('NOT_FOUND', `${dir} is not a shadow worktree`, {
    hint: 'list them with `shadow worktree list`; make one with `shadow worktree add <dir>`',
    data: { dir },
  });
}
