import { isDeepStrictEqual } from 'node:util';
import { ShadowError } from '../../src/index.js';
import type { ConfigEdit } from './agent-specs.js';

/**
 * Adding shadow's entries to an agent's JSON config, and taking them out,
 * leaving every other key as it was: the document is parsed, changed in
 * the few places shadow owns, and written back in the file's own
 * indentation and line endings. (Exactly the bytes it had come back from
 * the copy `shadow init` keeps, see init-files.ts; this is for a file
 * changed since.)
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function invalidConfig(
  path: string,
  format: 'JSON' | 'TOML',
  detail: string,
  data: Record<string, unknown> = {},
): ShadowError {
  return new ShadowError('INVALID_CONFIG', `${path} is not valid ${format}: ${detail}; nothing was written`, {
    hint: `fix ${path} (or move it away) and run the command again`,
    data: { path, ...data },
  });
}

function notAnObject(path: string, at: readonly string[], what = 'an object'): ShadowError {
  return new ShadowError(
    'INVALID_CONFIG',
    `${path}: ${at.join('.')} is not ${what}, so shadow cannot add to it; nothing was written`,
    {
      hint: `make ${at.join('.')} ${what} in ${path}, or remove it`,
      data: { path, key: at.join('.') },
    },
  );
}

export function parseJsonConfig(path: string, text: string): Json {
  let doc: unknown;
  try {
    // A byte order mark is not JSON, but editors write one; JSON.parse refuses it.
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw invalidConfig(path, 'JSON', (e as Error).message);
  }
  if (!isObject(doc)) throw invalidConfig(path, 'JSON', 'the document is not an object');
  return doc;
}

/** The object at `at`, made when `make` (and missing), or undefined. */
function objectAt(path: string, doc: Json, at: readonly string[], make: boolean): Json | undefined {
  let node: Json = doc;
  for (let i = 0; i < at.length; i++) {
    const key = at[i]!;
    let next = node[key];
    if (next === undefined) {
      if (!make) return undefined;
      next = node[key] = {};
    }
    if (!isObject(next)) throw notAnObject(path, at.slice(0, i + 1));
    node = next;
  }
  return node;
}

function arrayAt(path: string, doc: Json, at: readonly string[], make: boolean): unknown[] | undefined {
  const parent = objectAt(path, doc, at.slice(0, -1), make);
  const key = at[at.length - 1]!;
  if (parent === undefined) return undefined;
  if (parent[key] === undefined) {
    if (!make) return undefined;
    parent[key] = [];
  }
  const arr = parent[key];
  if (!Array.isArray(arr)) throw notAnObject(path, at, 'an array');
  return arr;
}

/** Objects and arrays along `at` that the removal left empty go too, from the innermost out. */
function prune(doc: Json, at: readonly string[]): void {
  for (let depth = at.length; depth > 0; depth--) {
    let parent: unknown = doc;
    for (const key of at.slice(0, depth - 1)) parent = isObject(parent) ? parent[key] : undefined;
    if (!isObject(parent)) return;
    const key = at[depth - 1]!;
    const v = parent[key];
    const empty = Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0;
    if (!empty) return;
    delete parent[key];
  }
}

function alreadyThere(path: string, where: string): ShadowError {
  return new ShadowError(
    'ALREADY_EXISTS',
    `${path} already has ${where}, not written by shadow init; nothing was written`,
    {
      hint: `remove it from ${path}, or run again with --force to replace it (shadow init --remove then puts the file back as it was)`,
      data: { path, key: where },
    },
  );
}

/** Apply the edits to `doc` in place; whether anything changed. */
export function addEdits(path: string, doc: Json, edits: readonly ConfigEdit[], force: boolean): boolean {
  let changed = false;
  for (const edit of edits) {
    if (edit.kind === 'member') {
      const parent = objectAt(path, doc, edit.at, true)!;
      const current = parent[edit.key];
      if (isDeepStrictEqual(current, edit.value)) continue;
      if (current !== undefined && !edit.owns(current) && !force)
        throw alreadyThere(path, [...edit.at, edit.key].join('.'));
      parent[edit.key] = edit.value;
      changed = true;
    } else {
      const arr = arrayAt(path, doc, edit.at, true)!;
      const mine = arr.flatMap((v, i) => (edit.owns(v) ? [i] : []));
      if (mine.length === 1 && isDeepStrictEqual(arr[mine[0]!], edit.value)) continue;
      // An earlier init's entry (another path to node or shadow) is replaced where it stands.
      const at = mine[0] ?? arr.length;
      for (const i of mine.slice(1).reverse()) arr.splice(i, 1);
      arr[at] = edit.value;
      changed = true;
    }
  }
  return changed;
}

/** Take shadow's entries out of `doc` in place; whether anything changed. */
export function removeEdits(path: string, doc: Json, edits: readonly ConfigEdit[]): boolean {
  let changed = false;
  for (const edit of edits) {
    if (edit.kind === 'member') {
      const parent = objectAt(path, doc, edit.at, false);
      const current = parent?.[edit.key];
      if (
        parent === undefined ||
        current === undefined ||
        !(edit.owns(current) || isDeepStrictEqual(current, edit.value))
      )
        continue;
      delete parent[edit.key];
      prune(doc, edit.at);
    } else {
      const arr = arrayAt(path, doc, edit.at, false);
      if (arr === undefined) continue;
      const kept = arr.filter((v) => !edit.owns(v));
      if (kept.length === arr.length) continue;
      arr.splice(0, arr.length, ...kept);
      prune(doc, edit.at);
    }
    changed = true;
  }
  return changed;
}

/** The document in the indentation and line endings of `original` (two spaces and `\n` for a new file). */
export function formatJson(doc: Json, original: string | null): string {
  const indent = original === null ? '  ' : (/\n([ \t]+)\S/.exec(original)?.[1] ?? '  ');
  const eol = original?.includes('\r\n') ? '\r\n' : '\n';
  const text = JSON.stringify(doc, null, indent).replace(/\n/g, eol);
  return original === null || /\r?\n$/.test(original) ? text + eol : text;
}

/** `text` with the edits made, or null when it already has them. */
export function addToJson(
  path: string,
  text: string | null,
  edits: readonly ConfigEdit[],
  force: boolean,
): string | null {
  const doc = text === null ? {} : parseJsonConfig(path, text);
  return addEdits(path, doc, edits, force) ? formatJson(doc, text) : null;
}

/** `text` without shadow's entries (and whether nothing is left), or null when it has none. */
export function removeFromJson(
  path: string,
  text: string,
  edits: readonly ConfigEdit[],
): { text: string; empty: boolean } | null {
  const doc = parseJsonConfig(path, text);
  if (!removeEdits(path, doc, edits)) return null;
  return { text: formatJson(doc, text), empty: Object.keys(doc).length === 0 };
}
