import { ShadowError } from '../errors.js';
import type { Draft } from './drafts.js';

/**
 * The conflicts a draft holds since a rebase (their record in the commits:
 * conflict-lines.ts): which ones a batch resolves, and the refusal of what
 * may not go on while any remain (apply, another rebase).
 */

/** The refusal of `verb` while paths of the draft are in conflict. */
export function unresolvedError(draft: Draft, paths: readonly string[], verb: string): ShadowError {
  const list = paths.slice(0, 10).join(', ') + (paths.length > 10 ? `, and ${paths.length - 10} more` : '');
  return new ShadowError(
    'UNRESOLVED_CONFLICT',
    `${verb} refused: draft "${draft.name}" has ${paths.length} path${paths.length === 1 ? '' : 's'} in conflict since its rebase: ${list}`,
    {
      hint: 'resolve each with a batch on it (write the content you want; `shadow resolve <path>` keeps it as it is), or `shadow undo` the rebase',
      data: { draft: draft.name, paths: [...paths] },
    },
  );
}

/** The conflicts left once `resolved` are settled (undefined when none are left). */
export function withoutResolved(
  conflicts: Readonly<Record<string, string>> | undefined,
  resolved: readonly string[] | undefined,
): Record<string, string> | undefined {
  if (!conflicts || !resolved) return conflicts;
  const left = { ...conflicts };
  for (const p of resolved) delete left[p];
  return Object.keys(left).length > 0 ? left : undefined;
}

/**
 * The conflicts this batch resolves: those among the paths its ops touch
 * and those `resolve` names (which must all be in conflict).
 */
export function resolvedBy(draft: Draft, touched: readonly string[], resolve: readonly string[] | undefined): string[] {
  const conflicts = draft.meta.conflicts ?? {};
  const named = resolve ?? [];
  const notInConflict = named.filter((p) => !(p in conflicts));
  if (notInConflict.length > 0) {
    throw new ShadowError(
      'NOT_IN_CONFLICT',
      `not in conflict in draft "${draft.name}": ${notInConflict.slice(0, 10).join(', ')}`,
      {
        hint: '`shadow status` lists the paths in conflict since a rebase',
        data: { draft: draft.name, paths: notInConflict },
      },
    );
  }
  return [...new Set([...touched.filter((p) => p in conflicts), ...named])].sort();
}
