import type { Context } from '../context.js';
import { DEFAULT_MAX_BATCH_BYTES, DEFAULT_MAX_BATCH_OPS, type BatchLimits } from './batch/batch-bounds.js';
import { DEFAULT_MAX_CONTENT_BYTES } from '../core/content.js';
import type { Oid } from '../git/format/git-objects.js';
import { DraftMetaCache } from './draft-meta-cache.js';
import type { SharedCaches } from './shared-caches.js';
import type { AppliedMemo } from '../state/applied-state.js';
import { statStamp } from '../durable/durable-file.js';
import { AttributeFiles, baseAttributeFiles } from '../git/attribute-files.js';
import { baseIgnoreFiles, IgnoreRules } from '../git/gitignore.js';
import { readIndexVersion } from '../git/index-file.js';
import { IndexView } from '../git/index-view.js';
import { TreeLower, WorkingTreeLower, type LowerLayer } from '../git/lower-layer.js';
import { Repository } from '../git/repository.js';
import { WorktreeForm } from '../git/worktree-form.js';

/** Settings from git config (`shadow.*`), overridable per call. */
export interface Settings {
  maxContentBytes: number;
  allowIgnored: boolean;
  batchLimits: BatchLimits;
}

/** A limit from git config: a value below 1 would refuse every batch, so it counts as unset. */
function positive(n: number | undefined): number | undefined {
  return n !== undefined && n >= 1 ? n : undefined;
}

/** What reading one working-tree file costs, in bytes of index read and scanned (see indexView). */
const INDEX_BYTES_PER_FILE_READ = 100_000;

/**
 * A write session this process is feeding, as the workspace holds it. The
 * sessions capability (src/sessions/) puts its own sessions here; the
 * workspace only keeps them for the life of the handle.
 */
export interface LiveSession {
  readonly bytes: number;
  readonly lines: number;
  readonly done: boolean;
  readonly warnings: readonly string[];
  /** Milliseconds since the last byte. */
  idleMs(): number;
  /** Save what is unsaved when the save interval has passed. */
  saveIfDue(): void;
  /** Stop feeding and forget the session. */
  discard(): void;
}

/**
 * An open repository plus what the engine caches about it for the life of
 * the handle: draft metadata (checked against the ref and its file on every
 * use) and the settings. One per `openShadow` call; the draft metadata and
 * parsed objects are shared with the process's other handles on the
 * repository when `openShadow` was given SharedCaches.
 */
export class Workspace {
  readonly settings: Settings;
  /** Draft metadata by name, valid while `bases_tip` equals the ref and `draft.json` is unchanged. */
  readonly drafts: DraftMetaCache;
  /**
   * Reviews of publish sets, by the digest of the set (paths with their old
   * and new blob ids, which pin every byte of the diff): a dry run followed
   * by an apply diffs once. A few entries, newest last.
   */
  readonly reviewCache = new Map<string, unknown>();
  /** Each draft's applied state, under the names of the records it was read from. */
  readonly appliedMemo: AppliedMemo = new Map();
  /** The ignore rules, under the ignore files and case rule they were made for. */
  private ignore: { key: string; rules: IgnoreRules } | undefined;
  /** git's index, under the stat stamp of the file it was read from. */
  private index: { stamp: string; view: IndexView | undefined } | undefined;
  /** How working-tree files become blobs and back, made on first use. */
  private form: WorktreeForm | undefined;
  /** Write sessions this process is feeding, by id (the sessions capability fills it). */
  readonly sessions = new Map<string, LiveSession>();
  /** The last turn queued on each draft (inTurn). */
  private readonly turns = new Map<string, Promise<void>>();
  /** Work to run once the current answers are out (afterAnswers), by key. */
  private readonly upkeep = new Map<string, (closing: boolean) => void>();
  /** The jobs waiting on each draft for a turn to take them (inGroup). */
  private readonly queued = new Map<string, unknown[]>();

