import { ShadowError } from '../errors.js';
import type { ViewEntry, ViewFile } from '../index.js';
import { catN, linesOf, maybeTruncate, MAX_RESPONSE_LEN, pyList } from './editor-text.js';
import { ok, type ToolConnection, type ToolOutcome } from './tool-outcome.js';

/**
 * The text editor's view command, answered as Anthropic's reference
 * implementation answers it: a file as `cat -n` shows it (its lines split at
 * \n, numbered, a final newline), whole or a `view_range`, with the
 * reference's range errors; a directory as its `find <path> -maxdepth 2 -not
 * -path '*\/.*'` lists it. Viewing a file is what lets the agent's next edit
 * of it go through: the blob it saw is remembered, and the edit expects it.
 */

/** Per connection: the blob each path held when the agent last saw it (null: it changed under the agent's own write). */
export type Seen = Map<string, string | null>;

function badRange(message: string, path: string, lines: number): ShadowError {
  return new ShadowError('INVALID_ARGUMENT', message, {
    hint: 'lines are numbered from 1, as the whole view shows them; -1 as the second element reads to the end',
    data: { path, lines },
  });
}

export function viewFile(
  seen: Seen,
  rel: string,
  a: { path: string; view_range?: number[] },
  file: ViewFile,
  text: string,
): ToolOutcome {
  const lines = linesOf(text);
  const n = lines.length;
  let first = 1;
  let last = n;
  const range = a.view_range;
  // Two integers, as the schema has it (an empty range is no range, as the reference's `if view_range:` reads it).
  if (range !== undefined && range.length > 0) {
    const [from, to] = range as [number, number];
    const head = `Invalid \`view_range\`: ${pyList(range)}.`;
    if (from < 1 || from > n)
      throw badRange(
        `${head} Its first element \`${from}\` should be within the range of lines of the file: ${pyList([1, n])}`,
        a.path,
        n,
      );
    if (to > n)
      throw badRange(
        `${head} Its second element \`${to}\` should be smaller than the number of lines in the file: \`${n}\``,
        a.path,
        n,
      );
    if (to !== -1 && to < from)
      throw badRange(
        `${head} Its second element \`${to}\` should be larger or equal than its first \`${from}\``,
        a.path,
        n,
      );
    first = from;
    last = to === -1 ? n : to;
  }
  seen.set(rel, file.oid);
  const content = range !== undefined && range.length > 0 ? lines.slice(first - 1, last).join('\n') : text;
  return ok(catN(content, a.path, first), {
    command: 'view',
    path: a.path,
    kind: 'file',
    content,
    start_line: first,
    end_line: last,
    total_lines: n,
    oid: file.oid,
  });
}

const hidden = (e: ViewEntry): boolean => e.name.startsWith('.');

/**
 * `find <path> -maxdepth 2 -not -path '*\/.*'`: the path as given, then
 * each entry under it two levels deep, a directory followed by its own;
 * ordered by name (find's order is the file system's, which none other
 * shares), no hidden entry, and nothing at all when the path itself has a
 * hidden component, as find's -path test has it.
 */
export async function viewDirectory(conn: ToolConnection, rel: string, a: { path: string }): Promise<ToolOutcome> {
  const root = a.path;
  const join = (name: string): string => (root.endsWith('/') ? `${root}${name}` : `${root}/${name}`);
  const listed: string[] = [];
  let size = 0;
  const push = (line: string): boolean => {
    listed.push(line);
    size += line.length + 1;
    return size <= MAX_RESPONSE_LEN;
  };
  if (!/\/\./.test(root) && push(root)) {
    const top = (await conn.sh.ls(rel, { draft: conn.draft })).filter((e) => !hidden(e));
    for (const e of top) {
      if (!push(join(e.name))) break;
      if (e.type !== 'dir') continue;
      const below = (await conn.sh.ls(rel === '' ? e.name : `${rel}/${e.name}`, { draft: conn.draft })).filter(
        (c) => !hidden(c),
      );
      if (!below.every((c) => push(join(`${e.name}/${c.name}`)))) break;
    }
  }
  const stdout = maybeTruncate(listed.length === 0 ? '' : `${listed.join('\n')}\n`);
  const text = `Here's the files and directories up to 2 levels deep in ${root}, excluding hidden items:\n${stdout}\n`;
  return ok(text, { command: 'view', path: root, kind: 'directory', entries: listed.slice(1) });
}
