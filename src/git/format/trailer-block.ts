/**
 * Where a commit message's trailer block is, as git reads it (`git
 * interpret-trailers`, `git log --format=%(trailers)`): the last paragraph
 * after the title that (i) holds only trailers, or (ii) holds a trailer git
 * itself writes (`Signed-off-by: `, `(cherry picked from commit `) and at
 * least 25% trailers. A trailer is a token of letters, digits and dashes,
 * spaces or tabs allowed before its `:`; a line starting with whitespace
 * continues the line before it; comment lines (`#`) and the blank or
 * comment lines that end the message are not part of it. A line `---`
 * is text here, as `%(trailers)` reads a commit (`--no-divider`).
 */

const GIT_GENERATED = ['Signed-off-by: ', '(cherry picked from commit '];
const TOKEN_THEN_SEPARATOR = /^[A-Za-z0-9-]+[ \t]*:/;
const blank = (line: string): boolean => /^\s*$/.test(line);

/**
 * The trailer block of `message`: `[start, end)` in its characters;
 * `start === end` when it has none (new trailers then go at `end`).
 */
export function trailerBlock(message: string, comment = '#'): { start: number; end: number } {
  const lines: Array<{ at: number; text: string }> = [];
  for (let at = 0; at < message.length;) {
    const nl = message.indexOf('\n', at);
    const next = nl === -1 ? message.length : nl + 1;
    lines.push({ at, text: message.slice(at, next) });
    at = next;
  }
  const isComment = (l: { text: string }): boolean => l.text.startsWith(comment);
  // The message ends before its trailing run of blank and comment lines.
  let last = lines.length;
  while (last > 0 && (blank(lines[last - 1]!.text) || isComment(lines[last - 1]!))) last--;
  const end = last === lines.length ? message.length : lines[last]!.at;
  // The title is the first paragraph: never trailers.
  let title = 0;
  while (title < last && (isComment(lines[title]!) || !blank(lines[title]!.text))) title++;
  let trailers = 0;
  let others = 0;
  let continuations = 0;
  let generated = false;
  for (let i = last - 1; i >= title; i--) {
    const l = lines[i]!;
    if (isComment(l)) {
      others += continuations;
      continuations = 0;
    } else if (blank(l.text)) {
      others += continuations;
      const block = (generated && trailers * 3 >= others) || (trailers > 0 && others === 0);
      return block ? { start: lines[i + 1]!.at, end } : { start: end, end };
    } else if (GIT_GENERATED.some((p) => l.text.startsWith(p))) {
      trailers++;
      continuations = 0;
      generated = true;
    } else if (/^[ \t]/.test(l.text)) {
      continuations++;
    } else if (TOKEN_THEN_SEPARATOR.test(l.text)) {
      trailers++;
      continuations = 0;
    } else {
      others += 1 + continuations;
      continuations = 0;
    }
  }
  return { start: end, end };
}
