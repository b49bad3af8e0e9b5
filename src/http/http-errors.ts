import type { ShadowErrorJSON } from '../errors.js';

/** The HTTP status for each error code (400 bad input, 403 not this server's to do, 404 unknown, 408 slow body, 409 state, 413 size, 502 a remote that failed, 422 refused content). */
export function statusFor(code: string): number {
  switch (code) {
    case 'UNAUTHORIZED':
      return 401;
    case 'FORBIDDEN_HOST':
    case 'APPLY_NOT_ALLOWED':
    case 'CSRF_FAILED':
      return 403;
    case 'NOT_FOUND':
    case 'SESSION_NOT_FOUND':
    case 'DRAFT_NOT_FOUND':
    case 'CHECKPOINT_NOT_FOUND':
    case 'APPROVAL_NOT_FOUND':
    case 'ROUTE_NOT_FOUND':
    case 'REMOTE_NOT_FOUND':
      return 404;
    case 'REQUEST_TIMEOUT':
      return 408;
    case 'CONFLICT':
    case 'SESSION_ACTIVE':
    case 'LOCKED':
    case 'BUSY':
    case 'DRAFT_EXISTS':
    case 'CHECKPOINT_EXISTS':
    case 'STALE_BASE':
    case 'BRANCH_MOVED':
    case 'UNRESOLVED_CONFLICT':
    case 'NOT_IN_CONFLICT':
    case 'NOTHING_TO_UNDO':
    case 'NO_PLAN':
    case 'SERVER_RUNNING':
    case 'STALE_REMOTE':
    case 'STALE_REVIEW':
    case 'STALE_HUNKS':
    case 'PATCH_DOES_NOT_APPLY':
      return 409;
    case 'CONTENT_TOO_LARGE':
    case 'BATCH_TOO_LARGE':
      return 413;
    case 'REMOTE_FAILED':
      return 502;
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 415;
    case 'INTERNAL':
    case 'IO_ERROR':
    case 'CORRUPT_OBJECT':
    case 'CORRUPT_REF':
    case 'CORRUPT_STATE':
    case 'OBJECT_MISSING':
      return 500;
    case 'USAGE':
    case 'INVALID_JSON':
    case 'INVALID_BATCH':
    case 'INVALID_ARGUMENT':
    case 'INVALID_PATH':
    case 'INVALID_DRAFT_NAME':
    case 'INVALID_CHECKPOINT_NAME':
    case 'INVALID_TARGET':
    case 'INVALID_SHARE_PATH':
    case 'INVALID_CONFIG':
    case 'INVALID_PATCH':
      return 400;
    default:
      // A refusal of what was sent: an edit that does not match, a failed validation, a denied apply.
      return 422;
  }
}

/** The body of every error response. */
export function errorBody(e: ShadowErrorJSON): { error: ShadowErrorJSON } {
  return { error: e };
}
