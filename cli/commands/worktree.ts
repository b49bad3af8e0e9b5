import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { ShadowError, type RecordResult, type Shadow, type SyncResult, type WorktreeChange } from '../../src/index.js';
import { EXIT } from '../exit-status.js';
import { plural, short } from '../output.js';
import type { CommandContext } from '../command-context.js';

function dirArg(ctx: CommandContext, name = 'dir'): string {
  return resolve(ctx.dir, String(ctx.argv[name]));
}

function describeSync(r: SyncResult): string {
  const lines: string[] = [];
  if (r.from === r.to) lines.push(`${r.dir} is at the draft's tip (${r.to ? short(r.to) : 'no batch yet'})`);
  else
    lines.push(
      `${r.dir}: ${plural(r.written.length, 'file')} written, ${r.removed.length} removed (${r.from ? short(r.from) : 'none'} -> ${r.to ? short(r.to) : 'none'})`,
    );
  for (const c of r.conflicts)
    lines.push(`conflict: ${c.path}: ${c.reason}; left as it is (record it, or remove it there)`);
  return lines.join('\n');
}

function describeChanges(changes: readonly WorktreeChange[]): string {
  return changes
    .map(
      (c) =>
        `${c.kind === 'write' ? 'write ' : c.kind === 'delete' ? 'delete' : 'rename'} ${c.path}${c.to ? ` -> ${c.to}` : ''}`,
    )
    .join('\n');
}

function describeRecord(r: RecordResult): string {
  if (!r.batch) return `nothing changed in ${r.dir}`;
  if (!r.batch.success) return `not recorded: ${r.batch.error?.message ?? 'the batch failed'}`;
  const head = `recorded ${plural(r.changes.length, 'change')} as batch ${r.batch.batch} (${short(r.batch.commit!)})\n${describeChanges(r.changes)}`;
  return r.sync && r.sync.from !== r.sync.to ? `${head}\n${describeSync(r.sync)}` : head;
}

/** `shadow worktree add <dir>` */
export async function add(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  if (ctx.argv.git === true) {
    const w = await sh.worktrees.addGit(dirArg(ctx), { draft: ctx.draft });
    const linked = w.shares.filter((x) => x.status === 'linked').map((x) => x.path);
    ctx.out.result(
      w,
      () =>
        `${w.dir}: a git worktree of draft ${w.draft} at ${short(w.tip)}${linked.length > 0 ? `; linked from your working tree: ${linked.join(', ')}` : ''}`,
    );
    return;
  }
  const bar = ctx.io.isTTY && !ctx.out.json;
  const r = await sh.worktrees.add(dirArg(ctx), {
    draft: ctx.draft,
    onProgress: bar ? (done, total) => ctx.io.stderr(`\rmaterializing: ${done} of ${total} files\x1b[K`) : undefined,
  });
  if (bar) ctx.io.stderr('\n');
  ctx.out.result(
    r,
    () =>
      `${r.dir}: draft ${r.draft}${r.tip ? ` at ${short(r.tip)}` : ' (no batch yet)'}, ${plural(r.files, 'file')} (${r.copied} copied from the working tree)`,
  );
}

/** `shadow worktree sync <dir>` */
export async function sync(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const r = await sh.worktrees.sync(dirArg(ctx));
  ctx.out.result(r, () => describeSync(r));
  return r.conflicts.length > 0 ? EXIT.error : EXIT.ok;
}

/** `shadow worktree record <dir>`: the worktree's changes as one batch. */
export async function record(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const r = await sh.worktrees.record(dirArg(ctx), {
    actor: ctx.actor,
    intent: ctx.argv.message as string | undefined,
  });
  ctx.out.result(r, () => describeRecord(r));
  return r.batch && !r.batch.success ? EXIT.error : EXIT.ok;
}

/** `shadow worktree list` */
export async function list(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const all = await sh.worktrees.list();
  ctx.out.result({ worktrees: all }, () =>
    all.length === 0
      ? 'no worktrees (make one with `shadow worktree add <dir>`)'
      : all
          .map(
            (w) =>
              `${w.dir}  draft ${w.draft}${w.synced_tip ? ` at ${short(w.synced_tip)}` : ''}${!w.exists ? '  (directory gone)' : ''}${!w.draft_exists ? '  (draft gone)' : w.behind ? '  (behind: shadow worktree sync)' : ''}`,
          )
          .join('\n'),
  );
}

/** `shadow worktree remove <dir> [--force]` */
export async function remove(ctx: CommandContext): Promise<void> {
  const sh = await ctx.open();
  const r = await sh.worktrees.remove(dirArg(ctx), { force: ctx.argv.force === true });
  ctx.out.result(
    r,
    () =>
      `removed ${r.dir}${r.discarded.length > 0 ? ` (discarding ${plural(r.discarded.length, 'change')} not recorded)` : ''}`,
  );
}

/** `shadow watch <dir> [--quiet-ms N]`: until SIGINT or SIGTERM. */
export async function watch(ctx: CommandContext): Promise<number> {
  const sh = await ctx.open();
  const dir = dirArg(ctx);
  const emit = (type: string, data: Record<string, unknown>, text: string): void => {
    if (ctx.out.json) ctx.io.stdout(`${JSON.stringify({ type, ...data })}\n`);
    else ctx.io.stderr(`${text}\n`);
  };
  const handle = await sh.worktrees.watch(dir, {
    actor: ctx.actor,
    quietMs: ctx.argv['quiet-ms'] as number | undefined,
    onReady: () => emit('watch/ready', { dir }, `watching ${dir} (Ctrl-C to stop)`),
    onRecord: (r) =>
      emit(
        'watch/record',
        { dir, batch: r.batch?.batch, commit: r.batch?.commit, changes: r.changes },
        describeRecord(r),
      ),
    onSync: (r) => emit('watch/sync', { ...r }, describeSync(r)),
    onProblem: (e) =>
      emit('watch/problem', { dir, error: e.toJSON() }, `error: ${e.message}${e.hint ? `\nhint: ${e.hint}` : ''}`),
  });
  const stop = (): void => void handle.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await handle.done;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  return EXIT.ok;
}

