import type { ApplyResult, BatchResult, RebaseResult, RevertResult } from '../../src/index.js';
import { pad, plural, short } from '../output.js';
import type { CommandContext } from '../command-context.js';

function describeRebase(r: RebaseResult): string {
  if (r.unchanged)
    return `draft ${r.draft} already stands on the ${r.base === 'working tree' ? 'working tree as it is' : r.base}: nothing to rebase`;
  const lines = [
    `rebased draft ${r.draft} onto ${r.base === 'working tree' ? 'the working tree' : r.base}: ${short(r.from)} -> ${short(r.tip)} (batch ${r.batch})`,
  ];
  for (const p of r.paths) lines.push(`  ${pad(p.status, 8)} ${p.path}${p.reason ? `  (${p.reason})` : ''}`);
  const absorbed = r.paths.filter((p) => p.status === 'absorbed').length;
  if (absorbed > 0)
    lines.push(`${plural(absorbed, 'path')} the new base already holds as the draft does: no longer changes`);
  if (r.conflicts.length > 0) {
    lines.push(
      `${plural(r.conflicts.length, 'path')} in conflict, kept in the draft (git's markers where both changed the same lines):`,
      '  resolve each with a batch on it, or `shadow resolve <path>` to keep it as it is; `shadow apply` refuses them until then',
    );
  }
  if (r.kept) lines.push(`the tip it left is kept as checkpoint ${r.kept}; \`shadow undo\` reverses the rebase`);
  return lines.join('\n');
}

/** `shadow rebase [--onto <commit-ish>]` */
export async function rebase(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const onto = typeof ctx.argv.onto === 'string' ? ctx.argv.onto : undefined;
  const r = await sh.rebase({ draft: ctx.draft, actor: ctx.actor, onto });
  ctx.out.result(r, () => describeRebase(r));
}

/** `shadow resolve <paths..>` */
export async function resolve(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const specs = Array.isArray(ctx.argv.paths) ? (ctx.argv.paths as unknown[]).map(String) : [];
  const paths = await Promise.all(specs.map((s) => ctx.repoPath(s)));
  const r: BatchResult = await sh.resolve(paths, { draft: ctx.draft, actor: ctx.actor });
  ctx.out.result(
    r,
    () =>
      `resolved ${plural(r.resolved?.length ?? 0, 'path')} of draft ${r.draft} as it holds them (batch ${r.batch}): ${(r.resolved ?? []).join(', ')}`,
  );
}

/** `shadow revert <batches..>` */
export async function revert(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const targets = Array.isArray(ctx.argv.batches) ? (ctx.argv.batches as unknown[]).map(String) : [];
  const r: RevertResult & { applied?: ApplyResult } = await sh.revert(targets, {
    draft: ctx.draft,
    actor: ctx.actor,
    apply: ctx.argv.apply === true,
  });
  ctx.out.result(r, () => {
    if (r.unchanged)
      return `draft ${r.draft} holds none of the changes of batch ${r.reverted.join(', ')} any more: nothing to revert`;
    const lines = [
      `reverted batch ${r.reverted.join(', ')} of draft ${r.draft} as batch ${r.batch} (${short(r.tip)}); later batches kept`,
    ];
    for (const p of r.paths) lines.push(`  ${pad(p.status, 8)} ${p.path}${p.reason ? `  (${p.reason})` : ''}`);
    if (r.conflicts.length > 0)
      lines.push(
        `${plural(r.conflicts.length, 'path')} in conflict with later batches: resolve each with a batch on it, or \`shadow resolve <path>\``,
      );
    if (r.applied?.applied)
      lines.push(
        `applied to the working tree: ${plural(r.applied.paths.length, 'path')}; \`shadow unapply\` takes it back`,
      );
    else if (r.applied)
      lines.push(
        `not applied: ${plural(r.applied.pendingApprovals.length, 'approval')} pending (\`shadow review\`), then \`shadow apply\``,
      );
    return lines.join('\n');
  });
}
