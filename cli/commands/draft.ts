import { pad, plural, short, shortTime } from '../output.js';
import type { CommandContext } from '../command-context.js';

/** `shadow draft new [name] [--from <commit-ish>]` */
export async function draftNew(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const d = await sh.draftNew((ctx.argv.name as string | undefined) ?? ctx.draft, {
    from: ctx.argv.from as string | undefined,
    actor: ctx.actor,
  });
  ctx.out.result(d, () => `created draft ${d.name} at ${short(d.tip)} (from ${d.from})`);
}

/** `shadow draft list` */
export async function draftList(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const remote = ctx.argv.remote as string | undefined;
  const drafts =
    remote === undefined ? await sh.draftList() : await sh.remoteDrafts({ remote: remote === '' ? undefined : remote });
  ctx.out.result({ drafts }, () => {
    if (drafts.length === 0 && remote !== undefined)
      return "no drafts fetched (`shadow fetch <remote>` brings a remote's drafts)";
    if (drafts.length === 0) return 'no drafts (a draft is created by `shadow draft new` or by its first batch)';
    return drafts
      .map(
        (d) =>
          `${pad(d.name, 20)} ${short(d.tip)}  ${pad(plural(d.batches, 'batch', 'batches'), 12)} ${pad(plural(d.touched, 'path'), 10)} ${pad(d.status, 8)} created ${shortTime(d.created_at)}`,
      )
      .join('\n');
  });
}

/** `shadow draft show [name]` */
export async function draftShow(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const d = await sh.draftShow({ draft: (ctx.argv.name as string | undefined) ?? ctx.draft });
  ctx.out.result(d, () =>
    [
      `draft     ${d.name}`,
      `ref       refs/shadow/drafts/${d.name}`,
      `tip       ${d.tip}`,
      `root      ${d.root} (from ${d.from})`,
      `status    ${d.status}`,
      `batches   ${d.batches}`,
      `touched   ${plural(d.touched, 'path')}`,
      `created   ${shortTime(d.created_at)} by ${d.created_by}`,
      `checkpoints ${d.checkpoints.length ? d.checkpoints.map((c) => c.name).join(', ') : '(none)'}`,
    ].join('\n'),
  );
}

/** `shadow draft drop <name> [--purge]` */
export async function draftDrop(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const r = await sh.draftDrop(String(ctx.argv.name), { purge: ctx.argv.purge === true });
  ctx.out.result(r, () =>
    r.archive
      ? `dropped draft ${r.draft}; its work is kept at ${r.archive} (shadow draft new <name> --from ${r.archive} brings it back)`
      : `dropped draft ${r.draft} for good`,
  );
}
