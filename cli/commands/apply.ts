import type {
  ApplyOptions,
  ApplyResult,
  ConflictHunk,
  PathConflict,
  PublishedPath,
  RecoveryReport,
  UnapplyResult,
} from '../../src/index.js';
import { ShadowError } from '../../src/index.js';
import { EXIT } from '../exit-status.js';
import { pad, plural, short } from '../output.js';
import type { CommandContext } from '../command-context.js';
import { patchOption } from '../hunk-prompt/apply-patch-option.js';

function pathLines(paths: readonly PublishedPath[]): string[] {
  // An apply says how each path stands with the working tree (clean, merged, conflict); an unapply does not.
  const merges = paths.some((p) => p.merge !== undefined && p.merge !== 'clean');
  return paths.map((p) => `  ${pad(p.action, 7)} ${merges ? `${pad(p.merge ?? '', 8)} ` : ''}${p.path}`);
}

/** At most this many lines of each side of a hunk are shown (--json has them all). */
const HUNK_LINES = 12;

/** A conflicting hunk as git's markers show it, indented under its path. */
function hunkLines(h: ConflictHunk, theirs: string): string[] {
  const side = (text: string): string[] => {
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const shown = lines.slice(0, HUNK_LINES).map((l) => `      ${l.replace(/\r$/, '')}`);
    return lines.length > HUNK_LINES ? [...shown, `      … ${lines.length - HUNK_LINES} more lines`] : shown;
  };
  const range = (line: number, count: number): string =>
    count === 0 ? `after line ${line - 1}` : count === 1 ? `line ${line}` : `lines ${line}-${line + count - 1}`;
  return [
    `    ${range(h.ours.line, h.ours.count)} of the working tree, ${range(h.theirs.line, h.theirs.count)} of ${theirs}:`,
    '      <<<<<<< working tree',
    ...side(h.ours.text),
    '      =======',
    ...side(h.theirs.text),
    `      >>>>>>> ${theirs}`,
  ];
}

function conflictLines(conflicts: readonly PathConflict[], theirs: string): string[] {
  return conflicts.flatMap((c) => [
    `  ${pad(c.found, 13)} ${c.path}${c.detail ? ` (${c.detail})` : ''}${c.expected ? `  expected ${short(c.expected)}` : '  expected absent'}${c.reason && c.reason !== 'type' ? `  not merged: ${c.reason}` : ''}`,
    ...(c.hunks ?? []).flatMap((h) => hunkLines(h, theirs)),
  ]);
}

/** Paths an apply with --conflict=markers writes with conflict markers, and their hunks. */
function markerLines(r: ApplyResult): string[] {
  const marked = r.paths.filter((p) => p.merge === 'conflict' && p.hunks && p.merged !== undefined);
  if (marked.length === 0) return [];
  const verb = r.dry_run ? 'would write' : 'wrote';
  return [
    `${verb} conflict markers into ${plural(marked.length, 'path')} (resolve them, then commit as usual):`,
    ...marked.flatMap((p) => [`  ${p.path}`, ...p.hunks!.flatMap((h) => hunkLines(h, `draft ${r.draft}`))]),
  ];
}

function describeApply(r: ApplyResult): string {
  const lines: string[] = [];
  if (r.paths.length === 0)
    lines.push(`nothing to apply: draft ${r.draft} changes nothing the working tree does not already hold`);
  else if (r.dry_run) lines.push(`would apply draft ${r.draft} (${short(r.tip)}): ${plural(r.paths.length, 'path')}`);
  else lines.push(`applied draft ${r.draft} (${short(r.tip)}): ${plural(r.paths.length, 'path')}`);
  lines.push(...pathLines(r.paths));
  for (const p of r.partial ?? [])
    lines.push(
      `  ${p.path}: ${p.chosen} of ${plural(p.hunks, 'hunk')} ${r.dry_run ? 'would be ' : ''}applied, the rest stays in the draft`,
    );
  lines.push(...markerLines(r));
  if (r.dry_run && r.pendingApprovals.length > 0) {
    lines.push(
      `approvals needed first (${r.pendingApprovals.length}):`,
      ...r.pendingApprovals.map((a) => `  ${a.id}  ${pad(a.kind, 16)} ${a.reason}`),
    );
  }
  if (
    r.dry_run &&
    r.paths.length > 0 &&
    r.conflicts.length === 0 &&
    r.unresolved.length === 0 &&
    r.unwritable.length === 0 &&
    r.pendingApprovals.length === 0
  )
    lines.push('no conflicts: `shadow apply` would write these paths');
  if (r.unwritable.length > 0) lines.push(`cannot write in: ${r.unwritable.join(', ')}`);
  if (r.skipped.length > 0) lines.push(`submodules left as they are: ${r.skipped.join(', ')}`);
  if (r.branch)
    lines.push(
      `${r.branch.ref.replace(/^refs\/heads\//, '')}: ${short(r.branch.old)} -> ${short(r.branch.new)} (${r.branch.how})`,
    );
  if (r.applied) lines.push('undo it with `shadow unapply`');
  return lines.join('\n');
}

