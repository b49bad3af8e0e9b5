import { ShadowError } from '../../errors.js';
import type { Oid } from '../../git/format/git-objects.js';
import { RefMoved } from '../../git/refs.js';
import type { BatchResult } from './batch-result.js';
import { attemptBatch, type Attempt, type PreparedBatch } from './batch-attempt.js';
import { HARD_MAX_ATTEMPTS, MAX_ATTEMPTS, retryPause } from './batch-retry.js';
import { withoutResolved } from '../draft-conflicts.js';
import { draftStatusWord, keepDraftMeta, loadDraft, publishDraft, requireDraft, type Draft } from '../drafts.js';
import { logEvent, logEventsOf } from '../ledger-events.js';
import { draftRef } from '../ref-names.js';
import type { Workspace } from '../workspace.js';

/**
 * Committing batches once they resolve: one batch at a time (commitOne:
 * pack, ref, ledger, with its retries when another process moves the ref),
 * or the batches that queued up on one draft while the one before them
 * committed, as a group (commitGroup): each still its own commit, on the
 * one before it, judged against the tip its client sent; their objects in
 * one pack, the ref moved once, their ledger lines appended with one fsync.
 * A crash leaves the ref before the group or after it, never inside it, and
 * the ledger never names a batch the ref does not hold; no client hears of
 * its batch before the group is durable.
 */

/** A batch waiting for its turn on a draft, with the draft as it was when the batch arrived. */
export interface BatchJob extends PreparedBatch {
  first: Draft;
  /** The draft did not exist when the batch arrived: its first commit makes it. */
  unborn: boolean;
  done(result: BatchResult): void;
  failed(error: unknown): void;
}

type Committed = Required<Attempt>['commit'];

/** Merging packs is upkeep: in steps between requests while the handle serves, whole at its close (nothing runs on after it). */
function mergePacks(repo: Workspace['repo'], closing: boolean): void {
  if (closing) repo.objects.mergeIfDue();
  else repo.objects.mergeInSteps();
}

function finish(result: BatchResult, created: boolean): BatchResult {
  return created ? { ...result, created_draft: true } : result;
}

/** The draft after `commit` on `draft`: its tip, and the metadata the commit brings. */
function draftAfter(draft: Draft, job: PreparedBatch, attempt: Attempt, commit: Committed): Draft {
  const added = Object.entries(commit.newBases);
  const meta = {
    ...draft.meta,
    conflicts: withoutResolved(draft.meta.conflicts, attempt.result.resolved),
    requests:
      job.input.request_id === undefined
        ? draft.meta.requests
        : { ...draft.meta.requests, [job.input.request_id]: commit.oid },
    bases: draft.meta.bases.adding(added),
    bases_tip: commit.oid,
    high_batch: Math.max(draft.meta.high_batch, commit.batch),
    status: 'open' as const,
  };
  return { ...draft, tip: commit.oid, meta, bases: draft.bases.adding(added) };
}

/** How far a commit puts draft.json behind (see META_LAG_LIMIT): its commits and paths. */
function lagOf(r: BatchResult): number {
  return (r.captured ? 2 : 1) + r.results.length + (r.captured?.length ?? 0);
}

function reflogMessage(job: PreparedBatch, commit: Committed): string {
  return `shadow: batch ${commit.batch}: ${job.input.intent?.split('\n')[0] ?? commit.summary}`;
}

/** The ledger's `batch/commit` event of a batch committed on `parent`. */
function commitEvent(
  job: PreparedBatch,
  r: BatchResult,
  parent: Oid,
): { type: string; actor: string; data: Record<string, unknown> } {
  const { options, input } = job;
  return {
    type: 'batch/commit',
    actor: options.actor,
    data: {
      batch: r.batch,
      commit: r.commit,
      parent,
      intent: input.intent?.split('\n')[0] ?? null,
      ...(options.identity
        ? { actor_type: options.identity.type, ...(options.identity.model ? { model: options.identity.model } : {}) }
        : {}),
      ops: r.results.map((x) => ({
        ...(x.to
          ? { operation: x.operation, path: x.path, to: x.to, status: x.status }
          : { operation: x.operation, path: x.path, status: x.status }),
        ...(x.files ? { files: x.files } : {}),
      })),
      captured: r.captured ?? [],
      ...options.trailers,
    },
  };
}

/**
 * Commit one batch: resolve it on the tip, write its pack while the ref's
 * lock is taken, move the ref by compare-and-swap; when another process
 * moved it first, back off and resolve again on the new tip.
 */
