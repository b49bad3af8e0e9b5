import * as z from 'zod/mini';
import type { Clock, Context, Env, FileSystem, Ids, Processes } from './context.js';
import { ShadowError } from './errors.js';
import { pathProblem } from './core/path-rules.js';
import type { BatchInput, FileMode, FileOperation } from './core/ops.js';
import type { Oid } from './core/git-objects.js';
import { draftChanges, draftLog, draftStatus, type ChangedFile, type DraftStatus, type LogEntry } from './engine/audit.js';
import { runBatch, type BatchResult } from './engine/batch.js';
import { createCheckpoint, listCheckpoints, rollback, undo, type CheckpointInfo, type RefMove } from './engine/checkpoints.js';
import { checkDraftName, createDraft, dropDraft, listDrafts, loadDraft, requireDraft, type DraftSummary } from './engine/drafts.js';
import { listViewDir, readViewFile, type ViewEntry, type ViewFile } from './engine/view.js';
import { applyDraft, recover, unapplyDraft, type ApplyResult, type RecoveryReport, type UnapplyResult } from './engine/apply.js';
import type { CommitMode } from './engine/commit-modes.js';
import { hasJournals } from './store/journal.js';
import { Workspace } from './engine/workspace.js';
import { parseJsonText, validate, validateBatch } from './schema.js';

/** Options of `openShadow`: where, and the side effects (all optional but `dir`). */
export interface OpenOptions {
  /** An absolute path inside the repository. */
  dir: string;
  fs?: FileSystem;
  clock?: Clock;
  ids?: Ids;
  env?: Env;
  processes?: Processes;
}

/** Options every draft-scoped call takes. */
export interface DraftOption {
  /** The draft; default `SHADOW_DRAFT`, else `default`. */
  draft?: string;
}

export interface BatchCallOptions extends DraftOption {
  /** Who sends the batch; default the batch's own `actor`, `SHADOW_ACTOR`, git's `user.name`. */
  actor?: string;
  allowIgnored?: boolean;
  maxContentBytes?: number;
}

/** A file of a draft's diff, with its patch when asked for. */
export interface DiffFile extends ChangedFile {
  insertions?: number;
  deletions?: number;
  binary?: boolean;
  patch?: string;
}

const ApplyOptionsSchema = z.object({
  draft: z.optional(z.string()),
  dryRun: z.optional(z.boolean()),
  commit: z.optional(z.boolean()),
  squash: z.optional(z.string().check(z.refine((m) => m.trim().length > 0, 'a commit message must not be empty'))),
  actor: z.optional(z.string()),
}).check(z.refine((o) => !(o.commit && o.squash !== undefined), '--commit and --squash exclude each other'));

const OpenSchema = z.object({
  dir: z.string().check(z.refine((d) => d.startsWith('/'), 'must be an absolute path')),
});
const DraftOptionSchema = z.optional(z.object({ draft: z.optional(z.string()) }));

/**
 * A handle on one repository: every shadow operation, with arguments
 * validated at this boundary. Side effects come from the context given to
 * `openShadow`; nothing is global.
 */
export class Shadow {
  private constructor(
    private readonly ws: Workspace,
    private readonly ctx: Context,
  ) {}

  /** @internal */
  static create(ws: Workspace, ctx: Context): Shadow {
    return new Shadow(ws, ctx);
  }

  /** Where the repository lives: `{ gitdir, commondir, worktree }`. */
  get layout(): { gitdir: string; commondir: string; worktree: string | null } {
    return { ...this.ws.repo.layout };
  }

  /** Counters of the object database (objects read and written, packs). */
  get stats(): { objectsRead: number; objectsWritten: number; packsWritten: number } {
    return { ...this.ws.repo.objects.stats };
  }

  /** The draft a call works on: the option, else `SHADOW_DRAFT`, else `default`. */
  draftName(options?: DraftOption): string {
    const name = options?.draft ?? this.ctx.env.SHADOW_DRAFT ?? 'default';
    checkDraftName(name);
    return name;
  }

  /** Who acts: the option, else the batch's actor, `SHADOW_ACTOR`, git's `user.name`, `unknown`. */
  actor(explicit?: string, fromBatch?: string): string {
    return explicit ?? fromBatch ?? this.ctx.env.SHADOW_ACTOR ?? this.ws.repo.config.get('user.name') ?? 'unknown';
  }

