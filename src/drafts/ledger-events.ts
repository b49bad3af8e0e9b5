import { draftDir } from '../state/draft-meta.js';
import { appendEvent, appendEvents, readEvents, type AppendOptions, type LedgerEvent } from '../state/ledger.js';
import type { Workspace } from './workspace.js';

/** The ledger of a draft: `shadow/drafts/<draft>/events.jsonl`. */
export function ledgerPath(ws: Workspace, draft: string): string {
  return `${draftDir(ws.repo.shadowDir, draft)}/events.jsonl`;
}

/** Append an event to a draft's ledger (hash-chained; fsynced unless `options.durable` is false). */
export function logEvent(
  ws: Workspace,
  draft: string,
  type: string,
  actor: string,
  data: Record<string, unknown> = {},
  options: AppendOptions = {},
): Promise<LedgerEvent> {
  return appendEvent(ws.ctx, ledgerPath(ws, draft), { type, draft, actor, data }, ws.repo.lockTimeoutMs, options);
}

/** Append several events to a draft's ledger with one fsync. */
export function logEvents(
  ws: Workspace,
  draft: string,
  actor: string,
  events: ReadonlyArray<{ type: string; data: Record<string, unknown> }>,
): Promise<LedgerEvent[]> {
  return appendEvents(
    ws.ctx,
    ledgerPath(ws, draft),
    events.map((e) => ({ type: e.type, draft, actor, data: e.data })),
    ws.repo.lockTimeoutMs,
  );
}

/** Append several events, each with its own actor, to a draft's ledger with one fsync. */
export function logEventsOf(
  ws: Workspace,
  draft: string,
  events: ReadonlyArray<{ type: string; actor: string; data: Record<string, unknown> }>,
): Promise<LedgerEvent[]> {
  return appendEvents(
    ws.ctx,
    ledgerPath(ws, draft),
    events.map((e) => ({ type: e.type, draft, actor: e.actor, data: e.data })),
    ws.repo.lockTimeoutMs,
  );
}

/** Every event of a draft's ledger, oldest first. */
export function draftEvents(ws: Workspace, draft: string): LedgerEvent[] {
  return readEvents(ws.ctx, ledgerPath(ws, draft));
}
