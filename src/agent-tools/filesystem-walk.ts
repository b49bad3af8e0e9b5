import picomatch from 'picomatch';
import { ShadowError } from '../errors.js';
import type { ViewEntry } from '../index.js';
import { asHome, homePath, kindAt, missing, nodeText, type HomePath } from './filesystem-paths.js';
import type { Handler, ToolConnection, ToolOutcome } from './tool-outcome.js';
import { absoluteOf, rootOf } from './view-paths.js';

/**
 * The MCP filesystem server's listings, on the draft's view: directories,
 * the tree, the glob search, a path's facts, and the one "allowed
 * directory", the repository. Walks go through the view's own walk, which
 * leaves out what .gitignore ignores (a dependency directory would
 * otherwise drown the answer) and stops at 20,000 files.
 */

const WALK_LIMIT = 20_000;

/** The filesystem server's answer: its text, and the same as `{ content }`. */
export const said = (text: string): ToolOutcome => ({ isError: false, text, structured: { content: text } });

const isDir = (e: ViewEntry): boolean => e.type === 'dir';
const mark = (e: ViewEntry): string => (isDir(e) ? '[DIR]' : '[FILE]');

/** A size as that server prints it: `0 B`, `512 B`, `1.50 KB`. */
export function formatSize(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  if (bytes === 0) return '0 B';
  const i = Math.min(Math.floor(Math.log(bytes) / Math.log(1024)), units.length - 1);
  return i <= 0 ? `${bytes} B` : `${(bytes / 1024 ** i).toFixed(2)} ${units[i]}`;
}

const join = (dir: string, name: string): string => (dir === '' ? name : `${dir}/${name}`);

/** The entries of the directory at `p`, or the error that server's readdir gives there. */
async function entriesOf(conn: ToolConnection, p: HomePath): Promise<ViewEntry[]> {
  try {
    return await conn.sh.ls(p.rel, { draft: conn.draft });
  } catch (e) {
    throw await asHome(conn, e, p, 'scandir');
  }
}

/** A walk's start: a directory of the view, or that server's readdir error. */
async function walkRoot(conn: ToolConnection, given: string): Promise<HomePath> {
  const p = homePath(conn, given);
  const kind = await kindAt(conn, p.rel);
  if (kind === 'absent') throw await missing(conn, p, 'scandir');
  if (kind === 'file')
    throw new ShadowError('NOT_A_DIRECTORY', nodeText('ENOTDIR', 'scandir', p.abs), {
      hint: 'give a directory',
      data: { path: given },
    });
  return p;
}

async function listDirectory(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const entries = await entriesOf(conn, homePath(conn, String(a.path)));
  return said(entries.map((e) => `${mark(e)} ${e.name}`).join('\n'));
}

async function listWithSizes(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const p = homePath(conn, String(a.path));
  const rel = p.rel;
  const entries = await entriesOf(conn, p);
  const sized: Array<{ e: ViewEntry; size: number }> = [];
  for (const e of entries) {
    const size =
      e.type === 'file' || e.type === 'symlink'
        ? (await conn.sh.cat(join(rel, e.name), { draft: conn.draft })).content.length
        : 0;
    sized.push({ e, size });
  }
  // As that server: largest first, or by name in its collation (English, the locale it runs in).
  if (a.sortBy === 'size') sized.sort((x, y) => y.size - x.size);
  else sized.sort((x, y) => x.e.name.localeCompare(y.e.name, 'en'));
  const rows = sized.map(
    ({ e, size }) => `${mark(e)} ${e.name.padEnd(30)} ${isDir(e) ? '' : formatSize(size).padStart(10)}`,
  );
  const files = sized.filter((s) => !isDir(s.e));
  const total = files.reduce((sum, s) => sum + s.size, 0);
  return said(
    [
      ...rows,
      '',
      `Total: ${files.length} files, ${sized.length - files.length} directories`,
      `Combined size: ${formatSize(total)}`,
    ].join('\n'),
  );
}

