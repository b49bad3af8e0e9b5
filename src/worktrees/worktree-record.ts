import type { Stats } from 'node:fs';
import { blobOid, MODE } from '../git/format/git-objects.js';
import type { FileOperation } from '../drafts/batch/ops.js';
import { pathProblem } from '../core/path-rules.js';
import { baseIgnoreFiles, IgnoreRules } from '../git/gitignore.js';
import { listDir } from '../durable/durable-file.js';
import { Manifest, modeOfStat, statEntry, unchangedSince } from '../state/worktree-manifest.js';
import { MARKER, writeWorktreeRecord, type WorktreeRecord } from '../state/worktree-state.js';
import { runBatch, type BatchResult } from '../drafts/batch/batch.js';
import { loadDraft } from '../drafts/drafts.js';
import { syncWorktree, trustsExecBit, worktreeFileState, type SyncResult } from './worktree-sync.js';
import type { Workspace } from '../drafts/workspace.js';

/**
 * Turning the files changed in a materialized worktree into one batch:
 * found by their stat data against the manifest (all of the worktree, or
 * the paths a watcher saw), compared by content, paired into renames where
 * a deleted file's content reappears under a new name. Each operation
 * expects what shadow last left at the path, so a path the draft changed
 * meanwhile (another writer) fails as a conflict instead of being
 * overwritten. What .gitignore ignores, the marker and editors' temporary
 * files are never recorded.
 */

/** Editors' swap, backup and lock files: never content. */
const EDITOR_TEMP = [
  /\.sw[a-p]$/,
  /~$/,
  /(^|\/)\.#[^/]*$/,
  /(^|\/)#[^/]*#$/,
  /(^|\/)4913$/,
  /\.tmp$/,
  /(^|\/)\.DS_Store$/,
  /\.shadow-tmp-/,
];

export function isEditorTemp(path: string): boolean {
  return EDITOR_TEMP.some((re) => re.test(path));
}

export interface WorktreeChange {
  path: string;
  kind: 'write' | 'delete' | 'rename';
  to?: string;
}

export interface RecordResult {
  dir: string;
  /** The batch, or null when nothing had changed. */
  batch: BatchResult | null;
  changes: WorktreeChange[];
  /** The sync that followed (when other writers had moved the draft meanwhile). */
  sync?: SyncResult;
}

function ignoreRulesFor(ws: Workspace, dir: string): IgnoreRules {
  const files = baseIgnoreFiles(ws.ctx.env, ws.repo.layout.commondir, ws.repo.config.get('core.excludesfile'));
  return new IgnoreRules(ws.ctx.fs, dir, files, ws.repo.config.getBool('core.ignorecase') ?? false);
}

/** Every file of the worktree that shadow would record (ignored, marker and temp files left out). */
function scan(ws: Workspace, dir: string, rules: IgnoreRules): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const name of listDir(ws.ctx.fs, rel === '' ? dir : `${dir}/${rel}`)) {
      const path = rel === '' ? name : `${rel}/${name}`;
      if (path === MARKER || path === '.git' || isEditorTemp(path)) continue;
      let st: Stats;
      try {
        st = ws.ctx.fs.lstatSync(`${dir}/${path}`) as Stats;
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (!rules.ignores(`${path}/`)) walk(path);
      } else if ((st.isFile() || st.isSymbolicLink()) && !rules.ignores(path)) {
        out.push(path);
      }
    }
  };
  walk('');
  return out;
}

interface Found {
  path: string;
  st: Stats;
  mode: string;
  content: Buffer;
  oid: string;
}

/**
 * The changes of the worktree: `paths` (a watcher's) or all of it, as batch
 * operations, with the files' new stat data for the manifest.
 */
