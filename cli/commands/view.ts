import { pad } from '../output.js';
import type { CommandContext } from '../command-context.js';

/** `shadow cat <path>`: the bytes as the view shows them (JSON: utf8 text or base64). */
export async function cat(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const f = await sh.cat(await ctx.repoPath(String(ctx.argv.path)), { draft: ctx.draft });
  if (ctx.out.json) {
    let text: string | undefined;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(f.content);
    } catch {
      text = undefined;
    }
    const { content: _bytes, ...rest } = f;
    ctx.out.result(
      text === undefined
        ? { ...rest, encoding: 'base64', content: f.content.toString('base64') }
        : { ...rest, encoding: 'utf8', content: text },
      () => '',
    );
    return;
  }
  ctx.out.raw(f.content);
}

/** `shadow ls [dir]` */
export async function ls(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const dir = await ctx.repoPath(String(ctx.argv.dir ?? '.'));
  const entries = await sh.ls(dir, { draft: ctx.draft });
  ctx.out.result({ dir, entries }, () =>
    entries
      .map(
        (e) =>
          `${e.source === 'draft' ? '*' : ' '} ${pad(e.type, 9)} ${e.name}${e.type === 'dir' ? '/' : ''}${submoduleNote(e)}`,
      )
      .join('\n'),
  );
}

function submoduleNote(e: { type: string; commit?: string | null }): string {
  if (e.type !== 'submodule') return '';
  return e.commit ? ` @ ${e.commit}` : ' (nested repository, not tracked by git)';
}
