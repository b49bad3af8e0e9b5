import { parseOpLines, summaryOf, type OpLine } from '../commit-message.js';
import type { Oid } from '../../git/format/git-objects.js';
import { diffTrees, type FileChange } from '../../git/format/tree-diff.js';
import { lookupPath, type FileEntry } from '../../git/format/tree-lookup.js';
import { loadDraft, requireDraft, standsOn, type Draft } from '../drafts.js';
import { historySince } from '../history.js';
import { skipWorktreeEntry } from '../view/sparse-paths.js';
import { listCheckpoints, resolveTarget } from './checkpoints.js';
import type { Workspace } from '../workspace.js';
import { batchCount } from './batch-count.js';
import { partlyApplied, type HunkCounts } from './hunk-counts.js';

/** One batch of a draft's history. */
export interface LogEntry {
  batch: number;
  commit: Oid;
  actor: string;
  time: string;
  intent: string;
  ops: OpLine[];
  /** Paths whose working-tree state was captured just before this batch. */
  captured: string[];
  plan?: string;
  plan_batch?: string;
  session?: string;
  /** `ai` or `human`, when recorded (identity.ts). */
  actor_type?: string;
  /** The model an AI actor ran, when recorded. */
  model?: string;
}

/** The batches of a draft, newest first (at most `limit`). */
export function draftLog(ws: Workspace, draftName: string, limit = Infinity): LogEntry[] {
  const draft = loadDraft(ws, draftName);
  if (!draft) return [];
  const out: LogEntry[] = [];
  for (const h of historySince(ws.repo, draft.tip, draft.meta.root)) {
    const t = h.trailers;
    if (t.capture !== undefined) {
      const owner = out.find((e) => e.batch === t.capture);
      if (owner) owner.captured = parseOpLines(h.commit.message).map((o) => o.path);
      continue;
    }
    if (t.batch === undefined) continue;
    if (out.length >= limit) break;
    const entry: LogEntry = {
      batch: t.batch,
      commit: h.oid,
      actor: t.actor ?? h.commit.author.name,
      time: new Date(h.commit.author.timestamp * 1000).toISOString(),
      intent: summaryOf(h.commit.message),
      ops: parseOpLines(h.commit.message),
      captured: [],
    };
    if (t.plan !== undefined) entry.plan = t.plan;
    if (t.planBatch !== undefined) entry.plan_batch = t.planBatch;
    if (t.session !== undefined) entry.session = t.session;
    if (t.actorType !== undefined) entry.actor_type = t.actorType;
    if (t.model !== undefined) entry.model = t.model;
    out.push(entry);
  }
  return out;
}

/** A changed file, with what git's name-status letters say about it (`U`: in conflict since a rebase, as git marks an unmerged path). */
export interface ChangedFile extends FileChange {
  status: 'A' | 'M' | 'D' | 'T' | 'U';
  /** Why the path is in conflict (status `U`). */
  conflict?: string;
}

function statusOf(c: FileChange): ChangedFile['status'] {
  if (!c.old) return 'A';
  if (!c.new) return 'D';
  const kind = (m: string): string => (m === '120000' ? 'l' : m === '160000' ? 'g' : 'f');
  return kind(c.old.mode) !== kind(c.new.mode) ? 'T' : 'M';
}

function sameEntry(a: FileEntry | null, b: FileEntry | null): boolean {
  return a === null || b === null ? a === b : a.oid === b.oid && a.mode === b.mode;
}

/**
 * What a draft changes. Without a range: every path whose tip differs from
 * its captured base (what `shadow apply` would publish). With `from..to`:
 * the difference between two points of the draft (checkpoints, batches,
 * `~N`, commits).
 */
export function draftChanges(
  ws: Workspace,
  draftName: string,
  range?: { from: string; to: string },
): { draft: Draft | undefined; from?: Oid; to?: Oid; files: ChangedFile[] } {
  const repo = ws.repo;
  if (range) {
    const draft = requireDraft(ws, draftName);
    const from = range.from === '' ? draft.meta.root : resolveTarget(ws, draft, range.from, 'diff from').commit;
    const to = range.to === '' ? draft.tip : resolveTarget(ws, draft, range.to, 'diff to').commit;
    const files = diffTrees(repo.objects, repo.objects.readCommit(from).tree, repo.objects.readCommit(to).tree).map(
      (c) => ({ ...c, status: statusOf(c) }),
    );
    return { draft, from, to, files };
  }
  const draft = loadDraft(ws, draftName);
  if (!draft) return { draft, files: [] };
  const tree = repo.objects.readCommit(draft.tip).tree;
  const files: ChangedFile[] = [];
  const conflicts = draft.meta.conflicts ?? {};
  for (const path of draft.bases.paths().sort()) {
    const base = draft.bases.get(path) ?? null;
    const k = lookupPath(repo.objects, tree, path);
    const now = k.kind === 'file' ? { mode: k.mode, oid: k.oid } : null;
    const conflict = conflicts[path];
    if (conflict === undefined && sameEntry(base, now)) continue;
    const c = { path, old: base, new: now };
    files.push(conflict === undefined ? { ...c, status: statusOf(c) } : { ...c, status: 'U', conflict });
  }
  return { draft, to: draft.tip, files };
}

