import type { ErrorCode, ShadowErrorJSON } from '../errors.js';

/** A file mode an op may set. */
export type FileMode = '100644' | '100755';

interface OpBase {
  path: string;
  /** Compare-and-swap: the path's content before this op, as a blob id or `sha256:<hex>`. */
  expect?: string;
}

export interface WriteOp extends OpBase {
  operation: 'write';
  content: string;
  encoding?: 'utf8' | 'base64';
  mode?: FileMode;
  /**
   * Internal: the content as bytes, for callers inside shadow that already
   * hold them (a write session's 10 MB need not travel as base64). Never
   * accepted at the boundary: the batch schema refuses unknown fields.
   */
  bytes?: Uint8Array;
  /**
   * Internal: a blob already written to the object database (a write
   * session's content, streamed there from its file). Never accepted at the
   * boundary either.
   */
  stored?: { oid: string; size: number };
}
export interface EditOp extends OpBase {
  operation: 'edit';
  old_content: string;
  content: string;
}
export interface PatchOp extends OpBase {
  operation: 'patch';
  diff: string;
}
export interface DeleteOp extends OpBase {
  operation: 'delete';
}
export interface RenameOp extends OpBase {
  operation: 'rename';
  to: string;
}
export interface ChmodOp extends OpBase {
  operation: 'chmod';
  mode: FileMode;
}

/** One file operation of a batch (the field names of the batch tool). */
export type FileOperation = WriteOp | EditOp | PatchOp | DeleteOp | RenameOp | ChmodOp;

export type OperationName = FileOperation['operation'];

export const OPERATION_NAMES: readonly OperationName[] = ['write', 'edit', 'patch', 'delete', 'rename', 'chmod'];

/** A batch as sent by an author. */
export interface BatchInput {
  intent?: string;
  actor?: string;
  operations: FileOperation[];
}

/** What became of one op. */
export type OpStatus =
  | 'created'
  | 'updated'
  | 'deleted'
  | 'renamed'
  | 'mode_changed'
  | 'unchanged'
  | 'already_applied'
  | 'failed'
  | 'not_applied';

/** The per-op result, in the shape of the batch tool's output. */
export interface OpResult {
  operation: OperationName;
  path: string;
  success: boolean;
  status: OpStatus;
  to?: string;
  error?: ShadowErrorJSON;
}

/** A problem found in one op before anything is written. */
export interface OpProblem {
  index: number;
  code: ErrorCode;
  message: string;
  hint?: string;
  data?: Record<string, unknown>;
}

/** Every path an op reads or writes. */
export function opPaths(op: FileOperation): string[] {
  return op.operation === 'rename' ? [op.path, op.to] : [op.path];
}
