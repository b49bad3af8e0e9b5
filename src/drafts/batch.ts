import { ShadowError } from '../errors.js';
import { batchMessage, captureMessage, parseTrailers, type ShadowTrailers } from './commit-message.js';
import { decodeContent } from '../core/content.js';
import { hashObject, serializeCommit, type Commit, type Oid, type TreeEntry } from '../git/format/git-objects.js';
import { opPaths, type BatchInput, type FileOperation, type OpResult } from './ops.js';
import type { BatchResult } from './batch-result.js';
import { opsFingerprint } from './ops-fingerprint.js';
import { draftRef } from './ref-names.js';
import { resolveBatch, type Patcher, type Resolution } from './resolve-batch.js';
import { editTree } from '../git/format/tree-edit.js';
import { lookupPath } from '../git/format/tree-lookup.js';
import type { PackObject } from '../git/format/pack-writer.js';
import { RefMoved } from '../git/refs.js';
import { planCaptures } from './captures.js';
import { skipWorktreeEntry } from './sparse-paths.js';
import { checkWorktree, draftStatusWord, keepDraftMeta, loadDraft, publishDraft, requireDraft, standsOn, unbornDraft, type Draft } from './drafts.js';
import { logEvent } from './ledger-events.js';
import { concurrentConflicts } from './batch-conflicts.js';
import { StagedObjects } from './staged-objects.js';
import { alreadyApplied, HARD_MAX_ATTEMPTS, isRetryOf, MAX_ATTEMPTS, replayed, retryPause } from './batch-retry.js';
import { resolvedLines } from './conflict-lines.js';
import { attributionLines, type Identity } from './identity.js';
import { resolvedBy, withoutResolved } from './draft-conflicts.js';
import { SubmoduleProbe } from './submodules.js';
import type { Workspace } from './workspace.js';

export type { BatchResult } from './batch-result.js';

export interface BatchOptions {
  draft: string;
  actor: string;
  allowIgnored?: boolean;
  maxContentBytes?: number;
  /** Commit even when the batch changes nothing (plans record every step). */
  allowEmpty?: boolean;
  /** Extra trailers (plan, session). */
  trailers?: Pick<ShadowTrailers, 'plan' | 'planBatch' | 'session'>;
  /** Paths in conflict to mark resolved as they are (`shadow resolve`), besides those the ops touch. */
  resolve?: readonly string[];
  /** A person or an AI, and its model (identity.ts); unrecorded when absent. */
  identity?: Identity;
}

/**
 * Each write's text in `operations` (the batch's own list) decoded to bytes
 * once, its string let go: a batch is held for its whole run (a lost race
 * resolves it again), and holding both forms doubled its memory. Replaced
 * in place one by one, each text can be collected as soon as its bytes are
 * made when nothing else holds the batch as sent. A content that does not
 * decode is left as it is, for resolution to report in its place among the
 * others.
 */
function decodeWrites(operations: FileOperation[], maxContentBytes: number): void {
  for (let i = 0; i < operations.length; i++) {
    const op = operations[i]!;
    if (op.operation !== 'write' || op.bytes || op.stored) continue;
    try {
      operations[i] = { ...op, content: '', encoding: undefined, bytes: decodeContent(op.content, op.encoding, maxContentBytes) };
    } catch {
      // Left for resolution to report.
    }
  }
}

/**
 * Run one batch as one atomic commit on a draft: resolve every op in memory
 * against the tip; only when all resolve, write the objects (one durable
 * pack) and move the ref by compare-and-swap. When another writer moved the
 * tip meanwhile, resolve again on the new tip: ops that still apply commit on
 * top; a path another writer changed under an op that assumed the old
 * content fails the batch with CONFLICT. Nothing is ever half-written.
 */
export function runBatch(ws: Workspace, input: BatchInput, options: BatchOptions): Promise<BatchResult> {
  // In a box the run empties: a suspended async function keeps what its
  // parameters held when it suspended, whatever it assigns them later.
  return runSent(ws, [input], options);
}

/** The batch out of its box, in a copy of its own: nothing here holds the one it was sent as. */
function takeBatch(sent: BatchInput[]): BatchInput {
  const input = sent.pop()!;
  return { ...input, operations: input.operations.slice() };
}

