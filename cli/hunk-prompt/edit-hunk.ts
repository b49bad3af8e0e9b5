import { parseHunkHeader, textLines, type FileDiff, type Hunk } from './parse-diff.js';
import { renderHunk } from './reassemble.js';

/**
 * `e`: a hunk written out for the person's editor with git's guide around
 * it (add-patch.c, edit_hunk_manually), and what comes back read as git
 * reads it: comment lines dropped, the header kept when it is intact,
 * the counts made again from the lines.
 */

/** The colours an edited hunk's lines are shown in again (git's recolor_hunk). */
export interface LineColours {
  old: string;
  new: string;
  context: string;
  reset: string;
}

/** Each line of `text` (ending with a LF) with `comment` before it, as git's strbuf_add_commented_lines. */
function commented(text: string, comment: string): string {
  return textLines(text)
    .map((line) =>
      line === '\n' ? `${comment}\n` : line.startsWith('\t') ? `${comment}${line}` : `${comment} ${line}`,
    )
    .join('');
}

/** The text the editor gets for `hunk`. */
export function editText(file: FileDiff, hunk: Hunk, comment: string): string {
  return (
    commented('Manual hunk edit mode -- see bottom for a quick guide.\n', comment) +
    renderHunk(file, hunk, 0) +
    commented(
      "---\nTo remove '-' lines, make them ' ' lines (context).\nTo remove '+' lines, delete them.\n" +
        `Lines starting with ${comment} will be removed.\n`,
      comment,
    ) +
    commented('If the patch applies cleanly, the edited hunk will immediately be marked for applying.\n', comment) +
    commented(
      'If it does not apply cleanly, you will be given an opportunity to\n' +
        'edit again.  If all lines of the hunk are removed, then the edit is\n' +
        'aborted and the hunk is left unchanged.\n',
      comment,
    )
  );
}

function recolour(line: string, colours: LineColours | undefined): string {
  if (!colours) return line;
  const body = line.replace(/\r?\n$/, '');
  const colour = line[0] === '-' ? colours.old : line[0] === '+' ? colours.new : colours.context;
  return `${colour}${body}${colours.reset}${line.slice(body.length)}`;
}

/**
 * The edited text taken into the file: 'abandoned' when no line is left
 * (the hunk stays as it was), 'bad-header' when its first line starts a
 * header that does not parse, else 'edited' with `hunk` now on the new
 * lines. `hunk` is changed in place: keep a copy to undo it.
 */
export function takeEdit(
  file: FileDiff,
  hunk: Hunk,
  edited: string,
  comment: string,
  colours: LineColours | undefined,
): 'abandoned' | 'bad-header' | 'edited' {
  const lines = textLines(edited).filter((l) => !l.startsWith(comment));
  if (lines.length === 0) return 'abandoned';
  const start = file.plain.length;
  for (const line of lines) {
    file.plain.push(line);
    file.coloured.push(recolour(line, colours));
  }
  hunk.start = start;
  hunk.end = file.plain.length;
  if (lines[0]!.startsWith('@')) {
    const header = parseHunkHeader(lines[0]!, recolour(lines[0]!, colours));
    if (!header) return 'bad-header';
    hunk.header = header;
    hunk.start = start + 1;
  }
  return 'edited';
}

/**
 * The hunk's counts made from its lines (an empty line counts as context,
 * as git counts it); what the edit adds to its delta.
 */
export function recountEdited(file: FileDiff, hunk: Hunk, oldCount: number, newCount: number): number {
  let olds = 0;
  let news = 0;
  for (let i = hunk.start; i < hunk.end; i++) {
    const c = file.plain[i]![0];
    if (c === '-') olds++;
    else if (c === '+') news++;
    else if (c === ' ' || c === '\r' || c === '\n') {
      olds++;
      news++;
    }
  }
  hunk.header.oldCount = olds;
  hunk.header.newCount = news;
  return oldCount - newCount - olds + news;
}