  private constructor(
    readonly repo: Repository,
    drafts: DraftMetaCache,
    /** The draft metadata cache is this handle's own (no SharedCaches): nothing reads it after close. */
    readonly ownsDraftMetas: boolean,
  ) {
    this.drafts = drafts;
    const c = repo.config;
    this.settings = {
      maxContentBytes: c.getInt('shadow.maxcontentbytes') ?? DEFAULT_MAX_CONTENT_BYTES,
      allowIgnored: c.getBool('shadow.allowignored') ?? false,
      batchLimits: {
        maxOps: positive(c.getInt('shadow.maxbatchops')) ?? DEFAULT_MAX_BATCH_OPS,
        maxBytes: positive(c.getInt('shadow.maxbatchbytes')) ?? DEFAULT_MAX_BATCH_BYTES,
      },
    };
  }

  /**
   * Run `work` once every turn queued on `draft` before it has finished:
   * the batches of one process (a server's clients) on one draft commit one
   * after another instead of racing for the ref, where all but one lose and
   * redo their work. `waited` says whether another turn ran first.
   */
  async inTurn<T>(draft: string, work: (waited: boolean) => Promise<T>): Promise<T> {
    const before = this.turns.get(draft);
    const mine = before === undefined ? work(false) : before.then(() => work(true));
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    this.turns.set(draft, settled);
    try {
      return await mine;
    } finally {
      if (this.turns.get(draft) === settled) this.turns.delete(draft);
    }
  }

  /**
   * Queue `job` on `draft` and, in a turn (inTurn), run `work` on it and
   * every job queued behind it by then, in the order queued: the jobs that
   * arrive while a turn runs are taken together by the next. A job an
   * earlier turn took is not run again: `work` settles each job it takes.
   */
  async inGroup<J>(draft: string, job: J, work: (jobs: J[], waited: boolean) => Promise<void>): Promise<void> {
    const queue = this.queued.get(draft);
    if (queue === undefined) this.queued.set(draft, [job]);
    else queue.push(job);
    await this.inTurn(draft, async (waited) => {
      const jobs = this.queued.get(draft);
      if (jobs === undefined || !jobs.includes(job)) return;
      this.queued.delete(draft);
      await work(jobs as J[], waited);
    });
  }

  static open(ctx: Context, dir: string, shared?: SharedCaches): Workspace {
    const repo = Repository.open(ctx, dir, shared && ((commondir) => shared.of(commondir).parsed));
    return new Workspace(repo, shared?.of(repo.layout.commondir).drafts ?? new DraftMetaCache(), shared === undefined);
  }

  get ctx(): Context {
    return this.repo.ctx;
  }

  /** The lower layer of a draft rooted at `root`: the working tree, or the root tree when bare. */
  lower(root: Oid): LowerLayer {
    return this.worktreeLower() ?? new TreeLower(this.repo.objects, this.repo.objects.readCommit(root).tree);
  }

  /** The working tree read as git reads it (see WorktreeForm, and `renew` there), or undefined for a bare repository. */
  worktreeLower(renew = true): WorkingTreeLower | undefined {
    const wt = this.repo.layout.worktree;
    if (wt === null) return undefined;
    return new WorkingTreeLower(
      this.ctx,
      wt,
      this.repo.config.getBool('core.filemode') ?? true,
      this.worktreeForm(renew),
    );
  }

  /**
   * The conversions between working-tree files and blobs (attributes, eol,
   * filters), renewed on each call unless `renew` is false (a second use
   * within one batch): attribute files are looked at again before they are
   * trusted. Undefined for a bare repository.
   */
  worktreeForm(renew = true): WorktreeForm | undefined {
    const wt = this.repo.layout.worktree;
    if (wt === null) return undefined;
    if (this.form) {
      if (renew) this.form.renew();
      return this.form;
    }
    const c = this.repo.config;
    const [low, high] = baseAttributeFiles(this.ctx.env, this.repo.layout.commondir, c.get('core.attributesfile'));
    const attrs = new AttributeFiles(this.ctx.fs, wt, low, high, c.getBool('core.ignorecase') ?? false, () =>
      this.ctx.clock.now(),
    );
    // The index is read for the rare question only `text=auto` asks (a CRLF blob already there).
    this.form = new WorktreeForm(this.ctx, wt, c, attrs, this.repo.objects, (p) =>
      this.indexView(Number.MAX_SAFE_INTEGER)?.idOf(p),
    );
    return this.form;
  }

