/**
 * Two machines that both appended to a draft's ledger hold two chains that
 * share a prefix (the ledger `draft new --from` copied) and then fork. A
 * pull never forks the chain here and never rewrites it: as jj's operation
 * log records concurrent operations, the local chain gets one `ledger/join`
 * event naming the other side's snapshot commit (`refs/shadow/meta/…`, which
 * carries its ledger) and the sha256 of that ledger's last line, then every
 * event of the other side it did not have, appended as events of its own:
 * type, actor, time and data kept, with an `origin` (the remote, the seq and
 * the sha256 of the line there). So a deny made on the other machine takes
 * effect here (an approval does when it is signed: review/approval-trust.ts),
 * and both chains stay verifiable: this one by its hashes, the other one by
 * the snapshot commit the join names.
 *
 * An event is known here when its line's hash is one of this ledger's lines
 * or origins (the shared prefix; events joined before), or when it came to
 * the other side from here or from a third ledger this one joined too (its
 * origin's hash is known): joining twice adds nothing.
 */
import { ShadowError } from '../errors.js';
import { readTextIfExists } from '../durable/durable-file.js';
import type { Oid } from '../git/format/git-objects.js';
import {
  appendEvents,
  lineSha256,
  parseEvent,
  verifyLedgerText,
  type LedgerEvent,
  type LedgerVerdict,
  type NewEvent,
} from '../state/ledger.js';
import type { ObjectDatabase } from '../git/object-db.js';
import { ledgerPath } from './ledger-events.js';
import type { Workspace } from './workspace.js';

/** The type of the event that records a join. */
export const JOIN_EVENT = 'ledger/join';

/** Where the other side's ledger comes from: the remote and the snapshot commit holding it. */
export interface JoinSource {
  remote: string;
  /** The draft's name there. */
  draft: string;
  /** The snapshot commit (`refs/shadow/remotes/<remote>/meta/<draft>`) whose tree holds events.jsonl. */
  snapshot: Oid;
}

