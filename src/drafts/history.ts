import { ShadowError } from '../errors.js';
import { parseTrailers, type ShadowTrailers } from './commit-message.js';
import type { Commit, Oid } from '../git/format/git-objects.js';
import { diffTrees } from '../git/format/tree-diff.js';
import { BaseMap, type Base } from '../state/base-map.js';
import type { RebaseMark } from '../state/draft-meta.js';
import { lookupPath } from '../git/format/tree-lookup.js';
import { parseConflictLines, parseResolvedLines } from './conflict-lines.js';
import type { Repository } from '../git/repository.js';
import type { ReflogEntry } from '../git/reflog.js';

/** A commit of a draft's first-parent history, with its trailers. */
export interface HistoryCommit {
  oid: Oid;
  commit: Commit;
  trailers: ShadowTrailers;
}

/** Captured bases: path → its lower-layer entry when the draft first changed it (null: absent). */
export type Bases = BaseMap;

/**
 * The first-parent history from `tip` back to (not including) `stop`,
 * newest first. Fails when the walk reaches a commit with no parent before
 * `stop`: the ref then no longer descends from its draft's root.
 */
export function historySince(repo: Repository, tip: Oid, stop: Oid): HistoryCommit[] {
  const out: HistoryCommit[] = [];
  let oid: Oid | undefined = tip;
  while (oid !== stop) {
    if (oid === undefined) {
      throw new ShadowError(
        'CORRUPT_REF',
        `the draft's history from ${tip.slice(0, 12)} does not reach its root ${stop.slice(0, 12)}`,
        {
          hint: 'the draft ref was rewritten outside shadow; move it back with `shadow undo`, or drop the draft',
          data: { tip, root: stop },
        },
      );
    }
    const commit = repo.objects.readCommit(oid);
    out.push({ oid, commit, trailers: parseTrailers(commit.message) });
    oid = commit.parents[0];
  }
  return out;
}

/** True when `ancestor` is on the first-parent history of `tip` down to `root`. */
export function isOnHistory(repo: Repository, tip: Oid, ancestor: Oid, root: Oid): boolean {
  let oid: Oid | undefined = tip;
  for (;;) {
    if (oid === ancestor) return true;
    if (oid === root || oid === undefined) return false;
    oid = repo.objects.readCommit(oid).parents[0];
  }
}

/** What a draft's history says beyond its tree: the bases, the conflicts, its newest rebase. */
export interface HistoryState {
  bases: Bases;
  /** Path → why it is in conflict (conflict-lines.ts). */
  conflicts: Readonly<Record<string, string>>;
  rebase: RebaseMark | undefined;
  /** Request id → the batch commit that carried it. */
  requests: Readonly<Record<string, Oid>>;
}

export const EMPTY_STATE: HistoryState = { bases: BaseMap.EMPTY, conflicts: {}, rebase: undefined, requests: {} };

/**
 * Add to `start` what the commits in `newestFirst` tell. The first commit
 * that changes a path fixes its base — the entry it captured (a capture
 * commit records the lower layer's state) or the entry before it (a batch
 * commit changes the draft's own content) — until a rebase commit: its
 * second parent is the new base, and every path the draft had touched takes
 * its base from there (rebase.ts). A rebase lists the paths it left in
 * conflict (and replaces those listed before: it refuses to run while any
 * remain), a revert adds those it left, a later batch lists those it
 * resolved (conflict-lines.ts).
 */
export function accumulateState(
  repo: Repository,
  start: HistoryState,
  newestFirst: readonly HistoryCommit[],
): HistoryState {
  let bases = start.bases;
  let conflicts = start.conflicts;
  let rebase = start.rebase;
  let requests = start.requests;
  let found = new Map<string, Base>();
  for (let i = newestFirst.length - 1; i >= 0; i--) {
    const h = newestFirst[i]!;
    const onto = h.commit.parents[1];
    if (h.trailers.rebase !== undefined && onto !== undefined) {
      const baseTree = repo.objects.readCommit(onto).tree;
      const reset = new Map<string, Base>();
      for (const path of [...bases.paths(), ...found.keys()]) {
        const k = lookupPath(repo.objects, baseTree, path);
        reset.set(path, k.kind === 'file' ? { mode: k.mode, oid: k.oid } : null);
      }
      bases = BaseMap.EMPTY.adding(reset);
      found = new Map();
      conflicts = Object.fromEntries(parseConflictLines(h.commit.message));
      const named = (v: string | undefined): string | null => (v === undefined || v === 'none' ? null : v);
      rebase = { commit: h.oid, onto: named(h.trailers.rebase), applies: named(h.trailers.applies) };
      continue;
    }
    const parentTree = h.commit.parents[0] ? repo.objects.readCommit(h.commit.parents[0]).tree : null;
    for (const change of diffTrees(repo.objects, parentTree, h.commit.tree)) {
      // The oldest commit to change a path fixes its base; adding() keeps the bases already known.
      if (found.has(change.path)) continue;
      found.set(change.path, h.trailers.capture !== undefined ? change.new : change.old);
    }
    // A batch lists the conflicts it resolved; a revert, those it left (the lines are rare: looked for first).
    if (h.trailers.batch === undefined) continue;
    if (h.trailers.request !== undefined) requests = { ...requests, [h.trailers.request]: h.oid };
    const resolved = h.commit.message.includes('\nresolved\t') ? parseResolvedLines(h.commit.message) : [];
    const added = h.commit.message.includes('\nconflict\t') ? parseConflictLines(h.commit.message) : undefined;
    if (resolved.length > 0 || added) {
      const next: Record<string, string> = { ...conflicts };
      for (const p of resolved) delete next[p];
      for (const [p, reason] of added ?? []) next[p] = reason;
      conflicts = next;
    }
  }
  return { bases: bases.adding(found), conflicts, rebase, requests };
}

/** The highest batch number in a history. */
export function highestBatch(history: readonly HistoryCommit[]): number {
  let n = 0;
  for (const h of history) n = Math.max(n, h.trailers.batch ?? 0, h.trailers.capture ?? 0);
  return n;
}

/** The root of a draft when its metadata is lost: the newest commit not made for this draft. */
export function findRoot(repo: Repository, draft: string, tip: Oid): Oid {
  let oid = tip;
  for (;;) {
    const commit = repo.objects.readCommit(oid);
    const t = parseTrailers(commit.message);
    if (t.draft !== draft || (t.batch === undefined && t.capture === undefined)) return oid;
    const parent = commit.parents[0];
    if (parent === undefined) return oid;
    oid = parent;
  }
}

/**
 * The highest batch number among the values the ref `ref` held, by its
 * reflog: from the last entry that moved it to `since` (the whole reflog
 * without it), old values included, so that a move back to `since` itself
 * counts the tip it left. A draft whose ref a plain git command moved back
 * while draft.json lagged behind the batches it dropped still counts them,
 * so their numbers are never given again. A commit gc pruned counts nothing.
 */
export function highestBatchInReflog(
  repo: Repository,
  ref: string,
  since?: Oid,
  /** The reflog's entries since `since`, when the caller has read them already. */
  entries: readonly ReflogEntry[] = repo.refs.reflog(ref, since),
): number {
  let n = 0;
  const seen = new Set<Oid>();
  for (const e of entries) {
    for (const oid of [e.old, e.new]) {
      if (seen.has(oid)) continue;
      seen.add(oid);
      let t: ShadowTrailers;
      try {
        t = parseTrailers(repo.objects.readCommit(oid).message);
      } catch {
        continue;
      }
      n = Math.max(n, t.batch ?? 0, t.capture ?? 0);
    }
  }
  return n;
}
