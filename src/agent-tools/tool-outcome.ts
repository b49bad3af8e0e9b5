import type { ShadowError, ShadowErrorJSON } from '../errors.js';
import type { BatchResult, FinalizeResult } from '../index.js';
import type { Shadow } from '../shadow.js';
import type { Profile } from './definitions.js';

/**
 * What every tool handler shares, whatever shape of tool it serves: the
 * connection a call runs on, the outcome it returns (text a model reads and
 * the same facts as structured content, for MCP's outputSchema), and the way
 * an error becomes both. A module of its own so that the handlers of each
 * shape (shadow's, the text editor's, the filesystem server's) and the
 * dispatcher (call-tool.ts) import it without importing each other.
 */

export interface ToolConnection {
  sh: Shadow;
  /** The draft every call of this connection works on. */
  draft: string;
  actor: string;
  /** Whether `apply` is offered (never by default: the person applies). */
  allowApply?: boolean;
  /** The shapes of tools served (default: shadow's own). */
  profiles?: readonly Profile[];
}

export interface ToolOutcome {
  isError: boolean;
  text: string;
  /** The result as data (MCP's structuredContent): on an error, `{ error: { code, message, hint?, data? } }` and what else helps. */
  structured?: Record<string, unknown>;
  /** MCP content blocks to answer with instead of the text (an image, audio, an embedded resource). */
  content?: ReadonlyArray<Record<string, unknown>>;
}

export type Handler = (conn: ToolConnection, args: Record<string, unknown>) => Promise<ToolOutcome>;

/** Largest text a tool returns; longer output is cut with a note saying how to see the rest. */
export const MAX_TEXT = 100_000;
export const MAX_LINES = 2000;

export function json(value: unknown): string {
  return JSON.stringify(value, null, 1);
}

export function cut(text: string, how: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}\n… (cut at ${MAX_TEXT} characters; ${how})`;
}

/** A ShadowError as a model should read it. */
export function errorText(e: ShadowErrorJSON): string {
  const lines = [`${e.code}: ${e.message}`];
  if (e.hint) lines.push(`hint: ${e.hint}`);
  if (e.data && Object.keys(e.data).length > 0)
    lines.push(`details: ${cut(JSON.stringify(e.data), 'the details are long')}`);
  return lines.join('\n');
}

/**
 * A successful outcome: text as given (an object as JSON), and as structured
 * content the object itself, or what the handler says (a text result has no
 * shape of its own: `{ text }`).
 */
export function ok(value: unknown, structured?: Record<string, unknown>): ToolOutcome {
  const text = typeof value === 'string' ? value : json(value);
  const data =
    structured ??
    (value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { text });
  return { isError: false, text, structured: data };
}

/** A failed outcome: the code first in the text (what a model and the tests read), the error itself as structured content. */
export function failed(e: ShadowErrorJSON, text = errorText(e), extra: Record<string, unknown> = {}): ToolOutcome {
  return { isError: true, text, structured: { ...extra, error: e } };
}

/** A thrown ShadowError as an outcome. */
export function shadowFailure(e: ShadowError): ToolOutcome {
  return failed(e.toJSON());
}

export function batchOutcome(r: BatchResult | FinalizeResult): ToolOutcome {
  const structured = r as unknown as Record<string, unknown>;
  if (r.success) return { isError: false, text: json(r), structured };
  // The per-operation results say what each failure was; the error's own details would repeat them.
  const head = r.error ? errorText({ ...r.error, data: undefined }) : 'the batch failed';
  const error: ShadowErrorJSON = r.error ?? { code: 'BATCH_FAILED', message: 'the batch failed' };
  return {
    isError: true,
    text: `${head}\nNothing was written. Per operation:\n${json(r.results)}`,
    structured: { ...structured, error },
  };
}