async function runSent(ws: Workspace, sent: BatchInput[], options: BatchOptions): Promise<BatchResult> {
  const repo = ws.repo;
  // The callers' frames, which hold the batch as it was sent, unwind here;
  // then the texts of its writes are held by this copy alone, and each can
  // be collected once its bytes are made.
  await null;
  const input = takeBatch(sent);
  decodeWrites(input.operations, options.maxContentBytes ?? ws.settings.maxContentBytes);
  const fingerprint = opsFingerprint(input.operations, { ...options.trailers, request: input.request_id });
  // A draft that does not exist yet is made by its first batch that commits: a
  // rejected batch leaves no trace, not even an empty draft.
  const existing = loadDraft(ws, options.draft);
  const first = existing ?? unbornDraft(ws, options.draft, { actor: options.actor });
  let unborn = existing === undefined;
  let created = false;
  checkWorktree(ws, first);
  const patcher: Patcher | undefined = input.operations.some((o) => o.operation === 'patch')
    ? await import('./text-patch.js')
    : undefined;
  const settings = {
    maxContentBytes: options.maxContentBytes ?? ws.settings.maxContentBytes,
    allowIgnored: options.allowIgnored ?? ws.settings.allowIgnored,
  };
  const touched = [...new Set(input.operations.flatMap(opPaths))];
  const baseTip = first.tip;
  let draft: Draft = first;

  // Batches of this process on one draft take turns (Workspace.inTurn)
  // instead of racing for its ref and losing work to each other; one that
  // waited starts from the tip the others left, judged against the tip it
  // was sent on (baseTip), as a batch that lost a race is. Other processes
  // still race, by compare-and-swap.
  return ws.inTurn(options.draft, async (waited) => {
    if (waited) {
      const now = loadDraft(ws, options.draft);
      if (now !== undefined) {
        draft = now;
        unborn = false;
      }
    }
    const started = ws.ctx.clock.now();
    for (let attempt = 1; ; attempt++) {
      const outcome = attemptBatch(ws, draft, input, options, settings, patcher, baseTip, touched, fingerprint);
      if (!outcome.commit) {
        return finish(outcome.result, created);
      }
      // The objects go to disk while the ref's lock is taken and written: the
      // ref moves once both are durable.
      const durable = repo.objects.writeConcurrently(outcome.commit.objects);
      durable.catch(() => undefined); // awaited through the ref update, or below
      const durableVoid = durable.then(() => undefined);
      durableVoid.catch(() => undefined);
      try {
        if (unborn) {
          try {
            // A plan's first batch: the plan's lock, tracker and ledger lines are already in the draft's directory.
            await publishDraft(ws, draft, options.actor, { planState: options.trailers?.plan !== undefined });
            created = true;
          } catch (e) {
            if (!(e instanceof ShadowError) || e.code !== 'DRAFT_EXISTS') throw e;
            throw new RefMoved(draft.ref, undefined);
          } finally {
            unborn = false;
          }
        }
        await repo.refs.update({
          ref: draftRef(draft.name),
          expected: draft.tip,
          next: outcome.commit.oid,
          message: `shadow: batch ${outcome.commit.batch}: ${input.intent?.split('\n')[0] ?? outcome.commit.summary}`,
          who: repo.committer(),
          after: durableVoid,
        });
      } catch (e) {
        // Named by no ref: git may repack (and prune) it.
        repo.objects.releaseKeep(
          await durable.then(
            (idx) => idx,
            () => undefined,
          ),
        );
        if (!(e instanceof RefMoved)) throw e;
        const trying = ws.ctx.clock.now() - started;
        if (attempt >= MAX_ATTEMPTS && (trying >= repo.lockTimeoutMs || attempt >= HARD_MAX_ATTEMPTS)) {
          throw new ShadowError('BUSY', `draft "${draft.name}" kept moving under ${attempt} attempts of this batch over ${(trying / 1000).toFixed(1)} s`, {
            hint: 'too many writers on one draft; retry, or give each writer its own draft',
            data: { draft: draft.name, attempts: attempt },
          });
        }
        // Another writer got there first: back off a random while, doubling
        // with each loss, so that writers racing for one draft spread out
        // instead of colliding again at once (one kept losing 25 times to
        // three others committing back to back).
        await ws.ctx.clock.sleep(retryPause(attempt, ws.ctx.ids.token()));
        draft = requireDraft(ws, draft.name);
        continue;
      }
      for (const t of outcome.commit.trees) repo.objects.rememberTree(t.oid, t.entries);
      repo.objects.releaseKeep(await durable);
      repo.objects.mergeIfDue();
      const meta = {
        ...draft.meta,
        conflicts: withoutResolved(draft.meta.conflicts, outcome.result.resolved),
        requests: input.request_id === undefined ? draft.meta.requests : { ...draft.meta.requests, [input.request_id]: outcome.commit.oid },
        bases: draft.meta.bases.adding(Object.entries(outcome.commit.newBases)),
        bases_tip: outcome.commit.oid,
        high_batch: Math.max(draft.meta.high_batch, outcome.commit.batch),
      };
      const before = draftStatusWord(ws, draft);
      const commits = outcome.result.captured ? 2 : 1;
      const paths = outcome.result.results.length + (outcome.result.captured?.length ?? 0);
      keepDraftMeta(ws, { ...meta, status: 'open' }, ws.drafts.lag(draft.name) + commits + paths);
      const r = outcome.result;
      await logEvent(ws, draft.name, 'batch/commit', options.actor, {
        batch: r.batch,
        commit: r.commit,
        parent: draft.tip,
        intent: input.intent?.split('\n')[0] ?? null,
        ...(options.identity ? { actor_type: options.identity.type, ...(options.identity.model ? { model: options.identity.model } : {}) } : {}),
        ops: r.results.map((x) => ({
          ...(x.to ? { operation: x.operation, path: x.path, to: x.to, status: x.status } : { operation: x.operation, path: x.path, status: x.status }),
          ...(x.files ? { files: x.files } : {}),
        })),
        captured: r.captured ?? [],
        ...options.trailers,
      });
      if (before !== 'open') await logEvent(ws, draft.name, 'tx/status', options.actor, { from: before, to: 'open' });
      return finish(r, created);
    }
  });
}

