/**
 * The messages of draft commits: a summary line, the op list, and the
 * `Shadow-*` trailers that make the draft's history self-describing (the
 * trailers, not any cache, are the truth about batches).
 */

/** What a commit's trailers say about it. */
export interface ShadowTrailers {
  draft?: string;
  batch?: number;
  capture?: number;
  actor?: string;
  plan?: string;
  planBatch?: string;
  session?: string;
  /** The batch's identity (see ops-fingerprint.ts): a retry of it is recognised by this. */
  ops?: string;
  /** On a rebase commit (rebase-record.ts): the commit the draft was moved onto, or `none` (no HEAD yet). */
  rebase?: string;
  /** On a rebase commit: the newest apply record it took in, or `none`. */
  applies?: string;
  /** The client's request id a batch carried: the same id sent again returns this commit. */
  request?: string;
  /** `ai` or `human` (identity.ts). */
  actorType?: string;
  /** The model an AI actor ran. */
  model?: string;
}

/** One op as recorded in a commit body. */
export interface OpLine {
  operation: string;
  path: string;
  /** The rename target, or the new mode of a chmod. */
  arg?: string;
  /** The op's status when it was not a plain change (`unchanged`). */
  note?: string;
}

const TRAILER_KEYS: Array<[keyof ShadowTrailers, string]> = [
  ['draft', 'Shadow-Draft'],
  ['batch', 'Shadow-Batch'],
  ['capture', 'Shadow-Capture'],
  ['actor', 'Shadow-Actor'],
  ['actorType', 'Shadow-Actor-Type'],
  ['model', 'Shadow-Model'],
  ['plan', 'Shadow-Plan'],
  ['planBatch', 'Shadow-Plan-Batch'],
  ['session', 'Shadow-Session'],
  ['ops', 'Shadow-Ops'],
  ['rebase', 'Shadow-Rebase'],
  ['applies', 'Shadow-Applies'],
  ['request', 'Shadow-Request'],
];

const MAX_SUMMARY = 200;
const MAX_OP_LINES = 1000;

/** One line, no control characters, bounded: safe as a summary or a trailer value. */
export function oneLine(s: string, max = MAX_SUMMARY): string {
  const flat = s
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function formatTrailers(t: ShadowTrailers): string {
  const lines: string[] = [];
  for (const [key, name] of TRAILER_KEYS) {
    const v = t[key];
    if (v !== undefined && v !== '') lines.push(`${name}: ${oneLine(String(v))}`);
  }
  return lines.join('\n');
}

/** A summary for a batch sent without an intent: its first ops. */
export function autoSummary(ops: readonly OpLine[]): string {
  if (ops.length === 0) return 'empty batch';
  const head = ops
    .slice(0, 2)
    .map((o) => `${o.operation} ${o.path}`)
    .join(', ');
  return ops.length > 2 ? `${head} and ${ops.length - 2} more` : head;
}

/**
 * The message of a batch commit. `lines` are machine lines kept whole
 * however many there are (the conflicts a batch resolves, see
 * conflict-lines.ts), after the op lines.
 */
export function batchMessage(
  intent: string | undefined,
  ops: readonly OpLine[],
  trailers: ShadowTrailers,
  lines: readonly string[] = [],
  extraTrailers: readonly string[] = [],
): string {
  const [first = '', ...rest] = (intent ?? '').split('\n');
  const summary = oneLine(first) || autoSummary(ops);
  // The body is free text: no control characters (git refuses NUL) and no
  // tab, which would make a line read as an op.
  const extra = rest
    .join('\n')
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, ' ')
    .trim();
  const opLines = ops.slice(0, MAX_OP_LINES).map(formatOpLine);
  if (ops.length > MAX_OP_LINES) opLines.push(`… and ${ops.length - MAX_OP_LINES} more`);
  const body = [extra, opLines.join('\n'), lines.join('\n')].filter((s) => s.length > 0).join('\n\n');
  const tail = [formatTrailers(trailers), ...extraTrailers.map((l) => oneLine(l, 300))].join('\n');
  return `${summary}\n\n${body ? `${body}\n\n` : ''}${tail}\n`;
}

/** The message of a capture commit: the working tree's state of `paths` before batch `batch`. */
export function captureMessage(draft: string, batch: number, paths: readonly string[]): string {
  const listed = paths.slice(0, MAX_OP_LINES).map((p) => `capture\t${p}`);
  if (paths.length > MAX_OP_LINES) listed.push(`… and ${paths.length - MAX_OP_LINES} more`);
  const noun = paths.length === 1 ? 'path' : 'paths';
  return `capture working tree state of ${paths.length} ${noun} before batch ${batch}\n\n${listed.join('\n')}\n\n${formatTrailers({ draft, capture: batch, actorType: 'human' })}\n`;
}

/** The message of the root commit of a draft made in a repository with no commit. */
export function emptyRootMessage(draft: string): string {
  return `empty root of draft ${draft}\n\nThe repository had no commit when the draft was made.\n`;
}

function formatOpLine(o: OpLine): string {
  let s = `${o.operation}\t${o.path}`;
  if (o.arg !== undefined) s += `\t${o.arg}`;
  if (o.note !== undefined) s += `\t(${o.note})`;
  return s;
}

/** The trailers of a commit, as the last paragraph of its message. */
export function trailerBlock(t: ShadowTrailers): string {
  return formatTrailers(t);
}

/** The `Shadow-*` trailers of a commit message (its last paragraph). */
export function parseTrailers(message: string): ShadowTrailers {
  const out: ShadowTrailers = {};
  const trimmed = message.replace(/\s+$/, '');
  const last = trimmed.slice(trimmed.lastIndexOf('\n\n') + 1);
  for (const line of last.split('\n')) {
    const m = /^(shadow-[a-z-]+):\s*(.*)$/i.exec(line);
    if (!m) continue;
    const entry = TRAILER_KEYS.find(([, name]) => name.toLowerCase() === m[1]!.toLowerCase());
    if (!entry) continue;
    const [key] = entry;
    if (key === 'batch' || key === 'capture') {
      const n = Number(m[2]);
      if (Number.isSafeInteger(n) && n > 0) out[key] = n;
    } else {
      out[key] = m[2]!;
    }
  }
  return out;
}

/** The summary line of a commit message. */
export function summaryOf(message: string): string {
  const nl = message.indexOf('\n');
  return nl === -1 ? message : message.slice(0, nl);
}

const OP_WORDS = new Set(['write', 'edit', 'patch', 'delete', 'rename', 'chmod', 'apply_patch', 'capture']);

/** The op lines recorded in a batch commit's body. */
export function parseOpLines(message: string): OpLine[] {
  const out: OpLine[] = [];
  for (const line of message.split('\n')) {
    const parts = line.split('\t');
    if (parts.length < 2 || !OP_WORDS.has(parts[0]!)) continue;
    const op: OpLine = { operation: parts[0]!, path: parts[1]! };
    for (const extra of parts.slice(2)) {
      const note = /^\((.*)\)$/.exec(extra);
      if (note) op.note = note[1]!;
      else op.arg = extra;
    }
    out.push(op);
  }
  return out;
}
