import { short, shortTime } from '../output.js';
import type { CommandContext } from '../command-context.js';

/** `shadow checkpoint <name> [-m msg]` */
export async function checkpoint(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const c = await sh.checkpoint(String(ctx.argv.name), {
    draft: ctx.draft,
    message: ctx.argv.message as string | undefined,
  });
  ctx.out.result(
    c,
    () => `checkpoint ${c.name} at ${c.batch === null ? 'the draft root' : `batch ${c.batch}`} (${short(c.commit)})`,
  );
}

/** `shadow checkpoints` */
export async function checkpoints(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const list = await sh.checkpoints({ draft: ctx.draft });
  ctx.out.result({ checkpoints: list }, () =>
    list.length === 0
      ? 'no checkpoints'
      : list
          .map(
            (c) =>
              `${c.name.padEnd(20)} ${short(c.commit)}  ${c.batch === null ? 'root   ' : `batch ${c.batch}`.padEnd(7)}  ${shortTime(c.time)}  ${c.message}`,
          )
          .join('\n'),
  );
}

/** `shadow rollback <target>` */
export async function rollback(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const m = await sh.rollback(String(ctx.argv.target), { draft: ctx.draft });
  ctx.out.result(m, () =>
    m.from === m.to
      ? `draft ${m.draft} is already at ${short(m.to)}`
      : `draft ${m.draft}: ${short(m.from)} -> ${short(m.to)} (rollback to ${m.target})${m.kept ? `; the tip it left is kept as checkpoint ${m.kept}` : ''}\nundo it with \`shadow undo\``,
  );
}

/** `shadow undo` */
export async function undo(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const m = await sh.undo({ draft: ctx.draft });
  ctx.out.result(
    m,
    () =>
      `undid "${m.undid}": draft ${m.draft} ${short(m.from)} -> ${short(m.to)}${m.kept ? `; the tip it left is kept as checkpoint ${m.kept}` : ''}`,
  );
}
