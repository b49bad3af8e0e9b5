import type { ApplyResult, PathConflict, PublishedPath, RecoveryReport } from '../../src/index.js';
import { ShadowError } from '../../src/index.js';
import { EXIT } from '../exit-status.js';
import { pad, plural, short } from '../output.js';
import type { CommandContext } from '../command-context.js';

function pathLines(paths: readonly PublishedPath[]): string[] {
  return paths.map((p) => `  ${pad(p.action, 7)} ${p.path}`);
}

function conflictLines(conflicts: readonly PathConflict[]): string[] {
  return conflicts.map((c) => `  ${pad(c.found, 13)} ${c.path}${c.detail ? ` (${c.detail})` : ''}${c.expected ? `  expected ${short(c.expected)}` : '  expected absent'}`);
}

function describeApply(r: ApplyResult): string {
  const lines: string[] = [];
  if (r.paths.length === 0) lines.push(`nothing to apply: draft ${r.draft} changes nothing the working tree does not already hold`);
  else if (r.dry_run) lines.push(`would apply draft ${r.draft} (${short(r.tip)}): ${plural(r.paths.length, 'path')}`);
  else lines.push(`applied draft ${r.draft} (${short(r.tip)}): ${plural(r.paths.length, 'path')}`);
  lines.push(...pathLines(r.paths));
  if (r.dry_run && r.pendingApprovals.length > 0) {
    lines.push(`approvals needed first (${r.pendingApprovals.length}):`, ...r.pendingApprovals.map((a) => `  ${a.id}  ${pad(a.kind, 16)} ${a.reason}`));
  }
  if (r.dry_run && r.paths.length > 0 && r.conflicts.length === 0 && r.unwritable.length === 0 && r.pendingApprovals.length === 0) lines.push('no conflicts: `shadow apply` would write these paths');
  if (r.unwritable.length > 0) lines.push(`cannot write in: ${r.unwritable.join(', ')}`);
  if (r.skipped.length > 0) lines.push(`submodules left as they are: ${r.skipped.join(', ')}`);
  if (r.branch) lines.push(`${r.branch.ref.replace(/^refs\/heads\//, '')}: ${short(r.branch.old)} -> ${short(r.branch.new)} (${r.branch.how})`);
  if (r.applied) lines.push('undo it with `shadow unapply`');
  return lines.join('\n');
}

/** On a terminal, a progress line for large applies (path count and bytes), at most every 100 ms. */
function progressBar(ctx: CommandContext): ((done: number, total: number, bytes: number) => void) | undefined {
  if (!ctx.io.isTTY || ctx.out.json) return undefined;
  let last = 0;
  return (done, total, bytes) => {
    const now = Date.now();
    if (total < 100 || (now - last < 100 && done < total)) return;
    last = now;
    const width = 30;
    const filled = Math.round((done / total) * width);
    ctx.io.stderr(`\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total} paths, ${(bytes / 1024 / 1024).toFixed(1)} MB`);
  };
}

/** `shadow apply [--dry-run] [--commit | --squash -m <msg>]` */
export async function apply(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const squash = ctx.argv.squash === true ? String(ctx.argv.message ?? '') : undefined;
  if (squash !== undefined && squash.trim() === '') {
    throw new ShadowError('USAGE', '--squash needs a commit message: -m "<message>"', { hint: 'shadow apply --squash -m "what the change does"' });
  }
  const r = await sh.apply({
    draft: ctx.draft,
    actor: ctx.actor,
    dryRun: ctx.argv['dry-run'] === true,
    commit: ctx.argv.commit === true,
    squash,
    sandbox: ctx.argv.sandbox as 'read-only' | 'workspace-write' | undefined,
    onProgress: progressBar(ctx),
  });
  if (ctx.io.isTTY) ctx.io.stderr('\r\x1b[K');
  if (!r.ok && !r.dry_run) {
    ctx.out.result(r, () =>
      [
        `apply of draft ${r.draft} needs ${plural(r.pendingApprovals.length, 'approval')}; nothing was written`,
        ...r.pendingApprovals.map((a) => `  ${a.id}  ${pad(a.kind, 16)} ${a.reason}`),
        `approve with \`shadow approve <id>\` (or deny with \`shadow deny <id> --reason "…"\`), then apply again`,
      ].join('\n'),
    );
    return EXIT.approvals;
  }
  if (r.dry_run && (r.conflicts.length > 0 || r.unwritable.length > 0)) {
    const code = r.conflicts.length > 0 ? 'STALE_BASE' : 'NOT_WRITABLE';
    const message = r.conflicts.length > 0
      ? `apply would stop before writing anything: ${plural(r.conflicts.length, 'path')} no longer hold what the draft was based on`
      : `apply would stop before writing anything: cannot write in ${r.unwritable.join(', ')}`;
    if (ctx.out.json) {
      ctx.out.error({ code, message, hint: 'look with `shadow status`, keep or revert your change, then apply again', data: { ...r } });
    } else {
      ctx.io.stdout(`${describeApply(r)}\n`);
      if (r.conflicts.length > 0) ctx.io.stdout(`conflicts (${r.conflicts.length}):\n${conflictLines(r.conflicts).join('\n')}\n`);
      ctx.io.stderr(`error: ${message}\n`);
    }
    return EXIT.error;
  }
  ctx.out.result(r, () => describeApply(r));
  return EXIT.ok;
}

/** `shadow unapply` */
export async function unapply(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const r = await sh.unapply({ draft: ctx.draft, actor: ctx.actor, sandbox: ctx.argv.sandbox as 'read-only' | 'workspace-write' | undefined });
  ctx.out.result(r, () =>
    [
      `unapplied draft ${r.draft}: ${plural(r.paths.length, 'path')} put back as they were before the last apply`,
      ...pathLines(r.paths),
      ...(r.branch ? [`${r.branch.ref.replace(/^refs\/heads\//, '')}: ${short(r.branch.old)} -> ${short(r.branch.new)}`] : []),
      '`shadow apply` publishes the same changes again',
    ].join('\n'),
  );
}

function describeRecovery(r: RecoveryReport): string {
  const elsewhere = r.elsewhere.map((e) => `an interrupted apply of draft ${e.draft} belongs to the worktree at ${e.worktree}: run \`shadow recover\` there`);
  if (r.finished.length === 0 && r.failed.length === 0 && r.unreadable.length === 0) return ['nothing to recover here: no apply of this worktree was interrupted', ...elsewhere].join('\n');
  const lines: string[] = [];
  for (const f of r.finished) {
    lines.push(`finished the interrupted ${f.kind} of draft ${f.draft}: ${plural(f.written.length, 'path')} written`);
    if (f.conflicts.length > 0) lines.push(`  left as they are (changed meanwhile): ${f.conflicts.map((c) => c.path).join(', ')}`);
  }
  for (const f of r.failed) lines.push(`could not finish an apply of draft ${f.draft}: ${f.error}`);
  for (const u of r.unreadable) lines.push(`unreadable journal left in place: ${u}`);
  return [...lines, ...elsewhere].join('\n');
}

/** `shadow recover` */
export async function recover(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  // Opening already recovered, if anything was interrupted; report that.
  const r = sh.recovered ?? (await sh.recover());
  ctx.out.result(r, () => describeRecovery(r));
  return r.failed.length > 0 || r.unreadable.length > 0 ? EXIT.error : EXIT.ok;
}
