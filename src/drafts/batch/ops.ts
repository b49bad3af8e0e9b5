import type { ErrorCode, ShadowErrorJSON } from '../../errors.js';
import { patchPaths } from '../codex-patch/apply-patch-op.js';

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
/**
 * A patch in Codex's `apply_patch` format: any number of files added,
 * updated, moved or deleted, all in this one op. It has no path of its
 * own (its paths are in the patch) and no `expect`.
 */
export interface ApplyPatchOp {
  operation: 'apply_patch';
  patch: string;
  path?: undefined;
  expect?: undefined;
}

/** One file operation of a batch (the field names of the batch tool). */
export type FileOperation = WriteOp | EditOp | PatchOp | DeleteOp | RenameOp | ChmodOp | ApplyPatchOp;

export type OperationName = FileOperation['operation'];

export const OPERATION_NAMES: readonly OperationName[] = [
  'write',
  'edit',
  'patch',
  'delete',
  'rename',
  'chmod',
  'apply_patch',
];

/** A batch as sent by an author. */
export interface BatchInput {
  intent?: string;
  actor?: string;
  /** The client's id for this request: sent again, the batch returns the commit the first one made (Shadow-Request). */
  request_id?: string;
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

/** What an apply_patch op did to one file. */
export interface PatchFileResult {
  path: string;
  status: OpStatus;
  /** Where a moved file went. */
  to?: string;
  /** The patch section that named it: `add`, `update` (also a move) or `delete`; Codex's answer groups files by it. */
  section?: 'add' | 'update' | 'delete';
  /** How a change was placed, when worth a look: the first of several places, indentation ignored, a file replaced. */
  notes?: string[];
}

/** The per-op result, in the shape of the batch tool's output. */
export interface OpResult {
  operation: OperationName;
  /** For an apply_patch op, the first file its patch names ('' when it does not parse). */
  path: string;
  success: boolean;
  status: OpStatus;
  to?: string;
  /** An apply_patch op's files, each with what became of it. */
  files?: PatchFileResult[];
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
  if (op.operation === 'apply_patch') return patchPaths(op);
  return op.operation === 'rename' ? [op.path, op.to] : [op.path];
}

/** The path an op's result names: its own, or the first its patch names. */
export function opPath(op: FileOperation): string {
  return op.operation === 'apply_patch' ? (patchPaths(op)[0] ?? '') : op.path;
}
