import type { ErrorCode } from '../../src/errors.js';

/**
 * The error codes each command raises besides those any command may
 * (COMMON_ERRORS), keyed by the command's words (`draft new`): what the
 * reference and `shadow help <command>` list. A test holds the keys to the
 * command table and each code to src/errors.ts and to a place that raises it.
 */
export const COMMON_ERRORS: readonly ErrorCode[] = [
  'USAGE',
  'NOT_A_REPOSITORY',
  'UNSUPPORTED_REPOSITORY',
  'LOCKED',
  'BUSY',
  'OBJECT_MISSING',
  'CORRUPT_OBJECT',
  'CORRUPT_REF',
  'CORRUPT_STATE',
  'IO_ERROR',
  'SERVER_GONE',
  'INTERNAL',
];

/** What a batch of file operations may meet (batch, write, edit, rm, mv, apply-patch, a session's commit). */
const BATCH_ERRORS: readonly ErrorCode[] = [
  'INVALID_PATH',
  'UNSAFE_PATH',
  'CONTENT_TOO_LARGE',
  'BATCH_TOO_LARGE',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'IS_A_DIRECTORY',
  'NOT_A_DIRECTORY',
  'NOT_A_FILE',
  'CONFLICT',
  'IGNORED_PATH',
  'SYMLINK_IN_PATH',
  'UNSUPPORTED_FILE_TYPE',
  'SUBMODULE_PATH',
  'INVALID_DRAFT_NAME',
  'SECRET_IN_MESSAGE',
];

/** What publishing into the working tree may meet (apply, revert --apply). */
const APPLY_ERRORS: readonly ErrorCode[] = [
  'APPROVALS_PENDING',
  'DENIED',
  'STALE_REVIEW',
  'STALE_BASE',
  'CONFLICT',
  'UNRESOLVED_CONFLICT',
  'APPLY_PENDING',
  'SPARSE_PATH',
  'UNSAFE_PATH',
  'NOT_WRITABLE',
  'READ_ONLY',
  'APPLY_FAILED',
  'FILTER_FAILED',
  'DRAFT_NOT_FOUND',
];

const APPROVAL_ERRORS: readonly ErrorCode[] = [
  'APPROVAL_NOT_FOUND',
  'ALREADY_DECIDED',
  'STALE_APPROVAL',
  'STALE_REVIEW',
  'SIGNING_FAILED',
  'SECRET_IN_MESSAGE',
];

const REMOTE_ERRORS: readonly ErrorCode[] = ['REMOTE_NOT_FOUND', 'REMOTE_FAILED'];