/** Where a path's working-tree content moved away from its captured base. */
export interface Drift {
  path: string;
  expected: Oid | null;
  found: Oid | null | 'directory' | 'unreadable';
}

export interface DraftStatus {
  draft: string;
  exists: boolean;
  tip?: Oid;
  root?: Oid;
  batches: number;
  checkpoints: number;
  /** Paths the draft changes (what apply would publish), but those the working tree already holds as the draft does. */
  changed: ChangedFile[];
  /** Paths the draft changes that the working tree already holds exactly as the draft does (`shadow rebase` drops them). */
  in_worktree: string[];
  /** Paths whose working-tree content is no longer their captured base. */
  drifted: Drift[];
  /** Paths in conflict since the draft's rebase, until a batch resolves them (apply refuses them meanwhile). */
  conflicts: Array<{ path: string; reason: string }>;
  /**
   * Set when HEAD is no longer the commit the draft stands on (its root, or
   * where its last rebase moved it): the person committed, pulled or switched
   * branch since. `shadow rebase` moves the draft onto what they have now.
   */
  behind?: { head: Oid | null; stands_on: Oid };
  /** Paths a hunk apply took part of: the hunks applied there and those not yet applied (hunk-counts.ts). */
  hunks?: HunkCounts;
}

/** The state of a draft: O(paths it touched), never a scan of the repository. */
export function draftStatus(ws: Workspace, draftName: string): DraftStatus {
  const draft = loadDraft(ws, draftName);
  if (!draft)
    return {
      draft: draftName,
      exists: false,
      batches: 0,
      checkpoints: 0,
      changed: [],
      in_worktree: [],
      drifted: [],
      conflicts: [],
    };
  const batches = batchCount(ws, draft);
  const lower = ws.lower(standsOn(draft));
  const drifted: Drift[] = [];
  const cheap = ws.indexView(draft.bases.size);
  const changes = draftChanges(ws, draftName).files;
  const draftHolds = new Map(changes.filter((c) => c.status !== 'U').map((c) => [c.path, c.new?.oid ?? null]));
  const inWorktree = new Set<string>();
  for (const path of draft.bases.paths().sort()) {
    const base = draft.bases.get(path) ?? null;
    let found: Drift['found'];
    try {
      // Kept out of the working tree by git: its content is the index's (never a deletion), as reads of the view show it.
      let kept = cheap ? skipWorktreeEntry(ws, path, cheap) : undefined;
      const l = kept === undefined ? lower.read(path) : ({ kind: 'absent' } as const);
      if (kept === undefined && l.kind === 'absent' && base !== null) kept = skipWorktreeEntry(ws, path);
      found = kept ? kept.oid : l.kind === 'file' ? l.oid : l.kind === 'dir' ? 'directory' : null;
    } catch {
      found = 'unreadable';
    }
    if (found === (base?.oid ?? null)) continue;
    // The person already holds the draft's change: nothing left to publish there.
    if (draftHolds.has(path) && draftHolds.get(path) === found) inWorktree.add(path);
    else drifted.push({ path, expected: base?.oid ?? null, found });
  }
  const head = ws.repo.refs.resolve('HEAD') ?? null;
  const on = standsOn(draft);
  const hunks = partlyApplied(
    ws,
    draft,
    changes.filter((c) => !inWorktree.has(c.path)),
  );
  return {
    draft: draftName,
    exists: true,
    tip: draft.tip,
    root: draft.meta.root,
    batches,
    checkpoints: listCheckpoints(ws, draftName).length,
    changed: changes.filter((c) => !inWorktree.has(c.path)),
    in_worktree: [...inWorktree],
    drifted,
    conflicts: Object.entries(draft.meta.conflicts ?? {})
      .map(([path, reason]) => ({ path, reason }))
      .sort((a, b) => (a.path < b.path ? -1 : 1)),
    ...(head !== on && !(head === null && draft.meta.from === 'empty') ? { behind: { head, stands_on: on } } : {}),
    ...(hunks ? { hunks } : {}),
  };
}
