import ignore, { type Ignore } from 'ignore';
import type { FileSystem } from '../context.js';
import { parentDirs } from '../core/path-rules.js';
import { readTextIfExists, statIfExists } from './durable-file.js';

/**
 * Decides whether a path is ignored the way git does, reading only the ignore
 * files on the way to that path (O(depth)): `core.excludesFile`,
 * `info/exclude`, then `.gitignore` of the root and of each parent directory.
 *
 * Matching is the `ignore` package's (a faithful implementation of
 * gitignore). Rules of a `.gitignore` in directory `d` are rewritten relative
 * to the root, and all rules go into one list in git's order of precedence
 * (global excludes first, deeper files last), so "last match wins" gives
 * git's answer, parent-directory exclusion included.
 */
export class IgnoreRules {
  private readonly loaded = new Set<string>();
  private readonly matcher: Ignore;

  constructor(
    private readonly fs: FileSystem,
    private readonly worktree: string,
    baseFiles: readonly string[],
    /** git's core.ignoreCase (false on case-sensitive file systems). */
    ignoreCase = false,
  ) {
    this.matcher = ignore({ ignorecase: ignoreCase });
    for (const f of baseFiles) this.addFile(f, '');
  }

  private addFile(file: string, dir: string): void {
    // Most directories have no .gitignore: asked first without an exception.
    if (!statIfExists(this.fs, file, true)) return;
    const text = readTextIfExists(this.fs, file);
    if (!text) return;
    const rules: string[] = [];
    for (const raw of text.split(/\r?\n/)) {
      const rule = rebase(raw, dir);
      if (rule !== undefined) rules.push(rule);
    }
    if (rules.length > 0) this.matcher.add(rules);
  }

  private loadDir(dir: string): void {
    if (this.loaded.has(dir)) return;
    this.loaded.add(dir);
    this.addFile(`${this.worktree}${dir ? `/${dir}` : ''}/.gitignore`, dir);
  }

  /** True when git would ignore `path` (as an untracked file). */
  ignores(path: string): boolean {
    this.loadDir('');
    for (const d of parentDirs(path)) this.loadDir(d);
    return this.matcher.ignores(path);
  }
}

/** Rewrite one line of the `.gitignore` in `dir` so that it applies from the root. */
function rebase(line: string, dir: string): string | undefined {
  let s = line;
  if (s.trim() === '' || s.startsWith('#')) return undefined;
  let negate = '';
  if (s.startsWith('!')) {
    negate = '!';
    s = s.slice(1);
  }
  if (dir === '') return negate + s;
  // Trailing unescaped spaces are not part of the pattern.
  s = s.replace(/(?<!\\) +$/, '');
  const body = s.endsWith('/') ? s.slice(0, -1) : s;
  const anchored = body.includes('/');
  const pattern = body.startsWith('/') ? body.slice(1) : body;
  const rebased = anchored ? `${dir}/${pattern}` : `${dir}/**/${pattern}`;
  return negate + rebased + (s.endsWith('/') ? '/' : '');
}

/** The ignore files git reads for every path, lowest precedence first. */
export function baseIgnoreFiles(
  env: Readonly<Record<string, string | undefined>>,
  gitdir: string,
  excludesFile: string | undefined,
): string[] {
  const home = env.HOME;
  let global = excludesFile;
  if (global?.startsWith('~/') && home) global = home + global.slice(1);
  if (global === undefined) {
    const xdg = env.XDG_CONFIG_HOME ?? (home ? `${home}/.config` : undefined);
    if (xdg) global = `${xdg}/git/ignore`;
  }
  return [...(global ? [global] : []), `${gitdir}/info/exclude`];
}
