import { isDeepStrictEqual } from 'node:util';
import { parse, stringify, TomlError } from 'smol-toml';
import { ShadowError } from '../../src/index.js';
import type { ConfigEdit } from './agent-specs.js';
import { invalidConfig } from './json-config.js';

/**
 * shadow's table in Codex's config.toml (`[mcp_servers.shadow]`), added and
 * taken out as text: a TOML file is the person's, comments and layout
 * included, so it is never re-serialized. The table is appended at the end
 * (a table header may come after anything), and every result is parsed
 * again to prove it holds exactly what it should.
 */

type Toml = Record<string, unknown>;

/**
 * A parsed document as plain data, to compare one with another: smol-toml
 * makes tables without a prototype and dates of its own class, which
 * isDeepStrictEqual and structuredClone would tell apart from their copies.
 */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Date) return { date: String(v) };
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

function load(text: string): Toml {
  return plain(parse(text)) as Toml;
}

export function parseTomlConfig(path: string, text: string): Toml {
  try {
    return load(text);
  } catch (e) {
    if (e instanceof TomlError)
      throw invalidConfig(path, 'TOML', e.message.split('\n')[0]!.replace(/^Invalid TOML document: /, ''), {
        line: e.line,
        column: e.column,
      });
    throw e;
  }
}

function member(edits: readonly ConfigEdit[]): Extract<ConfigEdit, { kind: 'member' }> {
  const edit = edits[0];
  if (edits.length !== 1 || edit?.kind !== 'member') throw new Error('a TOML config takes one table');
  return edit;
}

function get(doc: Toml, at: readonly string[], key: string): unknown {
  let node: unknown = doc;
  for (const k of [...at, key])
    node = typeof node === 'object' && node !== null && !Array.isArray(node) ? (node as Toml)[k] : undefined;
  return node;
}

/**
 * `doc` without `at.key`, for comparing what else a change kept; `prune`
 * drops the parent table too when nothing else is in it (a table only its
 * subtable defined goes with it).
 */
function without(doc: Toml, at: readonly string[], key: string, prune: boolean): Toml {
  const copy = structuredClone(doc);
  let node: Toml | undefined = copy;
  for (const k of at) node = node?.[k] as Toml | undefined;
  if (node) delete node[key];
  if (prune && at.length === 1 && node && Object.keys(node).length === 0) delete copy[at[0]!];
  return copy;
}

/** Where the table `[at.key]` and its subtables start and end in `text`, if it is written as one. */
function tableSpan(text: string, at: readonly string[], key: string): { start: number; end: number } | undefined {
  const name = [...at, key].map((k) => `[ \\t]*(?:${k}|"${k}")[ \\t]*`).join('\\.');
  const header = new RegExp(`^[ \\t]*\\[${name}\\][ \\t]*(?:#.*)?$`, 'm').exec(text);
  if (!header) return undefined;
  const sub = new RegExp(`^[ \\t]*\\[${name}\\.`);
  let end = text.length;
  const lines = /^[ \t]*\[.*$/gm;
  lines.lastIndex = header.index + header[0].length;
  for (let m = lines.exec(text); m; m = lines.exec(text)) {
    if (sub.test(m[0])) continue;
    end = m.index;
    break;
  }
  // The blank line shadow put before the table goes with it.
  const start =
    header.index >= 2 && text.slice(header.index - 2, header.index) === '\n\n' ? header.index - 1 : header.index;
  return { start, end };
}

function cannotEdit(path: string, where: string): ShadowError {
  return new ShadowError(
    'INVALID_CONFIG',
    `${path}: ${where} is not written as a [${where}] table shadow can replace; nothing was written`,
    {
      hint: `edit ${where} in ${path} by hand, or remove it and run the command again`,
      data: { path, key: where },
    },
  );
}

/** `text` without the table, checked to have lost that table and nothing else. */
function cut(path: string, text: string, doc: Toml, at: readonly string[], key: string): string {
  const span = tableSpan(text, at, key);
  const where = [...at, key].join('.');
  if (!span) throw cannotEdit(path, where);
  const out = text.slice(0, span.start) + text.slice(span.end);
  let after: Toml;
  try {
    after = load(out);
  } catch {
    throw cannotEdit(path, where);
  }
  if (!isDeepStrictEqual(after, without(doc, at, key, true)) && !isDeepStrictEqual(after, without(doc, at, key, false)))
    throw cannotEdit(path, where);
  return out;
}

/** `text` with the table, or null when it already has it. */
export function addToToml(
  path: string,
  text: string | null,
  edits: readonly ConfigEdit[],
  force: boolean,
): string | null {
  const edit = member(edits);
  const doc = parseTomlConfig(path, text ?? '');
  const current = get(doc, edit.at, edit.key);
  if (isDeepStrictEqual(current, edit.value)) return null;
  let base = text ?? '';
  if (current !== undefined) {
    const where = [...edit.at, edit.key].join('.');
    if (!edit.owns(current) && !force) {
      throw new ShadowError(
        'ALREADY_EXISTS',
        `${path} already has ${where}, not written by shadow init; nothing was written`,
        {
          hint: `remove it from ${path}, or run again with --force to replace it (shadow init --remove then puts the file back as it was)`,
          data: { path, key: where },
        },
      );
    }
    base = cut(path, base, doc, edit.at, edit.key);
  }
  const eol = base.includes('\r\n') ? '\r\n' : '\n';
  const table = stringify({ [edit.at[0]!]: { [edit.key]: edit.value } }).replace(/\n/g, eol);
  const sep = base === '' ? '' : base.endsWith('\n') ? eol : eol + eol;
  const out = base + sep + table;
  let written: Toml;
  try {
    written = load(out);
  } catch {
    // `mcp_servers = { … }` inline, or dotted keys: a [mcp_servers.shadow] header would redefine it.
    throw cannotEdit(path, [...edit.at, edit.key].join('.'));
  }
  if (!isDeepStrictEqual(get(written, edit.at, edit.key), edit.value))
    throw cannotEdit(path, [...edit.at, edit.key].join('.'));
  return out;
}

/** `text` without shadow's table (and whether nothing is left), or null when it has none. */
export function removeFromToml(
  path: string,
  text: string,
  edits: readonly ConfigEdit[],
): { text: string; empty: boolean } | null {
  const edit = member(edits);
  const doc = parseTomlConfig(path, text);
  const current = get(doc, edit.at, edit.key);
  if (current === undefined || !(edit.owns(current) || isDeepStrictEqual(current, edit.value))) return null;
  const out = cut(path, text, doc, edit.at, edit.key);
  return { text: out, empty: out.trim() === '' };
}
