/**
 * Where the lines of a Codex `apply_patch` change stand in a file, found as
 * Codex finds them (codex-rs/apply-patch, seek_sequence): the lines exactly,
 * else ignoring trailing whitespace, else ignoring whitespace at both ends
 * (indentation), else also reading typographic dashes, quotes and odd
 * spaces as their ASCII forms; each pass over the whole range before the
 * next. A patch written against what the model saw applies as it would
 * under Codex.
 */

/**
 * Whitespace as Rust's `char::is_whitespace` reads it (the White_Space
 * property), which is what Codex trims with. JavaScript's `trim` differs in
 * two characters: it also strips U+FEFF (a byte order mark is content here)
 * and keeps U+0085.
 */
const WS = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const LEADING = new RegExp(`^[${WS}]+`);
const TRAILING = new RegExp(`[${WS}]+$`);

export function trimStart(s: string): string {
  return s.replace(LEADING, '');
}

export function trimEnd(s: string): string {
  return s.replace(TRAILING, '');
}

export function trim(s: string): string {
  return trimEnd(trimStart(s));
}

/** Typographic punctuation and spaces a model writes as ASCII (Codex's table). */
const ASCII_FORM: Record<string, string> = {};
for (const c of '\u2010\u2011\u2012\u2013\u2014\u2015\u2212') ASCII_FORM[c] = '-';
for (const c of '\u2018\u2019\u201a\u201b') ASCII_FORM[c] = "'";
for (const c of '\u201c\u201d\u201e\u201f') ASCII_FORM[c] = '"';
for (const c of '\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000') ASCII_FORM[c] = ' ';
const TYPOGRAPHIC = new RegExp(`[${Object.keys(ASCII_FORM).join('')}]`, 'g');

function normalise(s: string): string {
  return trim(s).replace(TYPOGRAPHIC, (c) => ASCII_FORM[c]!);
}

/** The four ways a line may match, strictest first (Codex's order). */
const PASSES: ReadonlyArray<(s: string) => string> = [(s) => s, trimEnd, trim, normalise];

/**
 * How strictly a match was found: 0 exact, 1 but for trailing whitespace,
 * 2 but for indentation too, 3 but for typography too.
 */
export type MatchPass = 0 | 1 | 2 | 3;

function matchesAt(
  lines: readonly string[],
  pattern: readonly string[],
  at: number,
  form: (s: string) => string,
): boolean {
  for (let k = 0; k < pattern.length; k++) if (form(lines[at + k]!) !== form(pattern[k]!)) return false;
  return true;
}

/**
 * Every start in [from, to] where `pattern` matches, in the strictest pass
 * that finds any (at most `limit` of them), with that pass.
 */
function matchesIn(
  lines: readonly string[],
  pattern: readonly string[],
  from: number,
  to: number,
  limit: number,
): { at: number[]; pass: MatchPass } | undefined {
  if (from > to) return undefined;
  for (let pass = 0; pass < PASSES.length; pass++) {
    const form = PASSES[pass]!;
    const at: number[] = [];
    for (let i = from; i <= to && at.length < limit; i++) if (matchesAt(lines, pattern, i, form)) at.push(i);
    if (at.length > 0) return { at, pass: pass as MatchPass };
  }
  return undefined;
}

/**
 * Where `pattern` starts in `lines`, at or after `start`: the first match of
 * the strictest pass that finds one, as Codex's seek_sequence answers, and
 * the other starts that pass finds (up to `limit` in all), so that a caller
 * can tell a unique match from the first of several. With `eof` only the
 * end of the file is tried, whatever `start` is: Codex starts its search
 * there and has no fallback. An empty pattern matches at `start`.
 *
 * @example seek(['a', 'b  ', 'c'], ['b'], 0, false) // { at: [1], pass: 1 }
 */
export function seek(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  eof: boolean,
  limit = 2,
): { at: number[]; pass: MatchPass } | undefined {
  if (pattern.length === 0) return { at: [start], pass: 0 };
  if (pattern.length > lines.length) return undefined;
  const last = lines.length - pattern.length;
  return eof ? matchesIn(lines, pattern, last, last, 1) : matchesIn(lines, pattern, start, last, limit);
}
