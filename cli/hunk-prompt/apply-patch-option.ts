import { ShadowError, type Shadow } from '../../src/index.js';
import type { CommandContext } from '../command-context.js';
import { EXIT } from '../exit-status.js';
import { chooseHunks } from './choose-hunks.js';

/**
 * `shadow apply -p`: the hunks to apply, chosen at git's prompt; the patch
 * of them, or an exit status when there is nothing to apply (nothing
 * chosen: "No changes.", 0; Ctrl-C: 130, nothing written).
 */
export async function patchOption(
  ctx: CommandContext,
  sh: Shadow,
  paths: string[] | undefined,
): Promise<string | number> {
  if (ctx.argv.commit === true || ctx.argv.squash === true)
    throw new ShadowError(
      'USAGE',
      'shadow apply -p takes hunks into the working tree only: not with --commit or --squash',
      {
        hint: 'apply the hunks with `shadow apply -p`, then commit them with git (`git commit -p` to pick again)',
      },
    );
  if (ctx.argv.hunks !== undefined)
    throw new ShadowError('USAGE', 'shadow apply -p chooses the hunks at a prompt: not with --hunks', {
      hint: 'either choose at the prompt (shadow apply -p) or name the hunks (shadow apply --hunks <spec>)',
    });
  if (ctx.out.json)
    throw new ShadowError('USAGE', 'shadow apply -p asks at a prompt: it has no --json form', {
      hint: 'for a script, name the hunks: shadow apply --hunks <spec> --json (ids from `shadow diff --json`)',
    });
  const chosen = await chooseHunks({
    sh,
    io: ctx.io,
    draft: ctx.draft,
    paths,
    noColour: ctx.argv.color === false,
    cwd: ctx.dir,
  });
  if (chosen === 'interrupted') return 130;
  if (chosen.patch === '') {
    if (chosen.asked) ctx.io.stderr('No changes.\n');
    return EXIT.ok;
  }
  return chosen.patch;
}
