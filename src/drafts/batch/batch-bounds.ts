import { ShadowError } from '../../errors.js';
import { formatLimit } from '../../core/content.js';

/**
 * How large one batch may be, checked on the document as sent, before it is
 * validated or resolved: a batch is held whole in memory while it resolves,
 * so its size is the one bound on what a single request may cost.
 */
export interface BatchLimits {
  /** `shadow.maxBatchOps`: operations in one batch. */
  maxOps: number;
  /** `shadow.maxBatchBytes`: the UTF-8 bytes of its operations' texts (`content`, `old_content`, `diff`, `patch`). */
  maxBytes: number;
}

/** Defaults no agent meets by hand: a hundred times a large refactor, and 25 files at the content limit. */
export const DEFAULT_MAX_BATCH_OPS = 10_000;
export const DEFAULT_MAX_BATCH_BYTES = 256 * 1024 * 1024;

const TEXT_FIELDS = ['content', 'old_content', 'diff', 'patch'] as const;

/**
 * BATCH_TOO_LARGE when `input` (a batch document, not yet validated) holds
 * more operations or more bytes of text than `limits` allow; undefined when
 * it fits or is not shaped like a batch (validation then says why).
 * `where` names the batch in a message (a plan's batch). `carried`: the
 * bytes of contents taken out of their ops as the batch was read, which
 * count as those contents did.
 *
 * @example
 * const e = batchTooLarge(doc, { maxOps: 10_000, maxBytes: 256 << 20 }); if (e) throw e;
 */
export function batchTooLarge(
  input: unknown,
  limits: BatchLimits,
  where = 'the batch',
  carried?: WeakMap<object, Uint8Array>,
): ShadowError | undefined {
  const ops = (input as { operations?: unknown } | null)?.operations;
  if (!Array.isArray(ops)) return undefined;
  if (ops.length > limits.maxOps) {
    return new ShadowError(
      'BATCH_TOO_LARGE',
      `${where} has ${ops.length} operations, over the limit of ${limits.maxOps} (shadow.maxBatchOps); nothing was written`,
      {
        hint: `split it into batches of at most ${limits.maxOps} operations, or raise the limit with \`git config shadow.maxBatchOps <n>\``,
        data: { operations: ops.length, limit: limits.maxOps, setting: 'shadow.maxBatchOps' },
      },
    );
  }
  let bytes = 0;
  for (const op of ops) {
    if (op === null || typeof op !== 'object') continue;
    bytes += carried?.get(op)?.length ?? 0;
    for (const field of TEXT_FIELDS) {
      const v = (op as Record<string, unknown>)[field];
      if (typeof v === 'string') bytes += Buffer.byteLength(v, 'utf8');
    }
    // Stop counting at the first byte over: the rest cannot make it fit.
    if (bytes > limits.maxBytes) {
      return new ShadowError(
        'BATCH_TOO_LARGE',
        `${where} carries more than ${formatLimit(limits.maxBytes)} of content (shadow.maxBatchBytes); nothing was written`,
        {
          hint: 'split it into several batches (a large file can go through a write session), or raise the limit with `git config shadow.maxBatchBytes <bytes>`',
          data: { bytes_at_least: bytes, limit: limits.maxBytes, setting: 'shadow.maxBatchBytes' },
        },
      );
    }
  }
  return undefined;
}
