import { ShadowError } from '../../errors.js';
import { trim, trimEnd, trimStart } from './codex-seek.js';

/**
 * Codex's `apply_patch` format, parsed: the text an agent trained on Codex
 * sends, turned into the file changes it asks for. No I/O: whether the
 * changes fit the files is resolution's business (resolve-codex-patch.ts).
 *
 * The grammar Codex publishes (codex-rs/apply-patch, parser.rs and the lark
 * grammar of its tool):
 *
 *     start: begin_patch hunk+ end_patch
 *     begin_patch: "*** Begin Patch" LF
 *     end_patch: "*** End Patch" LF?
 *     hunk: add_hunk | delete_hunk | update_hunk
 *     add_hunk: "*** Add File: " filename LF add_line+
 *     delete_hunk: "*** Delete File: " filename LF
 *     update_hunk: "*** Update File: " filename LF change_move? change?
 *     add_line: "+" /(.+)/ LF
 *     change_move: "*** Move to: " filename LF
 *     change: (change_context | change_line)+ eof_line?
 *     change_context: ("@@" | "@@ " /(.+)/) LF
 *     change_line: ("+" | "-" | " ") /(.+)/ LF
 *     eof_line: "*** End of File" LF
 *
 * read with the leniencies of Codex's own parser, which models count on:
 * whitespace around the text and around the markers and file headers, CRLF
 * line ends, an empty line inside a change read as an empty context line,
 * blank lines between changes, a first change without its `@@`, an added
 * file with no line, and the patch wrapped in a shell heredoc
 * (`<<'EOF'` … `EOF`, also with `apply_patch` in front). One more, which
 * the grammar and Codex's instructions to models allow but its parser
 * refuses: several `@@` lines in a row (`@@ class A`, `@@ def f():`), each
 * found after the one before. Errors are INVALID_PATCH: their message
 * starts with Codex's own text for the fault (a model knows it), then says
 * in shadow's words what is wrong, naming the line of the text sent.
 */

/** One change of an updated file: `oldLines` replaced by `newLines`. */
export interface PatchChunk {
  /** The texts of its `@@ <text>` lines: lines of the file (a class, then a def in it) the change comes after, in order. */
  anchors: string[];
  oldLines: string[];
  newLines: string[];
  /** The context lines (in both sides), as [index in oldLines, index in newLines]: they keep their own line ends. */
  contextLines: Array<[number, number]>;
  /** `*** End of File`: the change is at the end of the file. */
  endOfFile: boolean;
  /** The 1-based line of the patch text where the change starts. */
  line: number;
}

/** One file section of a patch, with the 1-based line of its header. */
export type PatchHunk =
  | { type: 'add'; path: string; contents: string; line: number }
  | { type: 'delete'; path: string; line: number }
  | { type: 'update'; path: string; moveTo?: string; chunks: PatchChunk[]; line: number };

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const EOF_MARK = '*** End of File';

const SHAPE_HINT =
  'send the whole patch: "*** Begin Patch", then "*** Add File: <path>", "*** Update File: <path>" or "*** Delete File: <path>" sections, then "*** End Patch"';

/** Codex's texts for a patch it cannot parse (codex-rs/apply-patch, parser.rs and lib.rs). */
export const CODEX_PARSE_TEXT = {
  first: "invalid patch: The first line of the patch must be '*** Begin Patch'",
  last: "invalid patch: The last line of the patch must be '*** End Patch'",
  none: 'No files were modified.',
  header: (line: number, text: string) =>
    `invalid hunk at line ${line}, '${text}' is not a valid hunk header. ` +
    "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
  emptyUpdate: (line: number, path: string) =>
    `invalid hunk at line ${line}, Update file hunk for path '${path}' is empty`,
  noAnchor: (line: number, text: string) =>
    `invalid hunk at line ${line}, Expected update hunk to start with a @@ context marker, got: '${text}'`,
  noLines: (line: number) => `invalid hunk at line ${line}, Update hunk does not contain any lines`,
  badLine: (line: number, text: string) =>
    `invalid hunk at line ${line}, Unexpected line found in update hunk: '${text}'. ` +
    "Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)",
} as const;

function invalid(message: string, line: number | undefined, hint = SHAPE_HINT, codex?: string): ShadowError {
  const own = line === undefined ? `invalid patch: ${message}` : `invalid patch at line ${line}: ${message}`;
  return new ShadowError('INVALID_PATCH', codex === undefined ? own : `${codex}\n${own}`, {
    hint,
    data: { ...(line === undefined ? {} : { line }), ...(codex === undefined ? {} : { codex }) },
  });
}

function quote(s: string): string {
  return JSON.stringify(s.length > 120 ? `${s.slice(0, 119)}…` : s);
}

/** The lines of the patch and the 1-based line number of the first one in the text sent. */
interface Lines {
  lines: string[];
  first: number;
}

/** Codex reads `patch.trim().lines()`: whitespace around the text goes, and a CR before a LF. */
function splitLines(text: string): Lines {
  const body = trim(text);
  if (body === '') return { lines: [], first: 1 };
  const lead = text.slice(0, text.length - trimStart(text).length);
  const lines = body.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  return { lines, first: lead.split('\n').length };
}

