import { short } from '../output.js';
import type { CommandContext } from '../command-context.js';

/** `shadow push [remote] [drafts..] [--all]` */
export async function push(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const drafts = (ctx.argv.drafts as string[] | undefined) ?? [];
  const r = await sh.push({
    remote: ctx.argv.remote as string | undefined,
    drafts: drafts.length > 0 ? drafts : ctx.draft === undefined ? [] : [ctx.draft],
    all: ctx.argv.all === true,
  });
  ctx.out.result(r, () =>
    r.drafts
      .map((d) => {
        const changed = d.refs.filter((x) => x.status !== 'up-to-date');
        if (changed.length === 0) return `${d.draft}: ${r.remote} already has it (${short(d.tip)})`;
        return [
          `${d.draft} -> ${r.remote}/${d.draft} at ${short(d.tip)}`,
          ...changed.map((x) => `  ${x.status.padEnd(8)} ${x.ref}  ${x.was ? `${short(x.was)}..` : ''}${short(x.oid)}`),
        ].join('\n');
      })
      .join('\n'),
  );
}

/** `shadow fetch [remote]` */
export async function fetch(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const r = await sh.fetch({ remote: ctx.argv.remote as string | undefined });
  ctx.out.result(r, () => {
    const lines = r.drafts
      .filter((d) => d.was !== d.tip)
      .map((d) => `  ${d.was ? `${short(d.was)}..${short(d.tip)}` : `new ${short(d.tip)}`}  ${d.draft}`);
    for (const p of r.pruned) lines.push(`  gone  ${p}`);
    if (lines.length === 0) return `${r.remote}: ${r.drafts.length === 0 ? 'no drafts' : 'up to date'}`;
    return [`from ${r.remote}:`, ...lines].join('\n');
  });
}

/** `shadow pull [remote] [drafts..]` */
export async function pull(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const drafts = (ctx.argv.drafts as string[] | undefined) ?? [];
  const r = await sh.pull({ remote: ctx.argv.remote as string | undefined, drafts, actor: ctx.actor });
  ctx.out.result(r, () => {
    if (r.drafts.length === 0)
      return `${r.remote}: no draft here that ${r.remote} has too (\`shadow draft list --remote ${r.remote}\` lists its drafts)`;
    return r.drafts
      .map((d) => {
        const moved =
          d.status === 'fast-forward'
            ? `fast-forward ${short(d.was)}..${short(d.tip)}`
            : d.status === 'ahead'
              ? `ahead of ${r.remote} at ${short(d.tip)}`
              : `up to date at ${short(d.tip)}`;
        const ledger =
          d.joined > 0 ? `; ledger joined: ${d.joined} event${d.joined === 1 ? '' : 's'} from ${r.remote}` : '';
        return `${d.draft}: ${moved}${ledger}`;
      })
      .join('\n');
  });
}
