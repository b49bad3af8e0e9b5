import type { SplitResult } from '../../src/index.js';
import { plural, short } from '../output.js';
import type { CommandContext } from '../command-context.js';
import { hunkSpecs } from './apply.js';

function describeSplit(r: SplitResult): string {
  const parts = new Map(r.partial.map((p) => [p.path, p]));
  const lines = [
    `split ${plural(r.paths.length, 'path')} of draft ${r.draft} into draft ${r.into} (${short(r.into_tip)}); draft ${r.draft} keeps the rest as batch ${r.batch} (${short(r.tip)})`,
  ];
  for (const p of r.paths) {
    const part = parts.get(p.path);
    lines.push(`  ${p.path}${part ? `: ${part.chosen} of ${plural(part.hunks, 'hunk')}` : ' (whole)'}`);
  }
  lines.push(
    `review it with \`shadow review ${r.into}\`; \`shadow rollback ${short(r.from)} --draft ${r.draft}\` brings the hunks back`,
  );
  return lines.join('\n');
}

/** `shadow split --hunks <spec>… [--into <draft>] [-m <message>]` */
export async function split(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const r = await sh.split({
    draft: ctx.draft,
    actor: ctx.actor,
    hunks: await hunkSpecs(ctx, ctx.argv.hunks),
    into: ctx.argv.into as string | undefined,
    message: ctx.argv.message as string | undefined,
  });
  ctx.out.result(r, () => describeSplit(r));
}