  /**
   * Parse batch JSON text. INVALID_JSON (with the position, and whether the
   * text was cut off) or INVALID_BATCH (every problem listed).
   *
   * @example
   * const input = sh.parseBatch('{"operations":[{"operation":"delete","path":"old.txt"}]}');
   */
  parseBatch(text: string): BatchInput {
    return validateBatch(parseJsonText(text));
  }

  /**
   * Apply a batch to a draft as one atomic commit. A batch that fails
   * (validation or any op) writes nothing and returns `success: false` with
   * every problem; errors outside the batch (a lock, the repository) throw.
   *
   * @example
   * const r = await sh.batch({ intent: 'greet', operations: [{ operation: 'write', path: 'hi.txt', content: 'hi\n' }] });
   * r.success && console.log(r.commit, r.batch);
   */
  async batch(input: unknown, options: BatchCallOptions = {}): Promise<BatchResult> {
    const draft = this.draftName(options);
    let parsed: BatchInput;
    try {
      parsed = validateBatch(input);
    } catch (e) {
      if (e instanceof ShadowError) return invalidBatchResult(draft, input, e);
      throw e;
    }
    return runBatch(this.ws, parsed, {
      draft,
      actor: this.actor(options.actor, parsed.actor),
      allowIgnored: options.allowIgnored,
      maxContentBytes: options.maxContentBytes,
    });
  }

  /**
   * Apply a batch given as JSON text. Text that is not JSON (a tool call cut
   * off mid-string, say) returns `success: false` with INVALID_JSON, its
   * position and whether it was truncated.
   *
   * @example
   * const r = await sh.batchText(await readFile('batch.json', 'utf8'));
   */
  async batchText(text: string, options: BatchCallOptions = {}): Promise<BatchResult> {
    const draft = this.draftName(options);
    let input: unknown;
    try {
      input = parseJsonText(text);
    } catch (e) {
      if (e instanceof ShadowError) return invalidBatchResult(draft, undefined, e);
      throw e;
    }
    return this.batch(input, options);
  }

  /** @example await sh.write('notes.md', '# notes\n') */
  write(path: string, content: string | Uint8Array, options: BatchCallOptions & { mode?: FileMode; intent?: string } = {}): Promise<BatchResult> {
    const op: FileOperation =
      typeof content === 'string'
        ? { operation: 'write', path, content }
        : { operation: 'write', path, content: Buffer.from(content).toString('base64'), encoding: 'base64' };
    if (options.mode) op.mode = options.mode;
    return this.batch({ intent: options.intent ?? `write ${path}`, operations: [op] }, options);
  }

  /** @example await sh.edit('README.md', 'Hello', 'Hello, world') */
  edit(path: string, oldContent: string, content: string, options: BatchCallOptions & { intent?: string } = {}): Promise<BatchResult> {
    return this.batch({ intent: options.intent ?? `edit ${path}`, operations: [{ operation: 'edit', path, old_content: oldContent, content }] }, options);
  }

  /** @example await sh.remove(['old.txt']) */
  remove(paths: string[], options: BatchCallOptions & { intent?: string } = {}): Promise<BatchResult> {
    const operations = paths.map((path) => ({ operation: 'delete' as const, path }));
    return this.batch({ intent: options.intent ?? `delete ${paths.join(', ')}`, operations }, options);
  }

  /** @example await sh.move('a.txt', 'b.txt') */
  move(from: string, to: string, options: BatchCallOptions & { intent?: string } = {}): Promise<BatchResult> {
    return this.batch({ intent: options.intent ?? `rename ${from} to ${to}`, operations: [{ operation: 'rename', path: from, to }] }, options);
  }

  /** @example await sh.draftNew('refactor', { from: 'main' }) */
  async draftNew(name?: string, options: { from?: string; actor?: string } = {}): Promise<DraftSummary & { from: string; created_by: string; checkpoints: CheckpointInfo[] }> {
    const draftName = this.draftName({ draft: name });
    await createDraft(this.ws, draftName, { from: options.from, actor: this.actor(options.actor) });
    return this.draftShow({ draft: draftName });
  }

  /** @example for (const d of await sh.draftList()) console.log(d.name) */
  async draftList(): Promise<DraftSummary[]> {
    return listDrafts(this.ws);
  }

  /** @example const d = await sh.draftShow({ draft: 'default' }) */
  async draftShow(options?: DraftOption): Promise<DraftSummary & { checkpoints: CheckpointInfo[]; from: string; created_by: string }> {
    validate(DraftOptionSchema, options, 'INVALID_ARGUMENT', 'the options');
    const name = this.draftName(options);
    const d = requireDraft(this.ws, name);
    const summary = listDrafts(this.ws).find((s) => s.name === name)!;
    return { ...summary, checkpoints: listCheckpoints(this.ws, name), from: d.meta.from, created_by: d.meta.created_by };
  }