function run(cmd: string[], cwd: string, env: Record<string, string | undefined>): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn(cmd[0]!, cmd.slice(1), { cwd, stdio: 'inherit', env: env as NodeJS.ProcessEnv });
    child.once('error', (e: NodeJS.ErrnoException) => {
      // The command could not be started: a user's mistake, said as a shell says it (exit 127/126).
      if (e.code === 'ENOENT' || e.code === 'EACCES') {
        fail(
          new ShadowError(
            'NOT_FOUND',
            `${e.code === 'ENOENT' ? 'command not found' : 'permission denied'}: ${cmd[0]}`,
            {
              hint: 'name a program on PATH (or a path to one) after --',
              data: { command: cmd[0], exit_code: e.code === 'ENOENT' ? 127 : 126 },
            },
          ),
        );
      } else fail(e);
    });
    child.once('exit', (code, signal) =>
      done(
        code ?? (signal ? 128 + ({ SIGINT: 2, SIGTERM: 15, SIGKILL: 9 } as Record<string, number>)[signal]! || 1 : 1),
      ),
    );
  });
}

/**
 * `shadow exec [--record | --record-on-success] [--worktree <dir>] -- <cmd…>`:
 * the command runs in the draft's exec worktree (a git worktree at the
 * draft's tip, kept between calls, dependencies linked from the working
 * tree) or in `--worktree`; its exit status passes through. The real
 * working tree is never touched.
 */
export async function exec(ctx: CommandContext): Promise<number> {
  const sh: Shadow = await ctx.open();
  const cmd = (ctx.argv['--'] as string[] | undefined) ?? (ctx.argv.cmd as string[] | undefined) ?? [];
  if (cmd.length === 0) {
    ctx.out.error({ code: 'USAGE', message: 'name the command to run after --', hint: 'shadow exec -- npm test' });
    return EXIT.usage;
  }
  const given = ctx.argv.worktree as string | undefined;
  let dir: string;
  let shared: string[] = [];
  let release = (): void => undefined;
  if (given) {
    dir = resolve(ctx.dir, given);
    await sh.worktrees.sync(dir);
  } else {
    // The draft's kept git worktree: made once, then only what changed is written; held until the command is done.
    const w = await sh.worktrees.exec({ draft: ctx.draft });
    release = w.release;
    dir = w.dir;
    shared = w.shares.filter((x) => x.status === 'linked').map((x) => x.path);
    if (w.discarded.length > 0)
      ctx.out.note(
        `reset what an earlier command left in ${dir} and nobody recorded: ${w.discarded.slice(0, 5).join(', ')}${w.discarded.length > 5 ? ', …' : ''}`,
      );
  }
  try {
    return await runIn(ctx, sh, cmd, dir, shared);
  } finally {
    release();
  }
}

async function runIn(ctx: CommandContext, sh: Shadow, cmd: string[], dir: string, shared: string[]): Promise<number> {
  // Run where the user stands, inside the view: the same subdirectory of the
  // working tree, or of the worktree the command was started in.
  const root = ctx.worktreeRoot ?? sh.layout.worktree;
  const rel = root ? relative(root, ctx.dir) : '';
  let sub = rel === '..' || rel.startsWith('../') || isAbsolute(rel) ? '' : rel;
  // Never inside a shared directory: its links lead into the person's working tree.
  for (const p of shared)
    if (sub === p || sub.startsWith(`${p}/`)) sub = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '';
  // A directory the view does not hold (ignored, or empty): its nearest parent that it does.
  while (sub !== '' && !existsSync(join(dir, sub))) sub = sub.includes('/') ? sub.slice(0, sub.lastIndexOf('/')) : '';
  const recordAlways = ctx.argv.record === true;
  const recordOnSuccess = ctx.argv['record-on-success'] === true;
  let code: number;
  try {
    try {
      code = await run(cmd, join(dir, sub), { ...ctx.io.env, SHADOW_WORKTREE: dir });
    } catch (e) {
      const exitCode = e instanceof ShadowError ? e.data?.exit_code : undefined;
      if (typeof exitCode !== 'number') throw e;
      ctx.out.error((e as ShadowError).toJSON());
      return exitCode;
    }
    if (recordAlways || (recordOnSuccess && code === 0)) {
      const r = await sh.worktrees.record(dir, {
        actor: ctx.actor,
        intent: (ctx.argv.message as string | undefined) ?? `exec: ${cmd.join(' ')}`,
      });
      const note = code === 0 ? '' : ` (the command exited ${code}; its changes are recorded all the same)`;
      ctx.out.result({ exit_code: code, ...r }, () => `${describeRecord(r)}${r.batch?.success ? note : ''}`);
      if (r.batch && !r.batch.success && code === 0) code = EXIT.error;
    } else if (recordOnSuccess) {
      ctx.out.note(`the command exited ${code}: nothing recorded (--record-on-success)`);
    }
  } finally {
    if (ctx.argv.keep === true && ctx.argv.worktree === undefined)
      ctx.out.note(
        `the worktree stays at ${dir} (exec keeps it for the next call; \`shadow worktree remove ${dir}\` deletes it)`,
      );
  }
  return code;
}