export interface JoinResult {
  /** The join event, or undefined when the other side had nothing this ledger lacked. */
  join: LedgerEvent | undefined;
  /** How many of its events were brought here. */
  imported: number;
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

/** Every hash a ledger knows an event by: its lines' and its joined events' origins. */
function knownHashes(text: string): Set<string> {
  const known = new Set<string>();
  for (const line of lines(text)) {
    known.add(lineSha256(line));
    const e = parseEvent(line);
    if (e?.origin) known.add(e.origin.sha256);
  }
  return known;
}

/** The events of `remoteText` that `localText` lacks, in order, with their line's hash (pure). */
export function missingEvents(localText: string, remoteText: string): Array<{ event: LedgerEvent; sha256: string }> {
  const known = knownHashes(localText);
  const out: Array<{ event: LedgerEvent; sha256: string }> = [];
  for (const line of lines(remoteText)) {
    const event = parseEvent(line);
    const sha256 = lineSha256(line);
    if (!event || known.has(sha256) || (event.origin && known.has(event.origin.sha256))) continue;
    known.add(sha256);
    out.push({ event, sha256 });
  }
  return out;
}

/** The ledger a snapshot commit carries ('' when it holds none). */
export function snapshotLedger(objects: ObjectDatabase, snapshot: Oid): string {
  const entry = objects.readTree(objects.readCommit(snapshot).tree).find((e) => e.name === 'events.jsonl');
  return entry === undefined ? '' : objects.readBlob(entry.oid).toString('utf8');
}

/**
 * Bring the events of the ledger `source` carries that draft `name`'s ledger
 * lacks into it, after one `ledger/join` event: nothing when it lacks none.
 * A remote ledger whose own chain is broken is refused (CORRUPT_STATE),
 * nothing written.
 */
export async function joinLedger(ws: Workspace, name: string, source: JoinSource, actor: string): Promise<JoinResult> {
  const remoteText = snapshotLedger(ws.repo.objects, source.snapshot);
  const verdict = verifyLedgerText(remoteText);
  if (!verdict.ok) {
    throw new ShadowError(
      'CORRUPT_STATE',
      `the ledger of ${source.remote}/${source.draft} (snapshot ${source.snapshot.slice(0, 12)}) is broken at line ${verdict.broken!.line}: ${verdict.broken!.reason}; nothing was joined`,
      {
        hint: `ask whoever pushed ${source.remote}/${source.draft} to check it with \`shadow events --verify\``,
        data: { remote: source.remote, draft: source.draft, snapshot: source.snapshot, broken: verdict.broken },
      },
    );
  }
  const remoteLines = lines(remoteText);
  const head = remoteLines.length === 0 ? null : lineSha256(remoteLines[remoteLines.length - 1]!);
  const path = ledgerPath(ws, name);
  let imported = 0;
  const written = await appendEvents(
    ws.ctx,
    path,
    () => {
      const missing = missingEvents(readTextIfExists(ws.ctx.fs, path) ?? '', remoteText);
      imported = missing.length;
      if (missing.length === 0) return [];
      const join: NewEvent = {
        type: JOIN_EVENT,
        draft: name,
        actor,
        data: {
          remote: source.remote,
          draft: source.draft,
          snapshot: source.snapshot,
          head,
          events: remoteLines.length,
          imported: missing.length,
        },
      };
      const brought: NewEvent[] = missing.map(({ event, sha256 }) => ({
        type: event.type,
        draft: name,
        actor: event.actor,
        data: event.data,
        ts: event.ts,
        origin: { remote: source.remote, seq: event.seq, sha256 },
      }));
      return [join, ...brought];
    },
    ws.repo.lockTimeoutMs,
  );
  return { join: written.find((e) => e.type === JOIN_EVENT && e.origin === undefined), imported };
}

/** What `events --verify` says of a ledger that joined others: its own chain, then each join against the snapshot it names. */
export interface DraftLedgerVerdict extends LedgerVerdict {
  /** The joins checked. */
  joins: number;
  /** The events those joins brought, each found in the ledger it came from. */
  joined: number;
}

/** The event's own part, as a joined copy must keep it. */
function ownPart(e: LedgerEvent): string {
  return JSON.stringify([e.type, e.actor, e.ts, e.data]);
}

/**
 * Verify draft `name`'s ledger: the hash chain (state/ledger.ts), then each
 * `ledger/join` made here: the snapshot commit it names holds a ledger whose
 * chain verifies and whose last line hashes to the join's `head`, and every
 * event joined after it is in that ledger at its origin's seq and hash, with
 * the same type, actor, time and data.
 */
export function verifyDraftLedger(ws: Workspace, name: string): DraftLedgerVerdict {
  const path = ledgerPath(ws, name);
  const text = readTextIfExists(ws.ctx.fs, path) ?? '';
  const own = verifyLedgerText(text);
  if (!own.ok) return { ...own, joins: 0, joined: 0 };
  let joins = 0;
  let joined = 0;
  const broken = (line: number, reason: string): DraftLedgerVerdict => ({
    ...own,
    ok: false,
    broken: { line, reason },
    joins,
    joined,
  });
  let source: { remote: string; bySha: Map<string, LedgerEvent> } | undefined;
  const all = text.split('\n');
  for (let i = 0; i < all.length; i++) {
    const e = all[i] ? parseEvent(all[i]!) : undefined;
    if (!e) continue;
    if (e.origin === undefined) source = undefined;
    if (e.type === JOIN_EVENT && e.origin === undefined) {
      const snapshot = String(e.data.snapshot ?? '');
      let remoteText: string;
      try {
        remoteText = snapshotLedger(ws.repo.objects, snapshot);
      } catch {
        return broken(
          i + 1,
          `the join names snapshot ${snapshot.slice(0, 12)}, which is not in this repository (fetch it again: \`shadow fetch ${String(e.data.remote)}\`)`,
        );
      }
      const theirs = verifyLedgerText(remoteText);
      if (!theirs.ok)
        return broken(
          i + 1,
          `the ledger joined from snapshot ${snapshot.slice(0, 12)} is broken at its line ${theirs.broken!.line}: ${theirs.broken!.reason}`,
        );
      const remoteLines = lines(remoteText);
      const head = remoteLines.length === 0 ? null : lineSha256(remoteLines[remoteLines.length - 1]!);
      if (head !== e.data.head)
        return broken(
          i + 1,
          `the join says the joined ledger ends with ${String(e.data.head).slice(0, 12)}, but snapshot ${snapshot.slice(0, 12)}'s ends with ${head?.slice(0, 12) ?? 'nothing'}`,
        );
      const bySha = new Map<string, LedgerEvent>();
      for (const l of remoteLines) {
        const r = parseEvent(l);
        if (r) bySha.set(lineSha256(l), r);
      }
      source = { remote: String(e.data.remote), bySha };
      joins++;
      continue;
    }
    if (e.origin === undefined) continue;
    // An event joined before the first join this ledger made came with a ledger copied whole (draft new --from): that chain vouches for it.
    if (source === undefined) continue;
    const original = source.bySha.get(e.origin.sha256);
    if (!original || original.seq !== e.origin.seq)
      return broken(
        i + 1,
        `a joined event names line ${e.origin.sha256.slice(0, 12)} (seq ${e.origin.seq}) of ${e.origin.remote}'s ledger, which the join's snapshot does not hold`,
      );
    if (ownPart(original) !== ownPart(e))
      return broken(
        i + 1,
        `a joined event differs from the event it copies (seq ${e.origin.seq} of ${e.origin.remote}'s ledger)`,
      );
    joined++;
  }
  return { ...own, joins, joined };
}
