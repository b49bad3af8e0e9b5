import { createHash } from 'node:crypto';
import type { Context } from '../context.js';
import { errnoCode } from '../errors.js';
import { toJsonSafe } from '../core/json-safe.js';
import { maskSecretsIn } from '../core/secret-scan.js';
import { fsyncConcurrently, writeAll } from '../durable/durable-file.js';
import { waitForProcessLock } from '../durable/process-lock.js';

/**
 * A draft's ledger, `events.jsonl`: one JSON object a line, appended with
 * fsync under a lock, each line carrying the sha256 of the line before it
 * (`prev`), so that any edit or loss shows. Values pass through a
 * serializer that repairs what JSON cannot hold; callers never put file
 * content in (blob ids instead), and every string of an event (the actor,
 * an intent, a model, a reason) has its secrets masked here, whoever
 * wrote it.
 *
 * A writer that crashed mid-line leaves a last line with no newline: the
 * next append ends it and writes a `ledger/seal` event naming the torn
 * line's hash, so the chain goes on and `verify` reports it for what it is.
 */

export interface LedgerEvent {
  seq: number;
  ts: string;
  type: string;
  draft: string;
  actor: string;
  data: Record<string, unknown>;
  /** An event brought from another machine's ledger by a `ledger/join` (drafts/ledger-join.ts): where it was. */
  origin?: LedgerOrigin;
  /** sha256 (hex) of the previous line's bytes, null for the first. */
  prev: string | null;
}

/** Where a joined event stood in the ledger it came from: the remote, its seq there and the sha256 of its line there. */
export interface LedgerOrigin {
  remote: string;
  seq: number;
  sha256: string;
}

export interface NewEvent {
  type: string;
  draft: string;
  actor: string;
  data?: Record<string, unknown>;
  /** Kept as given (a joined event keeps the time it was made); default now. */
  ts?: string;
  origin?: LedgerOrigin;
}

const TAIL_BYTES = 64 * 1024;

function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The hash a ledger's next line names as `prev`: sha256 of a line's bytes, without its newline. */
export function lineSha256(line: string): string {
  return sha256(line);
}

/**
 * The last line of the file (without its newline), the complete line before
 * it when the last one is torn, and whether the file ends in a newline.
 */
function readTail(
  ctx: Context,
  path: string,
): { last: string | undefined; before: string | undefined; complete: boolean; size: number } {
  let fd: number;
  try {
    fd = ctx.fs.openSync(path, 'r');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return { last: undefined, before: undefined, complete: true, size: 0 };
    throw e;
  }
  try {
    const size = Number(ctx.fs.fstatSync(fd).size);
    if (size === 0) return { last: undefined, before: undefined, complete: true, size };
    let want = Math.min(size, TAIL_BYTES);
    for (;;) {
      const buf = Buffer.alloc(want);
      ctx.fs.readSync(fd, buf, 0, want, size - want);
      const complete = buf[buf.length - 1] === 0x0a;
      const body = complete ? buf.subarray(0, buf.length - 1) : buf;
      const nl = body.lastIndexOf(0x0a);
      const nl2 = nl > 0 ? body.lastIndexOf(0x0a, nl - 1) : -1;
      if ((nl !== -1 && (complete || nl2 !== -1)) || want === size) {
        return {
          last: body.subarray(nl + 1).toString('utf8'),
          before: nl === -1 ? undefined : body.subarray(nl2 + 1, nl).toString('utf8'),
          complete,
          size,
        };
      }
      want = Math.min(size, want * 4);
    }
  } finally {
    ctx.fs.closeSync(fd);
  }
}

/** One line as an event, or undefined when it is not one (torn, edited). */
export function parseEvent(line: string): LedgerEvent | undefined {
  try {
    const e = JSON.parse(line) as LedgerEvent;
    return typeof e.seq === 'number' && typeof e.type === 'string' ? e : undefined;
  } catch {
    return undefined;
  }
}

/** How an append reaches the disk. */
export interface AppendOptions {
  /**
   * False: written, not fsynced; the next durable append (or the kernel)
   * takes it to disk. For an event whose loss in a crash another durable
   * record covers. Default true.
   */
  durable?: boolean;
}

/** Append one event (fsynced unless told otherwise) and return it. */
export async function appendEvent(
  ctx: Context,
  path: string,
  event: NewEvent,
  lockTimeoutMs: number,
  options: AppendOptions = {},
): Promise<LedgerEvent> {
  const [full] = await appendEvents(ctx, path, [event], lockTimeoutMs, options);
  return full!;
}

/**
 * Append events in order, under one lock and one fsync (all of them are on
 * disk, or the last ones are torn). `events` may be a function, called
 * under the lock, that decides them from the ledger as it then is (a join
 * must not import an event a concurrent join just brought).
 */