/** The view's files under `rel`, paths relative to it, or a refusal when there are too many to walk. */
async function walk(conn: ToolConnection, rel: string, given: string): Promise<string[]> {
  const r = await conn.sh.files(rel, { draft: conn.draft, limit: WALK_LIMIT });
  if (r.truncated) {
    throw new ShadowError('INVALID_ARGUMENT', `${given} holds more than ${WALK_LIMIT} files`, {
      hint: 'walk a subdirectory',
      data: { path: given, limit: WALK_LIMIT },
    });
  }
  return r.files.map((f) => (rel === '' ? f.path : f.path.slice(rel.length + 1)));
}

/**
 * That server's exclusion rules. directory_tree's: a pattern with `*` is a
 * glob on the path relative to the walk's root; a plain name also leaves
 * out that name at any depth, and everything below it. search_files': every
 * pattern is a glob on that relative path only.
 */
function excluder(patterns: readonly string[], plainNamesAnywhere = true): (path: string) => boolean {
  const tests = patterns.map((p) => {
    if (p.includes('*') || !plainNamesAnywhere) return picomatch(p, { dot: true });
    const any = [
      picomatch(p, { dot: true }),
      picomatch(`**/${p}`, { dot: true }),
      picomatch(`**/${p}/**`, { dot: true }),
    ];
    return (path: string) => any.some((t) => t(path));
  });
  return (path) => tests.some((t) => t(path));
}

interface TreeEntry {
  name: string;
  type: 'file' | 'directory';
  children?: TreeEntry[];
}

async function directoryTree(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const given = String(a.path);
  const { rel } = await walkRoot(conn, given);
  const excluded = excluder((a.excludePatterns as string[] | undefined) ?? []);
  const root: TreeEntry[] = [];
  const dirs = new Map<string, TreeEntry[]>([['', root]]);
  for (const path of await walk(conn, rel, given)) {
    const parts = path.split('/');
    let prefix = '';
    let skip = false;
    for (let i = 0; i < parts.length && !skip; i++) {
      const here = prefix === '' ? parts[i]! : `${prefix}/${parts[i]}`;
      if (excluded(here)) skip = true;
      else if (i < parts.length - 1 && !dirs.has(here)) {
        const children: TreeEntry[] = [];
        dirs.get(prefix)!.push({ name: parts[i]!, type: 'directory', children });
        dirs.set(here, children);
      } else if (i === parts.length - 1) dirs.get(prefix)!.push({ name: parts[i]!, type: 'file' });
      prefix = here;
    }
  }
  return said(JSON.stringify(root, null, 2));
}

async function searchFiles(conn: ToolConnection, a: Record<string, unknown>): Promise<ToolOutcome> {
  const given = String(a.path);
  const { rel } = await walkRoot(conn, given);
  const matches = picomatch(String(a.pattern), { dot: true });
  const excluded = excluder((a.excludePatterns as string[] | undefined) ?? [], false);
  const found = new Set<string>();
  for (const path of await walk(conn, rel, given)) {
    // Directories match too: each one above the file, once.
    const parts = path.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const here = parts.slice(0, i).join('/');
      if (excluded(here)) break;
      if (!found.has(here) && matches(here)) found.add(here);
    }
  }
  const out = [...found].map((p) => absoluteOf(conn, join(rel, p)));
  return said(out.length > 0 ? out.join('\n') : 'No matches found');
}

export const FILESYSTEM_WALK_HANDLERS: Record<string, Handler> = {
  list_directory: listDirectory,
  list_directory_with_sizes: listWithSizes,
  directory_tree: directoryTree,
  search_files: searchFiles,
  list_allowed_directories: async (conn) =>
    said(`Allowed directories:\n${rootOf(conn) ?? '. (the repository; it has no working tree)'}`),
};
