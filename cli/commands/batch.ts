import type { BatchResult } from '../../src/index.js';
import { EXIT } from '../exit-status.js';
import { pad, plural, short } from '../output.js';
import { readBase64UpTo, readBatchDocument, readUpTo } from '../read-input.js';
import type { CommandContext } from '../command-context.js';

function describeResult(r: BatchResult): string {
  const lines: string[] = [];
  if (r.success) {
    if (r.created_draft) lines.push(`created draft ${r.draft} from HEAD`);
    if (r.captured?.length)
      lines.push(
        `captured the working tree's state of ${plural(r.captured.length, 'path')} first: ${r.captured.join(', ')}`,
      );
    lines.push(
      r.batch === null
        ? `nothing to change on draft ${r.draft}: every operation was already in place`
        : `batch ${r.batch} on draft ${r.draft}: ${short(r.commit)}`,
    );
  } else {
    const failed = r.results.filter((op) => op.status === 'failed').length;
    lines.push(
      r.results.length > 0
        ? `batch rejected on draft ${r.draft}, nothing was written: ${failed} of ${plural(r.results.length, 'operation')} failed`
        : `batch rejected on draft ${r.draft}, nothing was written: ${r.error?.message ?? 'unknown error'}`,
    );
  }
  for (const op of r.results) {
    const target = op.to ? `${op.path} -> ${op.to}` : op.path;
    // An apply_patch op that landed: a line per file it changed.
    if (op.files && op.success)
      for (const f of op.files) lines.push(`  ${pad(f.status, 15)} ${f.to ? `${f.path} -> ${f.to}` : f.path}`);
    else lines.push(`  ${pad(op.status, 15)} ${target}${op.error ? `\n      ${op.error.message}` : ''}`);
  }
  return lines.join('\n');
}

/** Print a batch result; exit 1 when it failed. */
export function report(ctx: CommandContext, r: BatchResult): number {
  ctx.out.result(r, () => describeResult(r));
  if (!r.success && r.error) {
    if (!ctx.out.json && r.error.hint) ctx.io.stderr(`hint: ${r.error.hint}\n`);
    return EXIT.error;
  }
  return EXIT.ok;
}

/** `shadow batch <file|->`: the bytes go to the library, which refuses any that are not UTF-8. */
export async function batch(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  return report(
    ctx,
    await sh.batchText(await readBatchDocument(String(ctx.argv.file), ctx.dir, ctx.io), {
      draft: ctx.draft,
      actor: ctx.actor,
    }),
  );
}

/**
 * `shadow write <path>`: stdin byte for byte, never decoded; `--base64` reads
 * it as base64 text instead. One byte past what the limit allows is enough
 * for the library to refuse it with its own CONTENT_TOO_LARGE, so reading
 * stops there.
 */
export async function write(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  // The path first: a path refused must not wait for stdin to end.
  const path = await ctx.repoPath(String(ctx.argv.path));
  const options = {
    draft: ctx.draft,
    actor: ctx.actor,
    mode: ctx.argv.mode as '100644' | '100755' | undefined,
    intent: ctx.argv.intent as string | undefined,
  };
  const max = sh.maxContentBytes;
  if (ctx.argv.base64) {
    const text = await readBase64UpTo(ctx.io.stdin, max);
    // latin1: one character a byte, so a bad character's position is its byte's.
    return report(ctx, await sh.write(path, text.toString('latin1'), { ...options, encoding: 'base64' }));
  }
  const bytes = await readUpTo(ctx.io.stdin, max + 1);
  return report(ctx, await sh.write(path, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), options));
}

/** `shadow edit <path> --old <s> --new <s>` */
export async function edit(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const path = await ctx.repoPath(String(ctx.argv.path));
  const r = await sh.edit(path, String(ctx.argv.old), String(ctx.argv.new), {
    draft: ctx.draft,
    actor: ctx.actor,
    intent: ctx.argv.intent as string | undefined,
  });
  return report(ctx, r);
}

/** `shadow rm <path…>` */
export async function rm(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const paths: string[] = [];
  for (const p of ctx.argv.paths as unknown[]) paths.push(await ctx.repoPath(String(p)));
  return report(
    ctx,
    await sh.remove(paths, { draft: ctx.draft, actor: ctx.actor, intent: ctx.argv.intent as string | undefined }),
  );
}

/** `shadow mv <from> <to>` */
export async function mv(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const from = await ctx.repoPath(String(ctx.argv.from));
  const to = await ctx.repoPath(String(ctx.argv.to));
  return report(
    ctx,
    await sh.move(from, to, { draft: ctx.draft, actor: ctx.actor, intent: ctx.argv.intent as string | undefined }),
  );
}
