/**
 * The text work of the text editor tool, pure: lines as `cat -n` numbers
 * them, an insertion after a line, and the snippet an edit answers with.
 * Lines are what a model sees: split at \n, a file's last newline ending its
 * last line rather than starting an empty one.
 */

/** How many lines of context a snippet shows on each side of an edit (as Anthropic's reference implementation does). */
export const SNIPPET_LINES = 4;

/** The file's lines, without their line ends' \n (a \r stays: CRLF files show as they are). */
export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `cat -n`: the number right-aligned in 6 columns, a tab, the line. */
export function numberLines(lines: readonly string[], first: number): string {
  return lines.map((l, i) => `${String(first + i).padStart(6)}\t${l}`).join('\n');
}

/**
 * `text` with `insert` placed after line `after` (0: before the first). The
 * inserted text becomes whole lines: a newline is added after it unless it
 * ends with one, and before it when it goes after a last line that has none.
 * In a file whose lines end in CRLF, its newlines become CRLF too.
 */
export function insertAfterLine(text: string, after: number, insert: string): string {
  const crlf = text.includes('\r\n') && !insert.includes('\r');
  let body = crlf ? insert.replace(/\n/g, '\r\n') : insert;
  const nl = crlf ? '\r\n' : '\n';
  const lines = linesOf(text);
  if (after >= lines.length) {
    if (text !== '' && !text.endsWith('\n')) return `${text}${nl}${body}`;
    return `${text}${body.endsWith('\n') || body === '' ? body : `${body}${nl}`}`;
  }
  let at = 0;
  for (let i = 0; i < after; i++) at = text.indexOf('\n', at) + 1;
  if (!body.endsWith('\n')) body += nl;
  return text.slice(0, at) + body + text.slice(at);
}

/** Where `old` stands in `text` once, as the edit op finds it (exactly, or with LF read as the file's CRLF); -1 if not once. */
export function findOnce(text: string, old: string): { at: number; old: string } {
  const once = (needle: string): number => {
    const at = text.indexOf(needle);
    return at !== -1 && text.indexOf(needle, at + 1) === -1 ? at : -1;
  };
  const at = once(old);
  if (at !== -1 || !old.includes('\n') || old.includes('\r') || !text.includes('\r\n')) return { at, old };
  const crlf = old.replace(/\n/g, '\r\n');
  return { at: once(crlf), old: crlf };
}

/** 1-based line of character `index`. */
export function lineOfIndex(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Lines `from`..`to` of `text` (clamped), numbered. */
export function snippet(text: string, from: number, to: number): string {
  const lines = linesOf(text);
  const first = Math.max(1, from);
  const last = Math.min(lines.length, to);
  return last < first ? '' : numberLines(lines.slice(first - 1, last), first);
}
