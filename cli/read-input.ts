import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { ShadowError } from '../src/index.js';

/** The most a batch document may weigh (its contents are limited one by one too). */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

/** Read all of a stream, refusing more than `limit` bytes. */
export async function readAll(stream: Readable, limit = MAX_INPUT_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > limit) {
      throw new ShadowError('CONTENT_TOO_LARGE', `the input exceeds ${Math.floor(limit / 1024 / 1024)}MB`, {
        hint: 'split it into several batches',
        data: { limit },
      });
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** Read `file` (`-` for stdin) as UTF-8. */
export async function readInputText(file: string, cwd: string, stdin: Readable): Promise<string> {
  // yargs hands a lone "-" over as an empty string.
  if (file === '-' || file === '') return (await readAll(stdin)).toString('utf8');
  try {
    return await readFile(resolve(cwd, file), 'utf8');
  } catch (e) {
    throw new ShadowError('NOT_FOUND', `cannot read ${file}: ${(e as Error).message}`, {
      hint: 'give a readable file, or - to read the batch from stdin',
      data: { file },
    });
  }
}
