/**
 * The text work of the text editor tool, pure, counted as Anthropic's
 * reference implementation counts (computer-use-demo/computer_use_demo/
 * tools/edit.py): a file's lines are its text split at \n, so a file ending
 * in a newline has an empty last line, which a view numbers and insert_line
 * may name. A \r stays in its line: line endings are kept as the file has
 * them, where the reference reads with universal newlines and writes \n.
 */

/** How many lines of context a snippet shows on each side of an edit. */
export const SNIPPET_LINES = 4;

/** The reference's cut of a long answer (run.py's MAX_RESPONSE_LEN), in characters (code points). */
export const MAX_RESPONSE_LEN = 16_000;
export const TRUNCATED_MESSAGE =
  '<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched ' +
  'inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>';

/** The file's lines as the reference counts them: split at \n. */
export function linesOf(text: string): string[] {
  return text.split('\n');
}

/** `cat -n`: the number right-aligned in 6 columns, a tab, the line. */
export function numberLines(lines: readonly string[], first: number): string {
  return lines.map((l, i) => `${String(first + i).padStart(6)}\t${l}`).join('\n');
}

/** `text` cut after `max` code points with the reference's note (its maybe_truncate); as it is when shorter. */
export function maybeTruncate(text: string, max = MAX_RESPONSE_LEN): string {
  if (text.length <= max) return text;
  let at = 0;
  for (let n = 0; n < max && at < text.length; n++) at += text.codePointAt(at)! > 0xffff ? 2 : 1;
  return at >= text.length ? text : `${text.slice(0, at)}${TRUNCATED_MESSAGE}`;
}

/** The reference's `_make_output`: the header, the numbered lines of `content` (cut first when long), and a final newline. */
export function catN(content: string, descriptor: string, first = 1): string {
  return `Here's the result of running \`cat -n\` on ${descriptor}:\n${numberLines(linesOf(maybeTruncate(content)), first)}\n`;
}

/** A Python list of numbers as `str()` prints it: `[1, 2]`. */
export const pyList = (xs: readonly number[]): string => `[${xs.join(', ')}]`;

/**
 * `text` with `insert` placed as lines before line `after` + 1, as the
 * reference joins `lines[:after] + insert.split('\n') + lines[after:]` with
 * \n. In a file whose lines end in CRLF, the line ends it adds are CRLF.
 */
export function insertAfterLine(text: string, after: number, insert: string): string {
  const crlf = text.includes('\r\n') && !insert.includes('\r');
  const nl = crlf ? '\r\n' : '\n';
  const lines = linesOf(text);
  const before = lines.slice(0, after);
  const rest = lines.slice(after);
  const last = before[before.length - 1];
  // A line that kept its \r is ended by the \n the split took; any other by the file's line end.
  const head = before.length === 0 ? '' : `${before.join('\n')}${last!.endsWith('\r') ? '\n' : nl}`;
  return `${head}${insert.split('\n').join(nl)}${rest.length === 0 ? '' : `${nl}${rest.join('\n')}`}`;
}

/**
 * How many times `needle` occurs in `text` without overlapping, counted
 * from the left: Python's `str.count`, which the reference uses to decide
 * "once" (`}\n}` is once in `}\n}\n}`).
 */
export function countApart(text: string, needle: string): number {
  let n = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

/**
 * Where `old` stands in `text` when the reference would replace it: once,
 * counted without overlaps as `str.count` counts (exactly, or with LF read
 * as the file's CRLF, which the reference never sees); -1 if not once.
 * `overlaps` says the match also overlaps itself, so the edit op (which
 * counts every start) would call it ambiguous.
 */
export function findOnce(text: string, old: string): { at: number; old: string; overlaps: boolean } {
  const once = (needle: string): { at: number; old: string; overlaps: boolean } => {
    const at = countApart(text, needle) === 1 ? text.indexOf(needle) : -1;
    return { at, old: needle, overlaps: at !== -1 && text.indexOf(needle, at + 1) !== -1 };
  };
  const exact = once(old);
  if (exact.at !== -1 || text.includes(old) || !old.includes('\n') || old.includes('\r') || !text.includes('\r\n'))
    return exact;
  return once(old.replace(/\n/g, '\r\n'));
}

/** How many \n `text` holds (before `end`). */
export function newlines(text: string, end = text.length): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The reference's answer to "several matches": the 1-based lines that contain `old` whole (none when it spans lines). */
export function linesContaining(text: string, old: string): number[] {
  return linesOf(text).flatMap((l, i) => (l.includes(old) ? [i + 1] : []));
}

/**
 * A path as the reference shows it (`str(Path(path))`): repeated slashes and
 * `.` segments dropped, no final slash; `..` kept.
 */
export function shownPath(path: string): string {
  const lead = !path.startsWith('/') ? '' : path.startsWith('//') && !path.startsWith('///') ? '//' : '/';
  const body = path
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .join('/');
  return `${lead}${body}` || '.';
}
