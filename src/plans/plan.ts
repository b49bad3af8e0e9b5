import * as z from 'zod/mini';
import { ShadowError, type ShadowErrorJSON } from '../errors.js';
import { parseTrailers } from '../drafts/commit-message.js';
import type { Oid } from '../git/format/git-objects.js';
import { draftDir, planLockPath } from '../state/draft-meta.js';
import { readTextIfExists, tryUnlink, writeFileAtomic } from '../durable/durable-file.js';
import { takeProcessLock, type HeldLock } from '../durable/process-lock.js';
import { batchTooLarge } from '../drafts/batch/batch-bounds.js';
import { runBatch } from '../drafts/batch/batch.js';
import { loadDraft } from '../drafts/drafts.js';
import { logEvent } from '../drafts/ledger-events.js';
import { parsePlan, type Plan } from './plan-file.js';
import type { Workspace } from '../drafts/workspace.js';
import { readJsonFile } from '../durable/json-file.js';

/**
 * Running a plan: its batches in order, each one atomic batch commit with
 * `Shadow-Plan` and `Shadow-Plan-Batch` trailers. The draft's commits are the
 * truth about progress: a batch whose commit is on the draft is done, whatever
 * `tracker.json` (a cache of the progress, for people and for `shadow
 * resume`) says. A stop is honoured between batches only.
 */

const TrackerSchema = z.object({
  version: z.literal(1),
  plan_id: z.string(),
  fingerprint: z.string(),
  plan_file: z.nullable(z.string()),
  total: z.number(),
  last_completed_batch_id: z.number(),
  status: z.enum(['running', 'stopped', 'failed', 'complete']),
  pid: z.nullable(z.number()),
  host: z.nullable(z.string()),
  failed: z.optional(z.object({ batch_id: z.number(), code: z.string(), message: z.string() })),
  skipped: z.array(z.number()),
  started_at: z.string(),
  updated_at: z.string(),
});

export type Tracker = z.infer<typeof TrackerSchema>;

/** A progress event of a run (also what `--json` prints, one a line). */
export type PlanEvent =
  | { type: 'plan/start'; plan: string; total: number; start: number }
  | {
      type: 'batch/commit';
      plan: string;
      plan_batch: number;
      total: number;
      batch: number | null;
      commit: Oid | null;
      ops: number;
    }
  | { type: 'plan/stopped'; plan: string; last_completed_batch_id: number; total: number }
  | { type: 'plan/failed'; plan: string; batch_id: number; error: ShadowErrorJSON }
  | { type: 'plan/complete'; plan: string; total: number };

export interface RunOptions {
  draft: string;
  actor: string;
  /** Start at this batch (an explicit restart point); else after the last batch on the draft. */
  from?: number;
  /** Skip the batch the tracker says failed (and record that). */
  skipFailed?: boolean;
  /** The plan file, remembered for `shadow resume`. */
  planFile?: string;
  /** Checked between batches: true stops the run before the next one. */
  shouldStop?: () => boolean;
  onEvent?: (e: PlanEvent) => void;
}

export interface PlanOutcome {
  plan: string;
  status: 'complete' | 'stopped' | 'failed';
  total: number;
  last_completed_batch_id: number;
  /** Batches run by this call. */
  ran: number;
  failed?: { batch_id: number; error: ShadowErrorJSON };
}

function trackerPath(ws: Workspace, draft: string): string {
  return `${draftDir(ws.repo.shadowDir, draft)}/tracker.json`;
}

function stopPath(ws: Workspace, draft: string): string {
  return `${draftDir(ws.repo.shadowDir, draft)}/stop`;
}

export function readTracker(ws: Workspace, draft: string): Tracker | undefined {
  return readJsonFile(ws.ctx.fs, trackerPath(ws, draft), TrackerSchema);
}

function writeTracker(ws: Workspace, draft: string, t: Tracker): void {
  // A cache: the draft's commits are the truth, so no fsync is needed here.
  writeFileAtomic(ws.ctx.fs, trackerPath(ws, draft), `${JSON.stringify(t, null, 1)}\n`, {
    token: ws.ctx.ids.token(),
    durable: false,
  });
}

/** The plan batches whose commits are on the draft: the truth about a plan's progress. */
export function planProgress(ws: Workspace, draftName: string, planId: string): Set<number> {
  const done = new Set<number>();
  const draft = loadDraft(ws, draftName);
  if (!draft) return done;
  let oid: Oid | undefined = draft.tip;
  while (oid !== undefined && oid !== draft.meta.root) {
    const c = ws.repo.objects.readCommit(oid);
    const t = parseTrailers(c.message);
    if (t.plan === planId && t.planBatch !== undefined) done.add(Number(t.planBatch));
    oid = c.parents[0];
  }
  return done;
}

