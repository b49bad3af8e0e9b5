/**
 * shadow's public library API. Everything a program needs to put file
 * changes into drafts, inspect them and move them, with the same behaviour as
 * the `shadow` CLI.
 */
export { openShadow } from './open.js';
export type { OpenOptions } from './open.js';
export { Shadow } from './shadow.js';
export type { DraftOption, BatchCallOptions, DiffFile } from './shadow.js';
export type { ReviewReport } from './engine/review-report.js';
export type { ApprovalState } from './engine/approvals.js';
export type { CommitSecrets } from './engine/commit-guard.js';
export type { Proposal } from './engine/proposal.js';
export type { SecretFinding } from './core/secrets.js';
export type { LedgerEvent, LedgerVerdict } from './store/ledger.js';
export type { PlanEvent, PlanOutcome, Tracker } from './engine/plan.js';
export type { Plan, PlanBatch } from './engine/plan-file.js';
export { parsePlan } from './engine/plan-file.js';
export { Sessions } from './sessions-api.js';
export { Worktrees } from './worktrees-api.js';
export type { WorktreeInfo } from './worktrees-api.js';
export type { MaterializeResult } from './engine/worktree-materialize.js';
export type { SyncResult } from './engine/worktree-sync.js';
export type { RecordResult, WorktreeChange } from './engine/worktree-record.js';
export type { WatchHandle, WatchOptions } from './engine/worktree-watch.js';
export { findMarker, MARKER } from './store/worktree-state.js';
export type { BeginSessionInput } from './sessions-api.js';
export type { BeginResult, FinalizeResult, SessionStatus } from './engine/session.js';
export { IDLE_PROMPT } from './engine/session.js';
export type { Context, FileSystem, Clock, Ids, Env, Processes, GitRunner, GitRun } from './context.js';
export { ShadowError, isShadowError } from './errors.js';
export type { ErrorCode, ShadowErrorJSON } from './errors.js';
export type { BatchInput, FileOperation, FileMode, OpResult, OpStatus, OperationName } from './core/ops.js';
export type { BatchResult } from './engine/batch.js';
export type { LogEntry, ChangedFile, DraftStatus, Drift } from './engine/audit.js';
export type { CheckpointInfo, RefMove } from './engine/checkpoints.js';
export type { DraftSummary } from './engine/drafts.js';
export type { ViewEntry, ViewFile } from './engine/view.js';
export type { WalkedFile, WalkOptions, SearchMatch, SearchOptions, SearchResult } from './engine/view-walk.js';
export type { ApplyResult, UnapplyResult, RecoveryReport, PublishedPath } from './engine/apply.js';
export type { PathConflict } from './engine/publish.js';
export { BatchInputSchema, FileOperationSchema } from './schema.js';
export { nodeContext, nativeGit } from './node-context.js';
export type { RunningServer, ServerOptions } from './server/http-server.js';

/**
 * Start the local HTTP API for a handle (fastify loads only when this is
 * called).
 *
 * @example
 * const server = await startServer(await openShadow({ dir }), { port: 0 });
 * console.log(server.url, server.token);
 */
export async function startServer(sh: import('./shadow.js').Shadow, options?: import('./server/http-server.js').ServerOptions): Promise<import('./server/http-server.js').RunningServer> {
  const { startServer: start } = await import('./server/http-server.js');
  return start(sh, options);
}