export function worktreeChanges(
  ws: Workspace,
  rec: WorktreeRecord,
  manifest: Manifest,
  paths?: readonly string[],
): { ops: FileOperation[]; changes: WorktreeChange[]; seen: Map<string, Stats | null>; found: Map<string, Found> } {
  const rules = ignoreRulesFor(ws, rec.dir);
  const trustExec = trustsExecBit(ws);
  const form = ws.worktreeForm();
  const candidates = new Set<string>();
  if (paths) {
    for (const p of paths) if (p !== MARKER && !isEditorTemp(p) && pathProblem(p) === undefined) candidates.add(p);
  } else {
    for (const p of scan(ws, rec.dir, rules)) candidates.add(p);
    for (const p of manifest.keys()) candidates.add(p);
  }
  const seen = new Map<string, Stats | null>();
  const added = new Map<string, Found>();
  const deleted: string[] = [];
  const written: Found[] = [];
  for (const path of [...candidates].sort()) {
    const had = manifest.get(path);
    const state = worktreeFileState(ws, rec.dir, path);
    if (state.kind !== 'file' || (!state.st.isFile() && !state.st.isSymbolicLink())) {
      seen.set(path, null);
      if (had) deleted.push(path);
      continue;
    }
    const st = state.st;
    if (!had && rules.ignores(path)) continue;
    seen.set(path, st);
    if (had && unchangedSince(had, st, trustExec)) continue;
    const content = st.isSymbolicLink()
      ? (ws.ctx.fs.readlinkSync(`${rec.dir}/${path}`, { encoding: 'buffer' }) as Buffer)
      : (ws.ctx.fs.readFileSync(`${rec.dir}/${path}`) as Buffer);
    const mode = modeOfStat(st, trustExec, had?.mode);
    // Compared and paired as blobs (clean form); the content stays as the file holds it, for the batch to clean.
    const blob = st.isSymbolicLink() || !form ? content : form.toBlob(path, content);
    const f: Found = { path, st, mode, content, oid: blobOid(blob) };
    if (had && had.oid === f.oid && had.mode === mode) continue; // touched, not changed
    if (had) written.push(f);
    else added.set(path, f);
  }
  // A deleted file whose content appears under a new name moved there.
  // Paired by content and mode through an index, so 10,000 moved files stay linear.
  // (Without core.filemode a new file's exec bit means nothing: only file or symlink must agree.)
  const pairKey = (oid: string, mode: string): string =>
    `${oid} ${trustExec || mode === MODE.symlink ? mode : MODE.file}`;
  const renamedTo = new Map<string, string>();
  const addedByContent = new Map<string, string[]>();
  for (const f of added.values()) {
    const key = pairKey(f.oid, f.mode);
    const list = addedByContent.get(key);
    if (list) list.push(f.path);
    else addedByContent.set(key, [f.path]);
  }
  for (const from of deleted) {
    const had = manifest.get(from);
    if (!had?.oid) continue;
    const to = addedByContent.get(pairKey(had.oid, had.mode))?.shift();
    if (to !== undefined) renamedTo.set(from, to);
  }
  const ops: FileOperation[] = [];
  const changes: WorktreeChange[] = [];
  const expectOf = (path: string): { expect?: string } => {
    const oid = manifest.get(path)?.oid;
    return oid ? { expect: oid } : {};
  };
  for (const from of deleted) {
    const to = renamedTo.get(from);
    if (to) {
      ops.push({ operation: 'rename', path: from, to, ...expectOf(from) });
      changes.push({ path: from, kind: 'rename', to });
      added.delete(to);
    } else {
      ops.push({ operation: 'delete', path: from, ...expectOf(from) });
      changes.push({ path: from, kind: 'delete' });
    }
  }
  for (const f of [...written, ...added.values()]) {
    ops.push(writeOp(f, manifest.has(f.path) ? expectOf(f.path) : {}));
    changes.push({ path: f.path, kind: 'write' });
  }
  const found = new Map<string, Found>([...written, ...added.values()].map((f) => [f.path, f]));
  return { ops, changes, seen, found };
}

function writeOp(f: Found, expect: { expect?: string }): FileOperation {
  // The bytes travel as they are (no text round trip): `bytes` is the engine's own field for that.
  return {
    operation: 'write',
    path: f.path,
    content: '',
    bytes: f.content,
    mode: f.mode as '100644',
    ...expect,
  } as FileOperation;
}

function summary(changes: readonly WorktreeChange[]): string {
  const names = changes.slice(0, 5).map((c) => (c.kind === 'rename' ? `${c.path} -> ${c.to}` : c.path));
  return `${names.join(', ')}${changes.length > 5 ? ` and ${changes.length - 5} more` : ''}`;
}

/** Record what changed in the worktree as one batch, then bring the worktree to the draft's tip. */
export async function recordWorktree(
  ws: Workspace,
  rec: WorktreeRecord,
  options: { actor: string; intent?: string; paths?: readonly string[]; label?: string },
): Promise<RecordResult> {
  const manifest = Manifest.open(ws.ctx, ws.repo.shadowDir, rec);
  const { ops, changes, seen, found } = worktreeChanges(ws, rec, manifest, options.paths);
  if (ops.length === 0) return { dir: rec.dir, batch: null, changes };
  const intent = options.intent ?? `${options.label ?? 'record'}: ${summary(changes)}`;
  const batch = await runBatch(ws, { intent, operations: ops }, { draft: rec.draft, actor: options.actor });
  if (!batch.success) return { dir: rec.dir, batch, changes };
  // The manifest learns what the worktree now holds at every recorded path.
  for (const c of changes) {
    if (c.kind === 'write') {
      const f = found.get(c.path)!;
      manifest.set(c.path, statEntry(f.st, f.oid, f.mode));
    } else {
      const from = manifest.get(c.path)!;
      manifest.delete(c.path);
      if (c.kind === 'rename') {
        const st = seen.get(c.to!) ?? (ws.ctx.fs.lstatSync(`${rec.dir}/${c.to}`) as Stats);
        manifest.set(c.to!, statEntry(st, from.oid, from.mode));
      }
    }
  }
  manifest.save();
  // If the draft was at the worktree's tip, it now is at the batch: nothing
  // to bring over. Otherwise other writers moved it: a sync brings their work.
  const fastForward = batch.commit !== null && rec.synced_tip === parentTip(ws, batch.commit);
  const next: WorktreeRecord = {
    ...rec,
    synced_tip: fastForward ? batch.commit : rec.synced_tip,
    // At the batch, the draft owns what its bases say (a recorded path may have resolved unchanged).
    owned: fastForward ? (loadDraft(ws, rec.draft)?.bases.paths() ?? []) : rec.owned,
    updated_at: new Date(ws.ctx.clock.now()).toISOString(),
  };
  writeWorktreeRecord(ws.ctx, ws.repo.shadowDir, next, { durable: false });
  const sync = syncWorktree(ws, next);
  return { dir: rec.dir, batch, changes, sync };
}

/** The commit before `commit` on the draft (its capture commit's parent when the batch captured). */
function parentTip(ws: Workspace, commit: string): string | null {
  let c = ws.repo.objects.readCommit(commit);
  let parent = c.parents[0] ?? null;
  // A batch that captured has a capture commit before it.
  while (parent && /\nShadow-Capture: /.test(ws.repo.objects.readCommit(parent).message)) {
    c = ws.repo.objects.readCommit(parent);
    parent = c.parents[0] ?? null;
  }
  return parent;
}
