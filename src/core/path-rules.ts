import { isDotGitAnywhere, isWorktreeMarker, WORKTREE_MARKER } from './tree-path-rules.js';

/** Longest accepted path, in UTF-8 bytes (PATH_MAX on Linux). */
export const MAX_PATH_BYTES = 4096;
/** Longest accepted path component, in UTF-8 bytes (NAME_MAX). */
export const MAX_NAME_BYTES = 255;

/**
 * Code points that HFS+ ignores when it compares names: `.g\u200cit` is `.git`
 * there. git refuses them for the same reason (`is_hfs_dotgit`).
 */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * Why `path` may not name a file in a draft, or `undefined` when it may.
 *
 * Rules: a relative POSIX path; no empty, `.` or `..` segment; no `.git`
 * component in any case or spelling a file system would fold to `.git`
 * (trailing dots or spaces, NTFS short name `git~1`, HFS+ ignorable code
 * points, NTFS alternate data streams such as `.git::$INDEX_ALLOCATION`);
 * no component named as shadow's worktree marker `.shadow-worktree`; no
 * NUL, control character or backslash; at most 4096 bytes, 255 per
 * component. Everything `treePathProblem` refuses in a tree is refused here
 * too, so a batch never makes what an apply would refuse.
 */
export function pathProblem(path: string): string | undefined {
  if (path.length === 0) return 'the path is empty';
  if (path.startsWith('/')) return 'the path is absolute; give it relative to the repository root';
  if (/^[A-Za-z]:/.test(path)) return 'the path has a drive letter; give it relative to the repository root';
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === 0) return `the path contains a NUL byte at index ${i}`;
    if (c < 0x20 || c === 0x7f)
      return `the path contains the control character U+${c.toString(16).padStart(4, '0')} at index ${i}`;
    if (c === 0x5c) return 'the path contains a backslash; use forward slashes';
    if (c >= 0xd800 && c <= 0xdfff) {
      const pair = c <= 0xdbff && i + 1 < path.length && (path.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      if (!pair) return `the path contains a lone surrogate at index ${i}`;
      i++;
    }
  }
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) return `the path is longer than ${MAX_PATH_BYTES} bytes`;
  const segments = path.split('/');
  for (const segment of segments) {
    if (segment === '') return 'the path has an empty segment (a doubled or trailing slash)';
    if (segment === '.' || segment === '..') return `the path has a "${segment}" segment; give the path without it`;
    if (Buffer.byteLength(segment) > MAX_NAME_BYTES) return `a path component is longer than ${MAX_NAME_BYTES} bytes`;
    if (isDotGit(segment)) return 'the path goes into .git, which shadow never writes';
    if (isWorktreeMarker(segment))
      return `the path names shadow's worktree marker ${WORKTREE_MARKER}, which only shadow writes`;
  }
  return undefined;
}

function isDotGit(segment: string): boolean {
  const folded = segment
    .replace(HFS_IGNORABLE, '')
    .replace(/[. ]+$/, '')
    .toLowerCase();
  return folded === '.git' || folded === 'git~1' || isDotGitAnywhere(segment);
}

/** The parent directories of a path, outermost first: `a/b/c` → `a`, `a/b`. */
export function parentDirs(path: string): string[] {
  const out: string[] = [];
  let i = path.indexOf('/');
  while (i !== -1) {
    out.push(path.slice(0, i));
    i = path.indexOf('/', i + 1);
  }
  return out;
}

/** The parent directory of `path`, `''` for a top-level path. */
export function dirname(path: string): string {
  const i = path.lastIndexOf('/');
  return i === -1 ? '' : path.slice(0, i);
}

/** The last component of `path`. */
export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** True when `path` lies strictly inside directory `dir` (`''` is the root). */
export function isInside(path: string, dir: string): boolean {
  return dir === ''
    ? path !== ''
    : path.length > dir.length && path.startsWith(dir) && path.charCodeAt(dir.length) === 0x2f;
}