  /** @example await sh.draftDrop('experiment') // kept under refs/shadow/archive/ */
  async draftDrop(name: string, options: { purge?: boolean } = {}): Promise<{ draft: string; archive?: string }> {
    checkDraftName(name);
    return { draft: name, ...(await dropDraft(this.ws, name, { purge: options.purge ?? false })) };
  }

  /** @example const f = await sh.cat('src/hello.ts'); f.content.toString() */
  async cat(path: string, options?: DraftOption): Promise<ViewFile> {
    return readViewFile(this.ws, this.draftName(options), checkPath(path));
  }

  /** @example for (const e of await sh.ls('src')) console.log(e.name, e.type) */
  async ls(dir = '', options?: DraftOption): Promise<ViewEntry[]> {
    const d = dir.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
    return listViewDir(this.ws, this.draftName(options), d === '' || d === '.' ? '' : checkPath(d));
  }

  /** @example for (const b of await sh.log()) console.log(b.batch, b.intent) */
  async log(options: DraftOption & { limit?: number } = {}): Promise<LogEntry[]> {
    return draftLog(this.ws, this.draftName(options), options.limit ?? Infinity);
  }

  /**
   * What the draft changes: against its captured bases, or between two points
   * (`range: 'before-refactor..'`). `content: 'stat'` adds line counts,
   * `'patch'` the unified diffs too.
   *
   * @example const { files } = await sh.diff({ content: 'patch' })
   */
  async diff(options: DraftOption & { range?: string; content?: 'none' | 'stat' | 'patch' } = {}): Promise<{ draft: string; from?: Oid; to?: Oid; files: DiffFile[] }> {
    const draft = this.draftName(options);
    let range: { from: string; to: string } | undefined;
    if (options.range !== undefined) {
      const m = /^(.*?)\.\.(.*)$/.exec(options.range);
      range = m ? { from: m[1]!, to: m[2]! } : { from: options.range, to: '' };
    }
    const changes = draftChanges(this.ws, draft, range);
    const content = options.content ?? 'none';
    let files: DiffFile[] = changes.files;
    if (content !== 'none') {
      const { fileDiff } = await import('./core/unified-diff.js');
      const objects = this.ws.repo.objects;
      const read = (e: { mode: string; oid: Oid } | null): Buffer => (e && e.mode !== '160000' ? objects.readBlob(e.oid) : Buffer.alloc(0));
      files = changes.files.map((f) => {
        const d = fileDiff({ path: f.path, old: f.old, new: f.new, oldContent: read(f.old), newContent: read(f.new) });
        const out: DiffFile = { ...f, insertions: d.insertions, deletions: d.deletions, binary: d.binary };
        if (content === 'patch') out.patch = d.text;
        return out;
      });
    }
    return { draft, from: changes.from, to: changes.to, files };
  }

  /** @example const s = await sh.status(); s.drifted.length */
  async status(options?: DraftOption): Promise<DraftStatus> {
    return draftStatus(this.ws, this.draftName(options));
  }

  /** @example await sh.checkpoint('before-refactor', { message: 'tests green' }) */
  async checkpoint(name: string, options: DraftOption & { message?: string } = {}): Promise<CheckpointInfo> {
    return createCheckpoint(this.ws, this.draftName(options), name, options.message);
  }

  /** @example const cps = await sh.checkpoints() */
  async checkpoints(options?: DraftOption): Promise<CheckpointInfo[]> {
    const name = this.draftName(options);
    requireDraft(this.ws, name);
    return listCheckpoints(this.ws, name);
  }

  /** @example await sh.rollback('before-refactor') // or '~2', '3', a commit */
  async rollback(target: string, options?: DraftOption): Promise<RefMove> {
    return rollback(this.ws, this.draftName(options), target);
  }

  /** @example await sh.undo() // reverses the last batch, rollback or undo */
  async undo(options?: DraftOption): Promise<RefMove & { undid: string }> {
    return undo(this.ws, this.draftName(options));
  }

