import * as z from 'zod/mini';
import type { Context } from './context.js';
import { ShadowError } from './errors.js';
import type { BatchInput, FileMode, FileOperation } from './core/ops.js';
import type { Oid } from './core/git-objects.js';
import { draftChanges, draftLog, draftStatus, type ChangedFile, type DraftStatus, type LogEntry } from './engine/audit.js';
import { runBatch, type BatchResult } from './engine/batch.js';
import { createCheckpoint, listCheckpoints, rollback, undo, type CheckpointInfo, type RefMove } from './engine/checkpoints.js';
import { checkDraftName, createDraft, listDrafts, loadDraft, requireDraft, type DraftSummary } from './engine/drafts.js';
import { dropDraft } from './engine/draft-drop.js';
import { listViewDir, readViewFile, type ViewEntry, type ViewFile } from './engine/view.js';
import { searchView, walkView, type SearchOptions, type SearchResult, type WalkedFile, type WalkOptions } from './engine/view-walk.js';
import type { ApplyResult, RecoveryReport, UnapplyResult } from './engine/apply.js';
import type { CommitMode } from './engine/commit-modes.js';
import type { ApprovalState } from './engine/approvals.js';
import { draftEvents, ledgerPath } from './engine/ledger-events.js';
import type { Proposal } from './engine/proposal.js';
import type { Policy } from './engine/review.js';
import { verifyLedger, type LedgerEvent, type LedgerVerdict } from './store/ledger.js';
import { Workspace } from './engine/workspace.js';
import { checkPath, parseJsonText, validate, validateBatch } from './schema.js';
import { invalidBatchResult } from './batch-failure.js';
import { batchTooLarge } from './core/batch-bounds.js';
import type { ReviewReport } from './engine/review-report.js';
import { Sessions } from './sessions-api.js';
import { Worktrees } from './worktrees-api.js';
import type { PlanOutcome, ResumeOptions, RunOptions, Tracker } from './engine/plan.js';

/** Options every draft-scoped call takes. */

