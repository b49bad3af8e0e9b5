/**
 * Stable error codes. A code never changes meaning once released; the CLI
 * maps them to exit statuses in one place (cli/exit-status.ts).
 */
export type ErrorCode =
  // input
  | 'USAGE'
  | 'INVALID_JSON'
  | 'INVALID_BATCH'
  | 'INVALID_ARGUMENT'
  | 'INVALID_PATH'
  /** A tree that would reach the disk holds a path git refuses to check out (verify_path, NTFS/HFS classes), or a symlink on a path. */
  | 'UNSAFE_PATH'
  | 'INVALID_CONTENT'
  | 'INVALID_BASE64'
  | 'CONTENT_TOO_LARGE'
  | 'BATCH_TOO_LARGE'
  | 'INVALID_DRAFT_NAME'
  | 'INVALID_CHECKPOINT_NAME'
  | 'INVALID_TARGET'
  // a shadow.worktreeShare path outside the working tree
  | 'INVALID_SHARE_PATH'
  // an agent's config file shadow init would change does not parse
  | 'INVALID_CONFIG'
  | 'INVALID_PATCH'
  // the batch against the draft
  | 'BATCH_FAILED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'IS_A_DIRECTORY'
  | 'NOT_A_DIRECTORY'
  | 'NOT_A_FILE'
  | 'EDIT_NO_MATCH'
  | 'EDIT_AMBIGUOUS'
  | 'PATCH_FAILED'
  | 'EXPECT_FAILED'
  | 'CONFLICT'
  | 'IGNORED_PATH'
  | 'SYMLINK_IN_PATH'
  | 'UNSUPPORTED_FILE_TYPE'
  | 'SUBMODULE_PATH'
  // drafts, checkpoints, refs
  | 'DRAFT_NOT_FOUND'
  | 'DRAFT_EXISTS'
  | 'DRAFT_WORKTREE_MISMATCH'
  | 'CHECKPOINT_EXISTS'
  | 'CHECKPOINT_NOT_FOUND'
  | 'NOTHING_TO_UNDO'
  | 'LOCKED'
  | 'BUSY'
  // the repository
  | 'NOT_A_REPOSITORY'
  | 'UNSUPPORTED_REPOSITORY'
  | 'OBJECT_MISSING'
  | 'CORRUPT_OBJECT'
  | 'CORRUPT_REF'
  | 'CORRUPT_STATE'
  | 'FILTER_FAILED'
  // publishing into the working tree
  | 'STALE_BASE'
  | 'NOT_WRITABLE'
  | 'APPLY_FAILED'
  | 'APPLY_PENDING'
  | 'NO_BRANCH'
  | 'SPARSE_PATH'
  | 'DIVERGED'
  /** unapply after apply --commit/--squash: the branch is no longer where that apply left it (commits made on it since). */
  | 'BRANCH_MOVED'
  | 'UNRESOLVED_CONFLICT'
  | 'NOT_IN_CONFLICT'
  /** A hunk apply names a hunk id the draft no longer has (it moved since its hunks were listed): nothing was written. */
  | 'STALE_HUNKS'
  /** A hunk apply's patch does not apply to the draft's bases (git's `error: patch failed: <path>:<line>`): nothing was written. */
  | 'PATCH_DOES_NOT_APPLY'
  // review and approvals
  | 'APPROVAL_NOT_FOUND'
  | 'STALE_APPROVAL'
  | 'ALREADY_DECIDED'
  | 'DENIED'
  | 'APPROVALS_PENDING'
  /** The draft is no longer what was reviewed: `--expect <fingerprint>` names another state. */
  | 'STALE_REVIEW'
  /** An approval could not be signed (no signing key, ssh-keygen or gpg failed). */
  | 'SIGNING_FAILED'
  | 'READ_ONLY'
  | 'NOTHING_TO_PROPOSE'
  /** A commit message or author name shadow was asked to write (`apply --squash -m`, `--actor`) holds a secret: nothing was written. */
  | 'SECRET_IN_MESSAGE'
  // write sessions
  | 'SESSION_ACTIVE'
  | 'SESSION_NOT_FOUND'
  | 'VALIDATION_FAILED'
  // plans
  | 'INVALID_PLAN'
  | 'PLAN_CHANGED'
  | 'PLAN_FAILED'
  | 'NO_PLAN'
  // the HTTP server
  | 'REQUEST_TIMEOUT'
  | 'SERVER_RUNNING'
  /** `shadow page`: no `shadow serve` runs on the repository to serve the review page. */
  | 'SERVER_NOT_RUNNING'
  /** The CLI only: the shadow process a command was handed to stopped during it (cli/handoff/). */
  | 'SERVER_GONE'
  | 'APPLY_NOT_ALLOWED'
  /** HTTP 403: a request of the review page that changes state without its session's X-CSRF-Token. */
  | 'CSRF_FAILED'
  // sharing drafts through git remotes
  /** A push found the remote's draft moved since the last fetch (a lease that failed): nothing was pushed. */
  | 'STALE_REMOTE'
  | 'REMOTE_NOT_FOUND'
  /** git could not reach the remote, or the remote refused the push (a hook, permissions): nothing changed here. */
  | 'REMOTE_FAILED'
  // materialized worktrees
  | 'WORKTREE_DIRTY'
  | 'WORKTREE_GONE'
  | 'IO_ERROR'
  | 'INTERNAL';

/** What every shadow error carries, also its JSON form. */
export interface ShadowErrorJSON {
  code: ErrorCode;
  message: string;
  hint?: string;
  data?: Record<string, unknown>;
}

/**
 * The one error class of shadow. `message` says what went wrong, `hint` what
 * to do about it, `data` the machine-readable details. Never mutated after it
 * is thrown.
 */
export class ShadowError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly data: Readonly<Record<string, unknown>> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { hint?: string; data?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ShadowError';
    this.code = code;
    this.hint = options.hint;
    this.data = options.data === undefined ? undefined : Object.freeze({ ...options.data });
  }

  toJSON(): ShadowErrorJSON {
    const out: ShadowErrorJSON = { code: this.code, message: this.message };
    if (this.hint !== undefined) out.hint = this.hint;
    if (this.data !== undefined) out.data = { ...this.data };
    return out;
  }
}

/** True for a ShadowError (also one from another copy of the module). */
export function isShadowError(e: unknown): e is ShadowError {
  return (
    e instanceof ShadowError ||
    (e instanceof Error && e.name === 'ShadowError' && typeof (e as { code?: unknown }).code === 'string')
  );
}

/** The `code` of a node system error (`ENOENT`, …), or undefined. */
export function errnoCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
