import { ShadowError } from '../errors.js';
import { emptyRootMessage, parseTrailers } from './commit-message.js';
import { EMPTY_TREE_OID, hashObject, serializeCommit, ZERO_OID, type Oid } from '../git/format/git-objects.js';
import { ARCHIVE_PREFIX, draftRef, DRAFTS_PREFIX, metaRef, proposalRef, REMOTES_PREFIX } from './ref-names.js';
import { unpackSnapshot } from '../state/remote-mirror.js';
import { refComponentProblem } from '../core/ref-component.js';
import { lineName, splitRemoteDraft } from '../core/remote-draft-name.js';
import { readDraftMeta, writeDraftMeta, type DraftMeta } from '../state/draft-meta.js';
import { DraftMetaCache } from './draft-meta-cache.js';
import { waitForProcessLock } from '../durable/process-lock.js';
import { RefMoved } from '../git/refs.js';
import { worktreeOfGitDir } from '../git/repository.js';
import { readAppliedState, type AppliedOverrides, type ApplyRecord } from '../state/applied-state.js';
import { BaseMap } from '../state/base-map.js';
import {
  accumulateState,
  EMPTY_STATE,
  findRoot,
  highestBatch,
  highestBatchInReflog,
  historySince,
  isOnHistory,
  type Bases,
  type HistoryState,
} from './history.js';
import { clearDraftRemains, hasDraftRemains } from './draft-remains.js';
import { logEvent } from './ledger-events.js';
import { resolveCommitish } from './rev-parse.js';
import { archivedPoints, draftPoints } from './draft-points.js';
import type { Workspace } from './workspace.js';

/** A draft as loaded: its tip and metadata whose bases belong to that tip. */
export interface Draft {
  name: string;
  ref: string;
  tip: Oid;
  meta: DraftMeta;
  /**
   * The base of every path the draft owns: what the working tree held when
   * the draft first touched it, or what the last apply published there.
   */
  bases: Bases;
  /** The newest publish of this draft (what `unapply` reverses), if any. */
  lastApply: ApplyRecord | undefined;
}

/** Captured bases with every publish laid over them, in order. */
function effectiveBases(captured: Bases, overrides: AppliedOverrides): Bases {
  return captured.replacing(overrides);
}

