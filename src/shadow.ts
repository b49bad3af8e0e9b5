/**
 * The library's handle on one repository. The class holds what every call
 * stands on (the workspace, the context, how a call finds its draft and
 * actor) and the few properties of the handle itself; the calls are written
 * by capability in src/api/ and installed on its prototype, so `sh.batch`,
 * `sh.apply`, `sh.review` ... stay methods of one object while each
 * capability's calls live beside each other.
 */
import type { Context } from './context.js';
import { ShadowError } from './errors.js';
import { checkDraftName, flushLaggingMetas, refreshRemoteDraft } from './drafts/drafts.js';
import { splitRemoteDraft } from './core/remote-draft-name.js';
import { identityOf, type Identity } from './drafts/batch/identity.js';
import type { Workspace } from './drafts/workspace.js';
import { installCalls, type DraftOption, type ShadowCore } from './api/shadow-core.js';
import { batchCalls, type BatchCalls } from './api/batch-calls.js';
import { draftCalls, type DraftCalls } from './api/draft-calls.js';
import { viewCalls, type ViewCalls } from './api/view-calls.js';
import { publishCalls, type PublishCalls } from './api/publish-calls.js';
import { reviewCalls, type ReviewCalls } from './api/review-calls.js';
import { planCalls, type PlanCalls } from './api/plan-calls.js';
import { rebaseCalls, type RebaseCalls } from './api/rebase-calls.js';
import { remoteCalls, type RemoteCalls } from './api/remote-calls.js';
import { splitCalls, type SplitCalls } from './api/split-calls.js';
import { Sessions } from './api/sessions-api.js';
import { Worktrees } from './api/worktrees-api.js';
import type { RecoveryReport } from './publish/apply.js';

export type { DraftOption, BatchCallOptions } from './api/shadow-core.js';
export type { DiffFile, DiffOptions, DiffResult } from './api/view-calls.js';
/** What `sh.sessions.begin` takes: the HTTP API declares its route with it. */
export { BeginSchema as BeginSessionSchema } from './api/sessions-api.js';

/** Every call of the handle, by capability (declared on the class below). */
export interface Shadow
  extends
    BatchCalls,
    DraftCalls,
    ViewCalls,
    PublishCalls,
    ReviewCalls,
    PlanCalls,
    RebaseCalls,
    SplitCalls,
    RemoteCalls {}

/**
 * A handle on one repository: every shadow operation, with arguments
 * validated at this boundary. Side effects come from the context given to
 * `openShadow`; nothing is global.
 */
