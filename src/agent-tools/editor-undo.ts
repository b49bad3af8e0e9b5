import { ShadowError } from '../errors.js';
import type { LogEntry } from '../index.js';
import { catN } from './editor-text.js';
import { ok, type ToolConnection, type ToolOutcome } from './tool-outcome.js';

/**
 * The text editor's undo_edit on a draft: a revert (a new batch, `git
 * revert` style) of the last batch still in effect that changed the file.
 * Undoing twice goes further back, as an editor's undo does: a revert, and
 * the batches it reverted, are passed over. Refused rather than stretched:
 * when that batch changed other paths too (undoing it would undo them), and
 * when someone else made it (it is theirs to undo).
 */

/** How far back the draft's log is searched for the file's last change. */
const LOG_DEPTH = 1000;

/**
 * The batches a revert undid, from its intent (`revert batch 4 (…), batch 2
 * (…)`, as drafts/rebase/revert.ts writes it); none when it is not a revert.
 */
export function revertedBy(entry: Pick<LogEntry, 'intent'>): number[] {
  if (!entry.intent.startsWith('revert batch ')) return [];
  return [...entry.intent.matchAll(/(?:^revert |, )batch (\d+) \(/g)].map((m) => Number(m[1]));
}

const touched = (e: LogEntry): string[] =>
  e.ops.flatMap((op) => (op.operation === 'rename' && op.arg ? [op.path, op.arg] : [op.path]));

/** The batch undo_edit undoes for `rel`: the newest still in effect that touched it. */
export function lastEditOf(log: readonly LogEntry[], rel: string): LogEntry | undefined {
  const cancelled = new Set<number>();
  for (const e of log) {
    const reverted = revertedBy(e);
    if (reverted.length > 0) {
      for (const b of reverted) cancelled.add(b);
      continue;
    }
    if (cancelled.has(e.batch)) continue;
    if (touched(e).includes(rel)) return e;
  }
  return undefined;
}

export async function undoEdit(
  conn: ToolConnection,
  rel: string,
  shown: string,
): Promise<{ outcome: ToolOutcome; exists: boolean }> {
  const log = await conn.sh.log({ draft: conn.draft, limit: LOG_DEPTH });
  const last = lastEditOf(log, rel);
  if (!last) {
    throw new ShadowError('NOTHING_TO_UNDO', `No edit history found for ${shown}.`, {
      hint: `no batch of draft "${conn.draft}" still in effect changed it: the file is as the working tree has it`,
      data: { path: shown },
    });
  }
  const others = [...new Set(touched(last))].filter((p) => p !== rel);
  if (others.length > 0) {
    throw new ShadowError(
      'INVALID_TARGET',
      `the last change to ${shown} is batch ${last.batch}, which also changed ${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}; undo_edit undoes one file only`,
      {
        hint: `write the file back as you want it (view, then create), or revert batch ${last.batch} as a whole with \`shadow revert ${last.batch}\``,
        data: { path: shown, batch: last.batch, others },
      },
    );
  }
  if (last.actor !== conn.actor) {
    throw new ShadowError(
      'CONFLICT',
      `the last change to ${shown} is batch ${last.batch} by ${last.actor}, not yours; undo_edit undoes only your own edits`,
      {
        hint: 'view the file and edit it to what it should be',
        data: { path: shown, batch: last.batch, actor: last.actor },
      },
    );
  }
  const r = await conn.sh.revert([String(last.batch)], { draft: conn.draft, actor: conn.actor });
  const data = { command: 'undo_edit', path: shown, draft: r.draft, batch: r.batch, commit: r.tip, undone: last.batch };
  if (r.conflicts.length > 0) {
    // Only a write that landed between the log read and the revert can do this: the revert keeps it, with git's markers.
    const where = r.conflicts.map((c) => `${c.path} (${c.reason})`).join(', ');
    return {
      exists: true,
      outcome: ok(
        `Undid batch ${last.batch} as batch ${r.batch}, but ${where} changed meanwhile and is now in conflict: view it and write what it should hold.`,
        data,
      ),
    };
  }
  let content: string;
  try {
    content = (await conn.sh.cat(rel, { draft: conn.draft })).content.toString('utf8');
  } catch (e) {
    if (e instanceof ShadowError && e.code === 'NOT_FOUND') {
      return {
        exists: false,
        outcome: ok(
          `Last edit to ${shown} undone successfully. The file no longer exists: that edit created it.`,
          data,
        ),
      };
    }
    throw e;
  }
  return { exists: true, outcome: ok(`Last edit to ${shown} undone successfully. ${catN(content, shown)}`, data) };
}
