import type { FileSystem } from '../context.js';
import { statIfExists } from '../durable/durable-file.js';

/**
 * True when directory `dir` (absolute) is the top of a nested git repository
 * as git itself tells one (`is_nonbare_repository_dir`): its `.git` is a git
 * directory, or a file `gitdir: <path>` naming one (a submodule's checkout,
 * a linked worktree). git stops at such a directory: `git add dir/x` adds
 * nothing. An empty or stray `.git` does not count, as it does not for git.
 */
export function isNestedRepository(fs: FileSystem, dir: string): boolean {
  const dotGit = `${dir}/.git`;
  let st;
  try {
    st = statIfExists(fs, dotGit);
  } catch {
    return false;
  }
  if (!st) return false;
  if (st.isDirectory()) return isGitDir(fs, dotGit);
  if (!st.isFile() || st.size > 4096) return false;
  let text: string;
  try {
    text = String(fs.readFileSync(dotGit, 'utf8'));
  } catch {
    return false;
  }
  const m = /^gitdir: (.+?)\r?\n?$/.exec(text);
  if (!m) return false;
  const target = m[1]!;
  const absolute = target.startsWith('/') || /^[A-Za-z]:[\\/]/.test(target);
  return isGitDir(fs, absolute ? target : `${dir}/${target}`);
}

/** git's test for a git directory, less its HEAD's contents: a HEAD, and objects of its own or through `commondir`. */
function isGitDir(fs: FileSystem, gitdir: string): boolean {
  try {
    if (!statIfExists(fs, `${gitdir}/HEAD`, true)?.isFile()) return false;
    if (statIfExists(fs, `${gitdir}/objects`, true)?.isDirectory()) return true;
    return statIfExists(fs, `${gitdir}/commondir`, true)?.isFile() === true;
  } catch {
    return false;
  }
}
