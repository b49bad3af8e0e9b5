/**
 * Paths as git writes them in a diff, `--name-status` and `--stat`
 * (quote.c's quote_c_style): a path that holds a control character, `"` or
 * `\`, or (with `core.quotePath`, git's default) a byte above 0x7f, is
 * written between double quotes with C escapes: `\t`, `\n`, `\"`, `\\`,
 * three octal digits for other bytes (`"caf\303\251.txt"`). Any other path
 * is written as it is. A space is never quoted.
 *
 * Git works on the path's bytes; a path here is a string, quoted byte by
 * byte of its UTF-8.
 */

const LETTER: Readonly<Record<number, string>> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r' };

/** Whether git quotes this byte: controls, DEL, `"`, `\`, and bytes above 0x7f when `fully`. */
function mustQuote(byte: number, fully: boolean): boolean {
  return byte < 0x20 || byte === 0x7f || byte === 0x22 || byte === 0x5c || (byte >= 0x80 && fully);
}

function needsQuoting(path: string, fully: boolean): boolean {
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x22 || c === 0x5c || (c >= 0x80 && fully)) return true;
  }
  return false;
}

/**
 * `prefix` and `path` as git writes them together (quote_two_c_style):
 * `a/src/x.ts`, or `"a/caf\303\251.txt"` when the path needs quoting.
 * `fully` is `core.quotePath` (default true).
 */
export function cQuotePrefixed(prefix: string, path: string, fully = true): string {
  if (!needsQuoting(path, fully)) return prefix + path;
  const bytes = Buffer.from(prefix + path, 'utf8');
  const out: number[] = [0x22];
  for (const b of bytes) {
    if (!mustQuote(b, fully)) {
      out.push(b);
      continue;
    }
    out.push(0x5c);
    const letter = b === 0x22 || b === 0x5c ? String.fromCharCode(b) : LETTER[b];
    if (letter !== undefined) out.push(letter.charCodeAt(0));
    else for (const d of b.toString(8).padStart(3, '0')) out.push(d.charCodeAt(0));
  }
  out.push(0x22);
  return Buffer.from(out).toString('utf8');
}

/** `path` as git writes it (quote_c_style): as it is, or quoted with C escapes. */
export function cQuote(path: string, fully = true): string {
  return cQuotePrefixed('', path, fully);
}

const UNESCAPED: Readonly<Record<string, number>> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 0x22,
  '\\': 0x5c,
};

/**
 * The quoted string at the start of `text` read back (quote.c's
 * unquote_c_style): its value and the index just past its closing quote;
 * undefined when `text` does not start with a well-formed one.
 */
export function readCQuoted(text: string): { value: string; end: number } | undefined {
  if (text[0] !== '"') return undefined;
  const bytes: number[] = [];
  let i = 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') return { value: Buffer.from(bytes).toString('utf8'), end: i + 1 };
    if (ch !== '\\') {
      const cp = text.codePointAt(i)!;
      const s = String.fromCodePoint(cp);
      for (const b of Buffer.from(s, 'utf8')) bytes.push(b);
      i += s.length;
      continue;
    }
    const esc = text[i + 1];
    if (esc === undefined) return undefined;
    const known = UNESCAPED[esc];
    if (known !== undefined) {
      bytes.push(known);
      i += 2;
      continue;
    }
    // Three octal digits, the first at most 3 (git's overflow rule).
    const octal = /^[0-3][0-7]{2}/.exec(text.slice(i + 1, i + 4));
    if (!octal) return undefined;
    bytes.push(parseInt(octal[0], 8));
    i += 4;
  }
  return undefined;
}

/** A path field as git wrote it: a quoted one read back, anything else as it is. */
export function cUnquote(field: string): string | undefined {
  if (!field.startsWith('"')) return field;
  const q = readCQuoted(field);
  return q && q.end === field.length ? q.value : undefined;
}