export async function appendEvents(
  ctx: Context,
  path: string,
  eventsOrPlan: readonly NewEvent[] | (() => readonly NewEvent[]),
  lockTimeoutMs: number,
  options: AppendOptions = {},
): Promise<LedgerEvent[]> {
  if (typeof eventsOrPlan !== 'function' && eventsOrPlan.length === 0) return [];
  // The lock names its holder: one left by a writer that crashed is taken over.
  const lock = await waitForProcessLock(ctx, `${path}.lock`, 'ledger append', lockTimeoutMs);
  try {
    const events = typeof eventsOrPlan === 'function' ? eventsOrPlan() : eventsOrPlan;
    if (events.length === 0) return [];
    const tail = readTail(ctx, path);
    const lines: string[] = [];
    let prev = tail.last === undefined ? null : sha256(tail.last);
    const lastEvent =
      tail.last === undefined
        ? undefined
        : (parseEvent(tail.last) ?? (tail.before === undefined ? undefined : parseEvent(tail.before)));
    let seq = lastEvent?.seq ?? 0;
    const now = new Date(ctx.clock.now()).toISOString();
    if (!tail.complete && tail.last !== undefined) {
      // Torn by a crash: end the line and seal it, so the chain continues.
      const seal: LedgerEvent = {
        seq: ++seq,
        ts: now,
        type: 'ledger/seal',
        draft: events[0]!.draft,
        actor: 'shadow',
        data: { torn_sha256: sha256(tail.last), torn_bytes: Buffer.byteLength(tail.last) },
        prev,
      };
      const line = JSON.stringify(seal);
      lines.push(line);
      prev = sha256(line);
    }
    const out: LedgerEvent[] = [];
    for (const event of events) {
      // Whatever a caller hands in (an intent, an actor, a model, a reason), no secret is kept whole.
      const data = maskSecretsIn((toJsonSafe(event.data ?? {}) as Record<string, unknown>) ?? {});
      const actor = maskSecretsIn(event.actor);
      const full: LedgerEvent = {
        seq: ++seq,
        ts: event.ts ?? now,
        type: event.type,
        draft: event.draft,
        actor,
        data,
        ...(event.origin ? { origin: event.origin } : {}),
        prev,
      };
      const line = JSON.stringify(full);
      lines.push(line);
      prev = sha256(line);
      out.push(full);
    }
    const text = `${!tail.complete && tail.last !== undefined ? '\n' : ''}${lines.join('\n')}\n`;
    const fd = ctx.fs.openSync(path, 'a', 0o644);
    try {
      writeAll(ctx.fs, fd, Buffer.from(text, 'utf8'));
      // On the pool: a server's other requests go on while the disk works (the lock is held till it is done).
      if (options.durable !== false) await fsyncConcurrently(ctx.fs, fd);
    } finally {
      ctx.fs.closeSync(fd);
    }
    return out;
  } finally {
    lock.release();
  }
}

/** Every event of a ledger, oldest first (torn or unreadable lines are skipped; `verifyLedger` reports them). */
export function readEvents(ctx: Context, path: string): LedgerEvent[] {
  let text: string;
  try {
    text = ctx.fs.readFileSync(path, 'utf8') as string;
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return [];
    throw e;
  }
  const out: LedgerEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const e = parseEvent(line);
    if (e) out.push(e);
  }
  return out;
}

export interface LedgerVerdict {
  ok: boolean;
  events: number;
  /** Torn lines that a later seal accounts for. */
  sealed: number;
  /** The first line (1-based) where the chain breaks, and why. */
  broken?: { line: number; reason: string };
}

/** Check the hash chain line by line and report the first break. */
export function verifyLedger(ctx: Context, path: string): LedgerVerdict {
  let text: string;
  try {
    text = ctx.fs.readFileSync(path, 'utf8') as string;
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return { ok: true, events: 0, sealed: 0 };
    throw e;
  }
  return verifyLedgerText(text);
}

/** verifyLedger over a ledger's bytes (another machine's, as a snapshot commit carries it). */
export function verifyLedgerText(text: string): LedgerVerdict {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let prevLine: string | undefined;
  let prevSeq = 0;
  let events = 0;
  let sealed = 0;
  const broken = (line: number, reason: string): LedgerVerdict => ({
    ok: false,
    events,
    sealed,
    broken: { line, reason },
  });
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const e = parseEvent(line);
    if (!e) {
      const next = lines[i + 1] !== undefined ? parseEvent(lines[i + 1]!) : undefined;
      if (next?.type === 'ledger/seal' && next.data.torn_sha256 === sha256(line)) {
        sealed++;
        prevLine = line;
        continue;
      }
      if (i === lines.length - 1 && !text.endsWith('\n'))
        return broken(i + 1, 'the last line is torn (a writer stopped mid-line); the next append seals it');
      return broken(i + 1, 'the line is not a ledger event (edited or corrupted)');
    }
    const expectedPrev = prevLine === undefined ? null : sha256(prevLine);
    if (e.prev !== expectedPrev)
      return broken(
        i + 1,
        `prev is ${e.prev?.slice(0, 12) ?? 'null'}, but the line before hashes to ${expectedPrev?.slice(0, 12) ?? 'nothing'} (a line was edited, removed or inserted)`,
      );
    if (e.seq !== prevSeq + 1) return broken(i + 1, `seq ${e.seq} follows ${prevSeq}`);
    prevSeq = e.seq;
    prevLine = line;
    events++;
  }
  return { ok: true, events, sealed };
}