/** A heredoc around the patch (`<<'EOF'`, `<<"EOF"`, `<<EOF`, with or without `apply_patch` in front): its word. */
const HEREDOC = /^(?:(?:apply_patch|applypatch)[ \t]+)?<<[ \t]*(?:'([A-Za-z_]\w*)'|"([A-Za-z_]\w*)"|([A-Za-z_]\w*))$/;

/** The indices [from, to) of the lines between the markers. */
function envelope({ lines, first }: Lines): { from: number; to: number } {
  const strict = (a: number, b: number): { from: number; to: number } | ShadowError => {
    if (b <= a) return invalid('the patch is empty', undefined, SHAPE_HINT, CODEX_PARSE_TEXT.last);
    if (trim(lines[a]!) !== BEGIN) {
      const own = `the first line must be "${BEGIN}", not ${quote(lines[a]!)}`;
      return invalid(own, first + a, SHAPE_HINT, CODEX_PARSE_TEXT.first);
    }
    if (b - a < 2 || trim(lines[b - 1]!) !== END) {
      const hint = `end the patch with "${END}"; a patch without it may have been cut off: send it whole`;
      const own = `the last line must be "${END}", not ${quote(lines[b - 1]!)}`;
      return invalid(own, first + b - 1, hint, CODEX_PARSE_TEXT.last);
    }
    return { from: a + 1, to: b - 1 };
  };
  const plain = strict(0, lines.length);
  if (!(plain instanceof ShadowError)) return plain;
  const doc = lines.length >= 4 ? HEREDOC.exec(lines[0]!) : null;
  const word = doc ? (doc[1] ?? doc[2] ?? doc[3])! : undefined;
  if (word !== undefined && trimEnd(lines[lines.length - 1]!).endsWith(word)) {
    const inner = strict(1, lines.length - 1);
    if (!(inner instanceof ShadowError)) return inner;
    throw inner;
  }
  throw plain;
}

/**
 * Parse a patch in Codex's format: its file sections in order.
 *
 * @example
 * parseCodexPatch('*** Begin Patch\n*** Add File: hi.txt\n+hi\n*** End Patch\n')
 * // [{ type: 'add', path: 'hi.txt', contents: 'hi\n', line: 2 }]
 */
export function parseCodexPatch(text: string): PatchHunk[] {
  const split = splitLines(text);
  const { from, to } = envelope(split);
  const lines = split.lines.slice(0, to);
  const lineNo = (i: number): number => split.first + i;
  // Codex numbers the lines from the first of the trimmed text, a heredoc's first line not counted.
  const at: LineNumbers = { sent: lineNo, codex: (i) => i - from + 2 };
  const hunks: PatchHunk[] = [];
  let i = from;
  while (i < to) {
    const header = trim(lines[i]!);
    if (header.startsWith(ADD)) {
      let contents = '';
      let j = i + 1;
      for (; j < to && lines[j]!.startsWith('+'); j++) contents += `${lines[j]!.slice(1)}\n`;
      hunks.push({ type: 'add', path: header.slice(ADD.length), contents, line: lineNo(i) });
      i = j;
    } else if (header.startsWith(DELETE)) {
      hunks.push({ type: 'delete', path: header.slice(DELETE.length), line: lineNo(i) });
      i++;
    } else if (header.startsWith(UPDATE)) {
      i = parseUpdate(lines, i, to, at, header.slice(UPDATE.length), hunks);
    } else {
      const after =
        hunks[hunks.length - 1]?.type === 'add'
          ? '; every line of an added file starts with "+", an empty line too'
          : '';
      throw invalid(
        `${quote(header)} is not a file header: a section starts with "${ADD}<path>", "${DELETE}<path>" or "${UPDATE}<path>"`,
        lineNo(i),
        `start each section with one of those headers${after}`,
        CODEX_PARSE_TEXT.header(at.codex(i), header),
      );
    }
  }
  if (hunks.length === 0) {
    const hint = `put at least one "${ADD}", "${UPDATE}" or "${DELETE}" section between the markers`;
    throw invalid('the patch changes no file', undefined, hint, CODEX_PARSE_TEXT.none);
  }
  return hunks;
}

/** A line's number in the text sent, and as Codex counts it. */
interface LineNumbers {
  sent: (i: number) => number;
  codex: (i: number) => number;
}

