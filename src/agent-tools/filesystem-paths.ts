import { dirname, isAbsolute, resolve } from 'node:path';
import { ShadowError, isShadowError } from '../errors.js';
import type { ViewFile } from '../index.js';
import type { ToolConnection } from './tool-outcome.js';
import { absoluteOf, repoPathOf, rootOf } from './view-paths.js';

/**
 * The paths the MCP filesystem server's tools are given, and the errors it
 * words about them. That server resolves a path against its allowed
 * directory and reports it absolute; its refusals are Node's own texts
 * (`ENOENT: no such file or directory, open '…'`) or its own ("Access
 * denied - path outside allowed directories: …"). shadow's code comes first
 * in an error's text; the message after it is that server's, word for word,
 * so a model reads what it would read at home.
 */

export interface HomePath {
  /** The path as the model gave it (answers repeat it, as that server's do). */
  given: string;
  /** The repository path ('' for the root). */
  rel: string;
  /** The absolute path that server would name in its messages and diffs. */
  abs: string;
}

/** `given` inside the repository, or INVALID_PATH in that server's words. */
export function homePath(conn: ToolConnection, given: string): HomePath {
  const root = rootOf(conn);
  try {
    const rel = repoPathOf(conn, given);
    return { given, rel, abs: absoluteOf(conn, rel) };
  } catch (e) {
    if (!isShadowError(e) || (e as ShadowError).code !== 'INVALID_PATH' || root === null) throw e;
    const abs = isAbsolute(given) ? resolve(given) : resolve(root, given);
    throw new ShadowError('INVALID_PATH', `Access denied - path outside allowed directories: ${abs} not in ${root}`, {
      hint: `give a path under ${root} (see list_allowed_directories), or relative to it`,
      data: { path: given, root },
    });
  }
}

/** The system call whose failure that server reports, as Node names it. */
export type Syscall = 'open' | 'scandir' | 'stat' | 'read';

/** Node's text for an errno, as that server passes it on. */
export function nodeText(errno: 'ENOENT' | 'ENOTDIR' | 'EISDIR', syscall: Syscall, abs: string): string {
  if (errno === 'EISDIR') return 'EISDIR: illegal operation on a directory, read';
  const what = errno === 'ENOENT' ? 'no such file or directory' : 'not a directory';
  return `${errno}: ${what}, ${syscall} '${abs}'`;
}

/** What the view has at a repository path: a file (or symlink), a directory, or nothing. */
export async function kindAt(conn: ToolConnection, rel: string): Promise<'file' | 'dir' | 'absent'> {
  if (rel === '') return 'dir';
  try {
    await conn.sh.cat(rel, { draft: conn.draft });
    return 'file';
  } catch (e) {
    if (isShadowError(e) && (e as ShadowError).code === 'IS_A_DIRECTORY') return 'dir';
    if (isShadowError(e) && ['NOT_FOUND', 'NOT_A_DIRECTORY'].includes((e as ShadowError).code)) return 'absent';
    throw e;
  }
}

/**
 * Nothing at `p`: NOT_FOUND in that server's words. Its path check comes
 * first and names a missing parent directory ("Parent directory does not
 * exist: …"); with the parent there, Node's ENOENT for the call it made.
 */
export async function missing(conn: ToolConnection, p: HomePath, syscall: Syscall): Promise<ShadowError> {
  const parent = p.rel.includes('/') ? p.rel.slice(0, p.rel.lastIndexOf('/')) : '';
  const data = { path: p.given };
  if ((await kindAt(conn, parent)) !== 'dir') {
    const hint = "list the directory above it (list_directory) to see the draft's view";
    return new ShadowError('NOT_FOUND', `Parent directory does not exist: ${dirname(p.abs)}`, { hint, data });
  }
  const hint = "the draft's view has no such file: list its directory (list_directory) or search (search_files)";
  return new ShadowError('NOT_FOUND', nodeText('ENOENT', syscall, p.abs), { hint, data });
}

/**
 * A ShadowError about `p` from the view, reworded as that server would
 * report it for `syscall`; other errors pass unchanged.
 */
export async function asHome(conn: ToolConnection, e: unknown, p: HomePath, syscall: Syscall): Promise<unknown> {
  if (!isShadowError(e)) return e;
  const code = (e as ShadowError).code;
  const data = { path: p.given };
  if (code === 'IS_A_DIRECTORY') {
    const hint = 'list it with list_directory';
    return new ShadowError('IS_A_DIRECTORY', nodeText('EISDIR', syscall, p.abs), { hint, data });
  }
  if (code !== 'NOT_FOUND' && code !== 'NOT_A_DIRECTORY') return e;
  // The view says a directory listing of a file is not found; Node says ENOTDIR.
  if ((await kindAt(conn, p.rel)) === 'absent') return missing(conn, p, syscall);
  const hint = 'it is a file: read it with read_text_file';
  return new ShadowError('NOT_A_DIRECTORY', nodeText('ENOTDIR', syscall, p.abs), { hint, data });
}

/**
 * The file at `p` (never a symlink: shadow does not follow one), or the
 * error that server gives for `syscall` there.
 */
export async function fileAt(conn: ToolConnection, p: HomePath, syscall: Syscall = 'open'): Promise<ViewFile> {
  let file: ViewFile;
  try {
    file = await conn.sh.cat(p.rel, { draft: conn.draft });
  } catch (e) {
    throw await asHome(conn, e, p, syscall);
  }
  if (file.type === 'symlink') {
    const message = `${p.given} is a symlink (to ${file.content.toString()})`;
    throw new ShadowError('NOT_A_FILE', message, { hint: 'read the file it points to', data: { path: p.given } });
  }
  return file;
}