/** On a terminal, a progress line for large applies (path count and bytes), at most every 100 ms. */
function progressBar(ctx: CommandContext): ((done: number, total: number, bytes: number) => void) | undefined {
  if (!ctx.io.isTTY || ctx.out.json) return undefined;
  let last = 0;
  return (done, total, bytes) => {
    const now = Date.now();
    if (total < 100 || (now - last < 100 && done < total)) return;
    last = now;
    const width = 30;
    const filled = Math.round((done / total) * width);
    ctx.io.stderr(
      `\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total} paths, ${(bytes / 1024 / 1024).toFixed(1)} MB`,
    );
  };
}

/** A hunk id, or a choice after `<path>:` (`3`, `2-4`, `mode`): the parts of a --hunks spec that are not paths. */
const NOT_A_PATH = /^(?:[0-9a-f]{12}|\d+(?:-\d+)?|mode|rename)$/;

/** The --hunks specs with their paths made relative to the repository root (typed relative to the current directory, as git's pathspecs are). */
export async function hunkSpecs(ctx: CommandContext, value: unknown): Promise<string[]> {
  const specs = (Array.isArray(value) ? value : [value]).map(String);
  return Promise.all(
    specs.map(async (spec) => {
      const items = await Promise.all(
        spec.split(',').map(async (item) => {
          if (NOT_A_PATH.test(item)) return item;
          const colon = item.lastIndexOf(':');
          const choice =
            colon > 0 && NOT_A_PATH.test(item.slice(colon + 1)) && !/^[0-9a-f]{12}$/.test(item.slice(colon + 1));
          const path = choice ? item.slice(0, colon) : item;
          return `${await ctx.repoPath(path)}${choice ? item.slice(colon) : ''}`;
        }),
      );
      return items.join(',');
    }),
  );
}

