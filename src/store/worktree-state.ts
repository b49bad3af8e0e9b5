import * as z from 'zod/mini';
import type { Context } from '../context.js';
import { MODE } from '../core/git-objects.js';
import { ShadowError } from '../errors.js';
import { listDir, tryUnlink, writeFileAtomic } from './durable-file.js';
import { readJsonFile } from './json-file.js';

/**
 * Materialized worktrees on disk. In the repository, `shadow/worktrees/<id>.json`
 * (the directory, its draft, the draft tip it was last brought to and the
 * paths the draft owned then) and `<id>.manifest.json` (every file as shadow
 * left it there: blob id when known, and the stat data that tells an edit
 * made there from a file untouched since). In the worktree itself, the
 * marker `.shadow-worktree` naming the repository and the draft, so that
 * commands run inside it find them.
 */

export const MARKER = '.shadow-worktree';

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
  created_at: z.string(),
  updated_at: z.string(),
});
export type WorktreeRecord = z.infer<typeof WorktreeRecordSchema>;

/** A file as shadow left it in a worktree. */
export const ManifestEntrySchema = z.object({
  /** Blob id of what was written (null when it was copied and not hashed). */
  oid: z.nullable(z.string()),
  mode: z.string(),
  size: z.number(),
  mtime: z.number(),
  ino: z.number(),
});
export type ManifestEntry = z.infer<typeof ManifestEntrySchema>;
export type Manifest = Map<string, ManifestEntry>;

const ManifestSchema = z.record(z.string(), ManifestEntrySchema);

export function worktreesDir(shadowDir: string): string {
  return `${shadowDir}/worktrees`;
}

function recordPath(shadowDir: string, id: string): string {
  return `${worktreesDir(shadowDir)}/${id}.json`;
}

function manifestPath(shadowDir: string, id: string): string {
  return `${worktreesDir(shadowDir)}/${id}.manifest.json`;
}

export function readWorktreeRecord(ctx: Context, shadowDir: string, id: string): WorktreeRecord | undefined {
  return readJsonFile(ctx.fs, recordPath(shadowDir, id), WorktreeRecordSchema);
}

export function writeWorktreeRecord(ctx: Context, shadowDir: string, rec: WorktreeRecord): void {
  ctx.fs.mkdirSync(worktreesDir(shadowDir), { recursive: true });
  writeFileAtomic(ctx.fs, recordPath(shadowDir, rec.id), `${JSON.stringify(rec, null, 1)}\n`, { token: ctx.ids.token(), durable: true });
}

/** Every worktree the repository knows. */
export function listWorktreeRecords(ctx: Context, shadowDir: string): WorktreeRecord[] {
  return listDir(ctx.fs, worktreesDir(shadowDir))
    .filter((n) => n.endsWith('.json') && !n.endsWith('.manifest.json'))
    .map((n) => readWorktreeRecord(ctx, shadowDir, n.slice(0, -'.json'.length)))
    .filter((r): r is WorktreeRecord => r !== undefined);
}

export function removeWorktreeRecord(ctx: Context, shadowDir: string, id: string): void {
  tryUnlink(ctx.fs, recordPath(shadowDir, id));
  tryUnlink(ctx.fs, manifestPath(shadowDir, id));
}

/**
 * The manifest (empty when missing or damaged: then every file there looks
 * changed, and recording compares contents, so nothing is recorded twice).
 */
export function readManifest(ctx: Context, shadowDir: string, id: string): Manifest {
  const m = readJsonFile(ctx.fs, manifestPath(shadowDir, id), ManifestSchema);
  return new Map(Object.entries(m ?? {}));
}

/** A cache of what shadow wrote: not fsynced (losing it costs a content comparison, never data). */
export function writeManifest(ctx: Context, shadowDir: string, id: string, manifest: Manifest): void {
  writeFileAtomic(ctx.fs, manifestPath(shadowDir, id), JSON.stringify(Object.fromEntries(manifest)), { token: ctx.ids.token(), durable: false });
}

export function readMarker(ctx: Context, dir: string): WorktreeMarker | undefined {
  return readJsonFile(ctx.fs, `${dir}/${MARKER}`, MarkerSchema);
}

export function writeMarker(ctx: Context, dir: string, marker: WorktreeMarker): void {
  writeFileAtomic(ctx.fs, `${dir}/${MARKER}`, `${JSON.stringify(marker, null, 1)}\n`, { token: ctx.ids.token(), durable: false });
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

/** The stat data a manifest keeps of a file. */
export function statEntry(st: { size: number; mtimeMs: number; ino: number }, oid: string | null, mode: string): ManifestEntry {
  return { oid, mode, size: st.size, mtime: st.mtimeMs, ino: st.ino };
}

/** The git mode a file's stat data stands for (the exec bit only where the file system keeps it: core.filemode). */
export function modeOfStat(st: StatLike, trustExec: boolean): string {
  if (st.isSymbolicLink()) return MODE.symlink;
  return trustExec && (Number(st.mode) & 0o100) !== 0 ? MODE.executable : MODE.file;
}

interface StatLike {
  size: number;
  mtimeMs: number;
  ino: number;
  mode: number | bigint;
  isSymbolicLink(): boolean;
}

/**
 * True when a file's stat data is still what the manifest recorded (so its
 * content is too). A chmod moves neither size nor mtime, so the mode is
 * compared as well.
 */
export function unchangedSince(entry: ManifestEntry, st: StatLike, trustExec: boolean): boolean {
  return entry.size === st.size && entry.mtime === st.mtimeMs && entry.ino === st.ino && (!trustExec || entry.mode === modeOfStat(st, true));
}

export function worktreeNotFound(dir: string): ShadowError {
  return new ShadowError('NOT_FOUND', `${dir} is not a shadow worktree`, {
    hint: 'list them with `shadow worktree list`; make one with `shadow worktree add <dir>`',
    data: { dir },
  });
}