export class Shadow implements ShadowCore {
  private constructor(
    /** @internal */
    readonly ws: Workspace,
    /** @internal */
    readonly ctx: Context,
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
      throw new ShadowError('INVALID_ARGUMENT', `${key} is ${v}: it must be a positive number of milliseconds`, {
        hint: `set it with \`git config ${key} <ms>\`, or unset it for the default`,
      });
    };
    return { idleMs: positive('shadow.serverIdleMs', 30_000), bodyMs: positive('shadow.serverBodyMs', 10 * 60_000) };
  }

  /** Counters of the object database (objects read and written, packs). */
  get stats(): { objectsRead: number; objectsWritten: number; packsWritten: number } {
    return { ...this.ws.repo.objects.stats };
  }

  /**
   * A value of the repository's git config (system, global, local files and
   * their includes) as `git config --get` answers: the last one; a key with
   * no `=` is `true`.
   *
   * @example sh.gitConfig('core.pager') // 'less -S', or undefined
   */
  gitConfig(name: string): string | undefined {
    return this.ws.repo.config.get(name);
  }

  /**
   * A boolean of the repository's git config as git reads one (`true`,
   * `yes`, `on`, a number...); `INVALID_ARGUMENT` for a value git rejects.
   *
   * @example sh.gitConfigBool('core.quotePath') // true, false, or undefined
   */
  gitConfigBool(name: string): boolean | undefined {
    return this.ws.repo.config.getBool(name);
  }

  /**
   * An integer of the repository's git config as git reads one (with `k`,
   * `m`, `g`); `INVALID_ARGUMENT` for a value git rejects.
   *
   * @example sh.gitConfigInt('diff.statGraphWidth') // 40, or undefined
   */
  gitConfigInt(name: string): number | undefined {
    return this.ws.repo.config.getInt(name);
  }

  /**
   * The draft a call works on: the option, else `SHADOW_DRAFT`, else
   * `default`. A remote draft (`origin/refactor`) is refused: it is
   * read-only, what the remote holds as of the last fetch.
   */
  draftName(options?: DraftOption): string {
    const name = options?.draft ?? this.ctx.env.SHADOW_DRAFT ?? 'default';
    checkDraftName(name);
    const remote = splitRemoteDraft(name);
    if (remote) {
      throw new ShadowError(
        'READ_ONLY',
        `"${name}" is draft "${remote.draft}" of remote ${remote.remote} as last fetched: it can be read, not changed`,
        {
          hint: `continue it here with \`shadow draft new ${remote.draft} --from ${name}\`, then work on draft ${remote.draft}`,
          data: { draft: name, remote: remote.remote },
        },
      );
    }
    return name;
  }

  /** `draftName`, a remote draft allowed: for the calls that only read a draft. */
  readDraftName(options?: DraftOption): string {
    const name = options?.draft ?? this.ctx.env.SHADOW_DRAFT ?? 'default';
    checkDraftName(name);
    refreshRemoteDraft(this.ws, name);
    return name;
  }

  /** Who acts: the option, else the batch's actor, `SHADOW_ACTOR`, git's `user.name`, `unknown`. */
  actor(explicit?: string, fromBatch?: string): string {
    return explicit ?? fromBatch ?? this.ctx.env.SHADOW_ACTOR ?? this.ws.repo.config.get('user.name') ?? 'unknown';
  }

  private identityDefaults: { model?: string; actorType?: string } = {};

  /**
   * Who this handle acts for by default (a server for AI clients: `{
   * actorType: 'ai', model }`); each call's options still win. Checked now.
   */
  useIdentity(defaults: { model?: string; actorType?: string }): void {
    identityOf(defaults.actorType, defaults.model);
    this.identityDefaults = { ...defaults };
  }

  /** A person or an AI, and its model: the options, else the handle's defaults, else SHADOW_ACTOR_TYPE / SHADOW_MODEL. */
  identity(options: { model?: string; actorType?: string } = {}): Identity {
    const model = options.model ?? this.identityDefaults.model ?? this.ctx.env.SHADOW_MODEL;
    return identityOf(
      options.actorType ?? this.identityDefaults.actorType ?? this.ctx.env.SHADOW_ACTOR_TYPE,
      model === '' ? undefined : model,
    );
  }

  /** What opening the repository recovered (an apply a crash interrupted), if anything. */
  recovered: RecoveryReport | undefined;

  /** Write sessions: large content as plain text, committed as one batch. */
  get sessions(): Sessions {
    return (this.sessionsApi ??= new Sessions(
      this.ws,
      (d) => this.draftName({ draft: d }),
      (a) => this.actor(a),
    ));
  }

  private sessionsApi: Sessions | undefined;

  /** Materialized worktrees: the draft's view as a real directory, kept in step, its changes recorded as batches. */
  get worktrees(): Worktrees {
    return (this.worktreesApi ??= new Worktrees(
      this.ws,
      (d) => this.draftName({ draft: d }),
      (a) => this.actor(a),
    ));
  }

  private worktreesApi: Worktrees | undefined;

  /** Release open files (first bringing `draft.json` up to date where that is cheap: flushLaggingMetas). */
  close(): void {
    flushLaggingMetas(this.ws);
    this.ws.close();
  }
}

installCalls(
  Shadow.prototype,
  batchCalls,
  draftCalls,
  viewCalls,
  publishCalls,
  reviewCalls,
  planCalls,
  rebaseCalls,
  splitCalls,
  remoteCalls,
);
