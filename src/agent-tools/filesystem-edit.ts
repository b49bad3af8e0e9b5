import { createTwoFilesPatch, diffArrays } from 'diff';
import { ShadowError } from '../errors.js';

/**
 * edit_file's text work, as the MCP filesystem server does it (its
 * `applyFileEdits`): line endings read as LF; each edit in order replaces
 * the first place its oldText occurs; failing that, the first run of lines
 * that equal oldText's lines once both are trimmed, the replacement taking
 * that place's indentation (the first line's own, later lines' relative to
 * oldText's). What differs, deliberately: the result keeps the file's line
 * endings (that server writes every edited file with LF), so a CRLF file
 * stays CRLF in the draft, as git would keep it.
 */

export interface HomeEdit {
  oldText: string;
  newText: string;
}

/** The texts an edit makes: before and after as LF (the diff's), and the bytes to write. */
export interface HomeEdited {
  before: string;
  after: string;
  written: string;
}

const lf = (s: string): string => s.replace(/\r\n/g, '\n');

/** One edit on LF text, or undefined where it matches nowhere. */
function applyOne(content: string, edit: HomeEdit): string | undefined {
  const oldText = lf(edit.oldText);
  const newText = lf(edit.newText);
  const at = content.indexOf(oldText);
  if (at !== -1) return content.slice(0, at) + newText + content.slice(at + oldText.length);
  const oldLines = oldText.split('\n');
  const lines = content.split('\n');
  for (let i = 0; i <= lines.length - oldLines.length; i++) {
    if (!oldLines.every((o, j) => o.trim() === lines[i + j]!.trim())) continue;
    const indent = /^\s*/.exec(lines[i]!)![0];
    const replacement = newText.split('\n').map((line, j) => {
      if (j === 0) return indent + line.trimStart();
      const oldIndent = /^\s*/.exec(oldLines[j] ?? '')?.[0] ?? '';
      const newIndent = /^\s*/.exec(line)![0];
      if (!oldIndent || !newIndent) return line;
      return indent + ' '.repeat(Math.max(0, newIndent.length - oldIndent.length)) + line.trimStart();
    });
    lines.splice(i, oldLines.length, ...replacement);
    return lines.join('\n');
  }
  return undefined;
}

/**
 * The edits applied in order to `raw` (the file as the view holds it): the
 * text as LF (what the diff shows) and the bytes to write (the file's own
 * line endings). EDIT_NO_MATCH in that server's words when one matches
 * nowhere.
 */
export function applyHomeEdits(raw: string, edits: readonly HomeEdit[]): HomeEdited {
  const before = lf(raw);
  let after = before;
  for (const [i, edit] of edits.entries()) {
    const next = applyOne(after, edit);
    if (next === undefined) {
      throw new ShadowError('EDIT_NO_MATCH', `Could not find exact match for edit:\n${edit.oldText}`, {
        hint:
          'read the file again (read_text_file) and copy oldText from it; lines are compared trimmed, ' +
          'so the difference is in the text itself. No edit was written.',
        data: { edit: i },
      });
    }
    after = next;
  }
  return { before, after, written: keepEndings(raw, after) };
}

/**
 * `after` (LF) with the line endings `raw` has: a line kept from the file
 * keeps its ending, a new line takes the file's more common one.
 */
export function keepEndings(raw: string, after: string): string {
  if (!raw.includes('\r\n')) return after;
  const rawLines = raw.split('\n');
  const crlf = rawLines.slice(0, -1).filter((l) => l.endsWith('\r')).length;
  const usual = crlf * 2 >= rawLines.length - 1 ? '\r\n' : '\n';
  const out: string[] = [];
  let i = 0;
  for (const part of diffArrays(lf(raw).split('\n'), after.split('\n'))) {
    if (part.removed) {
      i += part.value.length;
      continue;
    }
    for (const line of part.value) {
      const ending = part.added ? usual : rawLines[i++]!.endsWith('\r') && i < rawLines.length ? '\r\n' : '\n';
      out.push(line, ending);
    }
  }
  out.pop();
  return out.join('');
}

/**
 * The diff edit_file answers with: that server's unified diff of the LF
 * texts, headed by the absolute path, in a fence longer than any run of
 * backticks inside.
 */
export function fencedDiff(abs: string, before: string, after: string): string {
  const diff = createTwoFilesPatch(abs, abs, before, after, 'original', 'modified');
  let ticks = 3;
  while (diff.includes('`'.repeat(ticks))) ticks++;
  const fence = '`'.repeat(ticks);
  return `${fence}diff\n${diff}${fence}\n\n`;
}
