import { resolve } from 'node:path';
import type { PlanEvent, PlanOutcome } from '../../src/index.js';
import { EXIT } from '../exit-status.js';
import { plural } from '../output.js';
import { readInputText } from '../read-input.js';
import type { CommandContext } from '../command-context.js';

/** Exit status of a run stopped by a signal or `shadow stop` (128 + SIGINT). */
const STOPPED = 130;

function clock(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * Progress: on a terminal a bar on stderr (batch i of n, ops, elapsed,
 * ETA); otherwise, or with --json, one JSON event a line on stdout.
 */
function reporter(ctx: CommandContext): {
  onEvent: (e: PlanEvent) => void;
  current: () => { done: number; total: number };
} {
  const bar = ctx.io.isTTY && !ctx.out.json;
  const started = Date.now();
  let done = 0;
  let total = 0;
  let first = 1;
  let ops = 0;
  const onEvent = (e: PlanEvent): void => {
    if (e.type === 'plan/start') {
      total = e.total;
      first = e.start;
      done = e.start - 1;
    }
    if (e.type === 'batch/commit') {
      done = e.plan_batch;
      ops += e.ops;
    }
    if (!bar) {
      ctx.io.stdout(`${JSON.stringify(e)}\n`);
      return;
    }
    if (e.type !== 'batch/commit' && e.type !== 'plan/start') return;
    const elapsed = Date.now() - started;
    const ranHere = done - first + 1;
    const eta = ranHere > 0 ? ((total - done) * elapsed) / ranHere : 0;
    const width = 24;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    ctx.io.stderr(
      `\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] batch ${done} of ${total} · ${plural(ops, 'op')} · ${clock(elapsed)} elapsed · ETA ${clock(eta)}\x1b[K`,
    );
  };
  return { onEvent, current: () => ({ done, total }) };
}

/** SIGINT and SIGTERM ask the run to stop after its current batch; a second one ends at once. */
function stopOnSignals(
  ctx: CommandContext,
  current: () => { done: number; total: number },
): { stop: () => boolean; release: () => void } {
  let requested = false;
  const handler = (): void => {
    if (requested) process.exit(STOPPED);
    requested = true;
    const { done, total } = current();
    ctx.io.stderr(`\nstopping after batch ${Math.min(done + 1, total)} of ${total}… (again to stop at once)\n`);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    stop: () => requested,
    release: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

function finish(ctx: CommandContext, out: PlanOutcome): number {
  if (ctx.io.isTTY && !ctx.out.json) ctx.io.stderr('\n');
  if (out.status === 'complete') {
    if (!ctx.out.json && !ctx.io.isTTY) return EXIT.ok;
    ctx.io.stderr(`plan ${out.plan} complete: ${plural(out.total, 'batch', 'batches')} (${out.ran} run now)\n`);
    return EXIT.ok;
  }
  if (out.status === 'stopped') {
    ctx.io.stderr(
      `stopped after batch ${out.last_completed_batch_id} of ${out.total}; continue with \`shadow resume\`\n`,
    );
    return STOPPED;
  }
  ctx.io.stderr(`error: batch ${out.failed!.batch_id} of plan ${out.plan} failed: ${out.failed!.error.message}\n`);
  ctx.io.stderr(
    `hint: the draft stays at batch ${out.last_completed_batch_id}; fix the plan and \`shadow resume --force\`, retry with \`shadow resume\`, or skip the batch with \`shadow resume --skip\`\n`,
  );
  return EXIT.error;
}

/** `shadow run <plan> [--from N]` */
export async function run(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const file = String(ctx.argv.plan);
  const text = await readInputText(file, ctx.dir, ctx.io, 'plan');
  const progress = reporter(ctx);
  const signals = stopOnSignals(ctx, progress.current);
  try {
    const out = await sh.runPlan(text, {
      draft: ctx.draft,
      actor: ctx.actor,
      from: ctx.argv.from as number | undefined,
      planFile: file === '-' || file === '' ? undefined : resolve(ctx.dir, file),
      shouldStop: signals.stop,
      onEvent: progress.onEvent,
    });
    return finish(ctx, out);
  } finally {
    signals.release();
  }
}

/** `shadow resume [plan] [--force] [--skip]` */
export async function resume(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const file = ctx.argv.plan as string | undefined;
  const planText = file === undefined ? undefined : await readInputText(file, ctx.dir, ctx.io, 'plan');
  const progress = reporter(ctx);
  const signals = stopOnSignals(ctx, progress.current);
  try {
    const out = await sh.resumePlan({
      draft: ctx.draft,
      actor: ctx.actor,
      planText,
      force: ctx.argv.force === true,
      skip: ctx.argv.skip === true,
      shouldStop: signals.stop,
      onEvent: progress.onEvent,
    });
    return finish(ctx, out);
  } finally {
    signals.release();
  }
}

/** `shadow stop` */
export async function stop(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const t = await sh.stopPlan({ draft: ctx.draft });
  ctx.out.result(
    t,
    () =>
      `asked plan ${t.plan_id} (process ${t.pid}) to stop after its current batch (batch ${t.last_completed_batch_id + 1} of ${t.total})`,
  );
}