/** `shadow apply [-p | --hunks <spec>…] [--dry-run] [--commit | --squash -m <msg>]` */
export async function apply(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const squash = ctx.argv.squash === true ? String(ctx.argv.message ?? '') : undefined;
  if (squash !== undefined && squash.trim() === '') {
    throw new ShadowError('USAGE', '--squash needs a commit message: -m "<message>"', {
      hint: 'shadow apply --squash -m "what the change does"',
    });
  }
  const specs = Array.isArray(ctx.argv.paths) ? (ctx.argv.paths as unknown[]).map(String) : [];
  const paths = specs.length > 0 ? await Promise.all(specs.map((s) => ctx.repoPath(s))) : undefined;
  const hunks = ctx.argv.hunks === undefined ? undefined : await hunkSpecs(ctx, ctx.argv.hunks);
  // -p: the hunks chosen at git's prompt, as a patch (the pathspecs only limit what is asked).
  const chosen = ctx.argv.patch === true ? await patchOption(ctx, sh, paths) : undefined;
  if (typeof chosen === 'number') return chosen;
  const run = async (): Promise<ApplyResult> => {
    try {
      const options: ApplyOptions = {
        paths: chosen === undefined ? paths : undefined,
        patch: chosen,
        draft: ctx.draft,
        actor: ctx.actor,
        dryRun: ctx.argv['dry-run'] === true,
        commit: ctx.argv.commit === true,
        squash,
        sandbox: ctx.argv.sandbox as 'read-only' | 'workspace-write' | undefined,
        conflict: ctx.argv.conflict as 'refuse' | 'markers' | undefined,
        expect: ctx.argv.expect as string | undefined,
        hunks,
        onProgress: progressBar(ctx),
      };
      return await sh.apply(options);
    } catch (e) {
      // Overlapping hunks: both sides of each, before the error says what to do.
      const data = (e as { data?: { draft?: string; conflicts?: PathConflict[] } }).data;
      if (!ctx.out.json && (e as { code?: string }).code === 'CONFLICT' && data?.conflicts) {
        ctx.io.stdout(
          `conflicts (${data.conflicts.length}):\n${conflictLines(data.conflicts, `draft ${data.draft ?? ''}`).join('\n')}\n`,
        );
      }
      throw e;
    }
  };
  const r = await run();
  if (ctx.io.isTTY) ctx.io.stderr('\r\x1b[K');
  if (!r.ok && !r.dry_run) {
    ctx.out.result(r, () =>
      [
        `apply of draft ${r.draft} needs ${plural(r.pendingApprovals.length, 'approval')}; nothing was written`,
        ...r.pendingApprovals.map((a) => `  ${a.id}  ${pad(a.kind, 16)} ${a.reason}`),
        `approve with \`shadow approve <id>\` (or deny with \`shadow deny <id> --reason "…"\`), then apply again`,
      ].join('\n'),
    );
    return EXIT.approvals;
  }
  if (r.dry_run && r.unresolved.length > 0) {
    // Paths left in conflict by a rebase: apply refuses them until a batch resolves them.
    const message = `apply would be refused: ${plural(r.unresolved.length, 'path')} in conflict since the draft's rebase`;
    const hint =
      'resolve each with a batch on it (or `shadow resolve <path>` to keep it as the draft holds it), or `shadow undo` the rebase';
    if (ctx.out.json) ctx.out.error({ code: 'UNRESOLVED_CONFLICT', message, hint, data: { ...r } });
    else {
      ctx.io.stdout(
        `${describeApply(r)}\nin conflict (${r.unresolved.length}):\n${r.unresolved.map((u) => `  ${pad(u.reason, 13)} ${u.path}`).join('\n')}\n`,
      );
      ctx.io.stderr(`error: ${message}\nhint: ${hint}\n`);
    }
    return EXIT.error;
  }
  if (r.dry_run && (r.conflicts.length > 0 || r.unwritable.length > 0)) {
    // Overlapping hunks alone can be written with markers (CONFLICT); anything else cannot merge (STALE_BASE).
    const overlaps = r.conflicts.length > 0 && r.conflicts.every((c) => c.reason === 'overlap');
    const code = r.conflicts.length === 0 ? 'NOT_WRITABLE' : overlaps ? 'CONFLICT' : 'STALE_BASE';
    const message =
      r.conflicts.length === 0
        ? `apply would stop before writing anything: cannot write in ${r.unwritable.join(', ')}`
        : overlaps
          ? `apply would stop before writing anything: ${plural(r.conflicts.length, 'path')} changed in the working tree on the same lines as the draft`
          : `apply would stop before writing anything: ${plural(r.conflicts.length, 'path')} no longer hold what the draft was based on, and cannot be merged`;
    const hint = overlaps
      ? "keep or revert your change where the two overlap, or `shadow apply --conflict=markers` to write both with git's conflict markers"
      : 'look with `shadow status`, keep or revert your change, then apply again';
    if (ctx.out.json) {
      ctx.out.error({ code, message, hint, data: { ...r } });
    } else {
      ctx.io.stdout(`${describeApply(r)}\n`);
      if (r.conflicts.length > 0)
        ctx.io.stdout(
          `conflicts (${r.conflicts.length}):\n${conflictLines(r.conflicts, `draft ${r.draft}`).join('\n')}\n`,
        );
      ctx.io.stderr(`error: ${message}\n`);
    }
    return EXIT.error;
  }
  ctx.out.result(r, () => describeApply(r));
  return EXIT.ok;
}

