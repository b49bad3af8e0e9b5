import { createHash, type Hash } from 'node:crypto';
import type { FileOperation } from './ops.js';

/**
 * The identity of a batch as sent: sha256 over its operations in a
 * canonical form (and the plan step or write session it runs for). Recorded
 * in its commit as `Shadow-Ops`, it is how a batch sent again (a retry whose
 * answer was lost) is told from a new batch: by what the draft recorded, never
 * by guessing from a file's content. The intent and the actor are not part
 * of it: a retry may reword neither, but nor do they change what it does.
 */

/** What runs a batch besides its operations: a plan's step or a session is part of its identity. */
export interface BatchOrigin {
  plan?: string;
  planBatch?: string;
  session?: string;
  /** A client's request id: two requests of the same ops are two batches (absent, the fingerprint is as it always was). */
  request?: string;
}

function field(h: Hash, value: string | Uint8Array | undefined): void {
  if (value === undefined) {
    h.update('-;');
    return;
  }
  // Length-prefixed: no two different field lists hash the same bytes.
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  h.update(`${bytes.length}:`);
  h.update(bytes);
  h.update(';');
}

/**
 * The fingerprint of `ops`. A write's content counts as the bytes it
 * stores, however it was sent (text, base64, bytes, a stored blob's id).
 *
 * @example
 * opsFingerprint([{ operation: 'delete', path: 'old.txt' }]) // 64 hex digits
 */
export function opsFingerprint(ops: readonly FileOperation[], origin: BatchOrigin = {}): string {
  const h = createHash('sha256');
  h.update('shadow-ops 1\n');
  field(h, origin.plan);
  field(h, origin.planBatch);
  field(h, origin.session);
  if (origin.request !== undefined) field(h, `request ${origin.request}`);
  for (const op of ops) {
    field(h, op.operation);
    field(h, op.path);
    field(h, op.expect);
    switch (op.operation) {
      case 'write':
        field(h, op.mode);
        if (op.stored) field(h, `blob ${op.stored.oid}`);
        else if (op.bytes) field(h, op.bytes);
        else field(h, op.encoding === 'base64' ? `base64 ${op.content}` : op.content);
        break;
      case 'edit':
        field(h, op.old_content);
        field(h, op.content);
        break;
      case 'patch':
        field(h, op.diff);
        break;
      case 'rename':
        field(h, op.to);
        break;
      case 'chmod':
        field(h, op.mode);
        break;
      case 'apply_patch':
        field(h, op.patch);
        break;
      case 'delete':
        break;
    }
  }
  return h.digest('hex');
}
