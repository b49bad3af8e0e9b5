/**
 * shadow's public library API. Everything a program needs to put file
 * changes into drafts, inspect them and move them, with the same behaviour as
 * the `shadow` CLI.
 *
 * {@link openShadow} opens a repository and returns a {@link Shadow}
 * handle: its calls write batches (`batch`, `write`, `edit`), read the
 * draft's view (`cat`, `ls`, `diff`, `log`), review and approve it, and
 * publish it into the working tree (`apply`). Bad input throws a
 * {@link ShadowError} with a stable `code`; a batch that fails returns
 * `success: false` with every problem and writes nothing.
 *
 * @packageDocumentation
 *
 * @example
 * import { openShadow } from 'shadow-drafts';
 * const sh = await openShadow({ dir: process.cwd() });
 * const r = await sh.write('notes.md', '# notes\n', { draft: 'notes', intent: 'start the notes' });
 * if (r.success) await sh.apply({ draft: 'notes' });
 * sh.close();
 */
export { openShadow } from './open.js';
export type { OpenOptions } from './open.js';
export { SharedCaches } from './drafts/shared-caches.js';
export { PackMergeThread } from './pack-merge-thread.js';
export { Shadow } from './shadow.js';
export type { DraftOption, BatchCallOptions, DiffFile, DiffOptions, DiffResult } from './shadow.js';
export type { ReviewReport } from './review/review-report.js';
export type { ApprovalKind } from './review/review.js';
export type { PlacementNote } from './review/placement-notes.js';
export type { ApprovalState, UnverifiedDecision } from './review/approvals.js';
export type { CommitSecrets } from './review/commit-guard.js';
export type { Proposal } from './review/proposal.js';
export type { SecretFinding, SecretWhere } from './core/secret-scan.js';
export type { LedgerEvent, LedgerOrigin, LedgerVerdict } from './state/ledger.js';
export type { DraftLedgerVerdict } from './drafts/ledger-join.js';
export type { PushResult, PushedRefResult } from './remotes/push.js';
export type { FetchResult } from './remotes/fetch.js';
export type { NotesTransfer } from './remotes/notes-transfer.js';
export type { PullResult, PulledDraft } from './remotes/pull.js';
export type { PlanEvent, PlanOutcome, Tracker, RunOptions, ResumeOptions } from './plans/plan.js';
export type { Plan, PlanBatch } from './plans/plan-file.js';
export { parsePlan } from './plans/plan-file.js';
export { Sessions } from './api/sessions-api.js';
export { Worktrees } from './api/worktrees-api.js';
export type { WorktreeInfo } from './api/worktrees-api.js';
export type { MaterializeResult, MaterializeProgress } from './worktrees/worktree-materialize.js';
export type { ExecWorktree } from './worktrees/worktree-exec.js';
export type { ShareResult } from './worktrees/worktree-share.js';
export type { SyncResult } from './worktrees/worktree-sync.js';
export type { RecordResult, WorktreeChange } from './worktrees/worktree-record.js';
export type { WatchHandle, WatchOptions } from './worktrees/worktree-watch.js';
export { findMarker, MARKER } from './state/worktree-state.js';
export type { BeginSessionInput } from './api/sessions-api.js';
export type {
  BeginResult,
  FinalizeResult,
  SessionStatus,
  SessionOperation,
  SessionSettings,
} from './sessions/session.js';
export { IDLE_PROMPT } from './sessions/session.js';
export type {
  Context,
  FileSystem,
  Clock,
  Ids,
  Env,
  Processes,
  GitRunner,
  GitRun,
  ProgramRunner,
  PackMerger,
  PackMergeJob,
  PackMergeResult,
} from './context.js';
export { ShadowError, isShadowError } from './errors.js';
export type { ErrorCode, ShadowErrorJSON } from './errors.js';
export type {
  BatchInput,
  FileOperation,
  FileMode,
  OpResult,
  OpStatus,
  OperationName,
  PatchFileResult,
} from './drafts/batch/ops.js';
export type { WriteOp, EditOp, PatchOp, DeleteOp, RenameOp, ChmodOp, ApplyPatchOp } from './drafts/batch/ops.js';
export type { OpLine } from './drafts/commit-message.js';
export type { Identity, ActorType } from './drafts/batch/identity.js';
export type { PublishAction } from './drafts/publish-set/publish-set.js';
export type { FileEntry } from './git/format/tree-lookup.js';
export type { Oid } from './git/format/git-objects.js';
export type { BatchResult } from './drafts/batch/batch.js';
export type { LogEntry, ChangedFile, DraftStatus, Drift } from './drafts/history/audit.js';
export type { HunkCounts, PathHunkCount } from './drafts/history/hunk-counts.js';
export type { HunkInfo } from './drafts/hunks/hunk-ids.js';
export type { WholeReason } from './drafts/hunks/file-hunks.js';
export type { CheckpointInfo, RefMove } from './drafts/history/checkpoints.js';
export type { DraftSummary } from './drafts/drafts.js';
export type { ViewEntry, ViewFile } from './drafts/view/view.js';
export type { WalkedFile, WalkOptions, SearchMatch, SearchOptions, SearchResult } from './drafts/view/view-walk.js';
export type { ApplyResult, RecoveryReport, PublishedPath } from './publish/apply.js';
export type { UnapplyResult } from './publish/unapply.js';
export type { RebaseResult } from './drafts/rebase/rebase.js';
export type { RebasedPath } from './drafts/rebase/rebase-plan.js';
export type { RevertResult } from './drafts/rebase/revert.js';
export type { SplitResult } from './drafts/rebase/draft-split.js';
export type { SplitOptions } from './api/split-calls.js';
export type { BlameResult, BlameLine } from './drafts/history/blame.js';
export type { PublishedBlame, PublishedBlameLine, Source as BlameSource } from './publish/published-blame.js';
export type { TraceOfCommit } from './publish/trace-read.js';
export type {
  TraceRecord,
  Contributor as TraceContributor,
  ContributorType,
  TraceFile,
  TraceConversation,
  TraceRange,
} from './publish/trace-record.js';
export type { NotesResult, NoteFailure } from './publish/trace-notes.js';
export type { PathConflict, ConflictReason } from './publish/path-conflict.js';
export type { MergeStatus } from './publish/merge-paths.js';
export type { ConflictHunk, HunkSide } from './git/format/merge-file.js';
export { BatchInputSchema, FileOperationSchema } from './drafts/batch/batch-schema.js';
export { codexPatchPaths, retargetCodexPatch } from './drafts/codex-patch/codex-patch.js';
export { cQuote, cUnquote } from './git/format/c-quote.js';
export { nodeContext, nativeGit } from './node-context.js';
export type { RunningServer, ServerOptions } from './http/http-server.js';
export type { BodyLimits } from './http/body-deadline.js';
export type { DraftDetail } from './api/draft-calls.js';
export type { ApplyOptions } from './api/publish-calls.js';
export type { DecisionOptions } from './api/review-calls.js';

