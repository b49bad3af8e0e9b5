import { ShadowError } from '../errors.js';
import type { ViewEntry, ViewFile } from '../index.js';
import { linesOf } from './editor-text.js';
import { MAX_TEXT, ok, type ToolConnection, type ToolOutcome } from './tool-outcome.js';

/**
 * The text editor's view command: a file as `cat -n` shows it, whole or a
 * range, or a directory two levels deep without hidden entries, worded as
 * Anthropic's reference implementation words them. Viewing a file is what
 * lets the agent's next edit of it go through: the blob it saw is
 * remembered, and the edit expects it.
 */

/** Per connection: the blob each path held when the agent last saw it (null: it changed under the agent's own write). */
export type Seen = Map<string, string | null>;

/** At most this many entries of a directory view. */
const MAX_ENTRIES = 1000;

export function viewFile(seen: Seen, rel: string, a: { path: string; view_range?: number[] }, file: ViewFile, text: string): ToolOutcome {
  const lines = linesOf(text);
  const n = lines.length;
  let first = 1;
  let last = n;
  if (a.view_range !== undefined) {
    const [from, to] = a.view_range as [number, number];
    if (from < 1 || from > Math.max(n, 1)) {
      throw new ShadowError('INVALID_ARGUMENT', `invalid \`view_range\` ${JSON.stringify(a.view_range)}: its first element ${from} should be within the range of lines of the file: [1, ${n}]`, {
        hint: 'lines are numbered from 1; view the whole file to see how many there are',
        data: { path: a.path, lines: n },
      });
    }
    if (to !== -1 && to < from) {
      throw new ShadowError('INVALID_ARGUMENT', `invalid \`view_range\` ${JSON.stringify(a.view_range)}: its second element ${to} should be -1 or at least its first ${from}`, {
        hint: 'give [first, last] with last >= first, or -1 for the end',
        data: { path: a.path, lines: n },
      });
    }
    first = from;
    // Past the end reads to the end, as `sed -n` would: the model learns the length from the header.
    last = to === -1 ? n : Math.min(to, n);
  }
  seen.set(rel, file.oid);
  const head = `Here's the result of running \`cat -n\` on ${a.path}:\n`;
  if (n === 0) return ok(`${head}(the file is empty)`, { command: 'view', path: a.path, kind: 'file', content: '', total_lines: 0, oid: file.oid });
  const shown: string[] = [];
  let size = head.length;
  let end = first - 1;
  for (let i = first; i <= last; i++) {
    const line = `${String(i).padStart(6)}\t${lines[i - 1]}`;
    if (size + line.length + 1 > MAX_TEXT && shown.length > 0) break;
    shown.push(line);
    size += line.length + 1;
    end = i;
  }
  const clipped =
    end < last
      ? `\n<response clipped><NOTE>To save on context only lines ${first}-${end} of ${n} were shown. View the rest with view_range [${end + 1}, -1], or a narrower range.</NOTE>`
      : '';
  return ok(`${head}${shown.join('\n')}${clipped}`, {
    command: 'view',
    path: a.path,
    kind: 'file',
    content: lines.slice(first - 1, end).join('\n'),
    start_line: first,
    end_line: end,
    total_lines: n,
    oid: file.oid,
  });
}

const hidden = (e: ViewEntry): boolean => e.name.startsWith('.');
const suffix = (e: ViewEntry): string => (e.type === 'dir' ? '/' : e.type === 'submodule' ? '  (submodule, not writable)' : e.type === 'symlink' ? '  (symlink)' : '');

export async function viewDirectory(conn: ToolConnection, rel: string, a: { path: string }): Promise<ToolOutcome> {
  const base = a.path.length > 1 ? a.path.replace(/\/+$/, '') : a.path;
  const join = (name: string): string => (base === '/' ? `/${name}` : base === '.' || base === '' ? name : `${base}/${name}`);
  const entries: string[] = [];
  let clipped = false;
  const push = (line: string): boolean => {
    if (entries.length >= MAX_ENTRIES) return (clipped = true), false;
    entries.push(line);
    return true;
  };
  const top = (await conn.sh.ls(rel, { draft: conn.draft })).filter((e) => !hidden(e));
  for (const e of top) {
    if (!push(`${join(e.name)}${suffix(e)}`)) break;
    if (e.type !== 'dir') continue;
    const below = (await conn.sh.ls(rel === '' ? e.name : `${rel}/${e.name}`, { draft: conn.draft })).filter((c) => !hidden(c));
    for (const c of below) if (!push(`${join(`${e.name}/${c.name}`)}${suffix(c)}`)) break;
    if (clipped) break;
  }
  const note = clipped ? `\n<response clipped><NOTE>Only the first ${MAX_ENTRIES} entries are shown: view a subdirectory.</NOTE>` : '';
  const text = `Here's the files and directories up to 2 levels deep in ${a.path}, excluding hidden items:\n${entries.join('\n') || '(empty)'}${note}`;
  return ok(text, { command: 'view', path: a.path, kind: 'directory', entries });
}