export const COMMAND_ERRORS: Readonly<Record<string, readonly ErrorCode[]>> = {
  init: ['INVALID_ARGUMENT', 'INVALID_CONFIG', 'ALREADY_EXISTS', 'NOT_A_FILE'],
  hook: [],
  batch: [
    'INVALID_JSON',
    'INVALID_BATCH',
    'INVALID_CONTENT',
    'INVALID_BASE64',
    ...BATCH_ERRORS,
    'EDIT_NO_MATCH',
    'EDIT_AMBIGUOUS',
    'PATCH_FAILED',
    'EXPECT_FAILED',
  ],
  write: ['INVALID_BASE64', ...BATCH_ERRORS],
  edit: [...BATCH_ERRORS, 'EDIT_NO_MATCH', 'EDIT_AMBIGUOUS'],
  rm: BATCH_ERRORS,
  mv: BATCH_ERRORS,
  'apply-patch': ['INVALID_PATCH', 'PATCH_FAILED', ...BATCH_ERRORS],
  'draft new': ['INVALID_DRAFT_NAME', 'DRAFT_EXISTS', 'INVALID_TARGET'],
  'draft list': ['REMOTE_NOT_FOUND'],
  'draft show': ['DRAFT_NOT_FOUND'],
  'draft drop': ['DRAFT_NOT_FOUND', 'APPLY_PENDING'],
  cat: ['INVALID_PATH', 'NOT_FOUND', 'IS_A_DIRECTORY', 'DRAFT_NOT_FOUND'],
  ls: ['INVALID_PATH', 'NOT_FOUND', 'NOT_A_DIRECTORY', 'DRAFT_NOT_FOUND'],
  log: ['DRAFT_NOT_FOUND'],
  diff: ['INVALID_TARGET', 'DRAFT_NOT_FOUND'],
  blame: ['INVALID_ARGUMENT', 'INVALID_PATH', 'NOT_FOUND', 'INVALID_TARGET', 'DRAFT_NOT_FOUND'],
  trace: ['INVALID_TARGET', 'NOT_FOUND'],
  status: ['DRAFT_NOT_FOUND'],
  checkpoint: ['INVALID_CHECKPOINT_NAME', 'CHECKPOINT_EXISTS', 'DRAFT_NOT_FOUND'],
  checkpoints: ['DRAFT_NOT_FOUND'],
  rollback: ['INVALID_TARGET', 'DRAFT_NOT_FOUND'],
  rebase: ['INVALID_TARGET', 'DIVERGED', 'UNRESOLVED_CONFLICT', 'APPLY_PENDING', 'DRAFT_NOT_FOUND'],
  revert: ['INVALID_TARGET', ...APPLY_ERRORS],
  split: [
    'INVALID_ARGUMENT',
    'STALE_HUNKS',
    'INVALID_PATCH',
    'PATCH_DOES_NOT_APPLY',
    'INVALID_DRAFT_NAME',
    'DRAFT_EXISTS',
    'READ_ONLY',
    'UNRESOLVED_CONFLICT',
    'DRAFT_WORKTREE_MISMATCH',
    'DRAFT_NOT_FOUND',
  ],
  resolve: ['NOT_IN_CONFLICT', 'INVALID_PATH', 'DRAFT_NOT_FOUND'],
  undo: ['NOTHING_TO_UNDO', 'DRAFT_NOT_FOUND'],
  apply: [...APPLY_ERRORS, 'INVALID_PATH', 'NO_BRANCH', 'DIVERGED', 'SECRET_IN_MESSAGE'],
  unapply: ['NOTHING_TO_UNDO', 'CONFLICT', 'BRANCH_MOVED', 'READ_ONLY', 'NOT_WRITABLE'],
  recover: ['APPLY_FAILED'],
  'session begin': ['INVALID_PATH', 'SESSION_ACTIVE', 'INVALID_ARGUMENT'],
  'session feed': ['SESSION_NOT_FOUND', 'VALIDATION_FAILED', ...BATCH_ERRORS],
  'session finalize': ['SESSION_NOT_FOUND', 'VALIDATION_FAILED', ...BATCH_ERRORS],
  'session status': ['SESSION_NOT_FOUND'],
  'session list': [],
  'session cancel': ['SESSION_NOT_FOUND'],
  'session recover': ['VALIDATION_FAILED'],
  'session clean': [],
  serve: ['SERVER_RUNNING'],
  page: ['SERVER_NOT_RUNNING'],
  'worktree add': ['INVALID_ARGUMENT', 'ALREADY_EXISTS', 'DRAFT_NOT_FOUND'],
  'worktree sync': ['NOT_FOUND', 'WORKTREE_DIRTY'],
  'worktree record': BATCH_ERRORS,
  'worktree list': [],
  'worktree remove': ['NOT_FOUND', 'WORKTREE_DIRTY'],
  watch: ['NOT_FOUND', 'WORKTREE_GONE'],
  exec: ['NOT_FOUND', 'ALREADY_EXISTS', 'WORKTREE_DIRTY'],
  mcp: [],
  tools: [],
  run: ['INVALID_PLAN', 'BATCH_FAILED'],
  resume: ['NO_PLAN', 'PLAN_CHANGED', 'BATCH_FAILED'],
  stop: ['NO_PLAN'],
  propose: ['NOTHING_TO_PROPOSE', 'DRAFT_NOT_FOUND'],
  review: ['DRAFT_NOT_FOUND'],
  approve: APPROVAL_ERRORS,
  deny: APPROVAL_ERRORS,
  events: ['DRAFT_NOT_FOUND'],
  push: ['STALE_REMOTE', 'DRAFT_NOT_FOUND', ...REMOTE_ERRORS],
  fetch: REMOTE_ERRORS,
  pull: ['DIVERGED', 'DRAFT_NOT_FOUND', ...REMOTE_ERRORS],
};

/** Exit statuses a command has besides 0 (ok), 1 (an error) and 2 (usage). */
export const COMMAND_EXITS: Readonly<Record<string, ReadonlyArray<readonly [string, string]>>> = {
  apply: [
    ['3', 'approvals pending: nothing was written; the ids are listed'],
    ['130', '-p: Ctrl-C at the prompt; nothing was written'],
  ],
  run: [['130', 'the plan stopped between batches (Ctrl-C or shadow stop)']],
  resume: [['130', 'the plan stopped between batches (Ctrl-C or shadow stop)']],
  exec: [['any', "the command's own exit status"]],
  hook: [
    [
      '0',
      "also when the edit is refused or fails: the answer on stdout, in the agent's hook protocol, says so (never 1)",
    ],
  ],
};