  /**
   * The ignore rules of the working tree, or undefined for a bare
   * repository. One set for the life of the handle, renewed on each call:
   * every ignore file is looked at again before its rules are trusted.
   */
  ignoreRules(): IgnoreRules | undefined {
    const wt = this.repo.layout.worktree;
    if (wt === null) return undefined;
    const files = baseIgnoreFiles(this.ctx.env, this.repo.layout.commondir, this.repo.config.get('core.excludesfile'));
    const ignoreCase = this.repo.config.getBool('core.ignorecase') ?? false;
    const key = `${ignoreCase}\0${files.join('\0')}`;
    if (this.ignore?.key === key) {
      this.ignore.rules.renew();
      return this.ignore.rules;
    }
    const rules = new IgnoreRules(this.ctx.fs, wt, files, ignoreCase, () => this.ctx.clock.now());
    this.ignore = { key, rules };
    return rules;
  }

  /**
   * git's index, to tell unchanged working-tree files by their lstat (see
   * index-view.ts), when it is worth reading for `files` first touches: a
   * file read costs about as much as reading and scanning 100 KB of index,
   * so a large index is read only for many files. Once read, it is kept
   * while the file stays the same (git replaces it with a new file), and is
   * free to use. Undefined for a bare repository, or when not worth it.
   */
  indexView(files: number): IndexView | undefined {
    if (files === 0) return undefined;
    return this.readIndex((size) => files * INDEX_BYTES_PER_FILE_READ >= size);
  }

  /** git's index, whatever it costs to read (kept as indexView keeps it); undefined for a bare repository or an index shadow does not read. */
  gitIndex(): IndexView | undefined {
    return this.readIndex(() => true);
  }

  private readIndex(worth: (size: number) => boolean): IndexView | undefined {
    if (this.repo.layout.worktree === null) return undefined;
    const path = `${this.repo.layout.gitdir}/index`;
    const { stamp, racy, size } = statStamp(this.ctx.fs, path, this.ctx.clock.now());
    if (this.index?.stamp === stamp && !racy) return this.index.view;
    if (stamp === '-' || !worth(size)) return undefined;
    const view = IndexView.read(this.ctx.fs, path);
    this.index = { stamp, view };
    return view;
  }

  /**
   * git's index when it may keep paths out of the working tree (sparse
   * checkout, skip-worktree), whatever its size: only git's version-3 index
   * carries the skip-worktree flag (git writes version 2 unless an entry
   * needs extended flags), so a repository with neither costs a 12-byte
   * read. Callers ask only where a path's absence or a publish makes it
   * worth it. Shares indexView's cache.
   */
  skipWorktreeView(): IndexView | undefined {
    if (this.repo.layout.worktree === null) return undefined;
    const path = `${this.repo.layout.gitdir}/index`;
    const { stamp, racy } = statStamp(this.ctx.fs, path, this.ctx.clock.now());
    if (this.index?.stamp === stamp && !racy) return this.index.view;
    if (stamp === '-' || readIndexVersion(this.ctx.fs, path)?.version !== 3) return undefined;
    const view = IndexView.read(this.ctx.fs, path);
    this.index = { stamp, view };
    return view;
  }

  /**
   * Run `work` once the answers of the current turn have gone out (the
   * event loop's next turn), or at close at the latest; one pending
   * `work` per key. For upkeep no caller waits on (merging packs): a failure
   * there is left for the next time it is due. `closing` tells work run at
   * close, which should finish before it returns.
   */
  afterAnswers(key: string, work: (closing: boolean) => void): void {
    const first = this.upkeep.size === 0;
    this.upkeep.set(key, work);
    if (first) setImmediate(() => this.runUpkeep(false));
  }

  private runUpkeep(closing: boolean): void {
    const all = [...this.upkeep.values()];
    this.upkeep.clear();
    for (const work of all) {
      try {
        work(closing);
      } catch {
        // Upkeep: due again later.
      }
    }
  }

  close(): void {
    this.runUpkeep(true);
    this.repo.close();
  }
}
