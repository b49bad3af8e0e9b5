/**
 * The library's writes. A batch (or one of its one-operation shorthands) is
 * validated here, at the boundary, and run by the transactional core
 * (src/drafts/batch/batch.ts).
 */
import { ShadowError } from '../errors.js';
import type { BatchInput, FileMode, FileOperation } from '../drafts/batch/ops.js';
import { runBatch, type BatchResult } from '../drafts/batch/batch.js';
import { parseJsonText, validateBatch } from '../drafts/batch/batch-schema.js';
import { batchTooLarge } from '../drafts/batch/batch-bounds.js';
import { invalidBatchResult } from './batch-failure.js';
import type { Identity } from '../drafts/batch/identity.js';
import type { BatchCallOptions, ShadowCore } from './shadow-core.js';

export interface BatchCalls {
  /**
   * Parse batch JSON, as text or UTF-8 bytes. INVALID_JSON (with the
   * position, and whether the text was cut off; for bytes that are not
   * UTF-8, the byte offset) or INVALID_BATCH (every problem listed).
   *
   * @example
   * const input = sh.parseBatch('{"operations":[{"operation":"delete","path":"old.txt"}]}');
   */
  parseBatch(text: string | Uint8Array): BatchInput;

  /**
   * Apply a batch to a draft as one atomic commit. A batch that fails
   * (validation or any op) writes nothing and returns `success: false` with
   * every problem; errors outside the batch (a lock, the repository) throw.
   *
   * @example
   * const r = await sh.batch({ intent: 'greet', operations: [{ operation: 'write', path: 'hi.txt', content: 'hi\n' }] });
   * r.success && console.log(r.commit, r.batch);
   */
  batch(input: unknown, options?: BatchCallOptions): Promise<BatchResult>;

  /**
   * Apply a batch given as JSON text, or as its bytes, whole or as they are
   * read (a large batch is then parsed without its whole text ever held).
   * Text that is not JSON (a tool call cut off mid-string, say) returns
   * `success: false` with INVALID_JSON, its position and whether it was
   * truncated; so do bytes that are not UTF-8, with the offset of the first
   * bad byte (nothing is ever decoded into U+FFFD). An error reading the
   * pieces is thrown.
   *
   * @example
   * const r = await sh.batchText(await readFile('batch.json'));
   * const big = await sh.batchText(createReadStream('large-batch.json'));
   */
  batchText(text: string | Uint8Array | AsyncIterable<Uint8Array>, options?: BatchCallOptions): Promise<BatchResult>;

  /**
   * Write a file: a string is UTF-8 text (or base64 with `encoding:
   * 'base64'`), a Uint8Array is stored byte for byte.
   *
   * @example await sh.write('notes.md', '# notes\n')
   */
  write(
    path: string,
    content: string | Uint8Array,
    options?: BatchCallOptions & { mode?: FileMode; intent?: string; encoding?: 'utf8' | 'base64' },
  ): Promise<BatchResult>;

  /** @example await sh.edit('README.md', 'Hello', 'Hello, world') */
  edit(
    path: string,
    oldContent: string,
    content: string,
    options?: BatchCallOptions & { intent?: string },
  ): Promise<BatchResult>;

  /** @example await sh.remove(['old.txt']) */
  remove(paths: string[], options?: BatchCallOptions & { intent?: string }): Promise<BatchResult>;

  /** @example await sh.move('a.txt', 'b.txt') */
  move(from: string, to: string, options?: BatchCallOptions & { intent?: string }): Promise<BatchResult>;
}