  /**
   * Publish the draft into the working tree (see the README's guarantees).
   * `dryRun` checks and lists without writing; `commit` also moves the
   * current branch to the draft's commits; `squash` makes one commit.
   *
   * @example
   * const plan = await sh.apply({ dryRun: true });
   * if (plan.conflicts.length === 0) await sh.apply();
   */
  async apply(
    options: DraftOption & { dryRun?: boolean; commit?: boolean; squash?: string; actor?: string; onProgress?: (done: number, total: number, bytes: number) => void } = {},
  ): Promise<ApplyResult> {
    const { onProgress, ...checked } = options;
    validate(ApplyOptionsSchema, checked, 'INVALID_ARGUMENT', 'the apply options');
    const mode: CommitMode | undefined = options.squash !== undefined ? { kind: 'squash', message: options.squash } : options.commit ? { kind: 'commit' } : undefined;
    return applyDraft(this.ws, this.draftName(options), { dryRun: options.dryRun, mode, actor: this.actor(options.actor), onProgress });
  }

  /** @example await sh.unapply() // the working tree as it was before the last apply */
  async unapply(options: DraftOption & { actor?: string } = {}): Promise<UnapplyResult> {
    return unapplyDraft(this.ws, this.draftName(options), this.actor(options.actor));
  }

  /** @example const r = await sh.recover(); r.finished.length */
  async recover(): Promise<RecoveryReport> {
    return recover(this.ws);
  }

  /** What opening the repository recovered (an apply a crash interrupted), if anything. */
  recovered: RecoveryReport | undefined;

  /** Whether a draft exists. */
  async hasDraft(options?: DraftOption): Promise<boolean> {
    return loadDraft(this.ws, this.draftName(options)) !== undefined;
  }

  /** Release open files. */
  close(): void {
    this.ws.close();
  }
}

function checkPath(path: string): string {
  const problem = pathProblem(path);
  if (problem) {
    throw new ShadowError('INVALID_PATH', `"${path.length > 200 ? `${path.slice(0, 200)}…` : path}" is not a path shadow reads: ${problem}`, {
      hint: 'give a path relative to the repository root, with forward slashes',
      data: { path },
    });
  }
  return path;
}

function invalidBatchResult(draft: string, input: unknown, e: ShadowError): BatchResult {
  const ops = (input as { operations?: unknown } | null)?.operations;
  const problems = (e.data?.problems ?? []) as Array<{ path: string; message: string }>;
  const results = Array.isArray(ops)
    ? ops.map((op, i) => {
        const o = (op ?? {}) as { operation?: unknown; path?: unknown };
        const mine = problems.filter((p) => p.path.startsWith(`operations[${i}]`));
        const base = { operation: (typeof o.operation === 'string' ? o.operation : 'unknown') as FileOperation['operation'], path: typeof o.path === 'string' ? o.path : '' };
        return mine.length > 0
          ? { ...base, success: false, status: 'failed' as const, error: { code: e.code, message: mine.map((p) => `${p.path} ${p.message}`).join('; ') } }
          : { ...base, success: false, status: 'not_applied' as const };
      })
    : [];
  return { success: false, results, error: e.toJSON(), commit: null, batch: null, draft };
}

/**
 * Open the repository containing `dir`. The context defaults to the real
 * process (node's fs, the system clock, `process.env`); tests pass a memfs
 * volume and a fixed clock.
 *
 * @example
 * import { openShadow } from 'shadow';
 * const sh = await openShadow({ dir: process.cwd() });
 * await sh.batch({ operations: [{ operation: 'write', path: 'a.txt', content: 'a\n' }] });
 */
export async function openShadow(options: OpenOptions): Promise<Shadow> {
  validate(OpenSchema, { dir: options.dir }, 'INVALID_ARGUMENT', 'openShadow options');
  let ctx: Context;
  if (options.fs && options.clock && options.ids && options.env) {
    ctx = { fs: options.fs, clock: options.clock, ids: options.ids, env: options.env, processes: options.processes };
  } else {
    const { nodeContext } = await import('./node-context.js');
    const base = nodeContext();
    ctx = {
      fs: options.fs ?? base.fs,
      clock: options.clock ?? base.clock,
      ids: options.ids ?? base.ids,
      env: options.env ?? base.env,
      processes: options.processes ?? (options.fs ? undefined : base.processes),
    };
  }
  const ws = Workspace.open(ctx, options.dir);
  const sh = Shadow.create(ws, ctx);
  // Every command first finishes an apply a crash interrupted. An apply that
  // is running now (its lock held by a live process) is not interrupted.
  if (ws.repo.layout.worktree !== null && hasJournals(ctx, ws.repo.shadowDir)) {
    try {
      sh.recovered = await recover(ws);
    } catch (e) {
      if (!(e instanceof ShadowError && e.code === 'LOCKED')) throw e;
    }
  }
  return sh;
}
