/*
 * Reading the project's own markdown as a newcomer's tools would: its
 * fenced shell blocks (and the marker that says a block is not to be run),
 * the commands in a block, its relative links, and the anchors GitHub gives
 * its headings.
 */

/** The comment, on the line before a fence, that keeps a shell block out of the README's run. */
export const NOT_RUN = /^<!-- not run: (.+) -->$/;

export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  text: string;
  /** Why the block is not run, when the line before its fence says so. */
  notRun?: string;
}

/** Every ```sh block of a markdown text, in order. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const [, , fence, lang] = open;
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() !== fence) j++;
    if (lang === 'sh' || lang === 'bash' || lang === 'shell') {
      const marker = NOT_RUN.exec(lines[i - 1] ?? '');
      blocks.push({ line: i + 1, text: lines.slice(i + 1, j).join('\n'), ...(marker ? { notRun: marker[1]! } : {}) });
    }
    i = j;
  }
  return blocks;
}

/**
 * The commands of a shell block, as the shell reads them: a command runs on
 * over lines while a quote is open, a line ends in a backslash, or a
 * here-document is being read; comments are dropped.
 */
export function shellCommands(block: string): string[] {
  const commands: string[] = [];
  let current = '';
  let quote: '' | "'" | '"' = '';
  let heredoc = '';
  for (const line of block.split('\n')) {
    if (heredoc) {
      current += `\n${line}`;
      if (line === heredoc) {
        heredoc = '';
        commands.push(current);
        current = '';
      }
      continue;
    }
    let kept = '';
    for (let k = 0; k < line.length; k++) {
      const c = line[k]!;
      if (c === '\\' && quote !== "'") {
        kept += c + (line[k + 1] ?? '');
        k++;
        continue;
      }
      if (quote) {
        if (c === quote) quote = '';
      } else if (c === "'" || c === '"') quote = c;
      else if (c === '#' && (k === 0 || /\s/.test(line[k - 1]!))) break;
      kept += c;
    }
    current = current === '' ? kept.trimEnd() : `${current}\n${kept.trimEnd()}`;
    if (quote || current.endsWith('\\')) continue;
    const doc = /<<-?\s*'?"?(\w+)'?"?/.exec(current);
    if (doc) {
      heredoc = doc[1]!;
      continue;
    }
    if (current.trim() !== '') commands.push(current.trim());
    current = '';
  }
  if (current.trim() !== '' || quote || heredoc) commands.push(current.trim());
  return commands;
}

export interface Link {
  line: number;
  target: string;
}

/** The links of a markdown text outside code: `[text](target)` and images, with their lines. */
export function links(markdown: string): Link[] {
  const found: Link[] = [];
  let fence = '';
  markdown.split('\n').forEach((line, i) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1]!;
      else if (line.trim() === fence) fence = '';
      return;
    }
    if (fence) return;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g))
      found.push({ line: i + 1, target: m[1]! });
  });
  return found;
}

/** The anchors GitHub gives a markdown text's headings (`#` to `######`, outside code). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence = '';
  for (const line of markdown.split('\n')) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1]!;
      else if (line.trim() === fence) fence = '';
      continue;
    }
    const h = fence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const text = h[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}
