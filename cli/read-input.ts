import * as nodeFs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { ShadowError } from '../src/index.js';
import { decodeJsonBytes } from '../src/drafts/batch/batch-schema.js';

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

/**
 * Read a stream up to `limit` bytes and stop there: the caller refuses what
 * is longer (with its own error) without waiting for the rest, which may
 * never end (`shadow write f < /dev/urandom`).
 */
export async function readUpTo(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(size + b.length > limit ? b.subarray(0, limit - size) : b);
    size = Math.min(limit, size + b.length);
    if (size >= limit) break;
  }
  return Buffer.concat(chunks);
}

/**
 * Read base64 text from a stream until it holds more base64 characters than
 * `maxBytes` bytes need (line breaks and spaces do not count, as the decoder
 * skips them), and stop there, the way readUpTo stops: what comes back is
 * then too large for the library to accept.
 */
export async function readBase64UpTo(stream: Readable, maxBytes: number): Promise<Buffer> {
  const enough = Math.ceil(maxBytes / 3) * 4 + 8;
  const chunks: Buffer[] = [];
  let size = 0;
  let significant = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    // Only a stream of nearly nothing but blanks gets here; cut, it would decode to a shorter file.
    if (size > MAX_INPUT_BYTES) throw inputTooLarge(MAX_INPUT_BYTES);
    chunks.push(b);
    for (const byte of b) if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) significant++;
    if (significant > enough) break;
  }
  return Buffer.concat(chunks);
}

/**
 * Where standard input comes from: read `.stdin` only when a command reads
 * it (node sets the stream up on first use, a cost every command would pay).
 */
export interface StdinSource {
  readonly stdin: Readable;
}

/** Read `file` (`-` for stdin) as bytes. */
export async function readInputBytes(file: string, cwd: string, io: StdinSource): Promise<Buffer> {
  // yargs hands a lone "-" over as an empty string.
  if (file === '-' || file === '') return readAll(io.stdin);
  try {
    return await fsPromises().readFile(resolve(cwd, file));
  } catch (e) {
    throw unreadable(file, e);
  }
}

/** Read `file` (`-` for stdin) as UTF-8 JSON text: INVALID_JSON, with the byte offset, when it is not UTF-8. */
export async function readInputText(file: string, cwd: string, io: StdinSource, what: string): Promise<string> {
  return decodeJsonBytes(await readInputBytes(file, cwd, io), what);
}

/**
 * From this size on a batch document is handed over as it is read, for the
 * library to parse in pieces (src/drafts/batch/batch-stream.ts): JSON.parse needs the
 * whole text and copies each of its strings, and with the bytes that made
 * three copies of a large batch's contents.
 */
export const STREAM_BATCH_BYTES = 4 * 1024 * 1024;
const FILE_CHUNK_BYTES = 1024 * 1024;

/**
 * node's promise API of the file system, loaded on first use: a batch from
 * a small file (the common call) reads it synchronously, and loading
 * `node:fs/promises` at start brings 8 of node's modules with it
 * (readline, file watchers, directory streams), about 1 ms of every start.
 */
function fsPromises(): typeof import('node:fs/promises') {
  return nodeFs.promises;
}

function unreadable(file: string, e: unknown): ShadowError {
  return new ShadowError('NOT_FOUND', `cannot read ${file}: ${(e as Error).message}`, {
    hint: 'give a readable file, or - to read the batch from stdin',
    data: { file },
  });
}

/** A file's bytes, a piece at a time; each piece is a new buffer. */
async function* fileChunks(path: string, file: string): AsyncGenerator<Buffer> {
  let handle: FileHandle;
  try {
    handle = await fsPromises().open(path, 'r');
  } catch (e) {
    throw unreadable(file, e);
  }
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(FILE_CHUNK_BYTES);
      let n: number;
      try {
        ({ bytesRead: n } = await handle.read(chunk, 0, chunk.length, null));
      } catch (e) {
        throw unreadable(file, e);
      }
      if (n === 0) return;
      yield n < chunk.length ? chunk.subarray(0, n) : chunk;
    }
  } finally {
    await handle.close();
  }
}

