/**
 * git's whitespace rules (ws.c): which whitespace errors `core.whitespace`
 * asks for, and how `git diff --color` marks them in an added line.
 */

export const WS = {
  blankAtEol: 1 << 6,
  spaceBeforeTab: 1 << 7,
  indentWithNonTab: 1 << 8,
  crAtEol: 1 << 9,
  blankAtEof: 1 << 10,
  tabInIndent: 1 << 11,
  tabWidthMask: (1 << 6) - 1,
} as const;

/** git's default: trailing-space (blank at end of line and of file), space-before-tab, tabwidth=8. */
export const DEFAULT_WS_RULE = WS.blankAtEol | WS.blankAtEof | WS.spaceBeforeTab | 8;

const NAMES: ReadonlyArray<[string, number]> = [
  ['trailing-space', WS.blankAtEol | WS.blankAtEof],
  ['space-before-tab', WS.spaceBeforeTab],
  ['indent-with-non-tab', WS.indentWithNonTab],
  ['cr-at-eol', WS.crAtEol],
  ['blank-at-eol', WS.blankAtEol],
  ['blank-at-eof', WS.blankAtEof],
  ['tab-in-indent', WS.tabInIndent],
];

/**
 * The rule `core.whitespace` gives (undefined: git's default): a comma
 * list of names, each one a prefix of a rule's name as git matches it, `-`
 * before a name to turn it off, `tabwidth=<n>`.
 */
export function parseWhitespaceRule(value: string | undefined): number {
  let rule = DEFAULT_WS_RULE;
  if (value === undefined) return rule;
  for (let word of value.split(',')) {
    word = word.replace(/^[ \t\n\r]+/, '');
    const negated = word.startsWith('-');
    if (negated) word = word.slice(1);
    if (word === '') continue;
    const named = NAMES.find(([name]) => name.startsWith(word));
    if (named) rule = negated ? rule & ~named[1] : rule | named[1];
    if (word.startsWith('tabwidth=')) {
      const width = Number.parseInt(word.slice(9), 10);
      if (width > 0 && width < 64) rule = (rule & ~WS.tabWidthMask) | width;
    }
  }
  return rule;
}

/** git's isspace: tab, LF, CR and space only. */
export function isGitSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * An added line's text (without its sign) as git colours it under `rule`:
 * the text in `set`, whitespace errors in `ws` (ws_check_emit_1).
 */
export function markWhitespace(line: string, rule: number, set: string, reset: string, ws: string): string {
  let end = line.length;
  const newline = end > 0 && line[end - 1] === '\n';
  if (newline) end--;
  const cr = (rule & WS.crAtEol) !== 0 && end > 0 && line[end - 1] === '\r';
  if (cr) end--;
  let trailing = end;
  if (rule & WS.blankAtEol) while (trailing > 0 && isGitSpace(line.charCodeAt(trailing - 1))) trailing--;
  let out = '';
  let written = 0;
  let i = 0;
  for (; i < trailing; i++) {
    if (line[i] === ' ') continue;
    if (line[i] !== '\t') break;
    if (rule & WS.spaceBeforeTab && written < i) out += `${ws}${line.slice(written, i)}${reset}\t`;
    else if (rule & WS.tabInIndent) out += `${line.slice(written, i)}${ws}\t${reset}`;
    else out += line.slice(written, i + 1);
    written = i + 1;
  }
  if (rule & WS.indentWithNonTab && i - written >= (rule & WS.tabWidthMask)) {
    out += `${ws}${line.slice(written, i)}${reset}`;
    written = i;
  }
  if (trailing > written) out += `${set}${line.slice(written, trailing)}${reset}`;
  if (trailing !== end) out += `${ws}${line.slice(trailing, end)}${reset}`;
  if (cr) out += '\r';
  if (newline) out += '\n';
  return out;
}
