import { codexPatchPaths, retargetCodexPatch, ShadowError } from '../../src/index.js';
import { readInputBytes } from '../read-input.js';
import type { CommandContext } from '../command-context.js';
import { report } from './batch.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `shadow apply-patch [file|-]`: a patch in Codex's apply_patch format, as
 * one batch. Its paths are read as Codex reads them, from the current
 * directory (the other commands read paths so too): each is made a
 * repository path before the library sees the patch, which takes paths
 * from the root. A patch that does not parse goes as it is, for the batch
 * to say where it is wrong.
 */
export async function applyPatch(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const bytes = await readInputBytes(String(ctx.argv.file ?? '-'), ctx.dir, ctx.io);
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new ShadowError('INVALID_PATCH', 'the patch is not UTF-8 text', {
      hint: 'send the patch as UTF-8; a file that is not text goes through `shadow write`',
    });
  }
  let named: string[] = [];
  try {
    named = codexPatchPaths(text);
  } catch {
    // Reported by the batch, with its line.
  }
  const paths = new Map<string, string>();
  for (const p of named) paths.set(p, await ctx.repoPath(p));
  const patch = retargetCodexPatch(text, paths);
  const r = await sh.batch(
    { intent: ctx.argv.intent as string | undefined, operations: [{ operation: 'apply_patch', patch }] },
    { draft: ctx.draft, actor: ctx.actor },
  );
  const status = report(ctx, r);
  // How a change was placed, when worth a look (the first of several places, a file replaced); --json has `notes`.
  if (!ctx.out.json && r.success) {
    for (const f of r.results[0]?.files ?? []) for (const n of f.notes ?? []) ctx.io.stdout(`note: ${f.path}: ${n}\n`);
  }
  return status;
}