/** `first`, then the rest of `stream`, refusing more than MAX_INPUT_BYTES in all, as readAll does. */
async function* streamChunks(first: Buffer[], stream: AsyncIterator<unknown>, size: number): AsyncGenerator<Buffer> {
  yield* first.splice(0);
  for (;;) {
    const { done, value } = await stream.next();
    if (done) return;
    const b = typeof value === 'string' ? Buffer.from(value) : (value as Buffer);
    size += b.length;
    if (size > MAX_INPUT_BYTES) throw inputTooLarge(MAX_INPUT_BYTES);
    yield b;
  }
}

/**
 * A batch document (`-` for stdin) as text, its bytes let go before it is
 * parsed (a suspended caller would hold them through the whole batch); bytes
 * that are not UTF-8 come back as they are, for the library to refuse in a
 * batch result. A document of STREAM_BATCH_BYTES or more comes back as its
 * bytes in pieces, read as the library parses them.
 */
export async function readBatchDocument(
  file: string,
  cwd: string,
  io: StdinSource,
): Promise<string | Buffer | AsyncIterable<Buffer>> {
  let bytes: Buffer;
  if (file === '-' || file === '') {
    const it = io.stdin[Symbol.asyncIterator]();
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await it.next();
      if (done) break;
      const b = typeof value === 'string' ? Buffer.from(value) : (value as Buffer);
      chunks.push(b);
      size += b.length;
      if (size >= STREAM_BATCH_BYTES) return streamChunks(chunks, it, size);
    }
    bytes = Buffer.concat(chunks);
  } else {
    const path = resolve(cwd, file);
    const small = smallFileBytes(path, STREAM_BATCH_BYTES);
    if (small !== undefined) return textOrBytes(small);
    const size = await fsPromises()
      .stat(path)
      .then(
        (s) => (s.isFile() ? s.size : 0),
        () => 0,
      );
    if (size >= STREAM_BATCH_BYTES) return fileChunks(path, file);
    bytes = await readInputBytes(file, cwd, io);
  }
  return textOrBytes(bytes);
}

function textOrBytes(bytes: Buffer): string | Buffer {
  try {
    return decodeJsonBytes(bytes);
  } catch {
    return bytes;
  }
}

/** The calls smallFileBytes makes (node's fs; a test's spy). */
export type SmallFileFs = Pick<typeof nodeFs, 'statSync' | 'openSync' | 'fstatSync' | 'readSync' | 'closeSync'>;

/**
 * A regular file's bytes when it is shorter than `limit`, read at once;
 * undefined for anything else (not there, unreadable, a FIFO or a device,
 * or longer), which the caller reads as before, with its errors. A server
 * runs handed-off batches on its event loop, where the five steps of an
 * asynchronous read (stat, open, fstat, read, close) each wait for a turn
 * of the thread pool: together more than a small batch's own work.
 *
 * Anything but a regular file is never opened here: opening a FIFO, even
 * without blocking, lets a writer waiting for a reader go on, and closing
 * it again would drop what that writer wrote (the read after it would wait
 * for a writer that has gone). The open does not block either, and fstat
 * on the open file checks again, for a file swapped in since the stat.
 */
export function smallFileBytes(path: string, limit: number, fs: SmallFileFs = nodeFs): Buffer | undefined {
  let fd: number;
  try {
    const st = fs.statSync(path, { throwIfNoEntry: false });
    if (!st?.isFile() || st.size >= limit) return undefined;
    fd = fs.openSync(path, nodeFs.constants.O_RDONLY | (nodeFs.constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size >= limit) return undefined;
    // One byte more than the size says, to see a file that grew since.
    const buf = Buffer.allocUnsafe(st.size + 1);
    let n = 0;
    while (n < buf.length) {
      const got = fs.readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    return n <= st.size ? buf.subarray(0, n) : undefined;
  } catch {
    return undefined;
  } finally {
    try {
      fs.closeSync(fd);
    } catch {
      // A descriptor that fails to close (EIO on a network file system) is not the batch's error.
    }
  }
}
