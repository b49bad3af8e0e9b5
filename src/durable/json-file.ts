import type * as z from 'zod/mini';
import type { FileSystem } from '../context.js';
import { readTextIfExists } from './durable-file.js';

/**
 * A JSON file of shadow's own state, read through its schema: undefined
 * when it is missing, is not JSON, or does not match (each caller decides
 * what a damaged file means: a cache rebuilt, a journal reported).
 */
export function readJsonFile<T>(fs: FileSystem, path: string, schema: z.ZodMiniType<T>): T | undefined {
  return parseJson(readTextIfExists(fs, path), schema);
}

/** `readJsonFile` for text already read. */
export function parseJson<T>(text: string | undefined, schema: z.ZodMiniType<T>): T | undefined {
  if (text === undefined) return undefined;
  try {
    const r = schema.safeParse(JSON.parse(text));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}
