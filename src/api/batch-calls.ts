/**
 * The library's writes. A batch (or one of its one-operation shorthands) is
 * validated here, at the boundary, and run by the transactional core
 * (src/drafts/batch.ts).
 */
import { ShadowError } from '../errors.js';
import type { BatchInput, FileMode, FileOperation } from '../drafts/ops.js';
import { runBatch, type BatchResult } from '../drafts/batch.js';
import { parseJsonText, validateBatch } from '../drafts/batch-schema.js';
import { batchTooLarge } from '../drafts/batch-bounds.js';
import { invalidBatchResult } from './batch-failure.js';
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
   * Apply a batch given as JSON text, or as its bytes. Text that is not
   * JSON (a tool call cut off mid-string, say) returns `success: false` with
   * INVALID_JSON, its position and whether it was truncated; so do bytes
   * that are not UTF-8, with the offset of the first bad byte (nothing is
   * ever decoded into U+FFFD).
   *
   * @example
   * const r = await sh.batchText(await readFile('batch.json'));
   */
  batchText(text: string | Uint8Array, options?: BatchCallOptions): Promise<BatchResult>;

  /**
   * Write a file: a string is UTF-8 text (or base64 with `encoding:
   * 'base64'`), a Uint8Array is stored byte for byte.
   *
   * @example await sh.write('notes.md', '# notes\n')
   */
  write(path: string, content: string | Uint8Array, options?: BatchCallOptions & { mode?: FileMode; intent?: string; encoding?: 'utf8' | 'base64' }): Promise<BatchResult>;

  /** @example await sh.edit('README.md', 'Hello', 'Hello, world') */
  edit(path: string, oldContent: string, content: string, options?: BatchCallOptions & { intent?: string }): Promise<BatchResult>;

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
    const draft = this.draftName(options);
    // Counted before validation, and answered without a result per operation: it may hold 100,000.
    const tooLarge = batchTooLarge(input, this.ws.settings.batchLimits);
    if (tooLarge) return invalidBatchResult(draft, undefined, tooLarge);
    let parsed: BatchInput;
    try {
      parsed = validateBatch(input);
    } catch (e) {
      if (e instanceof ShadowError) return invalidBatchResult(draft, input, e);
      throw e;
    }
    return runBatch(this.ws, parsed, {
      draft,
      actor: this.actor(options.actor, parsed.actor),
      allowIgnored: options.allowIgnored,
      maxContentBytes: options.maxContentBytes,
    });
  },

  async batchText(text, options = {}) {
    const draft = this.draftName(options);
    let input: unknown;
    try {
      input = parseJsonText(text);
    } catch (e) {
      if (e instanceof ShadowError) return invalidBatchResult(draft, undefined, e);
      throw e;
    }
    return this.batch(input, options);
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
    return this.batch({ intent: options.intent ?? `edit ${path}`, operations: [{ operation: 'edit', path, old_content: oldContent, content }] }, options);
  },

  remove(paths, options = {}) {
    const operations = paths.map((path) => ({ operation: 'delete' as const, path }));
    return this.batch({ intent: options.intent ?? `delete ${paths.join(', ')}`, operations }, options);
  },

  move(from, to, options = {}) {
    return this.batch({ intent: options.intent ?? `rename ${from} to ${to}`, operations: [{ operation: 'rename', path: from, to }] }, options);
  },
};