function finish(result: BatchResult, created: boolean): BatchResult {
  return created ? { ...result, created_draft: true } : result;
}

interface Attempt {
  result: BatchResult;
  commit?: {
    oid: Oid;
    batch: number;
    summary: string;
    newBases: Record<string, { mode: string; oid: Oid } | null>;
    /** The objects to write, and the parsed trees among them. */
    objects: PackObject[];
    trees: Array<{ oid: Oid; entries: readonly TreeEntry[] }>;
  };
}

function failure(draftName: string, tip: Oid, results: OpResult[], problems: Array<{ index: number; error: ShadowError }>): BatchResult {
  const firstProblem = problems[0]!;
  const list = problems
    .map((p) => `#${p.index + 1} ${results[p.index]!.operation}${results[p.index]!.path ? ` ${results[p.index]!.path}` : ''}: ${p.error.message}`)
    .join('; ');
  const noun = results.length === 1 ? 'operation' : 'operations';
  const error = new ShadowError(
    firstProblem.error.code,
    `batch rejected, nothing was written: ${problems.length} of ${results.length} ${noun} failed: ${list}`,
    { hint: firstProblem.error.hint, data: { failures: problems.map((p) => ({ index: p.index, ...p.error.toJSON() })) } },
  );
  return { success: false, results, error: error.toJSON(), commit: tip, batch: null, draft: draftName };
}