/** Throw INVALID_DRAFT_NAME unless `name` is one valid ref component, or a remote draft's `<remote>/<draft>`. */
export function checkDraftName(name: string): void {
  const problem = splitRemoteDraft(name) ? undefined : refComponentProblem(name);
  if (problem) {
    throw new ShadowError('INVALID_DRAFT_NAME', `"${name}" is not a valid draft name: ${problem}`, {
      hint: 'use letters, digits, "-", "_" and "." (one ref component, as `git check-ref-format` accepts)',
      data: { name },
    });
  }
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** A history's state as draft.json keeps it (no empty fields). */
function historyState(s: HistoryState): Pick<DraftMeta, 'bases' | 'conflicts' | 'rebase' | 'requests'> {
  const some = <T extends object>(r: T): T | undefined => (Object.keys(r).length > 0 ? r : undefined);
  return { bases: s.bases, conflicts: some(s.conflicts), rebase: s.rebase, requests: some(s.requests) };
}

/** Rebuild lost metadata from the ref's history. */
function reconstructMeta(ws: Workspace, name: string, tip: Oid): DraftMeta {
  const root = findRoot(ws.repo, lineName(name), tip);
  const history = historySince(ws.repo, tip, root);
  const rootCommit = ws.repo.objects.readCommit(root);
  return {
    version: 1,
    name,
    root,
    created_at: isoTime(rootCommit.committer.timestamp * 1000),
    created_by: 'unknown',
    from: root,
    worktree: ws.repo.layout.worktree === null ? null : ws.repo.layout.gitdir,
    status: 'open',
    high_batch: Math.max(highestBatch(history), highestBatchInReflog(ws.repo, draftRef(name))),
    bases_tip: tip,
    ...historyState(accumulateState(ws.repo, EMPTY_STATE, history)),
  };
}

/**
 * How far `draft.json` may lag its draft's tip, counted as one per commit
 * plus one per path the commit changed: what a reader pays to bring the
 * bases up to date from the commits since (the trees of those paths). A run
 * of small batches writes the file every few batches instead of each time
 * (rewriting every base costs more than a small batch in a large draft); a
 * large batch still writes it at once.
 */
export const META_LAG_LIMIT = 16;

/**
 * In a draft of many bases the limit grows to this fraction of them, so
 * that a handle that stays open (a server, a library user) rewrites the file
 * at O(1) cost per path changed however large the draft grows (each write
 * is paid for by bases/META_LAG_SHARE units), while a new handle's catch-up
 * stays a small part of what reading the file costs.
 */
export const META_LAG_SHARE = 8;

/** The lag allowed to a draft whose file holds `bases` bases. */
export function metaLagLimit(bases: number): number {
  return Math.max(META_LAG_LIMIT, Math.floor(bases / META_LAG_SHARE));
}

/**
 * The highest batch number the reflog of `ref` names since its last move to
 * `tip`; 0 at once, reading no commit, when that move is the last line and
 * came from `tip`'s parent or from nothing (a batch, or the draft's start):
 * what such a line names, the history names too.
 */
function batchesPastTip(ws: Workspace, ref: string, tip: Oid): number {
  const lines = ws.repo.refs.reflog(ref, tip);
  const only = lines.length === 1 ? lines[0]! : undefined;
  if (only && only.new === tip && (only.old === ZERO_OID || ws.repo.objects.readCommit(tip).parents[0] === only.old))
    return 0;
  return highestBatchInReflog(ws.repo, ref, tip, lines);
}

/**
 * Bring the cached bases of `meta` up to `tip`, from the history when they
 * are stale; `walked` is what that cost, in META_LAG_LIMIT's units
 * (Infinity when the bases were rebuilt from the root, after a rollback).
 */
function refreshBases(
  ws: Workspace,
  meta: DraftMeta,
  tip: Oid,
  fromFile: boolean,
): { meta: DraftMeta; walked: number } {
  if (meta.bases_tip === tip) {
    if (!fromFile) return { meta, walked: 0 };
    // The file names this tip, but the ref may have moved on from it and
    // back since it was written (a plain git command, over batches a
    // handle that kept the file lagging made): the reflog's lines since
    // the last move to this tip still name those batches.
    const dropped = batchesPastTip(ws, draftRef(meta.name), tip);
    return dropped > meta.high_batch ? { meta: { ...meta, high_batch: dropped }, walked: 1 } : { meta, walked: 0 };
  }
  const repo = ws.repo;
  const onHistory = isOnHistory(repo, tip, meta.bases_tip, meta.root);
  const history = historySince(repo, tip, onHistory ? meta.bases_tip : meta.root);
  const start: HistoryState = onHistory
    ? { bases: meta.bases, conflicts: meta.conflicts ?? {}, rebase: meta.rebase, requests: meta.requests ?? {} }
    : EMPTY_STATE;
  const state = accumulateState(repo, start, history);
  const bases = state.bases;
  // The file lags: a plain git command may have moved the ref back over
  // batches it never recorded (shadow's own rollback writes the high-water
  // mark first). The reflog since still names them.
  const dropped = highestBatchInReflog(repo, draftRef(meta.name), meta.bases_tip);
  const high = Math.max(meta.high_batch, highestBatch(history), dropped);
  const walked = onHistory ? history.length + bases.size - meta.bases.size : Infinity;
  return { meta: { ...meta, ...historyState(state), bases_tip: tip, high_batch: high }, walked };
}

/**
 * Keep `meta` as the draft's cached metadata, `lag` ahead of its file; the
 * file is written when it would lag by metaLagLimit or more. `file.read`:
 * the stamp of the file `meta` was just read from (else the file is the one
 * the entry already knew).
 */
export function keepDraftMeta(ws: Workspace, meta: DraftMeta, lag: number, file?: { read: string }): void {
  if (lag >= META_LAG_LIMIT && lag >= metaLagLimit(meta.bases.size)) {
    writeDraftMeta(ws.ctx, ws.repo.shadowDir, meta, false);
    ws.drafts.set(meta.name, meta, 0, DraftMetaCache.stampOf(ws.ctx, ws.repo.shadowDir, meta.name));
    return;
  }
  if (file) ws.drafts.set(meta.name, meta, lag, file.read);
  else ws.drafts.advance(meta.name, meta, lag);
}

/**
 * At a handle's close, `draft.json` is brought up to date when it lags and
 * writing it costs less than the walk the next handle would make instead:
 * about this many bases written for each unit of lag walked (in a process
 * that has just started, where a one-shot command lives: 600 bases written
 * in 2–3 ms, a walk of one batch of 10 paths in about 6). A command run by
 * the caller then leaves the next one a file it needs not catch up on.
 */
export const META_FLUSH_BASES_PER_LAG = 128;

/**
 * Write the lagging metadata a closing handle keeps (its own cache only: a
 * server's shared one lives on in its other handles), each only while its
 * draft's ref is still at the tip the metadata is for and its file is still
 * the one the entry is ahead of (another process may have rewritten it).
 * Never throws: a file not written is caught up on by the next reader.
 */
export function flushLaggingMetas(ws: Workspace): void {
  if (!ws.ownsDraftMetas) return;
  for (const { draft, meta, lag, stamp } of ws.drafts.lagging()) {
    if (meta.bases.size > lag * META_FLUSH_BASES_PER_LAG) continue;
    try {
      if (ws.repo.refs.resolve(draftRef(draft)) !== meta.bases_tip) continue;
      if (DraftMetaCache.stampOf(ws.ctx, ws.repo.shadowDir, draft) !== stamp) continue;
      writeDraftMeta(ws.ctx, ws.repo.shadowDir, meta, false);
      ws.drafts.set(draft, meta, 0, DraftMetaCache.stampOf(ws.ctx, ws.repo.shadowDir, draft));
    } catch {
      // The next reader catches up from the history, as before.
    }
  }
}

/**
 * A remote draft's files brought to the snapshot its fetched meta ref
 * names (state/remote-mirror.ts); nothing for a local draft.
 */
export function refreshRemoteDraft(ws: Workspace, name: string): void {
  if (!splitRemoteDraft(name) || ws.repo.refs.resolve(draftRef(name)) === undefined) return;
  unpackSnapshot(ws.ctx, ws.repo.shadowDir, ws.repo.objects, name, ws.repo.refs.resolve(metaRef(name)));
}

/** Load a draft, or undefined when its ref does not exist. */
export function loadDraft(ws: Workspace, name: string): Draft | undefined {
  checkDraftName(name);
  refreshRemoteDraft(ws, name);
  const ref = draftRef(name);
  const tip = ws.repo.refs.resolve(ref);
  if (tip === undefined) {
    ws.drafts.delete(name);
    return undefined;
  }
  const stamp = DraftMetaCache.stampOf(ws.ctx, ws.repo.shadowDir, name);
  const kept = ws.drafts.get(name, stamp, tip);
  let meta = kept?.meta;
  let lag = kept?.lag ?? 0;
  let fromFile = false;
  if (!meta) {
    meta = readDraftMeta(ws.ctx, ws.repo.shadowDir, name);
    lag = 0;
    fromFile = true;
  }
  let fresh: DraftMeta;
  if (meta) {
    const refreshed = refreshBases(ws, meta, tip, fromFile);
    fresh = refreshed.meta;
    // A handle that had to catch up from the file shows that new handles
    // (a CLI command each) pay that walk: past META_LAG_LIMIT it writes the
    // file at once, whatever the draft's size; the larger lag a big draft
    // allows is for a handle that stays open.
    lag = fromFile && refreshed.walked >= META_LAG_LIMIT ? Infinity : lag + refreshed.walked;
  } else {
    // Lost or damaged: rebuilt from the history, and written at once.
    fresh = reconstructMeta(ws, name, tip);
    lag = Infinity;
  }
  keepDraftMeta(ws, fresh, lag, fromFile ? { read: stamp } : undefined);
  // A rebase took in what the applies before it wrote: only newer ones move the bases.
  const applied = readAppliedState(
    ws.ctx,
    ws.repo.shadowDir,
    name,
    ws.appliedMemo,
    fresh.rebase ? (fresh.rebase.applies ?? '') : undefined,
  );
  return {
    name,
    ref,
    tip,
    meta: fresh,
    bases: effectiveBases(fresh.bases, applied.overrides),
    lastApply: applied.last,
  };
}

/**
 * The commit a draft stands on: its root, or where its newest rebase moved
 * it. A bare repository's lower layer is this commit's tree.
 */
export function standsOn(draft: Draft): Oid {
  return draft.meta.rebase?.onto ?? draft.meta.root;
}

/** Load a draft that must exist. */
export function requireDraft(ws: Workspace, name: string): Draft {
  const d = loadDraft(ws, name);
  if (!d) {
    throw new ShadowError('DRAFT_NOT_FOUND', `there is no draft "${name}"`, {
      hint: 'list drafts with `shadow draft list`; a draft is created by `shadow draft new` or by its first batch',
      data: { draft: name },
    });
  }
  return d;
}

/**
 * Refuse to act for a draft whose lower layer is another worktree's: a batch
 * would capture this worktree's files as its bases, and a publish would write
 * its changes here. `command` is what to run in the right worktree.
 */
export function checkWorktree(ws: Workspace, draft: Draft, command = 'shadow'): void {
  const owner = draft.meta.worktree;
  const mine = ws.repo.layout.worktree === null ? null : ws.repo.layout.gitdir;
  if (owner === null || mine === null || owner === mine) return;
  const there = worktreeOfGitDir(ws.ctx, owner);
  throw new ShadowError(
    'DRAFT_WORKTREE_MISMATCH',
    `draft "${draft.name}" belongs to the worktree at ${there}, not this one (${ws.repo.layout.worktree}): nothing was written`,
    {
      hint: `run \`${command}\` in ${there}; or continue the draft here with \`shadow draft new <name> --from ${draft.ref}\``,
      data: { draft: draft.name, worktree: there, gitdir: owner },
    },
  );
}

/** Whether `commit` is a point of the local draft `line`, or of one of its archives. */
function isLinePoint(ws: Workspace, line: string, commit: Oid): boolean {
  const repo = ws.repo;
  const d = loadDraft(ws, line);
  if (d && draftPoints(repo, { name: line, ref: d.ref, tip: d.tip, root: d.meta.root }).has(commit)) return true;
  return archivedPoints(repo, ARCHIVE_PREFIX, line).has(commit);
}

/** The commit a new draft starts from: a commit-ish, HEAD, or an empty root when there is no commit. */
function startingPoint(ws: Workspace, name: string, from: string | undefined): { root: Oid; tip: Oid; from: string } {
  const repo = ws.repo;
  if (from !== undefined) {
    const tip = resolveCommitish(repo, from);
    // A commit of another draft (an archived tip, a draft to fork): the new
    // draft continues that line, with its root and its captured bases. Its
    // trailers only claim that: the commit must be one of that draft's own
    // points here (draft-points.ts), or of an archive of it. Anything else
    // carrying draft trailers (made with `git commit-tree`, or fetched: a
    // fetched draft is continued with `--from <remote>/<draft>`) is refused.
    // A commit with no draft trailers is a plain starting point, as HEAD is.
    const trailers = parseTrailers(repo.objects.readCommit(tip).message);
    const lineage = trailers.draft !== undefined && (trailers.batch !== undefined || trailers.capture !== undefined);
    if (!lineage) return { root: tip, tip, from };
    if (!isLinePoint(ws, trailers.draft!, tip)) {
      throw new ShadowError(
        'INVALID_TARGET',
        `cannot start a draft from "${from}": ${tip.slice(0, 12)} says it belongs to draft "${trailers.draft}", which never had it here`,
        {
          hint: `start from a commit of draft "${trailers.draft}" (its history, reflog or checkpoints) or from its archive; continue a fetched draft with --from <remote>/<draft>`,
          data: { target: from, commit: tip, draft: trailers.draft },
        },
      );
    }
    return { root: findRoot(repo, trailers.draft!, tip), tip, from };
  }
  const head = repo.refs.resolve('HEAD');
  if (head !== undefined) return { root: head, tip: head, from: 'HEAD' };
  const who = repo.committer();
  const commit = { tree: EMPTY_TREE_OID, parents: [], author: who, committer: who, message: emptyRootMessage(name) };
  const content = serializeCommit(commit);
  const oid = hashObject('commit', content);
  repo.objects.write([
    { oid: EMPTY_TREE_OID, type: 'tree', content: Buffer.alloc(0) },
    { oid, type: 'commit', content },
  ]);
  return { root: oid, tip: oid, from: 'empty' };
}

/**
 * A draft that does not exist yet, as it would start (from HEAD, or an empty
 * root in a repository with no commit). Nothing is written but, in an empty
 * repository, the root commit object.
 */
export function unbornDraft(ws: Workspace, name: string, options: { from?: string; actor: string }): Draft {
  checkDraftName(name);
  const repo = ws.repo;
  const start = startingPoint(ws, name, options.from);
  const meta: DraftMeta = {
    version: 1,
    name,
    root: start.root,
    created_at: isoTime(ws.ctx.clock.now()),
    created_by: options.actor,
    from: start.from,
    worktree: repo.layout.worktree === null ? null : repo.layout.gitdir,
    status: 'open',
    high_batch: 0,
    bases_tip: start.root,
    bases: BaseMap.EMPTY,
  };
  return { name, ref: draftRef(name), tip: start.tip, meta, bases: BaseMap.EMPTY, lastApply: undefined };
}

/** Make an unborn draft real: its metadata, then its ref at the root (compare-and-swap from nothing). */
export async function publishDraft(
  ws: Workspace,
  draft: Draft,
  actor: string,
  options: { planState?: boolean } = {},
): Promise<void> {
  const repo = ws.repo;
  const exists = (): ShadowError =>
    new ShadowError('DRAFT_EXISTS', `draft "${draft.name}" was created by another process just now`, {
      data: { draft: draft.name },
    });
  // Creations take turns: between one's metadata and its ref, its directory
  // would look like a dropped draft's remains to another.
  const turn = await waitForProcessLock(ws.ctx, `${repo.shadowDir}/create.lock`, 'draft creation', repo.lockTimeoutMs);
  try {
    if (repo.refs.resolve(draft.ref) !== undefined) throw exists();
    // What a dropped draft of this name left (a purge a crash stopped, a ref
    // git deleted) is not this draft's: above all not its apply records. A
    // plan writes its own state before its first batch makes the draft: kept.
    if (hasDraftRemains(ws, draft.name))
      await clearDraftRemains(ws, draft.name, { keepPlanState: options.planState === true });
    // Metadata first: a ref never exists without the root it was made from.
    writeDraftMeta(ws.ctx, repo.shadowDir, draft.meta, true);
    try {
      await repo.refs.update({
        ref: draft.ref,
        expected: null,
        next: draft.tip,
        message: `shadow: draft new ${draft.name} from ${draft.meta.from}`,
        who: repo.committer(),
      });
    } catch (e) {
      if (e instanceof RefMoved) throw exists();
      throw e;
    }
  } finally {
    turn.release();
  }
  ws.drafts.set(draft.name, draft.meta, 0, DraftMetaCache.stampOf(ws.ctx, repo.shadowDir, draft.name));
  await logEvent(ws, draft.name, 'draft/open', actor, { root: draft.meta.root, from: draft.meta.from, tip: draft.tip });
}

/**
 * Create draft `name` at `from` (default HEAD). O(1): a ref and a metadata
 * file, no scan of the working tree.
 */
export async function createDraft(
  ws: Workspace,
  name: string,
  options: { from?: string; actor: string },
): Promise<Draft> {
  checkDraftName(name);
  if (ws.repo.refs.resolve(draftRef(name)) !== undefined) {
    throw new ShadowError('DRAFT_EXISTS', `draft "${name}" already exists`, {
      hint: `use it with --draft ${name}, or drop it first with \`shadow draft drop ${name}\``,
      data: { draft: name },
    });
  }
  const draft = unbornDraft(ws, name, options);
  await publishDraft(ws, draft, options.actor);
  // A draft that continues another's line derives its bases from that history.
  return draft.tip === draft.meta.root ? draft : requireDraft(ws, name);
}

/** A draft's status: `open`, `proposed` (its tip is the proposed commit) or `completed` (its tip was applied). */
export type DraftStatusWord = 'open' | 'proposed' | 'completed';

/** The status of a draft at `tip` (default its tip), from its refs and apply records. */
export function draftStatusWord(ws: Workspace, d: Draft, tip: Oid = d.tip): DraftStatusWord {
  if (d.lastApply?.tip === tip) return 'completed';
  if (ws.repo.refs.resolve(proposalRef(d.name)) === tip) return 'proposed';
  return 'open';
}

/** Summary of a draft for listings. */
export interface DraftSummary {
  name: string;
  tip: Oid;
  root: Oid;
  status: string;
  batches: number;
  created_at: string;
  touched: number;
}

/** Every draft of the repository. */
export function listDrafts(ws: Workspace): DraftSummary[] {
  return ws.repo.refs.list(DRAFTS_PREFIX).map(({ ref }) => summarize(ws, ref.slice(DRAFTS_PREFIX.length)));
}

/** Every draft fetched from a remote (`origin/refactor`), of one remote or all, as of the last fetch. */
export function listRemoteDrafts(ws: Workspace, remote?: string): DraftSummary[] {
  const out: DraftSummary[] = [];
  for (const { ref } of ws.repo.refs.list(
    remote === undefined ? REMOTES_PREFIX : `${REMOTES_PREFIX}${remote}/drafts/`,
  )) {
    const m = /^refs\/shadow\/remotes\/([^/]+)\/drafts\/([^/]+)$/.exec(ref);
    if (m && splitRemoteDraft(`${m[1]}/${m[2]}`)) out.push(summarize(ws, `${m[1]}/${m[2]}`));
  }
  return out;
}

function summarize(ws: Workspace, name: string): DraftSummary {
  const d = requireDraft(ws, name);
  return {
    name: d.name,
    tip: d.tip,
    root: d.meta.root,
    status: draftStatusWord(ws, d),
    batches:
      d.tip === d.meta.root
        ? 0
        : historySince(ws.repo, d.tip, d.meta.root).filter((h) => h.trailers.batch !== undefined).length,
    created_at: d.meta.created_at,
    touched: d.bases.size,
  };
}