/**
 * Start the local HTTP API for a handle (fastify loads only when this is
 * called).
 *
 * @example
 * const server = await startServer(await openShadow({ dir }), { port: 0 });
 * console.log(server.url, server.token);
 */
export async function startServer(
  sh: import('./shadow.js').Shadow,
  options?: import('./http/http-server.js').ServerOptions,
): Promise<import('./http/http-server.js').RunningServer> {
  const { startServer: start } = await import('./http/http-server.js');
  return start(sh, options);
}

/**
 * A new one-time URL of the review page of the `shadow serve` running on
 * the handle's repository (in any process): it works once, within 5
 * minutes. SERVER_NOT_RUNNING when no server runs there.
 *
 * @example console.log(await pageLoginUrl(sh)) // http://127.0.0.1:4873/ui/login?once=…
 */
export async function pageLoginUrl(sh: import('./shadow.js').Shadow): Promise<string> {
  const { pageLoginUrl: mint } = await import('./http/page-login-files.js');
  return mint(sh.context, sh.layout.commondir);
}

/**
 * A file that opens the review page's login URL `url` in a browser, for
 * `--open`: the token stays out of the opener's arguments (any local user
 * reads those). The file is the owner's only (0600, in 0700 directories
 * under the git directory's `shadow/run/`); the server removes it once the
 * token is offered, when it expires, or when the server stops.
 *
 * @example spawn('xdg-open', [pathToFileURL(await pageLoginOpener(sh, await pageLoginUrl(sh))).href])
 */
export async function pageLoginOpener(sh: import('./shadow.js').Shadow, url: string): Promise<string> {
  const { writeLoginOpener } = await import('./http/page-login-opener.js');
  return writeLoginOpener(sh.context, sh.layout.commondir, url);
}
