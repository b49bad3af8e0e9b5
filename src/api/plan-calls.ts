/**
 * The library's plans: run a plan's batches on a draft, resume it, stop it,
 * and say where it stands (src/plans/). The plan code loads only when one of
 * these is called.
 */
import type { PlanOutcome, ResumeOptions, RunOptions, Tracker } from '../plans/plan.js';
import type { DraftOption, ShadowCore } from './shadow-core.js';

export interface PlanCalls {
  /**
   * Run a plan (its text: JSON, or JSON Lines of batches) on a draft, from
   * the first batch not yet on it, or `from`. `shouldStop` is checked
   * between batches; so is a `shadow stop` request.
   *
   * @example
   * const out = await sh.runPlan(await readFile('plan.jsonl', 'utf8'), { onEvent: (e) => console.log(e.type) });
   */
  runPlan(
    planText: string,
    options?: DraftOption & Omit<RunOptions, 'draft' | 'actor'> & { actor?: string },
  ): Promise<PlanOutcome>;

  /**
   * Resume the draft's last plan after the last batch on the draft. Reads the
   * plan file the run was started with (or `planText`); PLAN_CHANGED when it
   * changed since, unless `force`. `skip` skips the batch that failed.
   */
  resumePlan(options?: DraftOption & Omit<ResumeOptions, 'draft' | 'actor'> & { actor?: string }): Promise<PlanOutcome>;

  /** Ask the plan running on the draft (in any process) to stop after its current batch. */
  stopPlan(options?: DraftOption): Promise<Tracker>;

  /** Where the draft's plan stands: the tracker, with its progress checked against the draft's commits. */
  planStatus(options?: DraftOption): Promise<Tracker | undefined>;
}

export const planCalls: PlanCalls & ThisType<ShadowCore & PlanCalls> = {
  async runPlan(planText, options = {}) {
    const [{ runPlan }, { parsePlan }] = await Promise.all([
      import('../plans/plan.js'),
      import('../plans/plan-file.js'),
    ]);
    return runPlan(this.ws, parsePlan(planText), {
      ...options,
      draft: this.draftName(options),
      actor: this.actor(options.actor),
    });
  },

  async resumePlan(options = {}) {
    const { resumePlan } = await import('../plans/plan.js');
    return resumePlan(this.ws, { ...options, draft: this.draftName(options), actor: this.actor(options.actor) });
  },

  async stopPlan(options = {}) {
    const { requestStop } = await import('../plans/plan.js');
    return requestStop(this.ws, this.draftName(options));
  },

  async planStatus(options = {}) {
    const draft = this.draftName(options);
    const { planProgress, readTracker } = await import('../plans/plan.js');
    const t = readTracker(this.ws, draft);
    if (!t) return undefined;
    const done = planProgress(this.ws, draft, t.plan_id);
    return { ...t, last_completed_batch_id: done.size === 0 ? 0 : Math.max(...done) };
  },
};
