import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { ShadowError } from '../src/index.js';
import { decodeJsonBytes } from '../src/schema.js';

/** The most a batch document may weigh (its contents are limited one by one too). */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

function inputTooLarge(limit: number): ShadowError {
  return new ShadowError('CONTENT_TOO_LARGE', `the input exceeds ${Math.floor(limit / 1024 / 1024)}MB`, {
    hint: 'split it into several batches',
    data: { limit },
  });
}

/** Read all of a stream, refusing more than `limit` bytes. */
export async function readAll(stream: Readable, limit = MAX_INPUT_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > limit) throw inputTooLarge(limit);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** Read `file` (`-` for stdin) as bytes. */
export async function readInputBytes(file: string, cwd: string, stdin: Readable): Promise<Buffer> {
  // yargs hands a lone "-" over as an empty string.
  if (file === '-' || file === '') return readAll(stdin);
  try {
    return await readFile(resolve(cwd, file));
  } catch (e) {
    throw new ShadowError('NOT_FOUND', `cannot read ${file}: ${(e as Error).message}`, {
      hint: 'give a readable file, or - to read the batch from stdin',
      data: { file },
    });
  }
}

/** Read `file` (`-` for stdin) as UTF-8 JSON text: INVALID_JSON, with the byte offset, when it is not UTF-8. */
export async function readInputText(file: string, cwd: string, stdin: Readable, what: string): Promise<string> {
  return decodeJsonBytes(await readInputBytes(file, cwd, stdin), what);
}
