import { ShadowError } from '../../src/index.js';
import { pad, plural, short, shortTime } from '../output.js';
import type { CommandContext } from '../command-context.js';

/** `shadow log [-n N]` */
export async function log(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const entries = await sh.log({ draft: ctx.draft, limit: ctx.argv.limit as number | undefined });
  ctx.out.result({ draft: sh.readDraftName({ draft: ctx.draft }), batches: entries }, () => {
    if (entries.length === 0) return `draft ${sh.readDraftName({ draft: ctx.draft })} has no batches yet`;
    return entries
      .map((e) => {
        const head = `batch ${e.batch} · ${e.actor}${e.model ? ` (${e.model})` : ''} · ${shortTime(e.time)} · ${e.intent} · ${plural(e.ops.length, 'op')}  ${short(e.commit)}`;
        const ops = e.ops.map(
          (o) =>
            `    ${pad(o.operation, 7)} ${o.path}${o.arg ? ` ${o.operation === 'rename' || o.operation === 'apply_patch' ? '-> ' : ''}${o.arg}` : ''}${o.note ? ` (${o.note})` : ''}`,
        );
        const captured = e.captured.length
          ? [`    (captured first from the working tree: ${e.captured.join(', ')})`]
          : [];
        return [head, ...ops, ...captured].join('\n');
      })
      .join('\n');
  });
}

/** `shadow status` */
export async function status(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const s = await sh.status({ draft: ctx.draft });
  ctx.out.result(s, () => {
    if (!s.exists) return `draft ${s.draft} does not exist yet; its first batch creates it from HEAD`;
    const lines = [
      `draft ${s.draft} at ${short(s.tip)} · ${plural(s.batches, 'batch', 'batches')} · ${plural(s.checkpoints, 'checkpoint')}`,
    ];
    if (s.changed.length === 0) lines.push('no changes against the working tree bases');
    else {
      lines.push(`changes (${s.changed.length}):`);
      const part = new Map((s.hunks?.paths ?? []).map((p) => [p.path, p]));
      for (const c of s.changed) {
        const p = part.get(c.path);
        // A path a hunk apply took part of: what is listed is what is not yet applied.
        const note = p
          ? `  (${p.applied} of ${plural(p.applied + p.remaining, 'hunk')} applied, ${p.remaining} not yet applied)`
          : '';
        lines.push(`  ${c.status} ${c.path}${note}`);
      }
    }
    if (s.conflicts.length > 0) {
      lines.push(
        `in conflict since the rebase (${s.conflicts.length}): resolve each with a batch on it, or \`shadow resolve <path>\`; apply refuses them until then`,
      );
      for (const c of s.conflicts) lines.push(`  ${c.reason.padEnd(13)} ${c.path}`);
    }
    if (s.in_worktree.length > 0)
      lines.push(
        `already in the working tree as the draft has them (${s.in_worktree.length}): ${s.in_worktree.slice(0, 5).join(', ')}${s.in_worktree.length > 5 ? ', …' : ''}`,
      );
    if (s.behind)
      lines.push(
        `behind: HEAD is ${s.behind.head ? short(s.behind.head) : 'unborn'}, the draft stands on ${short(s.behind.stands_on)}; \`shadow rebase\` moves it onto what you have now`,
      );
    if (s.drifted.length > 0) {
      lines.push(`working tree moved away from the base (${s.drifted.length}):`);
      for (const d of s.drifted)
        lines.push(
          `  ${d.path} (${d.found === null ? 'deleted' : d.expected === null ? 'created' : d.found === 'directory' ? 'now a directory' : d.found === 'unreadable' ? 'unreadable' : 'modified'})`,
        );
    }
    return lines.join('\n');
  });
}

/** `shadow blame <path> [--at <point>] [--porcelain]` */
export async function blame(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const path = await ctx.repoPath(String(ctx.argv.path));
  if (ctx.argv.published === true) return blamePublished(ctx, path);
  if (ctx.argv.commit !== undefined)
    throw new ShadowError('INVALID_ARGUMENT', 'a commit is named only with --published', {
      hint: 'shadow blame --published <path> <commit>; a point of the draft is --at',
    });
  const r = await sh.blame(path, { draft: ctx.draft, at: ctx.argv.at as string | undefined });
  if (ctx.argv.porcelain === true && !ctx.out.json) {
    ctx.io.stdout(r.porcelain);
    return;
  }
  ctx.out.result(r, () => {
    const who = (l: (typeof r.lines)[number]): string =>
      l.batch !== null
        ? `${l.capture ? 'capture' : 'batch'} ${l.batch} ${l.actor}${l.model ? ` (${l.model})` : ''}`
        : l.actor;
    const width = Math.max(0, ...r.lines.map((l) => who(l).length));
    return r.lines
      .map(
        (l) =>
          `${l.commit.slice(0, 8)} (${who(l).padEnd(width)} ${l.time.slice(0, 10)} ${String(l.line).padStart(4)}) ${l.content}`,
      )
      .join('\n');
  });
}

async function blamePublished(ctx: CommandContext, path: string): Promise<void> {
  const sh = await ctx.open();
  const r = await sh.blamePublished(path, { commit: ctx.argv.commit as string | undefined });
  ctx.out.result(r, () => {
    const who = (l: (typeof r.lines)[number]): string =>
      l.contributor ? `${l.contributor.type}${l.contributor.model_id ? ` (${l.contributor.model_id})` : ''}` : l.author;
    const width = Math.max(0, ...r.lines.map((l) => who(l).length));
    return r.lines
      .map(
        (l) =>
          `${l.commit.slice(0, 8)} (${who(l).padEnd(width)} ${l.source.padEnd(12)} ${String(l.line).padStart(4)}) ${l.content}`,
      )
      .join('\n');
  });
}

/** `shadow trace [<commit>]`: the Agent Trace record noted on a commit, as JSON (the spec's shape). */
export async function trace(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const r = await sh.trace(ctx.argv.commit as string | undefined);
  ctx.out.result(r.record, () => JSON.stringify(r.record, null, 2));
}