/** A directory of the view as given by a person: `''`, `.`, `./src`, `src/`. */
function viewDir(dir: string): string {
  const d = dir.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  return d === '' || d === '.' ? '' : checkPath(d);
}

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
  sandbox: z.optional(z.enum(['read-only', 'workspace-write'])),
}).check(z.refine((o) => !(o.commit && o.squash !== undefined), '--commit and --squash exclude each other'));

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

  /** The context this handle works through (for servers built on it). */
  get context(): Context {
    return this.ctx;
  }

  /** The largest content a write may carry (`shadow.maxContentBytes`). */
  get maxContentBytes(): number {
    return this.ws.settings.maxContentBytes;
  }

  /**
   * How long the HTTP server waits for a request's body: `shadow.serverIdleMs`
   * without a byte (default 30 s), `shadow.serverBodyMs` in all (default 10 min).
   */
  get serverLimits(): { idleMs: number; bodyMs: number } {
    const c = this.ws.repo.config;
    const positive = (key: string, fallback: number): number => {
      const v = c.getInt(key.toLowerCase());
      if (v === undefined) return fallback;
      if (v > 0) return v;
      throw new ShadowError('INVALID_ARGUMENT', `${key} is ${v}: it must be a positive number of milliseconds`, { hint: `set it with \`git config ${key} <ms>\`, or unset it for the default` });
    };
    return { idleMs: positive('shadow.serverIdleMs', 30_000), bodyMs: positive('shadow.serverBodyMs', 10 * 60_000) };
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
   * Parse batch JSON, as text or UTF-8 bytes. INVALID_JSON (with the
   * position, and whether the text was cut off; for bytes that are not
   * UTF-8, the byte offset) or INVALID_BATCH (every problem listed).
   *
   * @example
   * const input = sh.parseBatch('{"operations":[{"operation":"delete","path":"old.txt"}]}');
   */
  parseBatch(text: string | Uint8Array): BatchInput {
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
    return this.batchCarrying(input, options);
  }

  /** batch(), for a batch some of whose writes' contents were taken out as bytes as it was read (`carried`, by op). */
  private batchCarrying(input: unknown, options: BatchCallOptions, carried?: WeakMap<object, Uint8Array>): Promise<BatchResult> | BatchResult {
    const draft = this.draftName(options);
    // Counted before validation, and answered without a result per operation: it may hold 100,000.
    const tooLarge = batchTooLarge(input, this.ws.settings.batchLimits, undefined, carried);
    if (tooLarge) return invalidBatchResult(draft, undefined, tooLarge);
    let parsed: BatchInput;
    try {
      parsed = validateBatch(input);
    } catch (e) {
      if (e instanceof ShadowError) return invalidBatchResult(draft, input, e);
      throw e;
    }
    if (carried) parsed = putBack(parsed, input, carried);
    return runBatch(this.ws, parsed, {
      draft,
      actor: this.actor(options.actor, parsed.actor),
      allowIgnored: options.allowIgnored,
      maxContentBytes: options.maxContentBytes,
    });
  }

  /**
   * Apply a batch given as JSON text, or as its bytes, whole or as they are
   * read (a large batch is then parsed without its whole text ever held).
   * Text that is not JSON (a tool call cut off mid-string, say) returns
   * `success: false` with INVALID_JSON, its position and whether it was
   * truncated; so do bytes that are not UTF-8, with the offset of the first
   * bad byte (nothing is ever decoded into U+FFFD). An error reading the
   * pieces is thrown.
   *
   * @example
   * const r = await sh.batchText(await readFile('batch.json'));
   * const big = await sh.batchText(createReadStream('large-batch.json'));
   */
  async batchText(text: string | Uint8Array | AsyncIterable<Uint8Array>, options: BatchCallOptions = {}): Promise<BatchResult> {
    const draft = this.draftName(options);
    let input: unknown;
    let carried: WeakMap<object, Uint8Array> | undefined;
    try {
      if (typeof text === 'string' || text instanceof Uint8Array) input = parseJsonText(text);
      else {
        const taken = (carried = new WeakMap());
        input = await (await import('./json-stream.js')).parseJsonStream(text, 'batch', (op) => takeContent(op, taken));
      }
    } catch (e) {
      if (e instanceof ShadowError && e.code === 'INVALID_JSON') return invalidBatchResult(draft, undefined, e);
      throw e;
    }
    return this.batchCarrying(input, options, carried);
  }

  /**
   * Write a file: a string is UTF-8 text (or base64 with `encoding:
   * 'base64'`), a Uint8Array is stored byte for byte.
   *
   * @example await sh.write('notes.md', '# notes\n')
   */
  write(
    path: string,
    content: string | Uint8Array,
    options: BatchCallOptions & { mode?: FileMode; intent?: string; encoding?: 'utf8' | 'base64' } = {},
  ): Promise<BatchResult> {
    const op: FileOperation =
      typeof content === 'string'
        ? { operation: 'write', path, content, ...(options.encoding ? { encoding: options.encoding } : {}) }
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
  async draftDrop(name: string, options: { purge?: boolean; actor?: string } = {}): Promise<{ draft: string; archive?: string }> {
    checkDraftName(name);
    return { draft: name, ...(await dropDraft(this.ws, name, { purge: options.purge ?? false, actor: this.actor(options.actor) })) };
  }

  /** @example const f = await sh.cat('src/hello.ts'); f.content.toString() */
  async cat(path: string, options?: DraftOption): Promise<ViewFile> {
    return readViewFile(this.ws, this.draftName(options), checkPath(path));
  }

  /** @example for (const e of await sh.ls('src')) console.log(e.name, e.type) */
  async ls(dir = '', options?: DraftOption): Promise<ViewEntry[]> {
    return listViewDir(this.ws, this.draftName(options), viewDir(dir));
  }

  /**
   * Every file of the view under `dir`, recursively, skipping what
   * .gitignore ignores (unless the draft wrote it; `ignored: true` lists it all).
   *
   * @example const { files } = await sh.files('src')
   */
  async files(dir = '', options: DraftOption & WalkOptions = {}): Promise<{ files: WalkedFile[]; truncated: boolean }> {
    return walkView(this.ws, this.draftName(options), viewDir(dir), options);
  }

  /**
   * Lines of the view's text files that hold `pattern` (a substring, or a
   * regular expression with `regex: true`), bounded in results and files.
   *
   * @example const { matches } = await sh.search('TODO', { dir: 'src' })
   */
  async search(pattern: string, options: DraftOption & SearchOptions & { dir?: string } = {}): Promise<SearchResult> {
    return searchView(this.ws, this.draftName(options), pattern, viewDir(options.dir ?? ''), options);
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
  async checkpoint(name: string, options: DraftOption & { message?: string; actor?: string } = {}): Promise<CheckpointInfo> {
    return createCheckpoint(this.ws, this.draftName(options), name, this.actor(options.actor), options.message);
  }

  /** @example const cps = await sh.checkpoints() */
  async checkpoints(options?: DraftOption): Promise<CheckpointInfo[]> {
    const name = this.draftName(options);
    requireDraft(this.ws, name);
    return listCheckpoints(this.ws, name);
  }

  /** @example await sh.rollback('before-refactor') // or '~2', '3', a commit */
  async rollback(target: string, options?: DraftOption & { actor?: string }): Promise<RefMove> {
    return rollback(this.ws, this.draftName(options), target, this.actor(options?.actor));
  }

  /** @example await sh.undo() // reverses the last batch, rollback or undo */
  async undo(options?: DraftOption & { actor?: string }): Promise<RefMove & { undid: string }> {
    return undo(this.ws, this.draftName(options), this.actor(options?.actor));
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
    options: DraftOption & {
      dryRun?: boolean;
      commit?: boolean;
      squash?: string;
      actor?: string;
      sandbox?: Policy['sandbox'];
      onProgress?: (done: number, total: number, bytes: number) => void;
    } = {},
  ): Promise<ApplyResult> {
    const { onProgress, ...checked } = options;
    validate(ApplyOptionsSchema, checked, 'INVALID_ARGUMENT', 'the apply options');
    const mode: CommitMode | undefined = options.squash !== undefined ? { kind: 'squash', message: options.squash } : options.commit ? { kind: 'commit' } : undefined;
    const policy = options.sandbox ? { sandbox: options.sandbox } : {};
    const { applyDraft } = await import('./engine/apply.js');
    return applyDraft(this.ws, this.draftName(options), { dryRun: options.dryRun, mode, actor: this.actor(options.actor), onProgress, policy });
  }

  /** @example await sh.unapply() // the working tree as it was before the last apply */
  async unapply(options: DraftOption & { actor?: string; sandbox?: Policy['sandbox'] } = {}): Promise<UnapplyResult> {
    const { unapplyDraft } = await import('./engine/apply.js');
    return unapplyDraft(this.ws, this.draftName(options), this.actor(options.actor), options.sandbox ? { sandbox: options.sandbox } : {});
  }

  /**
   * Freeze the draft's diff as a proposal (its fingerprint and findings).
   *
   * @example const p = await sh.propose({ message: 'refactor parser' }); p.patch_fingerprint
   */
  async propose(options: DraftOption & { message?: string; actor?: string } = {}): Promise<Proposal> {
    const { proposeDraft } = await import('./engine/proposal.js');
    return proposeDraft(this.ws, this.draftName(options), { message: options.message, actor: this.actor(options.actor) });
  }

  /**
   * What a reviewer sees: the diff, the findings (secrets redacted,
   * protected paths, deletions) and the state of every approval apply needs.
   *
   * @example const r = await sh.review(); r.approvals.filter((a) => a.status === 'pending')
   */
  async review(options: DraftOption = {}): Promise<ReviewReport> {
    const { reviewReport } = await import('./engine/review-report.js');
    return reviewReport(this.ws, this.draftName(options));
  }

  /** @example await sh.approve('ap-1a2b3c4d5e', { reason: 'fixture key, not real' }) */
  async approve(id: string, options: DraftOption & { reason?: string; actor?: string } = {}): Promise<ApprovalState> {
    const { decide } = await import('./engine/approvals.js');
    return decide(this.ws, this.draftName(options), id, 'approve', this.actor(options.actor), options.reason);
  }

  /** @example await sh.deny('ap-1a2b3c4d5e', { reason: 'no keys in the repo' }) */
  async deny(id: string, options: DraftOption & { reason?: string; actor?: string } = {}): Promise<ApprovalState> {
    const { decide } = await import('./engine/approvals.js');
    return decide(this.ws, this.draftName(options), id, 'deny', this.actor(options.actor), options.reason);
  }

  /** @example for (const e of await sh.events()) console.log(e.seq, e.type) */
  async events(options: DraftOption = {}): Promise<LedgerEvent[]> {
    return draftEvents(this.ws, this.draftName(options));
  }

  /** Check the ledger's hash chain; reports the first broken line. */
  async verifyEvents(options: DraftOption = {}): Promise<LedgerVerdict> {
    return verifyLedger(this.ctx, ledgerPath(this.ws, this.draftName(options)));
  }

  /** The ledger's file (for followers). */
  eventsPath(options: DraftOption = {}): string {
    return ledgerPath(this.ws, this.draftName(options));
  }

  /** @example const r = await sh.recover(); r.finished.length */
  async recover(): Promise<RecoveryReport> {
    const { recover } = await import('./engine/apply.js');
    return recover(this.ws);
  }

  /** What opening the repository recovered (an apply a crash interrupted), if anything. */
  recovered: RecoveryReport | undefined;

  /** Write sessions: large content as plain text, committed as one batch. */
  get sessions(): Sessions {
    return (this.sessionsApi ??= new Sessions(this.ws, (d) => this.draftName({ draft: d }), (a) => this.actor(a)));
  }

  private sessionsApi: Sessions | undefined;

  /** Materialized worktrees: the draft's view as a real directory, kept in step, its changes recorded as batches. */
  get worktrees(): Worktrees {
    return (this.worktreesApi ??= new Worktrees(this.ws, (d) => this.draftName({ draft: d }), (a) => this.actor(a)));
  }

  private worktreesApi: Worktrees | undefined;

  /**
   * Run a plan (its text: JSON, or JSON Lines of batches) on a draft, from
   * the first batch not yet on it, or `from`. `shouldStop` is checked
   * between batches; so is a `shadow stop` request.
   *
   * @example
   * const out = await sh.runPlan(planText, { onEvent: (e) => console.log(e.type) });
   */
  async runPlan(planText: string, options: DraftOption & Omit<RunOptions, 'draft' | 'actor'> & { actor?: string } = {}): Promise<PlanOutcome> {
    const [{ runPlan }, { parsePlan }] = await Promise.all([import('./engine/plan.js'), import('./engine/plan-file.js')]);
    return runPlan(this.ws, parsePlan(planText), { ...options, draft: this.draftName(options), actor: this.actor(options.actor) });
  }

  /**
   * Resume the draft's last plan after the last batch on the draft. Reads the
   * plan file the run was started with (or `planText`); PLAN_CHANGED when it
   * changed since, unless `force`. `skip` skips the batch that failed.
   */
  async resumePlan(options: DraftOption & Omit<ResumeOptions, 'draft' | 'actor'> & { actor?: string } = {}): Promise<PlanOutcome> {
    const { resumePlan } = await import('./engine/plan.js');
    return resumePlan(this.ws, { ...options, draft: this.draftName(options), actor: this.actor(options.actor) });
  }

  /** Ask the plan running on the draft (in any process) to stop after its current batch. */
  async stopPlan(options: DraftOption = {}): Promise<Tracker> {
    const { requestStop } = await import('./engine/plan.js');
    return requestStop(this.ws, this.draftName(options));
  }

  /** Where the draft's plan stands: the tracker, with its progress checked against the draft's commits. */
  async planStatus(options: DraftOption = {}): Promise<Tracker | undefined> {
    const draft = this.draftName(options);
    const { planProgress, readTracker } = await import('./engine/plan.js');
    const t = readTracker(this.ws, draft);
    if (!t) return undefined;
    const done = planProgress(this.ws, draft, t.plan_id);
    return { ...t, last_completed_batch_id: done.size === 0 ? 0 : Math.max(...done) };
  }

  /** Whether a draft exists. */
  async hasDraft(options?: DraftOption): Promise<boolean> {
    return loadDraft(this.ws, this.draftName(options)) !== undefined;
  }

  /** Release open files. */
  close(): void {
    this.ws.close();
  }
}

/**
 * A write's text content, as a large batch is read: taken out of the op as
 * its UTF-8 bytes (`carried`), its string left to be collected while it is
 * young, so that the batch's contents are never held both as strings and as
 * bytes. Only what validation cannot refuse for its content is taken: a
 * string, UTF-8 (any other encoding, or a lone surrogate, stays for the usual
 * checks to report).
 */
function takeContent(op: unknown, carried: WeakMap<object, Uint8Array>): void {
  if (op === null || typeof op !== 'object') return;
  const o = op as { operation?: unknown; content?: unknown; encoding?: unknown };
  if (o.operation !== 'write' || typeof o.content !== 'string' || (o.encoding !== undefined && o.encoding !== 'utf8') || !o.content.isWellFormed()) return;
  carried.set(op, Buffer.from(o.content, 'utf8'));
  o.content = '';
}

/** The validated batch with the contents takeContent took out put back in its writes, as their bytes. */
function putBack(parsed: BatchInput, sent: unknown, carried: WeakMap<object, Uint8Array>): BatchInput {
  const raw = (sent as { operations: unknown[] }).operations;
  const operations = parsed.operations.map((op, i) => {
    const bytes = carried.get(raw[i] as object);
    return bytes && op.operation === 'write' ? { ...op, content: '', encoding: undefined, bytes } : op;
  });
  return { ...parsed, operations };
}