/** An update section from its header at `i`: pushed onto `hunks`; the index after it. */
function parseUpdate(
  lines: string[],
  i: number,
  to: number,
  at: LineNumbers,
  path: string,
  hunks: PatchHunk[],
): number {
  const lineNo = at.sent;
  const header = i;
  let j = i + 1;
  let moveTo: string | undefined;
  // Codex reads the Move line as it stands, not trimmed at its start.
  if (j < to && lines[j]!.startsWith(MOVE)) moveTo = trimEnd(lines[j++]!.slice(MOVE.length));
  const chunks: PatchChunk[] = [];
  while (j < to) {
    // Blank lines between changes are skipped; a line starting "*" is the next header.
    if (trim(lines[j]!) === '') {
      j++;
      continue;
    }
    if (lines[j]!.startsWith('*')) break;
    j = parseChunk(lines, j, to, at, path, chunks);
  }
  if (chunks.length === 0) {
    const hint =
      'follow it with an @@ line and the lines of the change (" " context, "-" removed, "+" added), or drop the section';
    const codex = CODEX_PARSE_TEXT.emptyUpdate(at.codex(header), path);
    throw invalid(`"${UPDATE}${path}" has no change under it`, lineNo(header), hint, codex);
  }
  hunks.push(
    moveTo === undefined
      ? { type: 'update', path, chunks, line: lineNo(header) }
      : { type: 'update', path, moveTo, chunks, line: lineNo(header) },
  );
  return j;
}

const LINE_HINT =
  'start every line of a change with " " (context, unchanged), "-" (removed) or "+" (added); an @@ line starts the next change';

/** One change from line `i`: pushed onto `chunks`; the index after it. */
function parseChunk(
  lines: string[],
  i: number,
  to: number,
  at: LineNumbers,
  path: string,
  chunks: PatchChunk[],
): number {
  const lineNo = at.sent;
  const start = i;
  const anchors: string[] = [];
  const isAnchor = (line: string): boolean => line === '@@' || line.startsWith('@@ ');
  if (!isAnchor(lines[i]!) && chunks.length > 0) {
    // Only the first change of a file may leave out its @@ line.
    const codex = CODEX_PARSE_TEXT.noAnchor(at.codex(i), lines[i]!);
    const own = `expected an @@ line to start the next change of ${path}, got ${quote(lines[i]!)}`;
    throw invalid(own, lineNo(i), LINE_HINT, codex);
  }
  for (; i < to && isAnchor(lines[i]!); i++) if (lines[i] !== '@@') anchors.push(lines[i]!.slice(3));
  const chunk: PatchChunk = {
    anchors,
    oldLines: [],
    newLines: [],
    contextLines: [],
    endOfFile: false,
    line: lineNo(start),
  };
  let taken = 0;
  for (; i < to; i++) {
    const line = lines[i]!;
    if (line === EOF_MARK) {
      if (taken === 0) break;
      chunk.endOfFile = true;
      i++;
      break;
    }
    const mark = line[0];
    if (mark === undefined || mark === ' ') {
      // An empty line is an empty context line: editors strip the lone space.
      chunk.contextLines.push([chunk.oldLines.length, chunk.newLines.length]);
      chunk.oldLines.push(line.slice(1));
      chunk.newLines.push(line.slice(1));
    } else if (mark === '+') chunk.newLines.push(line.slice(1));
    else if (mark === '-') chunk.oldLines.push(line.slice(1));
    else if (taken === 0) {
      const codex = CODEX_PARSE_TEXT.badLine(at.codex(start) + 1, line);
      throw invalid(`${quote(line)} is not a line of a change of ${path}`, lineNo(i), LINE_HINT, codex);
    } else break; // The next change, or the next section.
    taken++;
  }
  if (taken === 0) {
    const codex = CODEX_PARSE_TEXT.noLines(at.codex(start) + 1);
    const own = `the change of ${path} at line ${lineNo(start)} has no line`;
    throw invalid(own, lineNo(Math.min(i, to - 1)), LINE_HINT, codex);
  }
  chunks.push(chunk);
  return i;
}

/**
 * The paths a patch names, in order, each once: the files it adds,
 * deletes, updates and moves to. INVALID_PATCH when it does not parse.
 */
export function codexPatchPaths(text: string): string[] {
  const out = new Set<string>();
  for (const h of parseCodexPatch(text)) {
    out.add(h.path);
    if (h.type === 'update' && h.moveTo !== undefined) out.add(h.moveTo);
  }
  return [...out];
}

/**
 * The patch with the paths of its headers replaced through `paths` (a
 * path not in it stays): how the CLI makes paths typed relative to the
 * current directory relative to the repository root. Only header lines
 * change; a patch that does not parse comes back as it is.
 *
 * @example retargetCodexPatch(await readFile('change.patch', 'utf8'), new Map([['app.ts', 'src/app.ts']]))
 */
export function retargetCodexPatch(text: string, paths: ReadonlyMap<string, string>): string {
  let hunks: PatchHunk[];
  try {
    hunks = parseCodexPatch(text);
  } catch {
    return text;
  }
  const lines = text.split('\n');
  const to = (p: string): string => paths.get(p) ?? p;
  for (const h of hunks) {
    const marker = h.type === 'add' ? ADD : h.type === 'delete' ? DELETE : UPDATE;
    lines[h.line - 1] = `${marker}${to(h.path)}`;
    // The Move line, when there is one, follows its header directly.
    if (h.type === 'update' && h.moveTo !== undefined) lines[h.line] = `${MOVE}${to(h.moveTo)}`;
  }
  return lines.join('\n');
}
