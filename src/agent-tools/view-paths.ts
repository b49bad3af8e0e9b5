import { isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { ShadowError } from '../errors.js';
import type { ToolConnection } from './tool-outcome.js';

/**
 * The paths the borrowed tool shapes are given. Anthropic's text editor and
 * the MCP filesystem server speak in absolute paths (the model sees
 * `/repo/src/app.ts`); shadow speaks in paths relative to the repository's
 * root. An absolute path inside the working tree's root names the same file
 * of the draft's view; a relative one is taken from the root; anything
 * outside is refused (INVALID_PATH), as the filesystem server refuses a path
 * outside its allowed directories. The comparison is by name only: the view
 * is not the disk, so symlinks on the way are not followed.
 */

/** The working tree's root, where absolute paths start (none for a bare repository). */
export function rootOf(conn: ToolConnection): string | null {
  return conn.sh.layout.worktree;
}

/** The repository path `given` names (`''` for the root), or INVALID_PATH. */
export function repoPathOf(conn: ToolConnection, given: string): string {
  const root = rootOf(conn);
  let rel: string;
  if (isAbsolute(given)) {
    if (root === null) {
      throw new ShadowError(
        'INVALID_PATH',
        `${given} is absolute, and this repository has no working tree to resolve it in`,
        { hint: 'give a path relative to the repository root', data: { path: given } },
      );
    }
    rel = relative(resolve(root), resolve(given)).split(sep).join('/');
    if (rel === '..' || rel.startsWith('../') || isAbsolute(rel)) {
      throw new ShadowError('INVALID_PATH', `access denied: ${given} is outside the repository (${root})`, {
        hint: `give a path under ${root}, or relative to it`,
        data: { path: given, root },
      });
    }
  } else {
    rel = posix.normalize(given.split(sep).join('/'));
    if (rel === '..' || rel.startsWith('../')) {
      throw new ShadowError('INVALID_PATH', `access denied: ${given} leaves the repository`, {
        hint: 'give a path inside the repository',
        data: { path: given },
      });
    }
  }
  rel = rel.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  return rel === '.' ? '' : rel;
}

/** The absolute path of a repository path, as the filesystem server reports paths (relative when there is no working tree). */
export function absoluteOf(conn: ToolConnection, rel: string): string {
  const root = rootOf(conn);
  return root === null ? rel || '.' : rel === '' ? root : join(root, ...rel.split('/'));
}