/** Ask a running plan to stop after its current batch. */
export function requestStop(ws: Workspace, draft: string): Tracker {
  const t = readTracker(ws, draft);
  const procs = ws.ctx.processes;
  const alive = t?.status === 'running' && t.pid !== null && (!procs || t.host !== procs.host || procs.isAlive(t.pid));
  if (!t || !alive) {
    throw new ShadowError('NO_PLAN', `no plan is running on draft "${draft}"`, {
      hint:
        t && t.status === 'running'
          ? 'the last run was interrupted: `shadow resume` continues it'
          : 'start one with `shadow run <plan>`',
      data: { draft, tracker: t ?? null },
    });
  }
  ws.ctx.fs.writeFileSync(stopPath(ws, draft), `${new Date(ws.ctx.clock.now()).toISOString()}\n`);
  return t;
}

/**
 * Run `plan` on a draft from the first batch not yet on it (or `from`).
 * Between batches: a stop request (signal or `shadow stop`) ends the run
 * with status `stopped`. A failing batch leaves the draft at the last good
 * batch and the tracker naming the failure.
 */
export async function runPlan(ws: Workspace, plan: Plan, options: RunOptions): Promise<PlanOutcome> {
  // Every batch is held to the batch limits before the first runs, as the plan is validated whole.
  for (const b of plan.batches) {
    const tooLarge = batchTooLarge(b, ws.settings.batchLimits, `batch ${b.id} of plan ${plan.id}`);
    if (tooLarge) throw tooLarge;
  }
  // One runner per draft: two would both run the batches after the last on the draft.
  let lock: HeldLock;
  try {
    lock = takeProcessLock(ws.ctx, planLockPath(ws.repo.shadowDir, options.draft), `shadow run ${plan.id}`);
  } catch (e) {
    if (!(e instanceof ShadowError && e.code === 'LOCKED')) throw e;
    throw new ShadowError('BUSY', `a plan is already running on draft "${options.draft}": ${e.message}`, {
      hint: 'wait for it, or stop it with `shadow stop`; one plan runs on a draft at a time',
      data: { draft: options.draft, ...(e.data ?? {}) },
    });
  }
  try {
    return await runLocked(ws, plan, options);
  } finally {
    lock.release();
  }
}

async function runLocked(ws: Workspace, plan: Plan, options: RunOptions): Promise<PlanOutcome> {
  const { draft, actor } = options;
  const total = plan.batches.length;
  const done = planProgress(ws, draft, plan.id);
  const previous = readTracker(ws, draft);
  const skipped = previous?.plan_id === plan.id ? [...previous.skipped] : [];
  // Skipped batches count as done: a resume never runs one again by itself.
  let start = options.from ?? Math.max(0, ...done, ...skipped) + 1;
  if (
    options.skipFailed &&
    previous?.status === 'failed' &&
    previous.failed &&
    previous.plan_id === plan.id &&
    options.from === undefined
  ) {
    skipped.push(previous.failed.batch_id);
    start = Math.max(start, previous.failed.batch_id + 1);
    await logEvent(ws, draft, 'plan/skip', actor, {
      plan: plan.id,
      batch_id: previous.failed.batch_id,
      reason: previous.failed.message,
    });
  }
  if (start < 1 || start > total + 1) {
    throw new ShadowError('INVALID_ARGUMENT', `--from ${start} is outside the plan's batches 1..${total}`, {
      data: { from: start, total },
    });
  }
  const procs = ws.ctx.processes;
  const now = (): string => new Date(ws.ctx.clock.now()).toISOString();
  const tracker: Tracker = {
    version: 1,
    plan_id: plan.id,
    fingerprint: plan.fingerprint,
    plan_file: options.planFile ?? previous?.plan_file ?? null,
    total,
    last_completed_batch_id: start - 1,
    status: 'running',
    pid: procs?.self ?? null,
    host: procs?.host ?? null,
    skipped,
    started_at: now(),
    updated_at: now(),
  };
  tryUnlink(ws.ctx.fs, stopPath(ws, draft));
  writeTracker(ws, draft, tracker);
  const emit = (e: PlanEvent): void => options.onEvent?.(e);
  emit({ type: 'plan/start', plan: plan.id, total, start });
  if (start <= total)
    await logEvent(ws, draft, 'plan/start', actor, { plan: plan.id, fingerprint: plan.fingerprint, total, start });

  const stopRequested = (): boolean =>
    options.shouldStop?.() === true || readTextIfExists(ws.ctx.fs, stopPath(ws, draft)) !== undefined;
  let ran = 0;
  for (let id = start; id <= total; id++) {
    // A batch may run without ever waiting on I/O; let signal handlers and
    // timers run between batches so a stop request is seen here.
    if (id > start) await new Promise<void>((next) => setImmediate(next));
    if (stopRequested()) {
      tryUnlink(ws.ctx.fs, stopPath(ws, draft));
      writeTracker(ws, draft, { ...tracker, status: 'stopped', updated_at: now() });
      emit({ type: 'plan/stopped', plan: plan.id, last_completed_batch_id: tracker.last_completed_batch_id, total });
      await logEvent(ws, draft, 'plan/stopped', actor, {
        plan: plan.id,
        last_completed_batch_id: tracker.last_completed_batch_id,
        total,
      });
      return { plan: plan.id, status: 'stopped', total, last_completed_batch_id: tracker.last_completed_batch_id, ran };
    }
    // Even from an explicit --from, a batch whose commit is on the draft is never applied again
    // (after a rollback it is not on the draft any more, and runs).
    if (done.has(id)) {
      tracker.last_completed_batch_id = id;
      continue;
    }
    const b = plan.batches[id - 1]!;
    const intent = b.intent ?? `${plan.intent ?? plan.id}: batch ${id} of ${total}`;
    const r = await runBatch(
      ws,
      { intent, operations: b.operations },
      {
        draft,
        actor: b.actor ?? actor,
        allowEmpty: true,
        trailers: { plan: plan.id, planBatch: String(id) },
      },
    );
    if (!r.success) {
      const error = r.error ?? { code: 'BATCH_FAILED', message: 'the batch failed' };
      tracker.status = 'failed';
      tracker.failed = { batch_id: id, code: error.code, message: error.message };
      writeTracker(ws, draft, { ...tracker, updated_at: now() });
      emit({ type: 'plan/failed', plan: plan.id, batch_id: id, error });
      await logEvent(ws, draft, 'plan/failed', actor, {
        plan: plan.id,
        batch_id: id,
        code: error.code,
        message: error.message,
      });
      return {
        plan: plan.id,
        status: 'failed',
        total,
        last_completed_batch_id: tracker.last_completed_batch_id,
        ran,
        failed: { batch_id: id, error },
      };
    }
    ran++;
    tracker.last_completed_batch_id = id;
    delete tracker.failed;
    writeTracker(ws, draft, { ...tracker, updated_at: now() });
    emit({
      type: 'batch/commit',
      plan: plan.id,
      plan_batch: id,
      total,
      batch: r.batch,
      commit: r.commit,
      ops: b.operations.length,
    });
  }
  tryUnlink(ws.ctx.fs, stopPath(ws, draft));
  writeTracker(ws, draft, { ...tracker, status: 'complete', updated_at: now() });
  emit({ type: 'plan/complete', plan: plan.id, total });
  if (start <= total) await logEvent(ws, draft, 'plan/complete', actor, { plan: plan.id, total });
  return { plan: plan.id, status: 'complete', total, last_completed_batch_id: total, ran };
}

