import type { FinalizeResult, SessionStatus } from '../../src/index.js';
import { IDLE_PROMPT } from '../../src/index.js';
import { EXIT } from '../exit-status.js';
import { pad, short } from '../output.js';
import type { CommandContext } from '../command-context.js';

function describeStatus(s: SessionStatus): string {
  const age = `${Math.round(s.age_ms / 1000)}s old`;
  return `${s.session_id}  ${pad(s.stage, 17)} ${pad(s.operation, 9)} ${s.target_file}  ${s.bytes} bytes, ${s.lines} lines, ${age}${s.orphaned ? ', orphaned' : ''}`;
}

function describeFinalize(r: FinalizeResult): string {
  if (r.success)
    return `committed ${r.results[0]?.path ?? ''} as batch ${r.batch} on draft ${r.draft} (${short(r.commit)})`;
  return `${r.error?.message ?? 'finalize failed'}${r.attempts_left !== undefined ? ` (${r.attempts_left} attempt${r.attempts_left === 1 ? '' : 's'} left)` : ''}`;
}

/** `shadow session begin --target <path> --op create|overwrite|append [--intent …] [--binary]` */
export async function begin(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const target = await ctx.repoPath(String(ctx.argv.target));
  const r = await sh.sessions.begin(
    {
      intent: String(ctx.argv.intent ?? ''),
      target_file: target,
      operation: ctx.argv.op as 'create' | 'overwrite' | 'append',
      draft: ctx.draft,
      binary: ctx.argv.binary === true,
    },
    { actor: ctx.actor },
  );
  ctx.out.result(
    r,
    () =>
      `session ${r.session_id} awaits content for ${target}\n${r.instructions}\nfeed it: shadow session feed ${r.session_id} < file`,
  );
}

/**
 * `shadow session feed <id>`: stdin as plain text until a `DONE` line or the
 * end of input, then finalize. Saves every few seconds; after 2 idle seconds
 * prompts for DONE, once per idle period.
 */
export async function feed(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const id = String(ctx.argv.id);
  const settings = sh.sessions.settings();
  sh.sessions.status(id);
  let idle: NodeJS.Timeout | undefined;
  const prompt = (): void => {
    if (ctx.out.json)
      ctx.io.stderr(`${JSON.stringify({ type: 'session/idle', session_id: id, prompt: IDLE_PROMPT })}\n`);
    else ctx.io.stderr(`${IDLE_PROMPT}\n`);
  };
  const saver = setInterval(() => sh.sessions.save(id), settings.saveMs);
  let done = false;
  try {
    idle = setTimeout(prompt, settings.promptMs);
    for await (const chunk of ctx.io.stdin) {
      clearTimeout(idle);
      done = sh.sessions.push(id, typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
      if (done) break;
      idle = setTimeout(prompt, settings.promptMs);
    }
    if (!done) sh.sessions.end(id);
  } finally {
    clearTimeout(idle);
    clearInterval(saver);
  }
  for (const w of (() => {
    try {
      return sh.sessions.warnings(id);
    } catch {
      return [];
    }
  })())
    ctx.io.stderr(`warning: ${w}\n`);
  const r = await sh.sessions.finalize(id);
  ctx.out.result(r, () => describeFinalize(r));
  return r.success ? EXIT.ok : EXIT.error;
}

/** `shadow session finalize <id>`: commit a session whose content is all there (after a crash, say). */
export async function finalize(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const r = await sh.sessions.finalize(String(ctx.argv.id));
  ctx.out.result(r, () => describeFinalize(r));
  return r.success ? EXIT.ok : EXIT.error;
}

/** `shadow session status <id>` */
export async function status(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const s = sh.sessions.status(String(ctx.argv.id));
  ctx.out.result(s, () => describeStatus(s));
}

/** `shadow session list` */
export async function list(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const all = sh.sessions.list();
  ctx.out.result({ sessions: all }, () =>
    all.length === 0 ? 'no write sessions' : all.map(describeStatus).join('\n'),
  );
}

/** `shadow session cancel <id>` */
export async function cancel(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const s = sh.sessions.cancel(String(ctx.argv.id));
  ctx.out.result({ cancelled: s }, () => `cancelled session ${s.session_id} (${s.target_file}); its files are gone`);
}

/** `shadow session recover [--finalize] [--discard]`: the sessions a crash left. */
export async function recover(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const { resumable, cleaned } = sh.sessions.orphans();
  const finalized: FinalizeResult[] = [];
  const discarded: string[] = [];
  for (const s of resumable) {
    if (ctx.argv.finalize === true) finalized.push(await sh.sessions.finalize(s.session_id));
    else if (ctx.argv.discard === true) discarded.push(sh.sessions.cancel(s.session_id).session_id);
  }
  const doc = { resumable: ctx.argv.finalize || ctx.argv.discard ? [] : resumable, finalized, discarded, cleaned };
  ctx.out.result(doc, () => {
    const lines: string[] = [];
    if (resumable.length === 0 && cleaned.length === 0) lines.push('no orphaned write sessions');
    for (const f of finalized) lines.push(`${f.session_id}: ${describeFinalize(f)}`);
    for (const d of discarded) lines.push(`discarded ${d}`);
    if (!ctx.argv.finalize && !ctx.argv.discard) {
      for (const s of resumable) {
        lines.push(describeStatus(s));
        lines.push(
          `  resume: shadow session feed ${s.session_id} < rest   finalize: shadow session finalize ${s.session_id}   drop: shadow session cancel ${s.session_id}`,
        );
      }
    }
    if (cleaned.length > 0)
      lines.push(`cleaned up ${cleaned.length} session${cleaned.length === 1 ? '' : 's'} older than an hour`);
    return lines.join('\n');
  });
  return finalized.some((f) => !f.success) ? EXIT.error : EXIT.ok;
}

/** `shadow session clean` */
export async function clean(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const gone = sh.sessions.clean();
  ctx.out.result({ cleaned: gone }, () =>
    gone.length === 0
      ? 'nothing to clean'
      : `removed ${gone.length} session${gone.length === 1 ? '' : 's'}: ${gone.join(', ')}`,
  );
}
