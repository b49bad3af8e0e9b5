import type { FileSystem } from '../context.js';
import { attributesOf, parseAttrFile, type AttrFile, type AttrState } from './format/gitattributes.js';
import { parentDirs } from '../core/path-rules.js';
import { readTextIfExists, statStamp } from '../durable/durable-file.js';
import { userGitFile } from './gitignore.js';

/**
 * The attributes of working-tree paths, reading only the attribute files on
 * the way to a path (O(depth)), in git's order of precedence: the system
 * file, `core.attributesFile` (or `$XDG_CONFIG_HOME/git/attributes`), the
 * `.gitattributes` of the root and of each parent directory, then
 * `$GIT_DIR/info/attributes`. Each file is parsed once and looked at again
 * (one stat) on each `renew`, as IgnoreRules does with ignore files.
 */
export class AttributeFiles {
  /** Parsed files by full path, with the stamp they were read under. */
  private readonly files = new Map<string, { stamp: string; parsed: AttrFile | undefined }>();
  /** Files looked at since `renew`. */
  private readonly fresh = new Set<string>();
  private racy = 0;

  constructor(
    private readonly fs: FileSystem,
    private readonly worktree: string,
    /** The files read for every path below the tree's own, lowest precedence first (see baseAttributeFiles). */
    private readonly lowFiles: readonly string[],
    private readonly highFiles: readonly string[],
    private readonly ignoreCase: boolean,
    private readonly now: () => number,
  ) {}

  /** Start another use (a batch): every file is looked at again before it is trusted. */
  renew(): void {
    this.fresh.clear();
  }

  private load(file: string, dir: string, macrosAllowed: boolean): AttrFile | undefined {
    const known = this.files.get(file);
    if (known && this.fresh.has(file)) return known.parsed;
    const { stamp, racy } = statStamp(this.fs, file, this.now());
    const key = racy ? `racy:${++this.racy}` : stamp;
    this.fresh.add(file);
    if (known && known.stamp === key) return known.parsed;
    const text = stamp === '-' ? undefined : readTextIfExists(this.fs, file);
    const parsed = text ? parseAttrFile(text, dir, macrosAllowed, this.ignoreCase) : undefined;
    const useful = parsed && (parsed.rules.length > 0 || parsed.macros.length > 0) ? parsed : undefined;
    this.files.set(file, { stamp: key, parsed: useful });
    return useful;
  }

  /** The attribute files that apply to `path`, lowest precedence first. */
  filesFor(path: string): AttrFile[] {
    const out: AttrFile[] = [];
    const push = (f: AttrFile | undefined): void => {
      if (f) out.push(f);
    };
    for (const f of this.lowFiles) push(this.load(f, '', true));
    for (const dir of ['', ...parentDirs(path)])
      push(this.load(`${this.worktree}${dir ? `/${dir}` : ''}/.gitattributes`, dir, dir === ''));
    for (const f of this.highFiles) push(this.load(f, '', true));
    return out;
  }

  /** The values of `wanted` at `path` (unspecified ones absent). */
  of(path: string, wanted: readonly string[]): Map<string, AttrState> {
    const files = this.filesFor(path);
    return files.length === 0 ? new Map() : attributesOf(files, path, wanted);
  }
}

/** The attribute files git reads beside the tree's: [lower precedence, higher precedence]. */
export function baseAttributeFiles(
  env: Readonly<Record<string, string | undefined>>,
  gitdir: string,
  attributesFile: string | undefined,
): [string[], string[]] {
  const low: string[] = [];
  if (!env.GIT_ATTR_NOSYSTEM) low.push('/etc/gitattributes');
  const global = userGitFile(env, attributesFile, 'attributes');
  if (global) low.push(global);
  return [low, [`${gitdir}/info/attributes`]];
}