export interface ResumeOptions {
  draft: string;
  actor: string;
  /** The plan's text, when the tracker does not name its file (or it moved). */
  planText?: string;
  /** Run a plan file that changed since its run began. */
  force?: boolean;
  /** Skip the batch that failed. */
  skip?: boolean;
  shouldStop?: () => boolean;
  onEvent?: (e: PlanEvent) => void;
}

/**
 * Resume the draft's last plan after the last batch on the draft. Reads the
 * plan file the run was started with (or `planText`); PLAN_CHANGED when it
 * changed since, unless `force`. `skip` skips the batch that failed.
 */
export async function resumePlan(ws: Workspace, options: ResumeOptions): Promise<PlanOutcome> {
  const tracker = readTracker(ws, options.draft);
  let text = options.planText;
  if (text === undefined) {
    if (!tracker?.plan_file) {
      throw new ShadowError('NO_PLAN', `draft "${options.draft}" has no plan to resume`, {
        hint: 'give the plan: `shadow resume <plan>`, or start one with `shadow run <plan>`',
      });
    }
    text = readTextIfExists(ws.ctx.fs, tracker.plan_file);
    if (text === undefined) {
      throw new ShadowError('NO_PLAN', `the plan file ${tracker.plan_file} is gone`, {
        hint: 'give the plan: `shadow resume <plan>`',
      });
    }
  }
  const plan = parsePlan(text);
  if (tracker && tracker.fingerprint !== plan.fingerprint) {
    if (!options.force) {
      throw new ShadowError('PLAN_CHANGED', `the plan changed since its run began (plan ${tracker.plan_id})`, {
        hint: 'resume with --force to run the plan as it is now, from where the draft stands',
        data: { was: tracker.fingerprint, now: plan.fingerprint },
      });
    }
    // An edited plan without an id of its own is still the run it continues:
    // its derived id would change with its content and lose the progress.
    if (!plan.idGiven) plan.id = tracker.plan_id;
  }
  return runPlan(ws, plan, {
    draft: options.draft,
    actor: options.actor,
    skipFailed: options.skip,
    shouldStop: options.shouldStop,
    onEvent: options.onEvent,
    planFile: tracker?.plan_file ?? undefined,
  });
}
