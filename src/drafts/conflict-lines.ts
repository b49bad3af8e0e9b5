import type { ConflictReason } from './rebase/entry-merge.js';

/**
 * Conflicts as draft state, written in the draft's commits so that the
 * history alone says which paths are in conflict (draft.json only caches
 * it): a rebase commit lists each path it could not merge,
 *
 *     conflict<TAB><reason><TAB><path>
 *
 * and a later batch that touches such a path lists it as settled,
 *
 *     resolved<TAB><path>
 *
 * A path is in conflict from the newest rebase that lists it until a batch
 * resolves it. These lines are never cut short (op lines stop at a
 * thousand), since the state is read back from them. A path with a tab, a
 * control character, a quote or a backslash is written as a JSON string,
 * as git quotes such paths in its own output; free text in a commit body
 * never holds a tab (commit-message.ts), so only these lines can match.
 */

const REASONS: ReadonlySet<string> = new Set<ConflictReason>([
  'overlap',
  'binary',
  'delete/modify',
  'mode',
  'symlink',
  'type',
  'too complex',
]);

/** A path as these lines hold it. */
export function quotePath(path: string): string {
  return /[\u0000-\u001f\u007f"\\]/.test(path) ? JSON.stringify(path) : path;
}

function unquotePath(field: string): string | undefined {
  if (!field.startsWith('"')) return field;
  try {
    const p: unknown = JSON.parse(field);
    return typeof p === 'string' ? p : undefined;
  } catch {
    return undefined;
  }
}

/** The lines of a rebase's conflicts. */
export function conflictLines(conflicts: ReadonlyMap<string, ConflictReason>): string[] {
  return [...conflicts].map(([path, reason]) => `conflict\t${reason}\t${quotePath(path)}`);
}

/** The lines of the conflicts a batch resolves. */
export function resolvedLines(paths: Iterable<string>): string[] {
  return [...paths].map((p) => `resolved\t${quotePath(p)}`);
}

/** The conflicts a commit message lists. */
export function parseConflictLines(message: string): Map<string, ConflictReason> {
  const out = new Map<string, ConflictReason>();
  for (const line of message.split('\n')) {
    if (!line.startsWith('conflict\t')) continue;
    const tab = line.indexOf('\t', 9);
    if (tab === -1) continue;
    const reason = line.slice(9, tab);
    const path = unquotePath(line.slice(tab + 1));
    if (REASONS.has(reason) && path !== undefined) out.set(path, reason as ConflictReason);
  }
  return out;
}

/** The conflicts a commit message says it resolved. */
export function parseResolvedLines(message: string): string[] {
  const out: string[] = [];
  for (const line of message.split('\n')) {
    if (!line.startsWith('resolved\t')) continue;
    const path = unquotePath(line.slice(9));
    if (path !== undefined) out.push(path);
  }
  return out;
}
