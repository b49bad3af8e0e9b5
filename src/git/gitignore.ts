import ignore, { type Ignore } from 'ignore';
import type { FileSystem } from '../context.js';
import { parentDirs } from '../core/path-rules.js';
import { readTextIfExists, statStamp } from '../durable/durable-file.js';

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
  /** Directories whose `.gitignore` is in the matcher, with the stamp it was read under. */
  private readonly loaded = new Map<string, string>();
  /** Stamps of the base files, as read. */
  private baseStamps: string[] = [];
  /** Directories (and the base files, as '\0') looked at again since `renew`. */
  private readonly fresh = new Set<string>();
  private matcher!: Ignore;
  /** Racy stamps made so far (each one is different from every other). */
  private racy = 0;
  /** Paths asked about since the matcher was made. */
  private asked = 0;

  constructor(
    private readonly fs: FileSystem,
    private readonly worktree: string,
    private readonly baseFiles: readonly string[],
    /** git's core.ignoreCase (false on case-sensitive file systems). */
    private readonly ignoreCase = false,
    /** The clock, for telling a file changed just now (whose stamp cannot be trusted yet). */
    private readonly now: () => number = () => Number.POSITIVE_INFINITY,
  ) {
    this.reset();
  }

  private reset(): void {
    this.matcher = ignore({ ignorecase: this.ignoreCase });
    this.asked = 0;
    this.loaded.clear();
    this.baseStamps = this.baseFiles.map((f) => this.addFile(f, ''));
    this.fresh.clear();
    this.fresh.add('\0');
  }

  /**
   * Start another use of these rules (a batch): before a rule is trusted
   * again, the file it came from is looked at (one stat), and the rules are
   * read again from scratch when any of them changed. Parsing and compiling
   * a large `.gitignore` on every batch cost more than the batch.
   */
  renew(): void {
    this.fresh.clear();
  }

  /**
   * What a file is now: inode, size, times; "-" when missing. A file changed
   * so recently that a second change could keep its stamp (see statStamp)
   * is "racy" and never matches.
   */
  private stampOf(file: string): string {
    const { stamp, racy } = statStamp(this.fs, file, this.now());
    return racy ? `racy:${++this.racy}` : stamp;
  }

  /** Add the rules of `file` (rebased to `dir`); returns the stamp it was read under. */
  private addFile(file: string, dir: string): string {
    // Most directories have no .gitignore: asked first without an exception.
    const stamp = this.stampOf(file);
    if (stamp === '-') return stamp;
    const text = readTextIfExists(this.fs, file);
    if (!text) return stamp;
    const rules: string[] = [];
    for (const raw of text.split(/\r?\n/)) {
      const rule = rebase(raw, dir);
      if (rule !== undefined) rules.push(rule);
    }
    if (rules.length > 0) this.matcher.add(rules);
    return stamp;
  }

  private fileOf(dir: string): string {
    return `${this.worktree}${dir ? `/${dir}` : ''}/.gitignore`;
  }

  /** False when a file these rules came from changed since it was read. */
  private unchanged(dirs: readonly string[]): boolean {
    if (!this.fresh.has('\0')) {
      if (this.baseFiles.some((f, i) => this.stampOf(f) !== this.baseStamps[i])) return false;
      this.fresh.add('\0');
    }
    for (const d of dirs) {
      if (this.fresh.has(d)) continue;
      const was = this.loaded.get(d);
      if (was !== undefined && this.stampOf(this.fileOf(d)) !== was) return false;
      this.fresh.add(d);
    }
    return true;
  }

  private loadDir(dir: string): void {
    if (this.loaded.has(dir)) return;
    this.loaded.set(dir, this.addFile(this.fileOf(dir), dir));
    this.fresh.add(dir);
  }

  /** True when git would ignore `path` (as an untracked file). */
  ignores(path: string): boolean {
    const dirs = ['', ...parentDirs(path)];
    // The matcher remembers every path it answered: a handle that stays open
    // starts afresh now and then rather than grow without bound.
    if (!this.unchanged(dirs) || ++this.asked > MAX_ANSWERS_KEPT) this.reset();
    for (const d of dirs) this.loadDir(d);
    return this.matcher.ignores(path);
  }
}

/** Paths a matcher answers before it is made again (it keeps every answer). */
const MAX_ANSWERS_KEPT = 50_000;

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
  const global = userGitFile(env, excludesFile, 'ignore');
  return [...(global ? [global] : []), `${gitdir}/info/exclude`];
}

/**
 * A per-user file git reads beside a repository's own: the configured one
 * (`core.excludesFile`, `core.attributesFile`; `~/` is the home directory),
 * else `$XDG_CONFIG_HOME/git/<name>` (`~/.config/git/<name>`).
 */
export function userGitFile(
  env: Readonly<Record<string, string | undefined>>,
  configured: string | undefined,
  name: string,
): string | undefined {
  const home = env.HOME;
  if (configured !== undefined) return configured.startsWith('~/') && home ? home + configured.slice(1) : configured;
  const xdg = env.XDG_CONFIG_HOME ?? (home ? `${home}/.config` : undefined);
  return xdg ? `${xdg}/git/${name}` : undefined;
}
