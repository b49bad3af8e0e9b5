/**
 * Tree entries for the path gate's tests, most of them from git's own
 * tests (t0060-path-utils.sh, t1450-fsck.sh, t7415-submodule-names.sh):
 * those git refuses to check out with core.protectNTFS and core.protectHFS
 * on (or `git fsck` flags), and look-alikes git accepts.
 */

export interface PathCase {
  path: string;
  mode: string;
}

const FILE = '100644';
const EXEC = '100755';
const LINK = '120000';

/** Entries git refuses (checkout with both protections on, or fsck). */
export const GIT_REFUSES: readonly PathCase[] = [
  { path: '.git/hooks/post-checkout', mode: EXEC },
  { path: '.git/config', mode: FILE },
  { path: '.git', mode: FILE },
  { path: '.GIT/config', mode: FILE },
  { path: '.Git/hooks/pre-commit', mode: EXEC },
  { path: 'sub/.git/config', mode: FILE },
  { path: '.git./hooks/x', mode: FILE },
  { path: '.git . /x', mode: FILE },
  { path: '.git  /x', mode: FILE },
  { path: 'git~1/config', mode: FILE },
  { path: 'GIT~1/hooks/x', mode: EXEC },
  { path: '.git::$INDEX_ALLOCATION/config', mode: FILE },
  { path: '.git:foo', mode: FILE },
  { path: 'git~1:stream', mode: FILE },
  { path: '.g\u200cit/config', mode: FILE },
  { path: '\ufeff.git/config', mode: FILE },
  { path: '.gi\u200dt/x', mode: FILE },
  { path: '.GI\u206at/x', mode: FILE },
  { path: 'a\\.git', mode: FILE },
  { path: '.git\\hooks\\post-checkout', mode: EXEC },
  { path: 'a\\git~1\\config', mode: FILE },
  { path: '../escape', mode: FILE },
  { path: '../../escape2', mode: FILE },
  { path: 'a/../../escape3', mode: FILE },
  { path: './dot', mode: FILE },
  { path: '.gitmodules', mode: LINK },
  { path: '.GITMODULES', mode: LINK },
  { path: 'gitmod~1', mode: LINK },
  { path: 'GI7EBA~1', mode: LINK },
  { path: '.gitmodules . ', mode: LINK },
  { path: '.gitmodules:$DATA', mode: LINK },
  { path: '.gitmodul\u200ces', mode: LINK },
  { path: 'sub/.gitmodules', mode: LINK },
  { path: '.gitattributes', mode: LINK },
  { path: '.gitignore', mode: LINK },
  { path: '.mailmap', mode: LINK },
];

/** Entries shadow refuses of its own: its worktree marker, which would make every later command open what it names. */
export const SHADOW_REFUSES: readonly PathCase[] = [
  { path: '.shadow-worktree', mode: FILE },
  { path: 'sub/.shadow-worktree', mode: FILE },
  { path: '.Shadow-Worktree.', mode: FILE },
];

/** Look-alikes git checks out: shadow writes them too. */
export const GIT_ACCEPTS: readonly PathCase[] = [
  { path: '.gitfoo', mode: FILE },
  { path: 'git~2', mode: FILE },
  { path: 'git~1x/y', mode: FILE },
  { path: '.git~1', mode: FILE },
  { path: '.git.txt', mode: FILE },
  { path: '.gitx/y', mode: FILE },
  { path: 'a..b', mode: FILE },
  { path: '...', mode: FILE },
  { path: '..a', mode: FILE },
  { path: '.github/workflows/ci.yml', mode: FILE },
  { path: 'git/x', mode: FILE },
  { path: '.gitmodules', mode: FILE },
  { path: '.gitattributes', mode: FILE },
  { path: 'gitmod~1', mode: FILE },
  { path: '.gitmodules.bak', mode: LINK },
  { path: 'a\\b', mode: FILE },
  { path: '.g\u200cit.txt', mode: FILE },
  { path: 'C:x', mode: FILE },
  { path: 'link', mode: LINK },
];