export const batchCalls: BatchCalls & ThisType<ShadowCore & BatchCalls> = {
  parseBatch(text) {
    return validateBatch(parseJsonText(text));
  },

  async batch(input, options = {}) {
    return batchCarrying(this, input, options);
  },

  async batchText(text, options = {}) {
    const draft = this.draftName(options);
    let input: unknown;
    let carried: WeakMap<object, Uint8Array> | undefined;
    try {
      if (typeof text === 'string' || text instanceof Uint8Array) input = parseJsonText(text);
      else {
        const taken = (carried = new WeakMap());
        input = await (
          await import('../drafts/batch/batch-stream.js')
        ).parseJsonStream(text, 'batch', (op) => takeContent(op, taken));
      }
    } catch (e) {
      if (e instanceof ShadowError && e.code === 'INVALID_JSON') return invalidBatchResult(draft, undefined, e);
      throw e;
    }
    return batchCarrying(this, input, options, carried);
  },

  write(path, content, options = {}) {
    const op: FileOperation =
      typeof content === 'string'
        ? { operation: 'write', path, content, ...(options.encoding ? { encoding: options.encoding } : {}) }
        : { operation: 'write', path, content: Buffer.from(content).toString('base64'), encoding: 'base64' };
    if (options.mode) op.mode = options.mode;
    return this.batch({ intent: options.intent ?? `write ${path}`, operations: [op] }, options);
  },

  edit(path, oldContent, content, options = {}) {
    return this.batch(
      {
        intent: options.intent ?? `edit ${path}`,
        operations: [{ operation: 'edit', path, old_content: oldContent, content }],
      },
      options,
    );
  },

  remove(paths, options = {}) {
    const operations = paths.map((path) => ({ operation: 'delete' as const, path }));
    return this.batch({ intent: options.intent ?? `delete ${paths.join(', ')}`, operations }, options);
  },

  move(from, to, options = {}) {
    return this.batch(
      { intent: options.intent ?? `rename ${from} to ${to}`, operations: [{ operation: 'rename', path: from, to }] },
      options,
    );
  },
};

/** batch(), for a batch some of whose writes' contents were taken out as bytes as it was read (`carried`, by op). */
function batchCarrying(
  sh: ShadowCore,
  input: unknown,
  options: BatchCallOptions,
  carried?: WeakMap<object, Uint8Array>,
): Promise<BatchResult> | BatchResult {
  const draft = sh.draftName(options);
  // Counted before validation, and answered without a result per operation: it may hold 100,000.
  const tooLarge = batchTooLarge(input, sh.ws.settings.batchLimits, undefined, carried);
  if (tooLarge) return invalidBatchResult(draft, undefined, tooLarge);
  let parsed: BatchInput;
  try {
    parsed = validateBatch(input);
  } catch (e) {
    if (e instanceof ShadowError) return invalidBatchResult(draft, input, e);
    throw e;
  }
  if (carried) parsed = putBack(parsed, input, carried);
  let identity: Identity;
  try {
    identity = sh.identity(options);
  } catch (e) {
    if (e instanceof ShadowError) return invalidBatchResult(draft, input, e);
    throw e;
  }
  return runBatch(sh.ws, parsed, {
    draft,
    actor: sh.actor(options.actor, parsed.actor),
    identity,
    allowIgnored: options.allowIgnored,
    maxContentBytes: options.maxContentBytes,
  });
}

/**
 * A write's text content, as a large batch is read: taken out of the op as
 * its UTF-8 bytes (`carried`), its string left to be collected while it is
 * young, so that the batch's contents are never held both as strings and as
 * bytes. Only what validation cannot refuse for its content is taken: a
 * string, UTF-8 (any other encoding, or a lone surrogate, stays for the usual
 * checks to report).
 */
function takeContent(op: unknown, carried: WeakMap<object, Uint8Array>): void {
  if (op === null || typeof op !== 'object') return;
  const o = op as { operation?: unknown; content?: unknown; encoding?: unknown };
  if (
    o.operation !== 'write' ||
    typeof o.content !== 'string' ||
    (o.encoding !== undefined && o.encoding !== 'utf8') ||
    !o.content.isWellFormed()
  )
    return;
  carried.set(op, Buffer.from(o.content, 'utf8'));
  o.content = '';
}

/** The validated batch with the contents takeContent took out put back in its writes, as their bytes. */
function putBack(parsed: BatchInput, sent: unknown, carried: WeakMap<object, Uint8Array>): BatchInput {
  const raw = (sent as { operations: unknown[] }).operations;
  const operations = parsed.operations.map((op, i) => {
    const bytes = carried.get(raw[i] as object);
    return bytes && op.operation === 'write' ? { ...op, content: '', encoding: undefined, bytes } : op;
  });
  return { ...parsed, operations };
}
