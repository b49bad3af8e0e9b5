import { ShadowError } from '../../errors.js';
import { batchMessage, captureMessage, parseTrailers, type ShadowTrailers } from '../commit-message.js';
import { hashObject, serializeCommit, type Commit, type Oid, type TreeEntry } from '../../git/format/git-objects.js';
import { opPaths, type BatchInput, type OpResult } from './ops.js';
import type { BatchResult } from './batch-result.js';
import { resolveBatch, type Patcher, type Resolution } from './resolve-batch.js';
import { editTree } from '../../git/format/tree-edit.js';
import { lookupPath } from '../../git/format/tree-lookup.js';
import type { PackObject } from '../../git/format/pack-writer.js';
import { planCaptures } from './captures.js';
import { skipWorktreeEntry } from '../view/sparse-paths.js';
import { standsOn, type Draft } from '../drafts.js';
import { concurrentConflicts } from './batch-conflicts.js';
import { StagedObjects } from './staged-objects.js';
import { alreadyApplied, isRetryOf, replayed } from './batch-retry.js';
import { resolvedLines } from '../conflict-lines.js';
import { attributionLines, type Identity } from './identity.js';
import { resolvedBy } from '../draft-conflicts.js';
import { SubmoduleProbe } from '../view/submodules.js';
import type { Workspace } from '../workspace.js';

/**
 * One try of a batch on a draft's tip, in memory: every op resolved, and
 * when all resolve, the commits (a capture, then the batch) and their
 * objects, for the caller to write. Nothing here touches the disk but reads.
 */

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

/** A batch as sent, made ready to resolve (batch.ts): what each try of it needs. */
export interface PreparedBatch {
  input: BatchInput;
  options: BatchOptions;
  settings: { maxContentBytes: number; allowIgnored: boolean };
  patcher: Patcher | undefined;
  /** The tip the batch was sent on: what changed since is judged (concurrentConflicts). */
  baseTip: Oid;
  touched: string[];
  fingerprint: string;
}

export interface Attempt {
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

function failure(
  draftName: string,
  tip: Oid,
  results: OpResult[],
  problems: Array<{ index: number; error: ShadowError }>,
): BatchResult {
  const firstProblem = problems[0]!;
  const list = problems
    .map(
      (p) =>
        `#${p.index + 1} ${results[p.index]!.operation}${results[p.index]!.path ? ` ${results[p.index]!.path}` : ''}: ${p.error.message}`,
    )
    .join('; ');
  const noun = results.length === 1 ? 'operation' : 'operations';
  const error = new ShadowError(
    firstProblem.error.code,
    `batch rejected, nothing was written: ${problems.length} of ${results.length} ${noun} failed: ${list}`,
    {
      hint: firstProblem.error.hint,
      data: { failures: problems.map((p) => ({ index: p.index, ...p.error.toJSON() })) },
    },
  );
  return { success: false, results, error: error.toJSON(), commit: tip, batch: null, draft: draftName };
}

/** Resolve `job` on `draft`'s tip (see Attempt). */
export function attemptBatch(ws: Workspace, draft: Draft, job: PreparedBatch): Attempt {
  const { input, options, settings, patcher, baseTip, touched, fingerprint } = job;
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
  const resolution: Resolution = resolveBatch(staged, base, input.operations, {
    maxContentBytes: settings.maxContentBytes,
    patcher,
    forms: ws.worktreeForm(false),
  });
  const problems: Array<{ index: number; error: ShadowError }> = [];
  input.operations.forEach((op, index) => {
    const pathProblem = opPaths(op)
      .map((p) => inSubmodule.get(p) ?? plan.problems.get(p))
      .find((e) => e !== undefined);
    if (pathProblem) problems.push({ index, error: pathProblem });
  });
  resolution.problems.forEach((p) => {
    if (!problems.some((q) => q.index === p.index))
      problems.push({ index: p.index, error: new ShadowError(p.code, p.message, { hint: p.hint, data: p.data }) });
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
    return {
      result: {
        success: true,
        results: resolution.results,
        commit: draft.tip,
        batch: null,
        draft: draft.name,
        unchanged: true,
      },
    };
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
    if (entry && resolution.blobs.has(entry.oid))
      objects.push({ oid: entry.oid, type: 'blob', content: resolution.blobs.get(entry.oid)! });
  }
  for (const t of [...staged.trees.values(), ...edited.trees])
    objects.push({ oid: t.oid, type: 'tree', content: t.content });
  const who = options.identity;
  const trailers: ShadowTrailers = {
    draft: draft.name,
    batch,
    actor: options.actor,
    actorType: who?.type,
    model: who?.model,
    ...options.trailers,
    ops: fingerprint,
    request: input.request_id,
  };
  const batchCommit: Commit = {
    tree: edited.root,
    parents: [parent],
    author: repo.actorSignature(options.actor),
    committer,
    message: batchMessage(
      input.intent,
      resolution.opLines,
      trailers,
      resolvedLines(resolved),
      who ? attributionLines(options.actor, who, repo.config.get('shadow.trailer')) : [],
    ),
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