/** `shadow unapply [--dry-run] [--conflict=markers]` */
export async function unapply(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const dryRun = ctx.argv['dry-run'] === true;
  let r: UnapplyResult;
  try {
    r = await sh.unapply({
      draft: ctx.draft,
      actor: ctx.actor,
      dryRun,
      sandbox: ctx.argv.sandbox as 'read-only' | 'workspace-write' | undefined,
      conflict: ctx.argv.conflict as 'refuse' | 'markers' | undefined,
    });
  } catch (e) {
    const data = (e as { data?: { draft?: string; conflicts?: PathConflict[] } }).data;
    if (!ctx.out.json && (e as { code?: string }).code === 'CONFLICT' && data?.conflicts) {
      ctx.io.stdout(
        `conflicts (${data.conflicts.length}):\n${conflictLines(data.conflicts, 'before the apply').join('\n')}\n`,
      );
    }
    throw e;
  }
  const describe = (): string =>
    [
      dryRun
        ? `unapply would put back ${plural(r.paths.length, 'path')} of draft ${r.draft} as they were before its last apply`
        : `unapplied draft ${r.draft}: ${plural(r.paths.length, 'path')} put back as they were before the last apply`,
      ...pathLines(r.paths),
      ...(r.kept.length > 0
        ? [`left as you have them (deleted or created since the apply): ${r.kept.join(', ')}`]
        : []),
      ...(r.paths.some((p) => p.merge === 'merged')
        ? ['your edits made since the apply are kept where they do not touch its lines']
        : []),
      ...(r.branch
        ? [`${r.branch.ref.replace(/^refs\/heads\//, '')}: ${short(r.branch.old)} -> ${short(r.branch.new)}`]
        : []),
      ...(dryRun ? [] : ['`shadow apply` publishes the same changes again']),
    ].join('\n');
  if (dryRun && r.conflicts.length > 0) {
    const overlaps = r.conflicts.every((c) => c.reason === 'overlap');
    const code = overlaps ? 'CONFLICT' : 'STALE_BASE';
    const message = `unapply would stop before writing anything: ${plural(r.conflicts.length, 'path')} changed since the apply ${overlaps ? 'on the lines it wrote' : 'in ways no merge undoes'}`;
    const hint = overlaps
      ? "settle those lines by hand, or `shadow unapply --conflict=markers` to write both with git's conflict markers"
      : 'put those paths back by hand, or keep the apply';
    if (ctx.out.json) ctx.out.error({ code, message, hint, data: { ...r } });
    else {
      ctx.io.stdout(
        `${describe()}\nconflicts (${r.conflicts.length}):\n${conflictLines(r.conflicts, 'before the apply').join('\n')}\n`,
      );
      ctx.io.stderr(`error: ${message}\nhint: ${hint}\n`);
    }
    return EXIT.error;
  }
  ctx.out.result(r, describe);
  return EXIT.ok;
}

function describeRecovery(r: RecoveryReport): string {
  const elsewhere = r.elsewhere.map(
    (e) =>
      `an interrupted apply of draft ${e.draft} belongs to the worktree at ${e.worktree}: run \`shadow recover\` there`,
  );
  if (r.finished.length === 0 && r.failed.length === 0 && r.unreadable.length === 0)
    return ['nothing to recover here: no apply of this worktree was interrupted', ...elsewhere].join('\n');
  const lines: string[] = [];
  for (const f of r.finished) {
    lines.push(`finished the interrupted ${f.kind} of draft ${f.draft}: ${plural(f.written.length, 'path')} written`);
    if (f.conflicts.length > 0)
      lines.push(`  left as they are (changed meanwhile): ${f.conflicts.map((c) => c.path).join(', ')}`);
  }
  for (const f of r.failed) lines.push(`could not finish an apply of draft ${f.draft}: ${f.error}`);
  for (const u of r.unreadable) lines.push(`unreadable journal left in place: ${u}`);
  return [...lines, ...elsewhere].join('\n');
}

/** `shadow recover` */
export async function recover(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  // Opening already recovered, if anything was interrupted; report that.
  const r = sh.recovered ?? (await sh.recover());
  ctx.out.result(r, () => describeRecovery(r));
  return r.failed.length > 0 || r.unreadable.length > 0 ? EXIT.error : EXIT.ok;
}
