import type { ShadowError } from '../errors.js';
import type { FileOperation } from '../drafts/batch/ops.js';
import type { BatchResult } from '../drafts/batch/batch.js';

/**
 * The result of a batch refused at the boundary (bad JSON, bad schema): the
 * batch tool's output shape, with each op that has a problem failed and the
 * others not applied.
 */
export function invalidBatchResult(draft: string, input: unknown, e: ShadowError): BatchResult {
  const ops = (input as { operations?: unknown } | null)?.operations;
  const problems = (e.data?.problems ?? []) as Array<{ path: string; message: string }>;
  const results = Array.isArray(ops)
    ? ops.map((op, i) => {
        const o = (op ?? {}) as { operation?: unknown; path?: unknown };
        const mine = problems.filter((p) => p.path.startsWith(`operations[${i}]`));
        const base = {
          operation: (typeof o.operation === 'string' ? o.operation : 'unknown') as FileOperation['operation'],
          path: typeof o.path === 'string' ? o.path : '',
        };
        return mine.length > 0
          ? {
              ...base,
              success: false,
              status: 'failed' as const,
              error: { code: e.code, message: mine.map((p) => `${p.path} ${p.message}`).join('; ') },
            }
          : { ...base, success: false, status: 'not_applied' as const };
      })
    : [];
  return { success: false, results, error: e.toJSON(), commit: null, batch: null, draft };
}
