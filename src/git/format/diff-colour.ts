import { isGitSpace, markWhitespace, WS } from './whitespace-rule.js';

/**
 * A file's unified diff as `git diff --color` prints it, byte for byte,
 * with git's default colours: headers bold, hunk ranges cyan, removed lines
 * red, added lines green, context plain, and the whitespace errors of added
 * lines (core.whitespace) on red. Each line ends with git's reset, as
 * git's own output does (diff.c, emit_line_0), so a pager or a test sees
 * the same bytes as from git.
 */

export const DIFF_COLOURS = {
  meta: '\x1b[1m',
  frag: '\x1b[36m',
  func: '',
  context: '',
  old: '\x1b[31m',
  new: '\x1b[32m',
  whitespace: '\x1b[41m',
  reset: '\x1b[m',
} as const;

/** Lines of text, counted as git's count_lines does (a last line without LF counts). */
function countLines(b: Uint8Array): number {
  let n = 0;
  for (const c of b) if (c === 0x0a) n++;
  return b.length > 0 && b[b.length - 1] !== 0x0a ? n + 1 : n;
}

/** Blank lines at the end of the content (count_trailing_blank). */
function trailingBlank(b: Uint8Array): number {
  if (b.length === 0) return 0;
  let end = b[b.length - 1] === 0x0a ? b.length - 2 : b.length - 1;
  let n = 0;
  while (end > 0) {
    let start = end;
    while (start >= 0 && b[start] !== 0x0a) start--;
    for (let i = start + 1; i <= end; i++) if (!isGitSpace(b[i]!)) return n;
    n++;
    end = start - 1;
  }
  return n;
}

/**
 * Where the blank lines a change adds at the end of the file start, in each
 * image (check_blank_at_eof), or undefined when it adds none.
 */
function blankAtEof(oldContent: Uint8Array, newContent: Uint8Array): { pre: number; post: number } | undefined {
  const l1 = trailingBlank(oldContent);
  const l2 = trailingBlank(newContent);
  if (l2 <= l1) return undefined;
  return { pre: countLines(oldContent) - l1 + 1, post: countLines(newContent) - l2 + 1 };
}

const isBlank = (s: string): boolean => [...s].every((c) => isGitSpace(c.charCodeAt(0)));

/** A line with its colour and git's reset, the CR of a CRLF after the reset (emit_line_0). */
function painted(set: string, sign: string, body: string): string {
  const cr = body.endsWith('\r');
  return `${set}${sign}${cr ? body.slice(0, -1) : body}${DIFF_COLOURS.reset}${cr ? '\r' : ''}\n`;
}

/** A hunk header: the range in frag colour, what follows it (a function name) in func colour. */
function hunkHeader(line: string): string {
  const c = DIFF_COLOURS;
  const end = line.indexOf('@@', 2) + 2;
  let out = `${c.frag}${line.slice(0, end)}${c.reset}`;
  const rest = line.slice(end);
  const blank = /^[ \t]*/.exec(rest)![0];
  if (blank) out += `${c.context}${blank}${c.reset}`;
  if (rest.length > blank.length) out += `${c.func}${rest.slice(blank.length)}${c.reset}`;
  return `${out}\n`;
}

/**
 * `patch` (one file's diff as unified-diff.ts writes it) in git's colours.
 * The contents are what it was made from: blank lines added at the end of
 * the file are marked only where they are at the end (blank-at-eof). A
 * change of type comes as two blocks, the old side's deletion and the new
 * side's creation: each is coloured as its own.
 */
export function colourPatch(patch: string, oldContent: Uint8Array, newContent: Uint8Array, rule: number): string {
  // Only a block's first line starts so: every line of a hunk starts with ' ', '+', '-', '\\' or '@@'.
  const second = patch.indexOf('\ndiff --git ');
  if (second === -1) return colourBlock(patch, oldContent, newContent, rule);
  const none = new Uint8Array(0);
  return (
    colourBlock(patch.slice(0, second + 1), oldContent, none, rule) +
    colourBlock(patch.slice(second + 1), none, newContent, rule)
  );
}

function colourBlock(patch: string, oldContent: Uint8Array, newContent: Uint8Array, rule: number): string {
  const c = DIFF_COLOURS;
  const eof = rule & WS.blankAtEof ? blankAtEof(oldContent, newContent) : undefined;
  const lines = patch.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let out = '';
  let inHunks = false;
  let pre = 0;
  let post = 0;
  for (const line of lines) {
    if (line.startsWith('@@ ')) {
      inHunks = true;
      const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(line);
      pre = Number(m?.[1] ?? 0);
      post = Number(m?.[2] ?? 0);
      out += hunkHeader(line);
    } else if (!inHunks) {
      // A `---`/`+++` line's tab (after a name with a space) comes after the reset, as git writes it.
      const tab = /^(?:---|\+\+\+) .*\t$/.test(line) ? '\t' : '';
      const bare = tab ? line.slice(0, -1) : line;
      out += line.startsWith('Binary files ') ? `${line}\n` : `${c.meta}${bare}${c.reset}${tab}\n`;
    } else if (line.startsWith('+')) {
      post++;
      const body = line.slice(1);
      if (eof && eof.pre <= pre && eof.post <= post && isBlank(body)) out += painted(c.whitespace, '+', body);
      else out += `${c.new}+${c.reset}${markWhitespace(`${body}\n`, rule, c.new, c.reset, c.whitespace)}`;
    } else if (line.startsWith('-')) {
      pre++;
      out += painted(c.old, '-', line.slice(1));
    } else if (line.startsWith(' ')) {
      pre++;
      post++;
      out += painted(c.context, ' ', line.slice(1));
    } else {
      // "\ No newline at end of file"
      pre++;
      out += painted(c.context, '', line);
    }
  }
  return out;
}