export async function commitOne(ws: Workspace, job: BatchJob, waited: boolean): Promise<BatchResult> {
  const repo = ws.repo;
  const { options } = job;
  let draft = job.first;
  let unborn = job.unborn;
  let created = false;
  if (waited) {
    const now = loadDraft(ws, options.draft);
    if (now !== undefined) {
      draft = now;
      unborn = false;
    }
  }
  const started = ws.ctx.clock.now();
  for (let attempt = 1; ; attempt++) {
    const outcome = attemptBatch(ws, draft, job);
    if (!outcome.commit) return finish(outcome.result, created);
    // The objects go to disk while the ref's lock is taken and written: the
    // ref moves once both are durable.
    const durable = repo.objects.writeConcurrently(outcome.commit.objects);
    durable.catch(() => undefined); // awaited through the ref update, or below
    const durableVoid = durable.then(() => undefined);
    durableVoid.catch(() => undefined);
    const after = {
      meta: draftAfter(draft, job, outcome, outcome.commit).meta,
      lag: ws.drafts.lag(draft.name) + lagOf(outcome.result),
    };
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
      ws.drafts.expect(draft.name, after);
      await repo.refs.update({
        ref: draftRef(draft.name),
        expected: draft.tip,
        next: outcome.commit.oid,
        message: reflogMessage(job, outcome.commit),
        who: repo.committer(),
        after: durableVoid,
      });
    } catch (e) {
      ws.drafts.expect(draft.name);
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
        throw new ShadowError(
          'BUSY',
          `draft "${draft.name}" kept moving under ${attempt} attempts of this batch over ${(trying / 1000).toFixed(1)} s`,
          {
            hint: 'too many writers on one draft; retry, or give each writer its own draft',
            data: { draft: draft.name, attempts: attempt },
          },
        );
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
    // Merging packs is upkeep: no client waits for it.
    ws.afterAnswers('merge packs', (closing) => mergePacks(repo, closing));
    const before = draftStatusWord(ws, draft);
    keepDraftMeta(ws, after.meta, after.lag);
    const r = outcome.result;
    const event = commitEvent(job, r, draft.tip);
    await logEvent(ws, draft.name, event.type, event.actor, event.data);
    if (before !== 'open') await logEvent(ws, draft.name, 'tx/status', options.actor, { from: before, to: 'open' });
    return finish(r, created);
  }
}

/** Settle `job` with what `work` gives. */
async function settle(job: BatchJob, work: () => Promise<BatchResult>): Promise<void> {
  try {
    job.done(await work());
  } catch (e) {
    job.failed(e);
  }
}

/** Every job one by one, as if they had not been grouped. */
async function oneByOne(ws: Workspace, jobs: readonly BatchJob[]): Promise<void> {
  for (const job of jobs) await settle(job, () => commitOne(ws, job, true));
}

/**
 * Commit the batches queued on one draft (in the order sent) as a chain:
 * each resolved on the commit of the one before it and judged against the
 * tip its client sent, as if they had taken turns; the objects of all in
 * one pack, the ref moved once from the tip to the last commit (a reflog
 * line for each batch), then the ledger's lines with one fsync; only then
 * is any client answered. When the ref moved under the group (another
 * process), every batch of it runs again one by one.
 */
export async function commitGroup(ws: Workspace, jobs: readonly BatchJob[], waited: boolean): Promise<void> {
  if (jobs.length === 1) return settle(jobs[0]!, () => commitOne(ws, jobs[0]!, waited));
  const repo = ws.repo;
  const name = jobs[0]!.options.draft;
  const start = loadDraft(ws, name);
  // A draft made by its first batch: that one alone makes it.
  if (start === undefined) return oneByOne(ws, jobs);
  const results = new Map<BatchJob, BatchResult>();
  const links: Array<{ job: BatchJob; commit: Committed; result: BatchResult; parent: Oid }> = [];
  let draft = start;
  let rest: readonly BatchJob[] = [];
  for (const [i, job] of jobs.entries()) {
    let outcome: Attempt;
    try {
      outcome = attemptBatch(ws, draft, job);
    } catch {
      // Its error is its own: it and those after it run alone, after the group.
      rest = jobs.slice(i);
      break;
    }
    results.set(job, outcome.result);
    if (!outcome.commit) continue;
    repo.objects.rememberStaged(outcome.commit.objects, outcome.commit.trees);
    links.push({ job, commit: outcome.commit, result: outcome.result, parent: draft.tip });
    draft = draftAfter(draft, job, outcome, outcome.commit);
  }
  const grouped = jobs.filter((j) => results.has(j));
  if (links.length > 0) {
    const staged = links.flatMap((l) => l.commit.objects.map((o) => o.oid));
    const durable = repo.objects.writeConcurrently(links.flatMap((l) => l.commit.objects));
    durable.catch(() => undefined);
    const durableVoid = durable.then(() => undefined);
    durableVoid.catch(() => undefined);
    const last = links[links.length - 1]!;
    const lag = links.reduce((n, l) => n + lagOf(l.result), ws.drafts.lag(name));
    try {
      ws.drafts.expect(name, { meta: draft.meta, lag });
      await repo.refs.update({
        ref: draftRef(name),
        expected: start.tip,
        next: last.commit.oid,
        message: reflogMessage(last.job, last.commit),
        who: repo.committer(),
        after: durableVoid,
        passing: links.slice(0, -1).map((l) => ({ oid: l.commit.oid, message: reflogMessage(l.job, l.commit) })),
      });
    } catch (e) {
      ws.drafts.expect(name);
      repo.objects.releaseKeep(
        await durable.then(
          (idx) => idx,
          () => undefined,
        ),
      );
      repo.objects.settleStaged(staged, false);
      // Whatever was decided on the chain is void: each batch again, alone.
      if (e instanceof RefMoved) return oneByOne(ws, [...grouped, ...rest]);
      for (const job of grouped) job.failed(e);
      return oneByOne(ws, rest);
    }
    repo.objects.settleStaged(staged, true);
    repo.objects.releaseKeep(await durable);
    // Merging packs is upkeep: no client waits for it.
    ws.afterAnswers('merge packs', (closing) => mergePacks(repo, closing));
    const before = draftStatusWord(ws, start);
    keepDraftMeta(ws, draft.meta, lag);
    const events = links.map((l) => commitEvent(l.job, l.result, l.parent));
    if (before !== 'open')
      events.splice(1, 0, {
        type: 'tx/status',
        actor: links[0]!.job.options.actor,
        data: { from: before, to: 'open' },
      });
    try {
      await logEventsOf(ws, name, events);
    } catch (e) {
      for (const job of grouped) job.failed(e);
      return oneByOne(ws, rest);
    }
  }
  for (const job of grouped) job.done(results.get(job)!);
  await oneByOne(ws, rest);
}