function attemptBatch(
  ws: Workspace,
  draft: Draft,
  input: BatchInput,
  options: BatchOptions,
  settings: { maxContentBytes: number; allowIgnored: boolean },
  patcher: Patcher | undefined,
  baseTip: Oid,
  touched: string[],
  fingerprint: string,
): Attempt {
  const repo = ws.repo;
  const tipCommit = repo.objects.readCommit(draft.tip);
  if (isRetryOf(draft, tipCommit.message, fingerprint)) return { result: alreadyApplied(draft, input) };
  const earlier = input.request_id === undefined ? undefined : draft.meta.requests?.[input.request_id];
  if (earlier !== undefined) return { result: replayed(ws, draft, input, earlier) };
  const staged = new StagedObjects(repo.objects);
  const lower = ws.lower(standsOn(draft));

  // 0. Submodules are their own repositories: no op reaches into one, and
  // nothing inside one is read for a capture.
  const submodules = new SubmoduleProbe(ws, [tipCommit.tree, repo.objects.readCommit(draft.meta.root).tree]);
  const inSubmodule = new Map<string, ShadowError>();
  for (const path of touched) {
    const p = submodules.problem(path);
    if (p) inSubmodule.set(path, p);
  }

  // 1. First touches: record the lower layer's state where it differs.
  const plan = planCaptures(inSubmodule.size > 0 ? touched.filter((p) => !inSubmodule.has(p)) : touched, {
    reader: repo.objects,
    tipTree: tipCommit.tree,
    bases: draft.bases,
    lower,
    trustExecutableBit: repo.config.getBool('core.filemode') ?? true,
    ignore: ws.ignoreRules(),
    allowIgnored: settings.allowIgnored,
    index: (n) => ws.indexView(n),
    skipWorktree: (path, view) => skipWorktreeEntry(ws, path, view),
  });
  for (const [oid, bytes] of plan.blobs) staged.blobs.set(oid, bytes);
  let base = tipCommit.tree;
  if (plan.changes.size > 0) {
    const edited = editTree(staged, base, plan.changes);
    staged.addTrees(edited.trees);
    base = edited.root;
  }

  // 2. Resolve every op in memory against tip + captures.
  const resolution: Resolution = resolveBatch(staged, base, input.operations, { maxContentBytes: settings.maxContentBytes, patcher, forms: ws.worktreeForm(false) });
  const problems: Array<{ index: number; error: ShadowError }> = [];
  input.operations.forEach((op, index) => {
    const pathProblem = opPaths(op).map((p) => inSubmodule.get(p) ?? plan.problems.get(p)).find((e) => e !== undefined);
    if (pathProblem) problems.push({ index, error: pathProblem });
  });
  resolution.problems.forEach((p) => {
    if (!problems.some((q) => q.index === p.index)) problems.push({ index: p.index, error: new ShadowError(p.code, p.message, { hint: p.hint, data: p.data }) });
  });
  problems.sort((a, b) => a.index - b.index);

  // 3. A retry on a moved tip: paths another writer changed meanwhile conflict.
  if (draft.tip !== baseTip) {
    for (const c of concurrentConflicts(ws, draft, input, baseTip, touched, resolution)) {
      const at = problems.findIndex((p) => p.index === c.index);
      if (at === -1) problems.push(c);
      else problems[at] = c;
    }
    problems.sort((a, b) => a.index - b.index);
  }

  if (problems.length > 0) {
    const results = resolution.results.map((r, i) => {
      const p = problems.find((q) => q.index === i);
      if (p) return { ...r, success: false, status: 'failed' as const, error: p.error.toJSON() };
      return { ...r, success: false, status: 'not_applied' as const, error: undefined };
    });
    for (const r of results) if (r.error === undefined) delete r.error;
    return { result: failure(draft.name, draft.tip, results, problems) };
  }

  const edited = editTree(staged, base, resolution.changes);
  // A batch on a path in conflict settles it, even one that leaves its content as it is.
  const resolved = resolvedBy(draft, touched, options.resolve);
  if (edited.root === base && !options.allowEmpty && resolved.length === 0) {
    return { result: { success: true, results: resolution.results, commit: draft.tip, batch: null, draft: draft.name, unchanged: true } };
  }

  // 4. Build the commits: capture (if any), then the batch.
  const tipTrailers = parseTrailers(tipCommit.message);
  const batch = Math.max(draft.meta.high_batch, tipTrailers.batch ?? 0, tipTrailers.capture ?? 0) + 1;
  const committer = repo.committer();
  const objects: PackObject[] = [];
  let parent = draft.tip;
  const capturedPaths = [...plan.changes.keys()];
  if (plan.changes.size > 0) {
    for (const [oid, content] of plan.blobs) objects.push({ oid, type: 'blob', content });
    const captureCommit: Commit = {
      tree: base,
      parents: [parent],
      author: committer,
      committer,
      message: captureMessage(draft.name, batch, capturedPaths),
    };
    parent = pushCommit(ws, objects, captureCommit);
  }
  for (const entry of resolution.changes.values()) {
    if (entry && resolution.blobs.has(entry.oid)) objects.push({ oid: entry.oid, type: 'blob', content: resolution.blobs.get(entry.oid)! });
  }
  for (const t of [...staged.trees.values(), ...edited.trees]) objects.push({ oid: t.oid, type: 'tree', content: t.content });
  const who = options.identity;
  const trailers: ShadowTrailers = { draft: draft.name, batch, actor: options.actor, actorType: who?.type, model: who?.model, ...options.trailers, ops: fingerprint, request: input.request_id };
  const batchCommit: Commit = {
    tree: edited.root,
    parents: [parent],
    author: repo.actorSignature(options.actor),
    committer,
    message: batchMessage(input.intent, resolution.opLines, trailers, resolvedLines(resolved), who ? attributionLines(options.actor, who, repo.config.get('shadow.trailer')) : []),
  };
  const oid = pushCommit(ws, objects, batchCommit);
  // Written by the caller, while it takes the ref's lock.
  const trees = [...staged.trees.values(), ...edited.trees];

  const newBases: Record<string, { mode: string; oid: Oid } | null> = {};
  for (const [path, entry] of plan.changes) newBases[path] = entry;
  // Exactly the paths the batch commit changes, as a walk of the history would find them.
  for (const [path, after] of resolution.changes) {
    if (draft.meta.bases.has(path) || path in newBases) continue;
    const before = lookupPath(staged, base, path);
    const entry = before.kind === 'file' ? { mode: before.mode, oid: before.oid } : null;
    if (entry?.oid === after?.oid && entry?.mode === after?.mode) continue;
    newBases[path] = entry;
  }
  const result: BatchResult = { success: true, results: resolution.results, commit: oid, batch, draft: draft.name };
  if (capturedPaths.length > 0) result.captured = capturedPaths;
  if (resolved.length > 0) result.resolved = resolved;
  return { result, commit: { oid, batch, summary: batchCommit.message.split('\n')[0]!, newBases, objects, trees } };
}

function pushCommit(ws: Workspace, objects: PackObject[], commit: Commit): Oid {
  const content = serializeCommit(commit);
  const oid = hashObject('commit', content);
  objects.push({ oid, type: 'commit', content });
  ws.repo.objects.rememberCommit(oid, commit);
  return oid;
}
