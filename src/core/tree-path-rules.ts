/**
 * git's rules for a path that may reach a working tree: `verify_path`
 * (read-cache.c) with `core.protectNTFS` and `core.protectHFS` both on, as
 * git would apply them on any system, plus the names `git fsck` refuses as
 * symlinks (fsck.c). A tree that breaks them is one git refuses to check
 * out; shadow refuses to write it for the same reasons, whatever system it
 * runs on. Pure: no I/O.
 */

/** The file name of a shadow worktree's marker (state/worktree-state.ts reads and writes it). */
export const WORKTREE_MARKER = '.shadow-worktree';

/** git's tree entry mode of a symlink. */
const SYMLINK_MODE = '120000';

/** Code points HFS+ ignores when it compares names (git's `next_hfs_char`). */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** `/` or, as NTFS reads a name, `\`. */
function isXplatformSep(c: string | undefined): boolean {
  return c === '/' || c === '\\';
}

/**
 * `is_ntfs_dotgit`: `name` (the rest of a path from a component's start)
 * names `.git` on NTFS: `.git` or its short name `git~1`, any case,
 * followed by dots and spaces only, then the end, a separator or an
 * alternate data stream (`.git::$INDEX_ALLOCATION`, `.git:x`).
 */
export function isNtfsDotGit(name: string): boolean {
  const lower = name.slice(0, 5).toLowerCase();
  let i: number;
  if (lower.startsWith('.git')) i = 4;
  else if (lower === 'git~1') i = 5;
  else return false;
  for (; ; i++) {
    const c = name[i];
    if (c === undefined || isXplatformSep(c) || c === ':') return true;
    if (c !== '.' && c !== ' ') return false;
  }
}

/**
 * `is_ntfs_dot_generic`: `name` names `.<needle>` on NTFS: the name itself,
 * its short name `<first six>~1`..`~4`, or a fall-back short name (`prefix`
 * is git's hashed one, `gi7eba` for `gitmodules`), followed by dots and
 * spaces only, then the end or an alternate data stream.
 */
function isNtfsDotGeneric(name: string, needle: string, prefix: string): boolean {
  const onlySpacesAndPeriods = (from: number): boolean => {
    for (let i = from; ; i++) {
      const c = name[i];
      if (c === undefined || c === ':') return true;
      if (c !== ' ' && c !== '.') return false;
    }
  };
  if (name[0] === '.' && name.slice(1, 1 + needle.length).toLowerCase() === needle)
    return onlySpacesAndPeriods(needle.length + 1);
  if (
    name.slice(0, 6).toLowerCase() === needle.slice(0, 6) &&
    name[6] === '~' &&
    name[7] !== undefined &&
    name[7] >= '1' &&
    name[7] <= '4'
  ) {
    return onlySpacesAndPeriods(8);
  }
  let sawTilde = false;
  for (let i = 0; i < 8; i++) {
    const c = name[i];
    if (c === undefined) return false;
    if (sawTilde) {
      if (c < '0' || c > '9') return false;
    } else if (c === '~') {
      const d = name[++i];
      if (d === undefined || d < '1' || d > '9') return false;
      sawTilde = true;
    } else if (i >= 6) return false;
    else if (c.charCodeAt(0) > 0x7f) return false;
    else if (c.toLowerCase() !== prefix[i]) return false;
  }
  return onlySpacesAndPeriods(8);
}

/**
 * `is_hfs_dot_generic`: `name` is `.<needle>` once HFS+ drops its ignorable
 * code points and folds case, followed by the end or a separator.
 */
function isHfsDotGeneric(name: string, needle: string): boolean {
  const folded = name.replace(HFS_IGNORABLE, '');
  if (folded[0] !== '.') return false;
  for (let i = 0; i < needle.length; i++) {
    const c = folded[i + 1];
    if (c === undefined || c.charCodeAt(0) > 0x7f || c.toLowerCase() !== needle[i]) return false;
  }
  const after = folded[needle.length + 1];
  return after === undefined || after === '/';
}

/** `.git` as NTFS or HFS+ would read `name` (a path from a component's start). */
export function isDotGitAnywhere(name: string): boolean {
  return isNtfsDotGit(name) || isHfsDotGeneric(name, 'git');
}

/** The dotfiles git refuses as symlinks, with their NTFS fall-back short-name prefixes (path.c). */
const SYMLINK_REFUSED: ReadonlyArray<readonly [string, string]> = [
  ['gitmodules', 'gi7eba'],
  ['gitattributes', 'gi7d29'],
  ['gitignore', 'gi250a'],
  ['mailmap', 'maba30'],
];

/** `name` is `.<needle>` (or a spelling NTFS or HFS+ folds to it). */
function isDotfile(name: string, needle: string, prefix: string): boolean {
  return isNtfsDotGeneric(name, needle, prefix) || isHfsDotGeneric(name, needle);
}

/** `name` (one component) spells the worktree marker on a case-folding, dot-trimming or HFS+ file system. */
export function isWorktreeMarker(name: string): boolean {
  return (
    name
      .replace(HFS_IGNORABLE, '')
      .replace(/[. ]+$/, '')
      .toLowerCase() === WORKTREE_MARKER
  );
}

/**
 * Why a tree entry at `path` with `mode` may not reach a working tree, or
 * `undefined` when it may. git's `verify_path` with `core.protectNTFS` and
 * `core.protectHFS` on: no empty, `.` or `..` component, no absolute path,
 * no `.git` in any spelling NTFS or HFS+ folds to it (also after a
 * backslash, which NTFS reads as a separator); a symlink may not be named
 * `.gitmodules`, `.gitattributes`, `.gitignore` or `.mailmap` in any such
 * spelling (git fsck); and shadow's own worktree marker never comes from a
 * tree.
 */
export function treePathProblem(path: string, mode: string): string | undefined {
  if (path.length === 0) return 'the path is empty';
  if (path.startsWith('/')) return 'the path is absolute';
  const symlink = mode === SYMLINK_MODE;
  const components = path.split('/');
  for (let k = 0; k < components.length; k++) {
    const name = components[k]!;
    if (name === '') return 'the path has an empty component';
    if (name === '.' || name === '..') return `the path has a "${name}" component`;
    const rest = components.slice(k).join('/');
    // NTFS reads a backslash as a separator: each piece after one is a name there too.
    const pieces = [rest, ...backslashTails(name)];
    if (pieces.some(isDotGitAnywhere)) return 'the path goes into .git (in a spelling NTFS or HFS+ reads as .git)';
    if (symlink && pieces.some((p) => isDotfile(p, 'gitmodules', 'gi7eba') || isHfsDotGeneric(p, 'gitmodules'))) {
      return 'a symlink named .gitmodules, which git refuses';
    }
    if (isWorktreeMarker(name))
      return `the path is shadow's worktree marker ${WORKTREE_MARKER}, which only shadow writes`;
  }
  if (symlink) {
    const last = components[components.length - 1]!;
    for (const [needle, prefix] of SYMLINK_REFUSED) {
      if (isDotfile(last, needle, prefix)) return `a symlink named .${needle}, which git refuses to follow`;
    }
  }
  return undefined;
}

/** The rests of `name` after each backslash in it. */
function backslashTails(name: string): string[] {
  const out: string[] = [];
  for (let i = name.indexOf('\\'); i !== -1; i = name.indexOf('\\', i + 1)) out.push(name.slice(i + 1));
  return out;
}
