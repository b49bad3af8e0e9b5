import { ShadowError } from '../src/errors.js';

/** Where a command stands when it reads a path typed on its command line. */
export interface PathBase {
  /** The directory the command runs in (absolute): the working directory, after `-C`. */
  cwd: string;
  /** The root paths are named from: the working tree's, or a materialized worktree's; null when bare. */
  top: string | null;
  /** Git directories: inside them there is no place in the working tree to be relative to. */
  gitDirs: readonly string[];
}

const OUTSIDE_HINT =
  'name a path inside the working tree: relative to the current directory, or :/<path> from its root';

function segments(path: string): string[] {
  return path.split('/').filter((s) => s !== '' && s !== '.');
}

function isInside(dir: string, parent: string): boolean {
  return dir === parent || dir.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

function invalid(arg: string, message: string, hint: string, data: Record<string, unknown> = {}): ShadowError {
  return new ShadowError('INVALID_PATH', message, { hint, data: { path: arg, ...data } });
}

/**
 * Git's pathspec magic, as far as it can name one path: `:/` and `:(top)`
 * (from the root), `:(literal)` (shadow never globs anyway). `:!`, `:^` and
 * the other long forms select sets of files, which no command here takes.
 */
function parseMagic(arg: string): { top: boolean; rest: string } {
  if (!arg.startsWith(':')) return { top: false, rest: arg };
  const unsupported = (magic: string): ShadowError =>
    invalid(
      arg,
      `"${arg}" uses the pathspec magic "${magic}", which names no single path`,
      'name the path itself; :/<path> names it from the repository root',
      {
        magic,
      },
    );
  if (arg.startsWith(':(')) {
    const end = arg.indexOf(')');
    if (end === -1)
      throw invalid(
        arg,
        `"${arg}" opens pathspec magic with "(" and never closes it`,
        'write :(top)<path>, or :/<path>',
      );
    let top = false;
    for (const word of arg.slice(2, end).split(',')) {
      const w = word.trim();
      if (w === 'top') top = true;
      else if (w !== 'literal') throw unsupported(w);
    }
    return { top, rest: arg.slice(end + 1) };
  }
  // Short magic as git reads it: signature characters up to the first other one; a ':' ends them.
  let i = 1;
  let top = false;
  for (; i < arg.length; i++) {
    const c = arg[i]!;
    if (c === '/') top = true;
    else if (c === '!' || c === '^') throw unsupported(c);
    else break;
  }
  if (arg[i] === ':') i++;
  return { top, rest: arg.slice(i) };
}

/**
 * The repository path a path typed on the command line names: relative to
 * the current directory, as git's pathspecs are (`../x`, `./x`), `:/x` from
 * the root, an absolute path inside the working tree made relative. `''`
 * is the root. Refuses (`INVALID_PATH`) a path that leaves the repository,
 * and a relative one typed inside a git directory, where git's `add` would
 * not run either. Where the current directory is outside the working tree
 * (`GIT_WORK_TREE` elsewhere) or there is none (bare), paths are from the
 * root, as git reads them there.
 *
 * @example repoPath('../x.ts', { cwd: '/r/src/deep', top: '/r', gitDirs: ['/r/.git'] }) // 'src/x.ts'
 */
export function repoPath(arg: string, base: PathBase): string {
  if (arg === '')
    throw invalid(
      arg,
      'an empty path names nothing',
      'write . for the current directory, or :/ for the repository root',
    );
  const { top: fromTop, rest } = parseMagic(arg);
  const outside = (): ShadowError =>
    invalid(arg, `"${arg}" is outside the repository${base.top === null ? '' : ` at ${base.top}`}`, OUTSIDE_HINT, {
      top: base.top,
    });
  const out: string[] = [];
  const walk = (path: string, above: () => void): void => {
    for (const seg of segments(path)) {
      if (seg !== '..') out.push(seg);
      else if (out.pop() === undefined) above();
    }
  };
  if (rest.startsWith('/') && !fromTop) {
    if (base.top === null) {
      throw invalid(
        arg,
        `"${arg}" is an absolute path, and this repository has no working tree to hold it`,
        'give the path from the repository root',
      );
    }
    // `..` above the file system's root stays there, as the kernel has it.
    walk(rest, () => undefined);
    if (!isInside(`/${out.join('/')}`, base.top)) throw outside();
    out.splice(0, segments(base.top).length);
    return out.join('/');
  }
  if (!fromTop && base.top !== null) {
    if (base.gitDirs.some((g) => isInside(base.cwd, g))) {
      const hint =
        'run shadow from the working tree (or -C <dir>), or name the path from the repository root with :/<path>';
      throw invalid(
        arg,
        `"${arg}" is relative to ${base.cwd}, which is inside the git directory, not the working tree`,
        hint,
        { cwd: base.cwd },
      );
    }
    if (isInside(base.cwd, base.top)) out.push(...segments(base.cwd.slice(base.top.length)));
  }
  walk(rest, () => {
    throw outside();
  });
  return out.join('/');
}
